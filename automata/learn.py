"""One entry point for the learners, with the settings we measured best on StaMinA-like data."""
from __future__ import annotations

import dataclasses
import time

import numpy as np

from .apta import APTA
from .merging import MergeResult, TimeUp, edsm, rpni
from .samples import Sample
from .sat import dfasat
from .vote import Vote

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


def learn_auto(sample: Sample, members: int = MEMBERS, part: float = PART, seed: int = 0,
               budget: int = VOTE_WORK, seconds: float = VOTE_SECONDS) -> MergeResult:
    """A majority vote of EDSM machines: the first learns on all distinct labelled strings, each other on a
    random part (90%) of them (with their multiplicities), and the members take VARIANTS in turn.

    Why: on sparse samples a single EDSM run hangs on a few early merges that a handful of strings decide, so
    machines learned from slightly different data disagree widely (held-out BCR from 0.45 to 0.76 on one
    problem); their vote averages that out. Every member is consistent with its own part, and vote_parts keeps
    every string in a majority of the members, so the vote is consistent with the training sample. members=1
    (or a sample too small to split) is one plain run on all of it. The parts come from numpy's
    default_rng(seed): the same file gives the same vote.
    """
    t0 = time.perf_counter()
    pairs = sample.distinct()
    if members == 1 or len(pairs) < 10:
        res = edsm(APTA.build(sample), **stamina_options())
        return dataclasses.replace(res, algorithm="auto", seconds=time.perf_counter() - t0,
                                   note="" if members == 1 else "too few strings to vote: one machine")
    machines, merges, work, left = [], 0, 0, budget
    why = "work budget"
    for i, chosen in enumerate(vote_parts(len(pairs), members, part, np.random.default_rng(seed))):
        if i and time.perf_counter() - t0 > seconds:
            why = f"time limit of {seconds:g} s"
            break
        apta = APTA.build(sample.subset([pairs[j] for j in chosen]))
        try:
            # The first member always finishes, so there is a machine whatever the budget.
            res = edsm(apta, max_work=None if i == 0 else left, **variant_options(VARIANTS[i % len(VARIANTS)][1]))
        except TimeUp:
            break
        left = max(0, left - res.work)
        work += res.work
        machines.append(res.dfa)
        merges += res.merges
    if len(machines) % 2 == 0:
        machines.pop()
    note = (f"vote of {len(machines)} machines, each but the first on {part:.0%} of the distinct strings"
            + (f" ({members - len(machines)} left out: {why})" if len(machines) < members else ""))
    model = machines[0] if len(machines) == 1 else Vote(machines)
    return MergeResult(model, "auto", merges, time.perf_counter() - t0, note, work)


def learn(sample: Sample, algo: str = "edsm", time_limit: float = 20.0, plain: bool = False,
          vote: int = MEMBERS) -> MergeResult:
    """Learn a DFA. plain=True runs the textbook learner (labels-only EDSM evidence) without StaMinA tuning;
    vote is the number of machines (odd) in the 'auto' vote, 1 for a single machine. A string labelled both ways
    raises ContradictionError from APTA.build, which every learner runs on the whole sample."""
    if algo == "auto":
        return learn_auto(sample, members=vote)
    apta = APTA.build(sample)
    opts = {} if plain else stamina_options()
    if algo == "rpni":
        return rpni(apta)
    if algo == "edsm":
        return edsm(apta, **opts)
    if algo == "sat":
        return dfasat(apta, time_limit=time_limit, **opts)
    raise ValueError(f"unknown algorithm {algo!r}; choose one of {', '.join(ALGORITHMS)}")
