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

# Variations of the StaMinA evidence settings that the 'auto' learner weighs by internal cross-validation,
# in the order it tries them (the first is plain 'edsm'; later ones are dropped when the time budget runs out).
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


def variant_options(alphabet: int, extra: dict) -> dict:
    return {**stamina_options(alphabet), **extra}


@dataclasses.dataclass(frozen=True)
class Selection:
    """What the 'auto' learner measured: mean fold BCR per variant it had time for, best first."""

    scores: tuple[tuple[str, float], ...]
    chosen: tuple[str, ...]
    folds: int


def cross_validate(sample: Sample, folds: int = 4, budget: float = 30.0, seed: int = 0
                   ) -> tuple[list[tuple[str, float, float]], int]:
    """(variant, mean BCR over folds, seconds per fold) for each variant whose folds finished within budget.

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
    deadline = time.perf_counter() + budget
    out = []
    for name, extra in VARIANTS:
        opts = variant_options(sample.alphabet, extra)
        scores = []
        t0 = time.perf_counter()
        try:
            for apta, words, truth in splits:
                dfa = edsm(apta, deadline=deadline, **opts).dfa
                scores.append(bcr(truth, dfa.classify(words)))
        except TimeUp:
            break
        out.append((name, float(np.mean(scores)), (time.perf_counter() - t0) / folds))
    return out, folds


def learn_auto(sample: Sample, top: int = 3, folds: int = 4, budget: float = 30.0,
               total: float = 50.0) -> MergeResult:
    """EDSM variants weighed per problem by cross-validation on the training sample alone; the best `top`
    (an odd number) are learned on the whole sample and vote. When not even the plain variant's folds fit in
    the budget (large samples, where plain EDSM is already strong), this is plain EDSM."""
    t0 = time.perf_counter()
    apta = APTA.build(sample)
    if len(sample.distinct()) < 2 * folds:
        res = edsm(apta, **stamina_options(sample.alphabet))
        return dataclasses.replace(res, algorithm="auto", seconds=time.perf_counter() - t0, note="too few strings")
    measured, folds = cross_validate(sample, folds=folds, budget=budget)
    if not measured:
        res = edsm(apta, **stamina_options(sample.alphabet))
        return dataclasses.replace(res, algorithm="auto", seconds=time.perf_counter() - t0,
                                   note="no time for cross-validation: plain edsm")
    ranked = sorted(measured, key=lambda m: -m[1])  # stable: ties keep VARIANTS order
    extras = dict(VARIANTS)
    members, chosen, merges = [], [], 0
    for name, _, per_fold in ranked[:top]:
        # A full run costs about as much as a fold's (folds - 1)/folds of the data; keep the total in bounds.
        if members and time.perf_counter() - t0 + 1.5 * per_fold > total:
            break
        res = edsm(apta, **variant_options(sample.alphabet, extras[name]))
        members.append(res.dfa)
        chosen.append(name)
        merges += res.merges
    if len(members) % 2 == 0:
        members.pop()
        chosen.pop()
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
