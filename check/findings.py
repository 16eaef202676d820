"""What bin/check reports: one finding per suspicious gap, with where it is, what rule it breaks and the
whitespace that would fix it. Every output format (check/output.py) reads only this."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Finding:
    path: str            # as the user named it (relative to the current folder when under it)
    line: int            # 1-based, as editors count lines (LF, CRLF and CR each end one)
    column: int          # 1-based character column of `offset` on that line
    offset: int          # 1-based character offset in the file (the CodRep convention)
    rule: str            # rule id (check/rules.py): space-before, indent, blank-lines, ...
    message: str         # what a person reads: "unexpected space before ';'"
    confidence: float    # the precision measured at this score on the development sets (0..1)
    score: float         # the ranker's log10 gain of the repair (higher: more surprising)
    start: int           # 0-based character index where the gap starts
    observed: str        # the gap's whitespace as it is
    repaired: str        # the gap's whitespace after the fix
    # what the engine weighed beside the score, by name (check/engine.py's evidence_fields: plain values, which
    # --format json writes for the benchmark's calibration; no output format reads them otherwise)
    evidence: dict[str, float | int | bool | str] = field(default_factory=dict, hash=False)

    @property
    def end(self) -> int:
        """0-based character index just past the gap as it is."""
        return self.start + len(self.observed)


@dataclass(frozen=True)
class CheckedFile:
    """One file's outcome: its findings (best first), or why it could not be checked."""
    path: str
    text: str | None              # None: not checked (see error)
    findings: tuple[Finding, ...] = ()
    error: str | None = None      # one line naming the problem
    syntax_error: int | None = None   # the line of its first syntax error (checked, but its findings may be wrong)


@dataclass(frozen=True)
class Summary:
    files: int          # files checked
    findings: int
    skipped: int        # files that could not be checked
    lines: int          # lines checked
    seconds: float
    signature: str      # model, scheme, order, learning, threshold, versions
