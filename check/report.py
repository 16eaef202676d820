"""What every output format of bin/check shares: its options, the reporter protocol, the gap's span as lines
and columns, the path a format names, and the lines that go to stderr (files that could not be
checked, the summary).

A reporter is made with (out, options); the engine calls `file(checked)` once per file, in order, as files
complete, then `finish(summary)` once. Streaming formats (text, json, github) write per file; sarif and
checkstyle write one document at finish, so an interrupted run leaves no half document.
Whatever the format, stdout carries only the format's output: files that could not be checked and the summary
go to `options.errors` (stderr) as lines a person reads (the signature line is the command's, printed when
the run starts); the machine formats that have a place for them (SARIF's toolExecutionNotifications,
Checkstyle's <exception>, GitHub's ::error) carry them as well.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from parsing.offsets import Lines

from .findings import CheckedFile, Finding, Summary

COMMAND = "check"


@dataclass(frozen=True)
class Options:
    color: bool = False                 # ANSI colours (text)
    source: bool = False                # the source line with a caret under each finding (text)
    root: Path | None = None            # sarif and github name files relative to it (default: the current folder)
    quiet: bool = False                 # no summary line at the end
    errors: TextIO | None = field(default=None, repr=False)   # stderr's stand-in (tests); None: sys.stderr

    @property
    def stderr(self) -> TextIO:
        return self.errors if self.errors is not None else sys.stderr

    def base(self) -> Path:
        return Path(os.path.abspath(self.root if self.root is not None else os.curdir))


class Reporter:
    """One output format. Subclasses write findings in `report(checked)`; `skipped(checked)` and `finish`
    add what a format carries of files that could not be checked and of the run's summary."""

    def __init__(self, out: TextIO, options: Options | None = None):
        self.out = out
        self.options = options if options is not None else Options()

    def file(self, checked: CheckedFile) -> None:
        if checked.error is not None:
            print(error_line(checked), file=self.options.stderr)
            self.skipped(checked)
        else:
            self.report(checked)

    def report(self, checked: CheckedFile) -> None:
        raise NotImplementedError

    def skipped(self, checked: CheckedFile) -> None:
        """A file that could not be checked, in the format's own terms (nothing, by default)."""

    def finish(self, summary: Summary) -> None:
        self.out.flush()
        if not self.options.quiet:   # (the signature line was printed when the run started)
            print(summary_line(summary), file=self.options.stderr)


def error_line(checked: CheckedFile) -> str:
    """`check: warning: PATH: WHY; skipped` (the one CLI convention, unnatural/cli.py and docs/errors.md: an
    input not checked is a warning; the line names its file)."""
    return f"{COMMAND}: warning: {printable(checked.error)}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def summary_line(s: Summary) -> str:
    """`12 files, 3 findings (1 skipped) in 0.8 s`."""
    skipped = f" ({s.skipped} skipped)" if s.skipped else ""
    return f"{_count(s.files, 'file')}, {_count(s.findings, 'finding')}{skipped} in {s.seconds:.1f} s"


def gap_span(lines: Lines, finding: Finding) -> tuple[tuple[int, int], tuple[int, int]]:
    """(line, column) of the gap's first character and just past its last (equal for an empty gap): what a
    fix replaces."""
    return lines.position(finding.start), lines.position(finding.end)


def relative(path: str, base: Path) -> str | None:
    """`path` (as the user named it) relative to `base`, with '/' separators; None when it is not under it."""
    full = Path(os.path.abspath(path))
    try:
        return full.relative_to(base).as_posix()
    except ValueError:
        return None


def printable(text: str) -> str:
    """`text` as it can be written to any terminal or UTF-8 stream: a file name that is not UTF-8 (its bytes
    carried as surrogates) shows them as \\x escapes instead of failing the write."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
