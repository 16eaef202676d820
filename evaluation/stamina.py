"""StaMinA (state-machine inference competition): the balanced classification rate of a test-set labelling.

As the competition defines it: with TP, FN, TN, FP counted over the test strings (1 = accepted),
sensitivity = TP / (TP + FN), specificity = TN / (TN + FP), and BCR is their harmonic mean
2 * sensitivity * specificity / (sensitivity + specificity); a problem is solved when BCR >= 0.99.
A rate whose denominator is 0 (no positive, or no negative, true label) is 0, and so is BCR when both
rates are 0 (ASSUMED: the competition's test sets always had both labels).

Predicted labels are read as the competition's submissions were written: a string of `0`/`1`, one per test
string; whitespace (so also one label per line) is ignored. True labels are read in that form too, or from a
labelled sample file: Abbadingo (`count alphabet` header, then `label length symbols...`) or the `+`/`-`
lines of the adl files.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from evaluation.common import InputError, safe_ratio

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


def parse_labels(text: str, source: str) -> tuple[bool, ...]:
    """`0`/`1` characters, whitespace ignored; anything else raises InputError naming the source."""
    labels = []
    line, column = 1, 0
    for char in text:
        column += 1
        if char == "\n":
            line, column = line + 1, 0
        elif char in "01":
            labels.append(char == "1")
        elif not char.isspace():
            raise InputError(f"{source}:{line}:{column}: label must be 0 or 1, not {char!r}")
    return tuple(labels)


def parse_abbadingo_labels(text: str, source: str) -> tuple[bool, ...]:
    """The labels of an Abbadingo file: a `count alphabet` header, then `label length symbols...` lines."""
    lines = [(number, line.split()) for number, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines or len(lines[0][1]) != 2 or not all(field.isdigit() for field in lines[0][1]):
        raise InputError(f"{source}:1: not an Abbadingo header `count alphabet`")
    count = int(lines[0][1][0])
    labels = []
    for number, fields in lines[1:]:
        if fields[0] not in ("0", "1"):
            raise InputError(f"{source}:{number}: label must be 0 or 1, not {fields[0]!r}")
        labels.append(fields[0] == "1")
    if len(labels) != count:
        raise InputError(f"{source}: header announces {count} strings but {len(labels)} follow")
    return tuple(labels)


def parse_signed_labels(text: str, source: str) -> tuple[bool, ...]:
    """The labels of an adl sample file: each line starts with `+` (accepted) or `-` (rejected)."""
    labels = []
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if fields[0] not in ("+", "-"):
            raise InputError(f"{source}:{number}: label must be + or -, not {fields[0]!r}")
        labels.append(fields[0] == "+")
    return tuple(labels)


LABEL_FORMATS = {"01": parse_labels, "abbadingo": parse_abbadingo_labels, "signs": parse_signed_labels}


def balanced_classification_rate(predicted: Sequence[bool], actual: Sequence[bool]) -> Bcr:
    if len(predicted) != len(actual):
        raise InputError(f"{len(predicted)} predicted labels but {len(actual)} true labels")
    tp = sum(1 for p, a in zip(predicted, actual) if p and a)
    fn = sum(1 for p, a in zip(predicted, actual) if not p and a)
    tn = sum(1 for p, a in zip(predicted, actual) if not p and not a)
    fp = sum(1 for p, a in zip(predicted, actual) if p and not a)
    sensitivity = safe_ratio(tp, tp + fn)
    specificity = safe_ratio(tn, tn + fp)
    bcr = safe_ratio(2 * sensitivity * specificity, sensitivity + specificity)
    return Bcr(tp, fn, tn, fp, sensitivity, specificity, bcr)
