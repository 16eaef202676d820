"""One entry point for the learners, with the settings we measured best on StaMinA-like data."""
from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from .apta import APTA
from .bcr import bcr
from .dfa import DFA
from .merging import MergeResult, TimeUp, edsm, rpni
from .samples import Sample
from .sat import dfasat
from .vote import FEATURES, Vote, fit_combiner, majority, vote_features

ALGORITHMS = ("rpni", "edsm", "sat", "auto")

# The evidence settings the 'auto' vote's members take in turn (the first is plain 'edsm'). On the development
# problems each scores about as well as the others alone (0.797-0.801 mean BCR); three more that scored clearly
# lower (set_log 6, alive_weight 0, no sinks: 0.70-0.77) are left out.
VARIANTS: tuple[tuple[str, dict], ...] = (
    ("edsm", {}),
    ("log3", {"set_log": 3}),
    ("min5", {"min_score": 5}),
    ("min10", {"min_score": 10}),
    ("alive3", {"alive_weight": 3}),
)


def stamina_options() -> dict:
    """Evidence settings for the StaMinA protocol (the same for every alphabet).

    alive_weight: a point of evidence per folded pair that positive strings pass through on both sides.
    sinks: nodes no positive string reaches are not merged and their transitions are left missing (most
    negatives leave the target through a missing transition). set_log: the statistical alive-symbol test, run
    at every folded pair: when positive strings take a symbol from one node and never from the other, and that
    is less likely than exp(-4) (about 2%) had the two nodes been one state, the merge is refused (random walks
    take every edge of a state they pass through often). max_blues: each round weighs only the 20
    best-evidenced blue states, which bounds the work.
    """
    return dict(sinks=True, alive_weight=1, set_log=4, max_blues=20)


def variant_options(extra: dict) -> dict:
    return {**stamina_options(), **extra}


# Steps (automata/native.cpp's work count) the members of one vote may spend together; the members that do not
# fit are left out (then one more, if that leaves an even number). A count, not seconds, so the vote is the
# same on any machine. The largest vote measured (a generated 50% problem) takes 0.75 billion steps.
VOTE_WORK = 1_200_000_000
# A step's cost varies (7 to 120 million a second here: cache and sort work is not counted), so the steps alone
# do not bound the time. No member starts after this many seconds; the slowest vote measured takes 20 s, so
# this only acts on data much larger than StaMinA's, and the note then says so.
VOTE_SECONDS = 45.0
MEMBERS = 15
PART = 0.9
# The vote's acceptance threshold and combiner are fitted by FOLDS-fold cross-validation (calibrate_threshold),
# whose fold votes may spend this many steps together (about 50 s at the slowest step rate measured; the time
# net stops them first); a vote so large that they would not fit (its own work times FOLDS: the fold votes learn
# on less data, but their machines are larger, and they took 3.4 to 5.2 times the vote's work on the real
# problems measured) accepts at the majority. That is the densest data, where the members agree. (600 million
# left a generated 10-letter 12.5% problem at the majority, 0.811, whose combiner scores 0.896 in 12 s.)
FOLDS = 5
CALIBRATION_WORK = 1_000_000_000


