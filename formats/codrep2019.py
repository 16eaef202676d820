"""CodRep 2019 task folders: `N.txt` files, each a Java file with one injected whitespace error, and
`out.txt`, whose line N+1 is the answer of `N.txt` (a 1-based character offset).

Here: the task files and answers; near-duplicate voting, which recovers each base file from its copies
(the shared splits repeat a few base files many times); and the writer of new task folders (`bin/make-tasks`,
evaluation/tasks.py), which also leaves `truth.jsonl` (each task's source, project, edit and the Checkstyle
message that kept it) and, beside the tasks, clean files (`clean/N.java`, listed in `clean.jsonl`).

Voting: copies of a base file are identical once whitespace is removed, so they are grouped that way; within
a group each gap takes the whitespace most copies agree on, which recovers the clean base file whenever the
group has at least three copies (every edit touches one gap of one copy). Groups of one or two copies cannot
be voted on and are kept as they are.
"""
from __future__ import annotations

import json
import os
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from parsing.java import tokenize

from .files import InputError, normalize_path, read_source, read_text

ANSWERS_FILE = "out.txt"
TRUTH_FILE = "truth.jsonl"
TASK_NAME = re.compile(r"^(\d+)\.txt$")
_WS = re.compile(rb"\s+")


def task_folder_problem(path: str | Path) -> str | None:
    """Why folder `path` is not a CodRep 2019 task folder, or None when it is one. The one rule, for every
    command (bin/rank, bin/build-lm, bin/make-tasks, and bin/evaluate and bin/analyze-errors through
    `read_answers`): a task folder has its full shape, `N.txt` files and `out.txt` with an integer answer on
    line N+1 for each of them (a folder that merely holds some *.txt, such as a repository's NOTES.txt, is
    not one)."""
    try:
        read_answers(str(path))
    except InputError as e:
        return str(e)
    return None


def is_task_folder(path: str | Path) -> bool:
    return task_folder_problem(path) is None


def task_files(folder: Path) -> list[Path]:
    """Every task file `N.txt` of a folder, in task order (files.sort_key's, within one folder: by number, then
    name; sorted as names, not as Paths: bin/rank lists the folder before it forks its workers)."""
    folder = Path(folder)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    numbered = sorted((int(m.group(1)), name) for name in names if (m := TASK_NAME.match(name)))
    return [folder / name for _, name in numbered]


# ------------------------------------------------------------------------------------------- answers

def numbered_tasks(folder: str) -> dict[int, str]:
    """The tasks the answers are for: task number -> normalized path of `N.txt`."""
    try:
        names = os.listdir(folder)
    except OSError as error:
        raise InputError(f"{folder}: cannot list the task folder ({error.strerror})") from None
    tasks = {}
    base = normalize_path(folder)   # once: a task's name is a plain file name, so joining it keeps it normal
    for name in names:
        match = TASK_NAME.match(name)
        if match:
            tasks[int(match.group(1))] = os.path.join(base, name)
    return tasks


def read_answers(folder: str) -> dict[str, int]:
    """Answers of every task of `folder`: absolute path of `N.txt` -> its offset (line N+1 of out.txt); an
    InputError naming the file when the folder is not a task folder (`task_folder_problem`)."""
    out_path = os.path.join(folder, ANSWERS_FILE)
    lines = read_text(out_path, "the answers").splitlines()
    tasks = numbered_tasks(folder)
    if not tasks:
        raise InputError(f"{folder}: no N.txt task files beside {ANSWERS_FILE}")
    answers = {}
    for number, path in sorted(tasks.items()):
        if number >= len(lines):
            raise InputError(f"{out_path}: no line {number + 1} for the answer of {path}")
        try:
            answers[path] = int(lines[number])
        except ValueError:
            raise InputError(f"{out_path}:{number + 1}: answer is not an integer: {lines[number]!r}") from None
    return answers


def read_datasets(folders: Iterable[str]) -> dict[str, int]:
    """Answers of the tasks of several folders (the `--datasets A:B` of the official script)."""
    answers: dict[str, int] = {}
    for folder in folders:
        answers.update(read_answers(folder))
    return answers


# -------------------------------------------------------------------------------------------- voting

def near_duplicate_key(data: bytes) -> bytes:
    """Files that differ only in whitespace share this key."""
    return _WS.sub(b"", data)


def near_duplicate_groups(folder: Path) -> list[list[tuple[Path, bytes]]]:
    """The task files of a folder grouped by their whitespace-free content, with their bytes."""
    groups: dict[bytes, list[tuple[Path, bytes]]] = defaultdict(list)
    for p in task_files(folder):
        data = p.read_bytes()
        groups[near_duplicate_key(data)].append((p, data))
    return list(groups.values())


def clean_task_files(folder: Path) -> list[tuple[str, bytes]]:
    """(name, clean bytes) for each distinct base file of the task folder."""
    return [(f"{members[0][0]} (+{len(members) - 1} copies)", majority_text([d for _, d in members]))
            for members in near_duplicate_groups(folder)]


def base_texts(folder: Path) -> dict[Path, bytes]:
    """Each task file -> the clean base file recovered from its copies (itself when it has < 3 copies)."""
    out = {}
    for members in near_duplicate_groups(folder):
        base = majority_text([d for _, d in members])
        for p, _ in members:
            out[p] = base
    return out


