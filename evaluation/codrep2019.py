"""CodRep 2019 (formatting-error offsets): MRR and Recall@k of ranked character offsets.

Semantics of the official `Baseline/evaluate.py` of ASSERT-KTH/codrep-2019:
- a task folder holds `N.txt` files and `out.txt`, whose line N+1 is the answer (a character offset) of `N.txt`
  (read by formats/codrep2019.py);
- a prediction line is `<path> <offset1> <offset2> ...`, best first;
- the reciprocal rank of a task is 1 / (position of the first occurrence of the answer in its line), 0 when
  the answer is absent; a task without a prediction line scores 0;
- MRR is the mean over all tasks of the dataset folder(s), not over the predicted ones.
Additions of ours: the same task twice is an error (the official script silently kept one); relative and
absolute paths name the same task; Recall@k is the share of tasks whose answer is among the first k offsets.
The sum is `math.fsum`, so it does not depend on the order of the tasks (the official script's plain `+=`
in directory order can differ from it in the last digit only).

One MRR for the whole project (bin/evaluate, bin/compare-orders, bin/analyze-errors).
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from evaluation.common import InputError, safe_ratio
from formats.files import normalize_path

DEFAULT_KS = (1, 5, 10)


@dataclass(frozen=True)
class RankingScores:
    """The numbers of one evaluation: the task count, MRR, and Recall@k for each k asked."""

    total_files: int
    mrr: float
    recall: tuple[tuple[int, float], ...]  # (k, Recall@k), in the order asked

    def recall_at(self, k: int) -> float:
        return dict(self.recall)[k]


def parse_predictions(lines: Iterable[str], source: str = "<stdin>") -> dict[str, list[int]]:
    """`<path> <off1> <off2> ...` lines -> {absolute path: ranking}, in input order; blank lines skipped.

    A path may hold spaces: the offsets are the line's trailing integers, read from the right, and what is
    left is the path when it names a file. A path predicted twice, or a line with more than a path and
    integers, raises InputError naming `source` and line.
    """
    predictions: dict[str, list[int]] = {}
    first_line: dict[str, int] = {}
    for line_number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        name, ranking = split_prediction(line)
        if " " in name and not os.path.exists(name):   # a path with spaces is taken as one when it is a file
            raise InputError(f"{source}:{line_number}: offsets must be integers: {line.rstrip()!r}")
        path = normalize_path(name)
        if path in predictions:
            raise InputError(
                f"{source}:{line_number}: second prediction for {name} (first on line {first_line[path]})"
            )
        predictions[path] = ranking
        first_line[path] = line_number
    return predictions


def split_prediction(line: str) -> tuple[str, list[int]]:
    """A prediction line's path (spaces and all) and its offsets (the trailing integers)."""
    path, offsets = _PREDICTION.fullmatch(line.strip()).groups()
    return path, [int(f) for f in offsets.split()]


_PREDICTION = re.compile(r"(\S.*?)((?:\s+[+-]?\d+)*)\s*", re.DOTALL)


def answer_position(ranking: Sequence[int], answer: int) -> int | None:
    """1-based position of the first occurrence of `answer` in `ranking`, None when absent."""
    for position, offset in enumerate(ranking, start=1):
        if offset == answer:
            return position
    return None


def reciprocal_rank(ranking: Sequence[int], answer: int) -> float:
    """1 / (position of the first occurrence of the answer), 0.0 when the answer is not in the ranking."""
    position = answer_position(ranking, answer)
    return 1.0 / position if position is not None else 0.0


def score_rankings(
    answers: Mapping[str, int],
    predictions: Mapping[str, Sequence[int]],
    ks: Sequence[int] = DEFAULT_KS,
) -> RankingScores:
    """MRR and Recall@k over every task of `answers`; an unpredicted task scores 0.

    A prediction for a path that is not a task of `answers` raises InputError: it would otherwise be
    silently ignored, and a typo in a folder name would look like a bad ranker.
    """
    rankings = {normalize_path(path): ranking for path, ranking in predictions.items()}
    outside = [path for path in rankings if path not in answers]
    if outside:
        raise InputError(f"{outside[0]}: predicted but not a task of the evaluated datasets ({len(outside)} such)")
    positions = [answer_position(rankings.get(path, ()), answer) for path, answer in answers.items()]
    total = len(positions)
    mrr = safe_ratio(math.fsum(1.0 / p for p in positions if p is not None), total)
    recall = tuple((k, safe_ratio(sum(1 for p in positions if p is not None and p <= k), total)) for k in ks)
    return RankingScores(total_files=total, mrr=mrr, recall=recall)
