"""bin/check's output formats (--format), by name: text for people, json, sarif, checkstyle and github for
machines. check/report.py says what a reporter is and what goes to stderr; one module per format.

    report = reporter("sarif", sys.stdout, Options(root=...))
    for checked in results:      # every file, in order, those that could not be checked included
        report.file(checked)
    report.finish(summary)
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TextIO

from .out_checkstyle import CheckstyleReporter
from .out_github import GithubReporter
from .out_json import JsonReporter
from .out_sarif import SarifReporter
from .out_text import TextReporter
from .report import Options, Reporter

FORMATS: dict[str, type[Reporter]] = {
    "text": TextReporter,
    "json": JsonReporter,
    "sarif": SarifReporter,
    "checkstyle": CheckstyleReporter,
    "github": GithubReporter,
}
DEFAULT_FORMAT = "text"
COLORS = ("auto", "always", "never")


def reporter(name: str, out: TextIO, options: Options | None = None) -> Reporter:
    """The reporter of format `name` writing to `out` (options: from the stream, see `options_for`)."""
    return FORMATS[name](out, options if options is not None else options_for(out))


def options_for(out: TextIO, color: str = "auto", root: Path | None = None, quiet: bool = False,
                errors: TextIO | None = None) -> Options:
    """Options for writing to `out`: colours when it is a terminal (unless NO_COLOR is set or TERM is dumb)
    or --color always; the source line with a caret under each finding when it is a terminal or --color
    always."""
    tty = _isatty(out)
    colored = color == "always" or (color == "auto" and tty and "NO_COLOR" not in os.environ
                                     and os.environ.get("TERM") != "dumb")
    return Options(color=colored, source=tty or color == "always", root=root, quiet=quiet, errors=errors)


def _isatty(out: TextIO) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError, OSError):   # a closed or unusual stream
        return False


def add_arguments(p: argparse.ArgumentParser) -> None:
    """--format NAME and --color WHEN."""
    p.add_argument("--format", choices=list(FORMATS), default=DEFAULT_FORMAT,
                   help="text: one line per finding, with the source line and a caret in a terminal; json: one "
                        "object per finding (JSON Lines); sarif: a SARIF 2.1.0 log with fixes; checkstyle: "
                        "Checkstyle's XML report; github: GitHub Actions annotations (default %(default)s)")
    p.add_argument("--color", choices=COLORS, default="auto",
                   help="colours and source lines in text output: auto (when stdout is a terminal and NO_COLOR "
                        "is not set), always or never (default %(default)s)")