def majority_text(copies: list[bytes]) -> bytes:
    """Vote each gap across copies that tokenize to the same tokens; fall back to the first copy."""
    if len(copies) < 3:
        return copies[0]
    streams = []
    for data in copies:
        try:
            streams.append(tokenize(data.decode("utf-8")))
        except UnicodeDecodeError:
            continue
    if not streams:
        return copies[0]
    # a deleted separator can merge two tokens: vote only among copies with the common token sequence
    by_tokens: dict[tuple, list] = defaultdict(list)
    for st in streams:
        by_tokens[tuple(st.token_text(i) for i in range(len(st)))].append(st)
    tokens, group = max(by_tokens.items(), key=lambda kv: len(kv[1]))
    parts = []
    for i in range(len(tokens) + 1):
        gap, _ = Counter(st.gap_text(i) for st in group).most_common(1)[0]
        parts.append(gap)
        if i < len(tokens):
            parts.append(tokens[i])
    return "".join(parts).encode("utf-8")


def original_texts(folder: Path) -> dict[str, str]:
    """Each task's original (error-free) text: from truth.jsonl when bin/make-tasks wrote the folder, else
    voted from the task's near-duplicate copies (a task with < 3 copies maps to itself)."""
    truth_file = folder / TRUTH_FILE
    if not truth_file.exists():
        return {str(p.absolute()): b.decode("utf-8", errors="replace") for p, b in base_texts(folder).items()}
    out = {}
    for t in read_jsonl(truth_file):
        p = folder / t["task"]
        text = read_source(p)
        lo = t["gap_start"] - 1
        out[str(p.absolute())] = text[:lo] + t["original"] + text[lo + len(t["edited"]):]
    return out


# ----------------------------------------------------------------------------------- writing new folders

CLEAN_FOLDER = "clean"
CLEAN_INDEX = "clean.jsonl"


class TaskFolderError(ValueError):
    pass


@dataclass(frozen=True)
class InjectedEdit:
    """One injected whitespace edit: a task's record in truth.jsonl (evaluation/injection.py makes them)."""
    kind: str          # 'insert tab', 'delete newline', ... ('insert', 'delete', 'replace' in the any mix)
    answer: int        # 1-based character offset of the edited file: the task's answer
    gap: int           # index of the edited gap (gap i precedes token i)
    gap_start: int     # 1-based offset where the gap starts (the same in both files)
    original: str      # the gap before the edit
    edited: str        # the gap after it
    line: int          # 1-based line of the answer in the edited file
    lines_added: int   # +1 a newline inserted, -1 one deleted, else 0


@dataclass(frozen=True)
class MadeTask:
    text: str                    # the edited file
    edit: InjectedEdit
    source: str                  # the clean file it came from
    message: str | None = None   # the Checkstyle violation that kept it, when one was asked for


def write_task_folder(out: Path, tasks: list[MadeTask], clean: list[tuple[str, str]] = (),
                      project: str | None = None, force: bool = False) -> None:
    """Write `N.txt`, `out.txt` and `truth.jsonl` (per task: source, project, the edit, the Checkstyle
    message) and, for (name, text) `clean` files, `clean/N.java` and `clean.jsonl` (per file: source,
    project). Everything goes into a temporary folder beside `out`, renamed at the end: a failure leaves
    nothing half-written, and `force` replaces an existing folder only then."""
    import shutil  # here: bin/rank's start-up reads task folders, never writes them
    import tempfile
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise TaskFolderError(f"{out}: exists and is not a folder")
    if out.exists() and any(out.iterdir()) and not force:
        raise TaskFolderError(f"{out}: folder exists and is not empty (use --force to replace it)")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        truth = []
        for n, task in enumerate(tasks):
            (tmp / f"{n}.txt").write_text(task.text, encoding="utf-8", newline="")
            truth.append({"task": f"{n}.txt", "source": task.source, "project": project, **asdict(task.edit),
                          "checkstyle": task.message})
        (tmp / ANSWERS_FILE).write_text("".join(f"{t.edit.answer}\n" for t in tasks))
        (tmp / TRUTH_FILE).write_text("".join(json.dumps(t) + "\n" for t in truth))
        if clean:
            (tmp / CLEAN_FOLDER).mkdir()
            index = []
            for n, (name, text) in enumerate(clean):
                (tmp / CLEAN_FOLDER / f"{n}.java").write_text(text, encoding="utf-8", newline="")
                index.append({"file": f"{CLEAN_FOLDER}/{n}.java", "source": name, "project": project})
            (tmp / CLEAN_INDEX).write_text("".join(json.dumps(c) + "\n" for c in index))
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def read_jsonl(path: Path) -> list[dict]:
    """The records of a truth.jsonl or clean.jsonl (none when the file is missing); a line that is not a
    JSON object is an InputError naming it."""
    if not path.exists():
        return []
    out = []
    for number, line in enumerate(read_text(str(path)).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            record = None
        if not isinstance(record, dict):
            raise InputError(f"{path}:{number}: not a JSON object")
        out.append(record)
    return out


DEVSET_FILE = "devset.json"   # beside a development set's tasks (evaluation/devsets.py writes it)


def read_devset(folder: Path) -> dict:
    """A development set's record, `devset.json`: {"config": {"name", "held_out", ...}, "indentation", ...};
    {} when the folder has none, an InputError naming the file when it is not a JSON object."""
    path = Path(folder) / DEVSET_FILE
    if not path.exists():
        return {}
    try:
        record = json.loads(read_text(str(path)))
    except (json.JSONDecodeError, RecursionError):
        record = None
    if not isinstance(record, dict):
        raise InputError(f"{path}: not a JSON object")
    return record
