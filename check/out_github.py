"""`--format github`: GitHub Actions workflow commands, which the runner turns into annotations on the
pull request's files:

    ::warning file=src/A.java,line=3,col=14,endColumn=15,title=space-before::unexpected space before ';' (confidence 0.93)

Paths are relative to the root: the one given, else GITHUB_WORKSPACE (the checked-out repository, in a
workflow), else the current folder. Escaping as the runner's toolkit does it: in the message %, CR and LF; in
properties also ':' and ','.
A file that could not be checked is a ::warning annotation on that file.
"""  # noqa: E501 (the example's line is the format's own, unwrapped)
from __future__ import annotations

import os
from pathlib import Path

from parsing.offsets import Lines

from .findings import CheckedFile, Finding
from .report import COMMAND, Reporter, gap_span, printable, relative

_DATA = {"%": "%25", "\r": "%0D", "\n": "%0A"}
_PROPERTY = {**_DATA, ":": "%3A", ",": "%2C"}


def escape_data(text: str) -> str:
    return "".join(_DATA.get(c, c) for c in text)


def escape_property(text: str) -> str:
    return "".join(_PROPERTY.get(c, c) for c in text)


def command(kind: str, properties: dict[str, object], message: str) -> str:
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    return f"::{kind} {props}::{escape_data(message)}"


class GithubReporter(Reporter):
    def __init__(self, out, options=None):
        super().__init__(out, options)
        workspace = os.environ.get("GITHUB_WORKSPACE")
        self.base = Path(os.path.abspath(workspace)) if workspace and self.options.root is None else self.options.base()

    def path(self, path: str) -> str:
        return printable(relative(path, self.base) or path)

    def report(self, checked: CheckedFile) -> None:
        if checked.findings:
            lines = Lines(checked.text)
            for f in checked.findings:
                self.out.write(self.annotation(f, lines) + "\n")

    def annotation(self, f: Finding, lines: Lines) -> str:
        _, (end_line, end_column) = gap_span(lines, f)
        where: dict[str, object] = {"file": self.path(f.path), "line": f.line}
        if end_line == f.line:   # columns only mean something on one line
            where["col"] = f.column
            if end_column > f.column:
                where["endColumn"] = end_column
        else:
            where["endLine"] = end_line
        where["title"] = f.rule
        return command("warning", where, f"{f.message} (confidence {f.confidence:.2f})")

    def skipped(self, checked: CheckedFile) -> None:
        self.out.write(command("warning", {"file": self.path(checked.path), "title": COMMAND},
                               f"not checked: {checked.error}") + "\n")
