"""Real slips: how bin/check does on whitespace slips that developers made and fixed (formats/realslips.py),
each project's before files and clean files checked as one folder. The figures are the reference scorer's
(`../shared/data/realslips/realslips.py score`), to the last count:

- a changed gap is **found** when a finding's `gap_offset` is the gap's `offset`; **toward** when also the
  finding's replacement is closer (Levenshtein) to the developer's whitespace than its original was;
  **exact** when the replacement is the developer's whitespace; **line** (lenient) when a finding's `line`
  or `start_line` is on a line the gap touches. Each is a share of the changed gaps.
- files with a finding: before files with any finding; other findings: findings in before files at no
  changed gap (false alarms, or anomalies the developer left), per before file; false findings per 1000
  clean lines: findings in the clean files per 1000 of their lines (the set's `lines`).
- `--fix`: a fixed before file is **exact** when it is the developer's `after`; **closer** / **same** /
  **further** when fewer / as many / more gaps differ from `after` than in the before file (a fix that
  changed the tokens counts in none of the three); each a share of the before files. Clean files changed:
  a share of the clean files.

Inputs are bin/check's JSON findings (one object per line; `path`'s file name names the file) and the files
as --fix left them, one folder per project (`read_outputs`).
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path

from formats.files import InputError, read_text
from formats.realslips import Change, CleanFile, SlipSet, gap_texts, whatever_the_taste


def levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


@dataclass(frozen=True)
class GapCounts:
    """Changed gaps and how many of them each match found."""
    gaps: int = 0
    found: int = 0
    toward: int = 0
    exact: int = 0
    line: int = 0

    def __add__(self, other: GapCounts) -> GapCounts:
        return GapCounts(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def share(self, name: str) -> float:
        return getattr(self, name) / max(self.gaps, 1)


@dataclass(frozen=True)
class Counts:
    """Everything counted on a group of files (a project, or several added up)."""
    gaps: GapCounts = GapCounts()
    kinds: Mapping[str, GapCounts] = field(default_factory=dict)   # primary kind -> its gaps' counts
    files: int = 0                 # before files
    files_found: int = 0           # ... with any finding
    other: int = 0                 # findings in before files at no changed gap
    clean_files: int = 0
    clean_lines: int = 0
    clean_findings: int = 0
    clean_files_flagged: int = 0
    fixed: int = 0                 # before files whose --fix output was scored
    fix_exact: int = 0
    fix_closer: int = 0
    fix_same: int = 0
    fix_further: int = 0
    fix_broken: int = 0            # the fix changed the tokens (or the file no longer parses)
    fix_touched: int = 0
    clean_fixed: int = 0           # clean files whose --fix output was scored
    clean_changed: int = 0

    def __add__(self, other: Counts) -> Counts:
        kinds = dict(self.kinds)
        for k, c in other.kinds.items():
            kinds[k] = kinds.get(k, GapCounts()) + c
        rest = {f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)
                if f.name not in ("gaps", "kinds")}
        return Counts(self.gaps + other.gaps, kinds, **rest)

    def group(self, taste: bool) -> GapCounts:
        """The gaps of the kinds that are slips whatever the taste (True), or of the rest (False)."""
        return sum((c for k, c in self.kinds.items() if whatever_the_taste(k) == taste), GapCounts())

    # the figures, as the reference scorer divides (an empty denominator counts as 1)
    def per_file(self, name: str) -> float:
        return getattr(self, name) / max(self.files, 1)

    @property
    def false_per_kloc(self) -> float:
        return self.clean_findings * 1000 / max(self.clean_lines, 1)

    @property
    def clean_changed_share(self) -> float:
        return self.clean_changed / max(self.clean_files, 1)


def total(counts: Iterable[Counts]) -> Counts:
    return sum(counts, Counts())


def figures(c: Counts) -> dict[str, float]:
    """The figures of a group of files (each a share; found per kind as `kind <name>`)."""
    g = c.gaps
    return {"found": g.share("found"), "toward": g.share("toward"), "exact": g.share("exact"),
            "line": g.share("line"), "files with a finding": c.per_file("files_found"),
            "other per file": c.per_file("other"), "false per KLOC": c.false_per_kloc,
            "fix exact": c.per_file("fix_exact"), "fix closer": c.per_file("fix_closer"),
            "fix same": c.per_file("fix_same"), "fix further": c.per_file("fix_further"),
            "clean changed": c.clean_changed_share, **{f"kind {k}": v.share("found") for k, v in c.kinds.items()}}


def reference_figures(s: Mapping[str, int]) -> dict[str, float]:
    """The same figures from the counts the reference scorer writes (its --out, one project or ALL)."""
    g, files = max(s.get("gaps", 0), 1), max(s.get("files", 0), 1)
    return {"found": s.get("gap_found", 0) / g, "toward": s.get("gap_toward", 0) / g,
            "exact": s.get("gap_exact", 0) / g, "line": s.get("gap_line", 0) / g,
            "files with a finding": s.get("file_found", 0) / files,
            "other per file": s.get("other_findings", 0) / files,
            "false per KLOC": s.get("clean_findings", 0) * 1000 / max(s.get("clean_lines", 1), 1),
            "fix exact": s.get("fix_exact", 0) / files, "fix closer": s.get("fix_closer", 0) / files,
            "fix same": s.get("fix_same", 0) / files, "fix further": s.get("fix_further", 0) / files,
            "clean changed": s.get("clean_changed_by_fix", 0) / max(s.get("clean_files", 0), 1),
            **{f"kind {k[5:]}": s.get("kindfound_" + k[5:], 0) / s[k] for k in s if k.startswith("kind_") and s[k]}}


def disagreements(per: Mapping[str, Counts], reference: Mapping[str, Mapping[str, int]]) -> list[str]:
    """Where the figures of every project and of all of them (the reference's ALL) differ from the reference
    scorer's at 3 decimals: one line each (none: they agree)."""
    out = []
    for name, c in [*per.items(), ("ALL", total(per.values()))]:
        ours, theirs = figures(c), reference_figures(reference.get(name, {}))
        for key in sorted(ours.keys() | theirs.keys()):
            a, b = ours.get(key), theirs.get(key)
            if a is None or b is None or round(a, 3) != round(b, 3):
                out.append(f"{name}: {key}: {a if a is None else round(a, 3)} here, "
                           f"{b if b is None else round(b, 3)} by the reference scorer")
    return out


@dataclass(frozen=True)
class Outputs:
    """What bin/check left for one project: its findings, and the files as --fix wrote them (None: not run)."""
    findings: tuple[dict, ...]
    fixed: Mapping[str, str] | None = None      # file name -> its text after --fix
    problems: tuple[str, ...] = ()


def _by_file(findings: Iterable[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for f in findings:
        out.setdefault(os.path.basename(f["path"]), []).append(f)
    return out


def score_gap(gap, at: list[dict], on_line: bool) -> GapCounts:
    return GapCounts(1, bool(at),
                     any(levenshtein(f["replacement"], gap.new) < levenshtein(f["original"], gap.new) for f in at),
                     any(f["replacement"] == gap.new for f in at), on_line)


def score_project(changes: Iterable[Change], clean: Iterable[CleanFile], outputs: Outputs,
                  clean_texts: Mapping[str, str] | None = None) -> Counts:
    """The counts of one project's files (`clean_texts`: the clean files as the set has them, for --fix)."""
    by_file = _by_file(outputs.findings)
    gaps, kinds = GapCounts(), {}
    n = dict.fromkeys((f.name for f in fields(Counts) if f.name not in ("gaps", "kinds")), 0)
    for change in changes:
        fs = by_file.get(change.file, [])
        n["files"] += 1
        n["files_found"] += bool(fs)
        offsets = {g.offset for g in change.gaps}
        for g in change.gaps:
            at = [f for f in fs if f["gap_offset"] == g.offset]
            on_line = any(f["line"] in g.lines or f["start_line"] in g.lines for f in fs)
            c = score_gap(g, at, on_line)
            gaps += c
            kinds[g.kind] = kinds.get(g.kind, GapCounts()) + c
        n["other"] += sum(f["gap_offset"] not in offsets for f in fs)
        if outputs.fixed is not None and change.file in outputs.fixed:
            _score_fix(change, outputs.fixed[change.file], n)
    for c in clean:
        fs = by_file.get(c.file, [])
        n["clean_files"] += 1
        n["clean_lines"] += c.lines
        n["clean_findings"] += len(fs)
        n["clean_files_flagged"] += bool(fs)
        if outputs.fixed is not None and clean_texts is not None and c.file in outputs.fixed and c.file in clean_texts:
            n["clean_fixed"] += 1
            n["clean_changed"] += outputs.fixed[c.file] != clean_texts[c.file]
    return Counts(gaps, kinds, **n)


def _score_fix(change: Change, fixed: str, n: dict) -> None:
    n["fixed"] += 1
    n["fix_exact"] += fixed == change.after
    got, want = gap_texts(fixed), gap_texts(change.after)
    if got is None or want is None or got[1] != want[1]:
        n["fix_broken"] += 1
        return
    differ = sum(a != b for a, b in zip(got[0], want[0]))
    before = len(change.gaps)
    n["fix_closer" if differ < before else "fix_same" if differ == before else "fix_further"] += 1
    n["fix_touched"] += fixed != change.before


MATCHES = ("found", "toward", "exact")


def labels(changes: Iterable[Change], clean: Iterable[CleanFile], findings: Iterable[dict],
           match: str = "toward") -> list[tuple[dict, bool, bool]]:
    """Each finding of one project's files with whether it is right (`match`: at a changed gap; and its repair
    toward the developer's whitespace; or equal to it) and whether it is in a clean file: what a calibration on
    real slips counts. Findings in files the set does not list are left out."""
    if match not in MATCHES:
        raise ValueError(f"unknown match {match!r} (known: {', '.join(MATCHES)})")
    gaps = {c.file: {g.offset: g for g in c.gaps} for c in changes}
    clean_files = {c.file for c in clean}
    out = []
    for f in findings:
        name = os.path.basename(f["path"])
        if name in clean_files:
            out.append((f, False, True))
        elif name in gaps:
            g = gaps[name].get(f["gap_offset"])
            right = g is not None and (match == "found" or f["replacement"] == g.new or match == "toward" and
                                       levenshtein(f["replacement"], g.new) < levenshtein(f["original"], g.new))
            out.append((f, right, False))
    return out


def read_findings(path: Path) -> tuple[list[dict], list[str]]:
    """bin/check's JSON findings in `path` (lines that are not a finding object are problems, left out; a
    missing file: no findings)."""
    if not path.exists():
        return [], []
    findings, problems = [], []
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        if not line.strip().startswith("{"):
            continue
        try:
            f = json.loads(line)
            if not isinstance(f, dict) or not {"path", "gap_offset", "line", "start_line", "original",
                                                  "replacement"} <= f.keys():
                raise ValueError
        except (ValueError, RecursionError):
            problems.append(f"{path}:{number}: not a finding of bin/check --format json; left out")
            continue
        findings.append(f)
    return findings, problems


def read_outputs(findings: Path, fixed: Path | None) -> Outputs:
    """One project's outputs: its findings file and the folder of its files after --fix (None: not run)."""
    found, problems = read_findings(findings)
    texts = None
    if fixed is not None and fixed.is_dir():
        texts = {}
        for p in sorted(fixed.glob("*.java")):
            try:
                texts[p.name] = read_text(p, newline="")
            except InputError as e:
                problems.append(str(e))
    return Outputs(tuple(found), texts, tuple(problems))


def clean_texts(slips: SlipSet, project: str) -> dict[str, str]:
    """The clean files of `project` as the set has them."""
    out = {}
    for c in slips.clean:
        if c.project == project and (slips.folder(project) / c.file).is_file():
            out[c.file] = read_text(slips.folder(project) / c.file, newline="")
    return out


def score_set(slips: SlipSet, findings_dir: Path, fixed_dir: Path | None = None) -> tuple[dict[str, Counts], list[str]]:
    """Every project's counts from stored outputs laid out as the reference scorer reads them
    (`findings_dir/<project>.jsonl`, `fixed_dir/<project>/*.java`), and the problems met."""
    out, problems = {}, []
    for p in slips.projects:
        outputs = read_outputs(findings_dir / f"{p}.jsonl", fixed_dir / p if fixed_dir else None)
        problems += outputs.problems
        out[p] = score_project([c for c in slips.changes if c.project == p], [c for c in slips.clean if c.project == p],
                               outputs, clean_texts(slips, p) if fixed_dir else None)
    return out, problems
