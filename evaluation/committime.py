"""Scoring a checker on the commit-time set (formats/committime.py) as its reference scorer does
(`committime.py score`, beside the set in the shared data): a slip is **found** when a finding of the same file
is on the slip's start line with its column from the gap's first character to the one just after it (a gap
over several lines: a finding on any line it spans); **false** findings are those on lines the change added
or modified that match no slip of the case, per 1000 added Java lines. `summary` gives the reference's
figures under its names and roundings, so that `disagreements` compares them key by key.

Beyond the reference: `--fix` **exact**, the slips whose gap the checker's `--fix` left as the developer's
later fix wrote it (`fix other`: changed, but otherwise), found by `gap_after_fix`.
"""
from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from formats.committime import CommitSet, Slip

JAVA_SPACE = frozenset(" \t\f\r\n")   # what a fix may write (JLS 3.6)


@dataclass(frozen=True)
class CaseRun:
    """One case as the checker left it: its exit status, time, the change's lines, findings and, per slip
    (`slip_key`), the slip's gap after `--fix` (absent: not known)."""
    project: str
    branch: str
    rc: int
    seconds: float
    added_lines: int
    changed_lines: Mapping[str, tuple[tuple[int, int], ...]]   # path -> (first, last) ranges the change wrote
    findings: tuple[Mapping, ...]                              # path (work tree relative), line, column, ...
    fixed: Mapping[str, str] = field(default_factory=dict)

    def record(self) -> dict:
        """The case as a line of the reference's findings file (which ignores `fixed`)."""
        return {"project": self.project, "branch": self.branch, "rc": self.rc, "seconds": self.seconds,
                "added_lines": self.added_lines, "changed_lines": {p: [list(r) for r in rs]
                                                                   for p, rs in self.changed_lines.items()},
                "findings": [dict(f) for f in self.findings], "fixed": dict(self.fixed)}


def slip_key(slip: Slip) -> str:
    return f"{slip.path}:{slip.offset}"


def matches(f: Mapping, s: Slip) -> bool:
    """A finding `f` is on slip `s` (the reference's rule)."""
    if f["path"] != s.path:
        return False
    if s.line == s.end_line:
        return f["line"] == s.line and s.column <= f["column"] <= s.end_column
    return s.line <= f["line"] <= s.end_line


def on_changed(f: Mapping, lines: Mapping[str, Iterable]) -> bool:
    return any(a <= f["line"] <= b for a, b in lines.get(f["path"], ()))


@dataclass
class Counts:
    """The counts of a group of cases (a project, all of them); added up as cases are scored."""
    cases: int = 0
    slips: int = 0
    found: int = 0
    cases_found: int = 0
    findings: int = 0
    false: int = 0       # on the change's lines, matching no slip
    other: int = 0       # elsewhere, matching no slip
    added: int = 0
    errors: int = 0      # exit statuses other than 0 and 1
    seconds: float = 0.0
    fix_exact: int = 0
    fix_other: int = 0
    kinds: Counter = field(default_factory=Counter)
    kinds_found: Counter = field(default_factory=Counter)


def _rate(a: float, b: float) -> float:
    return a / b if b else 0.0


def summary(c: Counts) -> dict:
    """The reference's figures of a group, under its names and roundings."""
    return {"cases": c.cases, "slips": c.slips, "found": c.found, "found_rate": round(_rate(c.found, c.slips), 3),
            "cases_with_find": c.cases_found, "findings": c.findings, "false_on_changed_lines": c.false,
            "other_unmatched": c.other, "added_lines": c.added,
            "false_per_1000_added": round(1000 * _rate(c.false, c.added), 3),
            "findings_per_case": round(_rate(c.findings, c.cases), 3), "checker_errors": c.errors}


