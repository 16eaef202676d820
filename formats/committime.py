"""The commit-time sets (`../shared/data/unpack DEST committime`): real commits that wrote whitespace which a
later whitespace-only commit fixed, each replayed as a branch `case-N` of a git bundle per project (`base`,
the project's Java tree before the commit, then `change`, the commit's Java changes), with `cases.jsonl` (one
case per line) and `truth.jsonl` (one slip per line: where the commit wrote it, in the file at the case's
HEAD, and the developer's later fix). The set's README.md tells how it was mined.

Here: the records as frozen dataclasses (`read_set`). A slip's `offset` is the 1-based character offset of
the gap's first character (the CodRep convention; a CRLF is two characters), `line`, `column` .. `end_line`,
`end_column` where it starts and just past it (the next token's first character).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .files import InputError, read_records

CASES_FILE, TRUTH_FILE = "cases.jsonl", "truth.jsonl"
BUNDLE = ".bundle"


@dataclass(frozen=True)
class Case:
    project: str
    branch: str          # case-N: HEAD~1 is the tree before the commit, HEAD the commit's change
    slips: int
    lines_added: int     # Java lines the commit added (numstat)
    subject: str = ""


@dataclass(frozen=True)
class Slip:
    project: str
    branch: str
    path: str            # relative to the case's work tree
    kind: str            # what the later fix did (the first of `kinds`)
    line: int
    column: int
    end_line: int
    end_column: int
    offset: int          # 1-based character offset of the gap's first character
    slipped: str         # the gap's whitespace as the commit wrote it
    fixed: str           # the developer's replacement

    @property
    def case(self) -> tuple[str, str]:
        return self.project, self.branch


@dataclass(frozen=True)
class CommitSet:
    root: Path
    cases: tuple[Case, ...]
    slips: tuple[Slip, ...]
    problems: tuple[str, ...] = ()   # one line for each record that could not be read (left out)

    @property
    def projects(self) -> tuple[str, ...]:
        return tuple(sorted({c.project for c in self.cases}))

    def bundle(self, project: str) -> Path:
        return self.root / f"{project}{BUNDLE}"

    def slips_of(self, case: Case) -> list[Slip]:
        return [s for s in self.slips if s.case == (case.project, case.branch)]


def case_of(r: dict) -> Case:
    return Case(project=str(r["project"]), branch=str(r["branch"]), slips=int(r["slips"]),
                lines_added=int(r["lines_added"]), subject=str(r.get("subject", "")))


def slip_of(r: dict) -> Slip:
    return Slip(project=str(r["project"]), branch=str(r["branch"]), path=str(r["path"]), kind=str(r["kind"]),
                line=int(r["line"]), column=int(r["column"]), end_line=int(r["end_line"]),
                end_column=int(r["end_column"]), offset=int(r["offset"]), slipped=str(r["slipped"]),
                fixed=str(r["fixed"]))


def read_set(folder: str | Path) -> CommitSet:
    """The set in `folder`: its cases (those of a project whose bundle is there) and their slips. A folder
    without cases.jsonl or truth.jsonl is an InputError naming it."""
    root = Path(folder)
    for name in (CASES_FILE, TRUTH_FILE):
        if not (root / name).is_file():
            raise InputError(f"{root}: not a commit-time set (no {name})")
    problems: list[str] = []
    cases = read_records(root / CASES_FILE, case_of, problems)
    slips = read_records(root / TRUTH_FILE, slip_of, problems)
    missing = sorted({c.project for c in cases if not (root / f"{c.project}{BUNDLE}").is_file()})
    problems += [f"{root / (p + BUNDLE)}: no such bundle; its cases left out" for p in missing]
    cases = [c for c in cases if c.project not in missing]
    return CommitSet(root, tuple(cases), tuple(s for s in slips if s.project not in missing), tuple(problems))
