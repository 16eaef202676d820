"""Detection: how often findings are right on files with one injected error, and how often they cry wolf
on clean files, as a repository is checked (most files clean, each in the project's own style).

Inputs: task folders (bin/make-tasks: N.txt with out.txt's answers, truth.jsonl naming each task's project)
with their clean files (OUTDIR/clean/, listed in clean.jsonl), and findings, one per line, each with a
`path`, an `offset` and a `score` (`bin/rank --explain --json`, `bin/check --format json`).

- AUC: file level. A file's score is its top finding's score (0 when it has none); the AUC is the chance
  that a task file scores above a clean file, ties counted half (Mann-Whitney).
- At a threshold T, every finding scoring >= T counts, in task and clean files alike. A finding is right
  when it is in a task file at that task's answer. precision = right / findings; recall = tasks with a right
  finding / tasks; false per KLOC = findings in clean files per 1000 lines of clean code (lines counted as
  newline characters).
"""
from __future__ import annotations

import json
import math
import os
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from formats.codrep2019 import CLEAN_FOLDER, CLEAN_INDEX, TRUTH_FILE, read_answers, read_jsonl
from formats.files import InputError, normalize_path

from .common import safe_ratio

ALL = "(all)"


@dataclass(frozen=True)
class Finding:
    path: str        # normalized (absolute)
    offset: int
    score: float


@dataclass(frozen=True)
class TaskFile:
    path: str
    answer: int
    project: str


@dataclass(frozen=True)
class CleanFile:
    path: str
    lines: int       # newline characters
    project: str


@dataclass(frozen=True)
class DetectionScores:
    tasks: int
    clean: int
    clean_lines: int
    auc: float
    threshold: float
    findings: int
    right: int
    precision: float
    recall: float
    false_per_kloc: float


# --- reading ------------------------------------------------------------------------------------------

def read_task_folder(folder: str) -> list[TaskFile]:
    """The tasks of a bin/make-tasks folder, with the project truth.jsonl names (else the folder's name)."""
    answers = read_answers(folder)
    projects = {normalize_path(os.path.join(folder, r["task"])): str(r["project"])
                for r in read_jsonl(Path(folder) / TRUTH_FILE) if r.get("project") and "task" in r}
    default = os.path.basename(os.path.normpath(folder))
    return [TaskFile(path, answer, projects.get(path, default)) for path, answer in sorted(answers.items())]


def read_clean_folder(folder: str, default_project: str | None = None) -> list[CleanFile]:
    """Every file under `folder` (recursively; hidden entries skipped) with its lines and its project: as
    the clean.jsonl beside the folder names it (bin/make-tasks), else `default_project`, else the
    folder's name."""
    parent = os.path.dirname(os.path.normpath(folder))
    projects = {normalize_path(os.path.join(parent, r["file"])): str(r["project"])
                for r in read_jsonl(Path(parent) / CLEAN_INDEX) if r.get("project") and "file" in r}
    default = default_project or os.path.basename(os.path.normpath(folder))
    out = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if name.startswith("."):
                continue
            path = normalize_path(os.path.join(root, name))
            try:
                with open(path, "rb") as f:
                    lines = f.read().count(b"\n")
            except OSError as error:
                raise InputError(f"{path}: cannot read ({error.strerror})") from None
            out.append(CleanFile(path, lines, projects.get(path, default)))
    if not out:
        raise InputError(f"{folder}: no clean files")
    return out


def read_sets(task_folders: Sequence[str], clean_folders: Sequence[str] | None = None
              ) -> tuple[list[TaskFile], list[CleanFile]]:
    """The tasks of `task_folders` and the clean files of `clean_folders` (default: each task folder's
    clean/ where it has one)."""
    tasks, clean = [], []
    defaults = {}
    for folder in task_folders:
        found = read_task_folder(folder)
        tasks += found
        projects = {t.project for t in found}
        defaults[normalize_path(os.path.join(folder, CLEAN_FOLDER))] = projects.pop() if len(projects) == 1 else None
    if clean_folders is None:
        clean_folders = [os.path.join(f, CLEAN_FOLDER) for f in task_folders
                         if os.path.isdir(os.path.join(f, CLEAN_FOLDER))]
    for folder in clean_folders:
        clean += read_clean_folder(folder, defaults.get(normalize_path(folder)))
    return tasks, clean


def parse_findings(lines: Iterable[str], source: str = "<stdin>") -> list[Finding]:
    """One JSON object per line with path, offset and score; blank lines skipped."""
    out = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        record = _json(line, source, number)
        try:
            out.append(Finding(normalize_path(str(record["path"])), int(record["offset"]), float(record["score"])))
        except (KeyError, TypeError, ValueError):
            raise InputError(f"{source}:{number}: a finding needs path, offset and a numeric score") from None
        if not math.isfinite(out[-1].score):
            raise InputError(f"{source}:{number}: score is not a finite number")
    return out


