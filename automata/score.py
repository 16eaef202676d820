"""BCR from the project's StaMinA metric (evaluation/stamina.py), in the argument order used here."""
from __future__ import annotations

from typing import Sequence

from evaluation.stamina import SOLVED_BCR, balanced_classification_rate

__all__ = ["bcr", "SOLVED_BCR"]


def bcr(truth: Sequence[bool], predicted: Sequence[bool]) -> float:
    """Harmonic balanced classification rate of predicted labels against the true ones."""
    return balanced_classification_rate([bool(p) for p in predicted], [bool(t) for t in truth]).bcr
