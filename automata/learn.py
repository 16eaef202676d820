"""One entry point for the learners, with the settings we measured best on StaMinA-like data."""
from __future__ import annotations

from .apta import APTA
from .merging import MergeResult, edsm, rpni
from .samples import Sample
from .sat import dfasat

ALGORITHMS = ("rpni", "edsm", "sat")


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


def learn(sample: Sample, algo: str = "edsm", time_limit: float = 20.0, plain: bool = False) -> MergeResult:
    """Learn a DFA. plain=True runs the textbook learner (labels-only EDSM evidence) without StaMinA tuning."""
    sample.check_consistent()
    apta = APTA.build(sample)
    opts = {} if plain else stamina_options(sample.alphabet)
    if algo == "rpni":
        return rpni(apta)
    if algo == "edsm":
        return edsm(apta, **opts)
    if algo == "sat":
        return dfasat(apta, time_limit=time_limit, **opts)
    raise ValueError(f"unknown algorithm {algo!r}; choose one of {', '.join(ALGORITHMS)}")
