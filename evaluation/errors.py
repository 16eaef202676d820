"""Error analysis for CodRep 2019 rankings: which kinds of edit are not ranked first, and what they cost.

The injected edit of each task is recovered by comparing it with its base file (from `truth.jsonl` when
the folder was made by bin/make-tasks, else voted from the task's near-duplicate copies).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from formats.codrep2019 import original_texts, read_answers

from .codrep2019 import answer_position
from .edits import Edit, describe, find_edit


@dataclass(frozen=True)
class TaskOutcome:
    path: str
    position: int | None    # 1-based position of the answer in the ranking, None when absent
    edit: Edit | None

    @property
    def reciprocal_rank(self) -> float:
        return 1.0 / self.position if self.position else 0.0


def outcomes(folder: Path, predictions: dict[str, list[int]]) -> list[TaskOutcome]:
    answers = read_answers(str(folder))
    edits = {p: find_edit(Path(p).read_text(encoding="utf-8", errors="replace"), original)
             for p, original in original_texts(folder).items()}
    return [TaskOutcome(p, answer_position(predictions.get(p, ()), a), edits.get(p))
            for p, a in sorted(answers.items())]


def group_failures(results: list[TaskOutcome], key) -> list[tuple[str, int, float]]:
    """(group, tasks not ranked first, MRR lost) per group, costliest first."""
    count, lost = defaultdict(int), defaultdict(float)
    for r in results:
        if r.position == 1:
            continue
        k = key(r)
        count[k] += 1
        lost[k] += 1.0 - r.reciprocal_rank
    total = len(results) or 1
    return sorted(((k, count[k], lost[k] / total) for k in count), key=lambda x: -x[2])


def by_kind(r: TaskOutcome) -> str:
    return describe(r.edit) if r.edit else "unrecovered"


def by_context(r: TaskOutcome) -> str:
    if not r.edit:
        return "unrecovered"
    return f"{r.edit.before!r} _ {r.edit.after!r}: {r.edit.original!r} -> {r.edit.observed!r}"[:90]


def by_tokens(r: TaskOutcome) -> str:
    if not r.edit:
        return "unrecovered"
    return f"{r.edit.before[:20]!r} _ {r.edit.after[:20]!r}"


@dataclass(frozen=True)
class Exactness:
    first: int      # tasks whose top finding is the answer
    exact: int      # ... and whose top repair gives back the original file exactly
    checked: int    # ... of those whose original is known (truth.jsonl, or voted from >= 3 copies)


def repair_exactness(folder: Path, explanations: list[dict]) -> Exactness:
    """How often the top suggested repair is exactly the change that removes the injected error."""
    from parsing.java import tokenize

    answers = read_answers(str(folder))
    top = {}
    for e in explanations:
        top.setdefault(e["path"], e)   # the first finding of each file is its best
    known = original_texts(folder)
    first = exact = checked = 0
    for path, answer in answers.items():
        e = top.get(path)
        if e is None or e["offset"] != answer:
            continue
        first += 1
        original = known.get(path)
        text = Path(path).read_text(encoding="utf-8")
        if original is None or original == text:
            continue    # no independent original to compare with
        checked += 1
        stream = tokenize(text)
        lo = stream.gap_start(e["gap"])
        repaired = text[:lo] + e["repaired"] + text[lo + len(e["observed"]):]
        exact += repaired == original
    return Exactness(first, exact, checked)
