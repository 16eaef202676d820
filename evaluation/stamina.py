"""StaMinA (state-machine inference competition): the balanced classification rate of a test-set labelling
(the metric itself is automata/bcr.py's, which the learners use too).

Predicted labels are read as the competition's submissions were written: a string of `0`/`1`, one per test
string; whitespace (so also one label per line) is ignored. True labels are read in that form too, or from a
labelled sample file: Abbadingo (`count alphabet` header, then `label length symbols...`) or the `+`/`-`
lines of the adl files.
"""
from __future__ import annotations

from typing import Sequence

from automata import bcr
from automata.bcr import SOLVED_BCR, Bcr
from evaluation.common import InputError

__all__ = ["SOLVED_BCR", "Bcr", "LABEL_FORMATS", "balanced_classification_rate", "parse_labels",
           "parse_abbadingo_labels", "parse_signed_labels"]


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
    """automata/bcr.py's metric, a length mismatch being bad input."""
    if len(predicted) != len(actual):
        raise InputError(f"{len(predicted)} predicted labels but {len(actual)} true labels")
    return bcr.balanced_classification_rate(predicted, actual)
