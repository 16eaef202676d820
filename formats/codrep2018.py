"""CodRep 2018 data sets: `Tasks/N.txt` holds a new Java line, a blank line, then a Java file;
`Solutions/N.txt` the 1-based number of the program line the new line replaced.

Program lines are split on '\\n' exactly as the official evaluator counts them (a final newline ends the
last line rather than starting another), so line k of `Task.lines` is answer k of `Solutions/`.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .files import InputError, normalize_path, read_text, sort_key, task_number

TASKS = "Tasks"
SOLUTIONS = "Solutions"
_HEADER_LINES = 2  # the new line and an empty line come before the program in a task file


class TaskError(InputError):
    """A task file that cannot be ranked; the message is one line naming the file."""


@dataclass(frozen=True)
class Task:
    path: str                 # absolute path of the task file
    new_line: str             # the new line, without its line end (CodRep gives it stripped)
    lines: tuple[str, ...]    # the program's lines, without '\n' (a '\r' of CRLF files is kept)


def is_dataset(path: Path) -> bool:
    return (path / TASKS).is_dir() and (path / SOLUTIONS).is_dir()


def task_body(task: bytes) -> bytes:
    """The Java file of a task (after the new line and the blank line)."""
    nl = task.find(b"\n")
    if nl < 0:
        return b""
    rest = task[nl + 1:]
    # the separator line is blank (possibly '\r')
    nl2 = rest.find(b"\n")
    return rest[nl2 + 1:] if nl2 >= 0 else b""


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


def program_line_count(task_text: bytes) -> int:
    """Lines of the program in a task file's content (after the new line and the empty line)."""
    lines = task_text.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # a final newline ends the last line, it does not start another
    return max(0, len(lines) - _HEADER_LINES)


def read_program_line_count(task_path: str) -> int:
    try:
        with open(task_path, "rb") as task:
            return program_line_count(task.read())
    except OSError as error:
        raise InputError(f"{task_path}: cannot read the task ({error.strerror})") from None


def task_paths(arg: str | Path) -> list[str]:
    """A PATH argument -> absolute task files, in task order: a data set folder (its Tasks/), a folder of task
    files, or a file."""
    p = Path(arg)
    if p.is_dir():
        folder = p / TASKS if (p / TASKS).is_dir() else p
        files = [f for f in folder.iterdir() if f.is_file() and f.suffix == ".txt"]
        return [os.path.abspath(f) for f in sorted(files, key=sort_key)]
    if p.is_file():
        return [os.path.abspath(p)]
    raise TaskError(f"{arg}: no such file or folder")


def solution_path(task_path: str | Path) -> Path:
    p = Path(task_path)
    return p.parent.parent / SOLUTIONS / p.name


def read_solution(task_path: str | Path) -> int | None:
    """The answer of a task in a data set (`../Solutions/N.txt`), None when there is none."""
    try:
        return int(solution_path(task_path).read_text().strip())
    except (OSError, ValueError):
        return None


def iter_dataset(folder: str | Path) -> Iterator[tuple[str, int]]:
    """(task path, solution) of every task of a data set folder that has a solution (for training)."""
    for path in task_paths(folder):
        sol = read_solution(path)
        if sol is not None:
            yield path, sol


def read_solutions(dataset: str) -> dict[str, int]:
    """Every numbered task of a data set (for evaluation: a missing or bad solution is an error): absolute
    path of `Tasks/N.txt` -> the line of `Solutions/N.txt`."""
    tasks_folder = os.path.join(dataset, TASKS)
    try:
        names = os.listdir(tasks_folder)
    except OSError as error:
        raise InputError(f"{tasks_folder}: cannot list the tasks ({error.strerror})") from None
    solutions = {}
    for name in sorted(names, key=sort_key):
        if task_number(name) is None or not name.endswith(".txt"):
            continue
        path = os.path.join(tasks_folder, name)
        text = read_text(solution_path(path), "the solution")
        try:
            solutions[normalize_path(path)] = int(text.strip())
        except ValueError:
            raise InputError(f"{solution_path(path)}: solution is not a line number: {text.strip()!r}") from None
    return solutions


def read_datasets(folders: Iterable[str]) -> dict[str, int]:
    solutions: dict[str, int] = {}
    for folder in folders:
        solutions.update(read_solutions(folder))
    return solutions