def _json(line: str, source, number: int) -> dict:
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, RecursionError):
        raise InputError(f"{source}:{number}: not a JSON object") from None
    if not isinstance(record, dict):
        raise InputError(f"{source}:{number}: not a JSON object")
    return record


# --- metrics (pure) -----------------------------------------------------------------------------------

def check_paths(findings: Sequence[Finding], tasks: Sequence[TaskFile], clean: Sequence[CleanFile],
                source: str = "<stdin>") -> None:
    known = {t.path for t in tasks} | {c.path for c in clean}
    for number, f in enumerate(findings, start=1):
        if f.path not in known:
            raise InputError(f"{source}: finding {number} is for {f.path}, which is neither a task nor a clean file")


def top_scores(findings: Sequence[Finding]) -> dict[str, float]:
    top: dict[str, float] = {}
    for f in findings:
        if f.score > top.get(f.path, -math.inf):
            top[f.path] = f.score
    return top


def auc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """P(positive > negative) + P(equal) / 2 over all pairs; 0 when either side is empty."""
    if not positives or not negatives:
        return 0.0
    ranked = sorted(negatives)
    wins = sum(bisect_left(ranked, p) + (bisect_right(ranked, p) - bisect_left(ranked, p)) / 2 for p in positives)
    return wins / (len(positives) * len(negatives))


def detection_scores(findings: Sequence[Finding], tasks: Sequence[TaskFile], clean: Sequence[CleanFile],
                     threshold: float = -math.inf) -> DetectionScores:
    top = top_scores(findings)
    answers = {t.path: t.answer for t in tasks}
    clean_paths = {c.path for c in clean}
    counted = [f for f in findings if f.score >= threshold and (f.path in answers or f.path in clean_paths)]
    right = sum(1 for f in counted if answers.get(f.path) == f.offset)
    found = {f.path for f in counted if answers.get(f.path) == f.offset}
    false_clean = sum(1 for f in counted if f.path in clean_paths)
    lines = sum(c.lines for c in clean)
    return DetectionScores(
        tasks=len(tasks), clean=len(clean), clean_lines=lines,
        auc=auc([top.get(t.path, 0.0) for t in tasks], [top.get(c.path, 0.0) for c in clean]),
        threshold=threshold, findings=len(counted), right=right,
        precision=safe_ratio(right, len(counted)), recall=safe_ratio(len(found), len(tasks)),
        false_per_kloc=safe_ratio(1000.0 * false_clean, lines))


def by_project(findings: Sequence[Finding], tasks: Sequence[TaskFile], clean: Sequence[CleanFile],
               threshold: float = -math.inf) -> dict[str, DetectionScores]:
    """Overall (key ALL) first, then each project in name order."""
    out = {ALL: detection_scores(findings, tasks, clean, threshold)}
    projects = sorted({t.project for t in tasks} | {c.project for c in clean})
    if len(projects) > 1:
        by_path: dict[str, list[Finding]] = defaultdict(list)
        for f in findings:
            by_path[f.path].append(f)
        for p in projects:
            ts = [t for t in tasks if t.project == p]
            cs = [c for c in clean if c.project == p]
            fs = [f for x in ts + cs for f in by_path.get(x.path, ())]
            out[p] = detection_scores(fs, ts, cs, threshold)
    return out


@dataclass(frozen=True)
class Point:
    threshold: float
    findings: int
    precision: float
    recall: float
    false_per_kloc: float


def sweep(findings: Sequence[Finding], tasks: Sequence[TaskFile], clean: Sequence[CleanFile]) -> list[Point]:
    """Precision, recall and false alarms at every distinct finding score as the threshold, highest first
    (the precision/recall curve), in one pass over the findings sorted by score."""
    answers = {t.path: t.answer for t in tasks}
    clean_paths = {c.path for c in clean}
    lines = sum(c.lines for c in clean)
    counted = sorted((f for f in findings if f.path in answers or f.path in clean_paths), key=lambda f: -f.score)
    points: list[Point] = []
    n = right = false_clean = 0
    found: set[str] = set()
    for i, f in enumerate(counted):
        n += 1
        if answers.get(f.path) == f.offset:
            right += 1
            found.add(f.path)
        false_clean += f.path in clean_paths
        if i + 1 == len(counted) or counted[i + 1].score != f.score:
            points.append(Point(f.score, n, safe_ratio(right, n), safe_ratio(len(found), len(tasks)),
                                safe_ratio(1000.0 * false_clean, lines)))
    return points
