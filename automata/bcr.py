"""The balanced classification rate, StaMinA's metric: what the learners' vote threshold is chosen by and what
`bin/evaluate stamina` reports (evaluation/stamina.py reads the label files and calls this).

With TP, FN, TN, FP counted over the test strings (1 = accepted), sensitivity = TP / (TP + FN),
specificity = TN / (TN + FP), and BCR is their harmonic mean 2 * sensitivity * specificity /
(sensitivity + specificity); a problem is solved when BCR >= 0.99. A rate whose denominator is 0 (no
positive, or no negative, true label) is 0, and so is BCR when both rates are 0 (ASSUMED: the competition's
test sets always had both labels).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

SOLVED_BCR = 0.99


@dataclass(frozen=True)
class Bcr:
    true_positive: int
    false_negative: int
    true_negative: int
    false_positive: int
    sensitivity: float
    specificity: float
    bcr: float

    @property
    def solved(self) -> bool:
        return self.bcr >= SOLVED_BCR


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def balanced_classification_rate(predicted: Sequence[bool], actual: Sequence[bool]) -> Bcr:
    """The counts, rates and BCR of predicted labels against the true ones (of equal length)."""
    if len(predicted) != len(actual):
        raise ValueError(f"{len(predicted)} predicted labels but {len(actual)} true labels")
    tp = sum(1 for p, a in zip(predicted, actual) if p and a)
    fn = sum(1 for p, a in zip(predicted, actual) if not p and a)
    tn = sum(1 for p, a in zip(predicted, actual) if not p and not a)
    fp = sum(1 for p, a in zip(predicted, actual) if p and not a)
    sensitivity = _ratio(tp, tp + fn)
    specificity = _ratio(tn, tn + fp)
    return Bcr(tp, fn, tn, fp, sensitivity, specificity,
               _ratio(2 * sensitivity * specificity, sensitivity + specificity))


def bcr(truth: Sequence[bool], predicted: Sequence[bool]) -> float:
    """The BCR alone, truth first (the order the learners use)."""
    return balanced_classification_rate([bool(p) for p in predicted], [bool(t) for t in truth]).bcr
