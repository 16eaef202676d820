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
    ("alive3", {"alive_weight": 3}),
    ("set10", {"set_min": 10}),
    ("min5", {"min_score": 5}),
    ("min10", {"min_score": 10}),
    ("set30", {"set_min": 30}),
    ("alive0", {"alive_weight": 0}),
    ("nosinks", {"sinks": False}),
)


def stamina_options(alphabet: int) -> dict:
    """Evidence settings for the StaMinA protocol.

    alive_weight: a point of evidence per folded pair that positive strings pass through on both sides.
    sinks: nodes no positive string reaches are not merged and their transitions are left missing (most
    negatives leave the target through a missing transition). set_min: two states that positive walks went
    through at least this often must show the same alive outgoing symbols (every symbol of the target state
    shows up after that many visits); with two letters most states use both, so the test says little there.
    max_blues: each round weighs only the 20 best-evidenced blue states, which keeps every problem of the
    grid well under a minute.
    """
    if alphabet <= 2:
        return dict(sinks=True, alive_weight=1, max_blues=20)
    return dict(sinks=True, alive_weight=1, set_min=20, max_blues=20)


# Steps (automata/native.cpp's work count) that cross-validation may spend on one problem, all variants and
# folds together; the variants that do not fit are left out, the later ones first. A count, not seconds, so
# the choice is the same on any machine: here it is up to about 30 s of one core, which with the three final runs
# keeps every problem of the benchmark and of a generated grid under a minute.
CV_WORK = 300_000_000


def variant_options(alphabet: int, extra: dict) -> dict:
    return {**stamina_options(alphabet), **extra}


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
        opts = variant_options(sample.alphabet, extra)
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


def learn_auto(sample: Sample, top: int = 3, folds: int = 4) -> MergeResult:
    """EDSM variants weighed per problem by cross-validation on the training sample alone; the best `top`
    (an odd number) are learned on the whole sample and vote."""
    t0 = time.perf_counter()
    apta = APTA.build(sample)
    too_few = len(sample.distinct()) < 2 * folds
    # Stable: ties keep VARIANTS order.
    ranked = [] if too_few else sorted(cross_validate(sample, folds=folds), key=lambda m: -m[1])
    if not ranked:
        res = edsm(apta, **stamina_options(sample.alphabet))
        note = "too few strings" if too_few else "no variant fit in the work budget: plain edsm"
        return dataclasses.replace(res, algorithm="auto", seconds=time.perf_counter() - t0, note=note)
    extras = dict(VARIANTS)
    chosen = [name for name, _, _ in ranked[:top]]
    if len(chosen) % 2 == 0:
        chosen.pop()
    members, merges = [], 0
    for name in chosen:
        res = edsm(apta, **variant_options(sample.alphabet, extras[name]))
        members.append(res.dfa)
        merges += res.merges
    model = members[0] if len(members) == 1 else Vote(members)
    note = ("vote of " if len(members) > 1 else "") + ", ".join(chosen) + "; cv " + " ".join(
        f"{n}={s:.3f}" for n, s, _ in ranked)
    return MergeResult(model, "auto", merges, time.perf_counter() - t0, note)


def learn(sample: Sample, algo: str = "edsm", time_limit: float = 20.0, plain: bool = False) -> MergeResult:
    """Learn a DFA. plain=True runs the textbook learner (labels-only EDSM evidence) without StaMinA tuning."""
    sample.check_consistent()
    if algo == "auto":
        return learn_auto(sample)
    apta = APTA.build(sample)
    opts = {} if plain else stamina_options(sample.alphabet)
    if algo == "rpni":
        return rpni(apta)
    if algo == "edsm":
        return edsm(apta, **opts)
    if algo == "sat":
        return dfasat(apta, time_limit=time_limit, **opts)
    raise ValueError(f"unknown algorithm {algo!r}; choose one of {', '.join(ALGORITHMS)}")
