"""One entry point for the learners, with the settings we measured best on StaMinA-like data."""
from __future__ import annotations

import dataclasses
import time

import numpy as np

from .apta import APTA
from .merging import MergeResult, TimeUp, edsm, rpni
from .samples import Sample
from .sat import dfasat
from .score import bcr
from .vote import Vote

ALGORITHMS = ("rpni", "edsm", "sat", "auto")

# Variations of the StaMinA evidence settings that the 'auto' learner weighs by internal cross-validation, in
# the order they are scored (the first is plain 'edsm' and wins ties; when the work budget runs out, the later
# ones are left out).
VARIANTS: tuple[tuple[str, dict], ...] = (
    ("edsm", {}),
    ("log3", {"set_log": 3}),
    ("log6", {"set_log": 6}),
    ("min5", {"min_score": 5}),
    ("min10", {"min_score": 10}),
    ("alive3", {"alive_weight": 3}),
    ("alive0", {"alive_weight": 0}),
    ("nosinks", {"sinks": False}),
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


# Steps (automata/native.cpp's work count) that cross-validation may spend on one problem, all variants and
# folds together; the variants that do not fit are left out, the later ones first. A count, not seconds, so
# the choice is the same on any machine: here it is under 10 s of one core, which with the final run keeps every
# problem of the benchmark and of a generated grid well under a minute.
CV_WORK = 300_000_000


def variant_options(extra: dict) -> dict:
    return {**stamina_options(), **extra}


def cross_validate(sample: Sample, folds: int = 4, seed: int = 0, budget: int = CV_WORK
                   ) -> list[tuple[str, float, int]]:
    """(variant, mean BCR over folds, work) for the variants, in order, whose fold runs fit in the work budget.

    The distinct labelled strings of the sample (the training side only) are dealt into folds after a shuffle
    with seed; each fold is held out once and the rest (with multiplicities) is learned from.
    """
    pairs = sample.distinct()
    order = np.random.default_rng(seed).permutation(len(pairs))
    splits = []
    for f in range(folds):
        held_idx = set(order[f::folds].tolist())
        train = sample.subset([pairs[i] for i in range(len(pairs)) if i not in held_idx])
        held = [pairs[i] for i in sorted(held_idx)]
        splits.append((APTA.build(train), [w for w, _ in held], [lab for _, lab in held]))
    out = []
    left = budget
    for name, extra in VARIANTS:
        opts = variant_options(extra)
        scores, spent = [], 0
        try:
            for apta, words, truth in splits:
                res = edsm(apta, max_work=left, **opts)
                left -= res.work
                spent += res.work
                scores.append(bcr(truth, res.dfa.classify(words)))
        except TimeUp:
            break
        out.append((name, float(np.mean(scores)), spent))
    return out


def learn_auto(sample: Sample, top: int = 1, folds: int = 4) -> MergeResult:
    """EDSM variants weighed per problem by cross-validation on the training sample alone; the best is learned
    on the whole sample (with top > 1, an odd number, the best `top` are learned and vote)."""
    t0 = time.perf_counter()
    apta = APTA.build(sample)
    too_few = len(sample.distinct()) < 2 * folds
    # Stable: ties keep VARIANTS order.
    ranked = [] if too_few else sorted(cross_validate(sample, folds=folds), key=lambda m: -m[1])
    if not ranked:
        res = edsm(apta, **stamina_options())
        note = "too few strings" if too_few else "no variant fit in the work budget: plain edsm"
        return dataclasses.replace(res, algorithm="auto", seconds=time.perf_counter() - t0, note=note)
    extras = dict(VARIANTS)
    chosen = [name for name, _, _ in ranked[:top]]
    if len(chosen) % 2 == 0:
        chosen.pop()
    members, merges = [], 0
    for name in chosen:
        res = edsm(apta, **variant_options(extras[name]))
        members.append(res.dfa)
        merges += res.merges
    model = members[0] if len(members) == 1 else Vote(members)
    note = ("vote of " if len(members) > 1 else "") + ", ".join(chosen) + "; cv " + " ".join(
        f"{n}={s:.3f}" for n, s, _ in ranked)
    return MergeResult(model, "auto", merges, time.perf_counter() - t0, note)


def learn(sample: Sample, algo: str = "edsm", time_limit: float = 20.0, plain: bool = False,
          vote: int = 1) -> MergeResult:
    """Learn a DFA. plain=True runs the textbook learner (labels-only EDSM evidence) without StaMinA tuning;
    vote > 1 makes 'auto' return a vote of its best `vote` variants."""
    sample.check_consistent()
    if algo == "auto":
        return learn_auto(sample, top=vote)
    apta = APTA.build(sample)
    opts = {} if plain else stamina_options()
    if algo == "rpni":
        return rpni(apta)
    if algo == "edsm":
        return edsm(apta, **opts)
    if algo == "sat":
        return dfasat(apta, time_limit=time_limit, **opts)
    raise ValueError(f"unknown algorithm {algo!r}; choose one of {', '.join(ALGORITHMS)}")
