"""CodRep 2018 task files: `Tasks/N.txt` is the new line, a blank line, then the Java file.

Program lines are split on '\\n' exactly as the official evaluator counts them (a final newline ends the
last line rather than starting another), so line k of `Task.lines` is answer k (1-based) of `Solutions/`.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

_TASK_NAME = re.compile(r"^(\d+)\.txt$")


class TaskError(ValueError):
    """A task file that cannot be ranked; the message is one line naming the file."""


@dataclass(frozen=True)
class Task:
    path: str                 # absolute path of the task file
    new_line: str             # the new line, without its line end (CodRep gives it stripped)
    lines: tuple[str, ...]    # the program's lines, without '\n' (a '\r' of CRLF files is kept)


def parse_task(data: bytes, path: str = "<task>") -> Task:
    """Bytes of a task file -> Task; TaskError on a missing blank separator, empty program or bad bytes."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TaskError(f"{path}: not UTF-8 ({e.reason} at byte {e.start})") from None
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    if len(parts) < 2 or parts[1].strip() != "":
        raise TaskError(f"{path}: no blank line after the new line (expected: new line, blank line, program)")
    lines = parts[2:]
    if not any(line.strip() for line in lines):
        raise TaskError(f"{path}: empty program after the blank line")
    new_line = parts[0].rstrip("\r")
    if not new_line.strip():
        raise TaskError(f"{path}: the new line (line 1) is blank")
    return Task(os.path.abspath(path), new_line, tuple(lines))


def read_task(path: str | Path) -> Task:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise TaskError(f"{path}: cannot read ({e.strerror})") from None
    return parse_task(data, str(path))


def task_number(path: str | Path) -> int:
    m = _TASK_NAME.match(Path(path).name)
    return int(m.group(1)) if m else -1


def task_paths(arg: str | Path) -> list[str]:
    """A PATH argument -> task files: a data set folder (its Tasks/), a folder of task files, or a file."""
    p = Path(arg)
    if p.is_dir():
        folder = p / "Tasks" if (p / "Tasks").is_dir() else p
        files = [f for f in folder.iterdir() if f.is_file() and f.suffix == ".txt"]
        return [os.path.abspath(f) for f in sorted(files, key=lambda f: (task_number(f), f.name))]
    if p.is_file():
        return [os.path.abspath(p)]
    raise TaskError(f"{arg}: no such file or folder")


def read_solution(task_path: str | Path) -> int | None:
    """The answer of a task in a data set (`../Solutions/N.txt`), None when there is none."""
    p = Path(task_path)
    sol = p.parent.parent / "Solutions" / p.name
    try:
        return int(sol.read_text().strip())
    except (OSError, ValueError):
        return None


def iter_dataset(folder: str | Path) -> Iterator[tuple[str, int]]:
    """(task path, solution) of every task of a data set folder that has a solution."""
    for path in task_paths(folder):
        sol = read_solution(path)
        if sol is not None:
            yield path, sol