@dataclass(frozen=True)
class Score:
    all: Counts
    projects: Mapping[str, Counts]
    seconds: tuple[float, ...]
    not_run: int

    def reference_view(self) -> dict:
        """What the reference scorer's --json holds of these figures."""
        return {"all": summary(self.all),
                "kinds": {k: {"slips": self.all.kinds[k], "found": self.all.kinds_found[k]}
                          for k in sorted(self.all.kinds)},
                "projects": {p: summary(c) for p, c in self.projects.items()},
                "seconds_per_case": {"mean": round(statistics.mean(self.seconds), 2) if self.seconds else 0.0,
                                     "median": round(statistics.median(self.seconds), 2) if self.seconds else 0.0},
                "cases_not_run": self.not_run}


def score(commits: CommitSet, runs: Mapping[tuple[str, str], CaseRun]) -> Score:
    """Every case of the set scored from its run (a case without one is counted as not run)."""
    total, per = Counts(), {p: Counts() for p in commits.projects}
    seconds, not_run = [], 0
    for case in commits.cases:
        run = runs.get((case.project, case.branch))
        if run is None:
            not_run += 1
            continue
        groups = (total, per[case.project])
        matched: set[int] = set()
        found_any = False
        for s in commits.slips_of(case):
            hit = [i for i, f in enumerate(run.findings) if matches(f, s)]
            matched.update(hit)
            after = run.fixed.get(slip_key(s))
            for c in groups:
                c.slips += 1
                c.found += bool(hit)
                c.kinds[s.kind] += 1
                c.kinds_found[s.kind] += bool(hit)
                c.fix_exact += after == s.fixed
                c.fix_other += after is not None and after not in (s.fixed, s.slipped)
            found_any = found_any or bool(hit)
        unmatched = [f for i, f in enumerate(run.findings) if i not in matched]
        false = sum(on_changed(f, run.changed_lines) for f in unmatched)
        for c in groups:
            c.cases += 1
            c.cases_found += found_any
            c.findings += len(run.findings)
            c.false += false
            c.other += len(unmatched) - false
            c.added += run.added_lines
            c.errors += run.rc not in (0, 1)
            c.seconds += run.seconds
        seconds.append(run.seconds)
    return Score(total, per, tuple(seconds), not_run)


def disagreements(ours: Mapping, reference: Mapping) -> list[str]:
    """Where `Score.reference_view()` differs from the reference scorer's --json at 3 decimals, every figure
    of ours compared (the seconds aside: they are measured, not scored): one line each, none when they agree."""
    out = []

    def compare(where: str, a, b) -> None:
        if isinstance(a, Mapping):
            for key in sorted(a):
                compare(f"{where}.{key}" if where else key, a[key], b.get(key) if isinstance(b, Mapping) else None)
        elif b is None or isinstance(b, Mapping) or round(float(a), 3) != round(float(b), 3):
            out.append(f"{where}: {a} here, {b} by the reference scorer")

    compare("", {k: v for k, v in ours.items() if k != "seconds_per_case"}, reference)
    return out


def gap_after_fix(before: str, after: str, offset: int, length: int) -> str | None:
    """The whitespace of the gap at 1-based character `offset` (`length` characters, between two tokens: a
    character other than whitespace before it, or the start, and after it, or the end) of `before`, as it is
    in `after`, which differs from `before` in whitespace only (what --fix writes). None when `after` is not
    `before`'s text with other whitespace, or the gap is not between two such characters."""
    start, end = offset - 1, offset - 1 + length
    if not (0 <= start <= end <= len(before)) or any(ch not in JAVA_SPACE for ch in before[start:end]):
        return None
    if (start and before[start - 1] in JAVA_SPACE) or (end < len(before) and before[end] in JAVA_SPACE):
        return None
    solid = [ch for ch in before if ch not in JAVA_SPACE]
    if [ch for ch in after if ch not in JAVA_SPACE] != solid:
        return None
    n = sum(ch not in JAVA_SPACE for ch in before[:start])   # the characters of tokens before the gap
    i = seen = 0
    while seen < n:   # just past the n-th of them in `after`
        seen += after[i] not in JAVA_SPACE
        i += 1
    j = i
    while j < len(after) and after[j] in JAVA_SPACE:
        j += 1
    return after[i:j]
