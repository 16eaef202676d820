"""Error analysis for CodRep 2019 rankings: which kinds of edit are not ranked first, and what they cost.

The injected edit of each task is recovered by comparing it with its base file (from `truth.jsonl` when
the folder was made by bin/make-tasks, else voted from the task's near-duplicate copies).
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from lm.codrep2019_clean import base_texts

from .codrep2019 import answer_position, read_answers
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
    truth_file = folder / "truth.jsonl"
    edits: dict[str, Edit | None] = {}
    if truth_file.exists():
        for line in truth_file.read_text().splitlines():
            t = json.loads(line)
            p = str((folder / t["task"]).absolute())
            edits[p] = Edit(t["kind"], "", -1, t["edited"], t["original"], "", "")
    else:
        for p, base in base_texts(folder).items():
            edits[str(p.absolute())] = find_edit(p.read_text(encoding="utf-8", errors="replace"),
                                                  base.decode("utf-8", errors="replace"))
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
