"""Checkstyle (Debian's `checkstyle`, 8.36) as the judge of injected edits: which violations an edit adds.

Checkstyle is run in batches, one JVM over hundreds of files (start-up is most of its cost on one file),
with XML output parsed here. An edit's violations are *new* when the original file has no violation of
the same check with the same message on the line the edited line came from (lines mapped through an
inserted or deleted line break), and they lie on the edited line or next to it. Messages are compared
without column numbers, which an edit earlier on the line shifts.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from parsing.style import Indentation

CONFIG_DIR = Path(__file__).resolve().parent / "checkstyle"
SHIPPED = {"whitespace": CONFIG_DIR / "whitespace.xml"}   # --checkstyle NAME
BATCH = 400                     # files per JVM
_COLUMN = re.compile(r"\bcolumn \d+")


class CheckstyleError(RuntimeError):
    """Checkstyle missing, failing, or a configuration it cannot load; the message is one line."""


@dataclass(frozen=True)
class Violation:
    line: int
    check: str       # the check's simple name ('WhitespaceAround')
    message: str

    @property
    def key(self) -> tuple[str, str]:
        return self.check, _COLUMN.sub("column", self.message)

    def describe(self) -> str:
        return f"{self.message} [{self.check}]"


def config_path(name_or_path: str) -> Path:
    """A shipped configuration's name, or a path to one."""
    if name_or_path in SHIPPED:
        return SHIPPED[name_or_path]
    path = Path(name_or_path)
    if not path.is_file():
        known = ", ".join(SHIPPED)
        raise CheckstyleError(f"{name_or_path}: no such Checkstyle configuration (shipped: {known})")
    return path


def properties(indentation: Indentation) -> dict[str, str]:
    """The shipped configuration's properties for a project indented by `indentation`."""
    tabs = indentation.unit == "\t"
    return {"basicOffset": str(indentation.width), "tabWidth": str(indentation.width),
            "tabSeverity": "ignore" if tabs else "error"}


def executable() -> str:
    found = shutil.which("checkstyle")
    if not found:
        raise CheckstyleError("checkstyle not found (Debian package 'checkstyle'; run 'make setup')")
    return found


class Checkstyle:
    def __init__(self, config: Path, props: dict[str, str] | None = None):
        self.config = Path(config)
        self.props = dict(props or {})
        self.command = executable()

    @property
    def label(self) -> str:
        shown = ",".join(f"{k}={v}" for k, v in sorted(self.props.items()))
        return f"{self.config.stem}({shown})" if shown else self.config.stem

    def validate(self) -> None:
        """Fail early, with one line, on a configuration Checkstyle cannot load."""
        with tempfile.TemporaryDirectory(prefix="unnatural-cs-") as tmp:
            probe = Path(tmp) / "Probe.java"
            probe.write_text("class Probe {\n}\n")
            self.check([probe])

    def check(self, files: list[Path]) -> dict[Path, list[Violation] | None]:
        """Violations per file (None for a file Checkstyle could not parse), in batches of BATCH files."""
        out: dict[Path, list[Violation] | None] = {}
        with tempfile.TemporaryDirectory(prefix="unnatural-cs-") as tmp:
            props = Path(tmp) / "config.properties"
            props.write_text("".join(f"{k}={v}\n" for k, v in self.props.items()))
            for lo in range(0, len(files), BATCH):
                out.update(self._run(files[lo:lo + BATCH], props))
        return out

    def _run(self, files: list[Path], props: Path) -> dict[Path, list[Violation] | None]:
        args = [self.command, "-c", str(self.config), "-p", str(props), "-f", "xml", *map(str, files)]
        try:
            proc = subprocess.run(args, capture_output=True, text=True, env={**os.environ, "LC_ALL": "C.UTF-8"})
        except OSError as e:
            raise CheckstyleError(f"checkstyle could not run ({e.strerror})") from None
        start = proc.stdout.find("<?xml")
        if start < 0:   # no report at all: the configuration or the tool failed
            raise CheckstyleError(f"checkstyle failed on {self.config}: {_reason(proc.stderr + proc.stdout)}")
        try:
            root = ET.fromstring(proc.stdout[start:])
        except ET.ParseError as e:
            raise CheckstyleError(f"checkstyle wrote a report that is not XML ({e})") from None
        by_name = {os.path.abspath(f): f for f in files}
        out: dict[Path, list[Violation] | None] = {f: [] for f in files}
        for node in root.iter("file"):
            path = by_name.get(os.path.abspath(node.get("name", "")))
            if path is None:
                continue
            found: list[Violation] | None = []
            for err in node.iter("error"):
                check = err.get("source", "").rsplit(".", 1)[-1].removesuffix("Check")
                if check == "Checker":   # an exception while parsing the file
                    found = None
                    break
                found.append(Violation(int(err.get("line", "0")), check, err.get("message", "")))
            out[path] = found
        return out


def _reason(text: str) -> str:
    """The most specific line of a Java stack trace: the last 'Caused by' or exception message."""
    lines = [l.strip() for l in text.splitlines() if "Exception" in l and not l.strip().startswith("at ")]
    if not lines:
        rest = [l.strip() for l in text.splitlines() if l.strip()]
        return rest[0] if rest else "no output"
    last = lines[-1].removeprefix("Caused by: ")
    return last.split("Exception: ", 1)[-1]


def original_lines(line: int, edited_line: int, lines_added: int) -> tuple[int, ...]:
    """The original file's line(s) that line `line` of the edited file came from, for an edit on
    `edited_line` (the line of its answer) that added (+1) or removed (-1) a line break or neither."""
    if lines_added > 0:    # the inserted newline ends edited_line; the next line was its rest
        return (line,) if line <= edited_line else (line - 1,)
    if lines_added < 0:    # edited_line joins two original lines
        if line < edited_line:
            return (line,)
        return (line, line + 1) if line == edited_line else (line + 1,)
    return (line,)


def new_violations(original: list[Violation], edited: list[Violation], edited_line: int,
                   lines_added: int) -> list[Violation]:
    """The violations of the edited file on the edited line or next to it that the original file does not
    have on the line they came from."""
    before = {(v.line, v.key) for v in original}
    out = []
    for v in edited:
        if abs(v.line - edited_line) > 1:
            continue
        if not any((o, v.key) in before for o in original_lines(v.line, edited_line, lines_added)):
            out.append(v)
    return out