def vote_parts(n: int, members: int, part: float, rng: np.random.Generator) -> list[np.ndarray]:
    """Per member, the indices (of n distinct strings) it learns from: the first member all of them, each other
    a random `part` of them. A string is left out of member i only while it is left out of fewer than
    (i + 1) // 2 members so far, so within any odd number of first members a majority learned from every string
    (what keeps the vote consistent with the training sample, even when a budget cuts it short)."""
    out = np.zeros(n, np.int64)
    parts = []
    for i in range(members):
        order = rng.permutation(n)
        may = order[out[order] < (i + 1) // 2]
        left = may[: n - max(1, int(part * n))]
        out[left] += 1
        inside = np.ones(n, bool)
        inside[left] = False
        parts.append(np.flatnonzero(inside))
    return parts


def vote_members(sample: Sample, members: int, part: float, rng: np.random.Generator, budget: int,
                 deadline: float, first_free: bool = True) -> tuple[list[DFA], int, int, str]:
    """The machines of one vote (VARIANTS in turn, on the parts vote_parts draws), as many as the budget of steps
    and the deadline (a perf_counter time no member starts after) allow, cut to an odd number. first_free: the
    first member runs whatever the budget, so there is always a machine. Returns (machines, merges, work, why
    members were left out or '')."""
    pairs = sample.distinct()
    machines, merges, work, left, why = [], 0, 0, budget, ""
    for i, chosen in enumerate(vote_parts(len(pairs), members, part, rng)):
        if (i or not first_free) and time.perf_counter() > deadline:
            why = "time limit"
            break
        apta = APTA.build(sample.subset([pairs[j] for j in chosen]))
        try:
            res = edsm(apta, max_work=None if (i == 0 and first_free) else left,
                       **variant_options(VARIANTS[i % len(VARIANTS)][1]))
        except TimeUp:
            why = "work budget"
            break
        left = max(0, left - res.work)
        work += res.work
        machines.append(res.dfa)
        merges += res.merges
    if len(machines) % 2 == 0 and machines:
        machines.pop()
    return machines, merges, work, why


def calibrate_threshold(sample: Sample, vote: Vote, part: float, seed: int, budget: int, deadline: float,
                        folds: int = FOLDS) -> tuple[int, float, tuple[float, ...] | None, str]:
    """How many of the vote's members must accept a word, chosen by cross-validation on the training sample;
    and a combiner of what the members say of a word, fitted on the same held-out folds.

    The distinct strings are split into `folds`; per fold a vote of as many members as `vote` learns on the other
    folds and counts its accepting members on the held-out fold. The threshold with the best BCR over all folds
    wins (ties: the one nearest the majority), among those that keep `vote` consistent with the sample. Why: on
    sparse data the members reject unseen positive strings far more often than they accept unseen negatives
    (a positive walk that leaves the part of the target the data covered falls off a missing transition), and a
    majority then rejects most positives; how far to lower the bar depends on the problem. The combiner
    (automata/vote.py's fit_combiner) weighs more than the count of members accepting: how many fall off a
    missing transition and how late, and the word's length. Returns (threshold, its cross-validated BCR,
    combiner, ''), or (the majority, nan, None, why) when the budget or the deadline cuts a fold vote.
    """
    n = len(vote.members)
    pairs = sample.distinct()
    order = np.random.default_rng(seed + 1).permutation(len(pairs))
    yes, truth, rows, left = [], [], [], budget
    for f in range(folds):
        held = [pairs[i] for i in order[f::folds]]
        out = set(held)
        machines, _, work, why = vote_members(sample.subset([p for p in pairs if p not in out]), n, part,
                                              np.random.default_rng(seed), left, deadline, first_free=False)
        if len(machines) < n:
            return majority(n), math.nan, None, why
        left -= work
        rows.append(vote_features(machines, [w for w, _ in held]))
        yes.append(np.rint(rows[-1][:, FEATURES.index("accept")] * n))   # the accepting members, counted once
        truth += [lab for _, lab in held]
    votes = np.concatenate(yes)
    labels = np.array([lab for _, lab in pairs])
    own = vote.yes_votes([w for w, _ in pairs])
    fits = [k for k in range(1, n + 1) if np.array_equal(own >= k, labels)]
    rate, _, k = max((bcr(truth, votes >= k), -abs(k - majority(n)), k) for k in fits)
    return k, rate, fit_combiner(np.vstack(rows), np.array(truth, bool)), ""


def learn_auto(sample: Sample, members: int = MEMBERS, part: float = PART, seed: int = 0,
               budget: int = VOTE_WORK, seconds: float = VOTE_SECONDS,
               calibration_budget: int = CALIBRATION_WORK, threshold: int | None = None) -> MergeResult:
    """A vote of EDSM machines: the first learns on all distinct labelled strings, each other on a random part
    (90%) of them (with their multiplicities), and the members take VARIANTS in turn. A word is accepted when
    `threshold` members accept it; None chooses it by cross-validation (calibrate_threshold) when that fits in
    calibration_budget steps, else takes the majority.

    Why: on sparse samples a single EDSM run hangs on a few early merges that a handful of strings decide, so
    machines learned from slightly different data disagree widely (held-out BCR from 0.45 to 0.76 on one
    problem); their vote averages that out. Every member is consistent with its own part, and vote_parts keeps
    every string in a majority of the members, so a majority vote is consistent with the training sample (and the
    calibration only picks thresholds that keep it so). members=1 (or a sample too small to split) is one plain
    run on all of it. The parts and folds come from numpy's default_rng(seed): the same file gives the same vote.
    """
    t0 = time.perf_counter()
    pairs = sample.distinct()
    if members == 1 or len(pairs) < 10:
        res = edsm(APTA.build(sample), **stamina_options())
        return dataclasses.replace(res, algorithm="auto", seconds=time.perf_counter() - t0,
                                   note="" if members == 1 else "too few strings to vote: one machine")
    deadline = t0 + seconds
    machines, merges, work, why = vote_members(sample, members, part, np.random.default_rng(seed), budget, deadline)
    reason = {"time limit": f"time limit of {seconds:g} s", "": "an even number would tie"}
    note = (f"vote of {len(machines)} machines, each but the first on {part:.0%} of the distinct strings"
            + (f" ({members - len(machines)} left out: {reason.get(why, why)})" if len(machines) < members else ""))
    if len(machines) == 1:
        return MergeResult(machines[0], "auto", merges, time.perf_counter() - t0, note, work)
    vote = Vote(machines)
    if threshold is not None:
        vote = Vote(machines, min(threshold, len(machines)))  # a budget may have left fewer members than asked
        note += f"; accepts at {vote.threshold} of {len(machines)}"
    elif len(pairs) < 10 * FOLDS:
        note += "; accepts at a majority: too few strings to cross-validate a threshold"
    elif FOLDS * work > calibration_budget:
        note += "; accepts at a majority: cross-validating a threshold would exceed the work budget"
    else:
        k, rate, combiner, cut = calibrate_threshold(sample, vote, part, seed, calibration_budget, deadline)
        vote = Vote(machines, k)
        note += (f"; accepts at {k} of {len(machines)}: {FOLDS}-fold cross-validated BCR {rate:.3f}" if not cut
                 else f"; accepts at a majority: threshold calibration cut short by the {reason.get(cut, cut)}")
        if combiner is not None:
            vote = Vote(machines, k, combiner)
            wrong = int(np.sum(vote.classify([w for w, _ in pairs]) != np.array([lab for _, lab in pairs])))
            note += (f"; a combiner fitted on the folds decides instead, labelling {wrong} of the {len(pairs)} "
                     f"distinct training strings otherwise" if wrong else "; a combiner fitted on the folds decides")
    return MergeResult(vote, "auto", merges, time.perf_counter() - t0, note, work)


def learn(sample: Sample, algo: str = "edsm", time_limit: float = 20.0, plain: bool = False,
          vote: int = MEMBERS, accept_at: int | None = None) -> MergeResult:
    """Learn a DFA. plain=True runs the textbook learner (labels-only EDSM evidence) without StaMinA tuning;
    vote is the number of machines (odd) in the 'auto' vote, 1 for a single machine, and accept_at how many of
    them must accept a word (None: cross-validated). A string labelled both ways raises ContradictionError from
    APTA.build, which every learner runs on the whole sample."""
    if algo == "auto":
        return learn_auto(sample, members=vote, threshold=accept_at)
    apta = APTA.build(sample)
    opts = {} if plain else stamina_options()
    if algo == "rpni":
        return rpni(apta)
    if algo == "edsm":
        return edsm(apta, **opts)
    if algo == "sat":
        return dfasat(apta, time_limit=time_limit, **opts)
    raise ValueError(f"unknown algorithm {algo!r}; choose one of {', '.join(ALGORITHMS)}")
