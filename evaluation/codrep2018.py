"""CodRep 2018 (which line was replaced): average line error and Recall@1.

Semantics of the official `evaluate.py` of KTH/CodRep-competition:
- a dataset folder holds `Tasks/N.txt` (line 1: the new line, line 2: empty, then the program) and
  `Solutions/N.txt` (the 1-based number of the replaced program line), read by formats/codrep2018.py;
- a prediction line is `<path of Tasks/N.txt> <line> [<line> ...]`; only the first line number counts;
- the loss of a task is tanh(|predicted - correct|), 1 for a task without a prediction;
- `Average line error` is the mean loss over all tasks of the dataset folder(s); `Recall@1` the share of
  tasks whose predicted line is the correct one.
Additions of ours: a line number outside 1..(lines of the program) is an error naming the task file; the
same task twice is an error; relative and absolute paths name the same task; the sum is `math.fsum`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping

from evaluation.common import InputError, safe_ratio
from formats.files import normalize_path


@dataclass(frozen=True)
class LineScores:
    total_files: int
    average_line_error: float
    recall_at_1: float


def parse_predictions(lines: Iterable[str], source: str = "<stdin>") -> dict[str, int]:
    """`<path> <line> [<line> ...]` lines -> {absolute path: first line number}; blank lines skipped."""
    predictions: dict[str, int] = {}
    first_line: dict[str, int] = {}
    for line_number, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields:
            continue
        path = normalize_path(fields[0])
        if path in predictions:
            raise InputError(
                f"{source}:{line_number}: second prediction for {fields[0]} (first on line {first_line[path]})"
            )
        if len(fields) < 2:
            raise InputError(f"{source}:{line_number}: no line number after {fields[0]}")
        try:
            predictions[path] = int(fields[1])
        except ValueError:
            raise InputError(f"{source}:{line_number}: line number is not an integer: {fields[1]!r}") from None
        first_line[path] = line_number
    return predictions


def check_line_ranges(predictions: Mapping[str, int], line_counts: Mapping[str, int]) -> None:
    """Raise InputError naming the task file when a predicted line is outside 1..(lines of its program)."""
    for path, line in predictions.items():
        count = line_counts[path]
        if not 1 <= line <= count:
            raise InputError(f"{path}: predicted line {line} is outside 1..{count} (lines of the program)")


def line_loss(predicted: int | None, correct: int) -> float:
    """tanh(|predicted - correct|): 0 when right, close to 1 when far; 1 when there is no prediction."""
    if predicted is None:
        return 1.0
    return math.tanh(abs(predicted - correct))


def score_line_predictions(solutions: Mapping[str, int], predictions: Mapping[str, int]) -> LineScores:
    """Average line error and Recall@1 over every task of `solutions`; a prediction outside them is an error."""
    predicted = {normalize_path(path): line for path, line in predictions.items()}
    outside = [path for path in predicted if path not in solutions]
    if outside:
        raise InputError(f"{outside[0]}: predicted but not a task of the evaluated datasets ({len(outside)} such)")
    total = len(solutions)
    losses = [line_loss(predicted.get(path), correct) for path, correct in solutions.items()]
    hits = sum(1 for path, correct in solutions.items() if predicted.get(path) == correct)
    return LineScores(
        total_files=total,
        average_line_error=safe_ratio(math.fsum(losses), total),
        recall_at_1=safe_ratio(hits, total),
    )
