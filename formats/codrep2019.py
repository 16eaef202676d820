"""CodRep 2019 task folders: `N.txt` files, each a Java file with one injected whitespace error, and
`out.txt`, whose line N+1 is the answer of `N.txt` (a 1-based character offset).

Here: the task files and answers; near-duplicate voting, which recovers each base file from its copies
(the shared splits repeat a few base files many times); and the writer of new task folders (`bin/make-tasks`),
which also leaves `truth.jsonl`, each task's original and edited gap.

Voting: copies of a base file are identical once whitespace is removed, so they are grouped that way; within
a group each gap takes the whitespace most copies agree on, which recovers the clean base file whenever the
group has at least three copies (every edit touches one gap of one copy). Groups of one or two copies cannot
be voted on and are kept as they are.

Injected edits follow the competition's answer conventions: an inserted or replaced character is the answer
itself; a deleted one is answered by the position where it was (the next token's first character when the
gap became empty, else the first remaining character of the gap). Edits land at a gap's first or last
character, where the shared data sets put them.
"""
from __future__ import annotations

import json
import os
import random
import re
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable

from parsing.java import tokenize

from .files import InputError, normalize_path, read_text, sort_key

ANSWERS_FILE = "out.txt"
TRUTH_FILE = "truth.jsonl"
TASK_NAME = re.compile(r"^(\d+)\.txt$")
WHITESPACE = (" ", "\t", "\n")
KINDS = ("insert", "delete", "replace")
_WS = re.compile(rb"\s+")


def is_task_folder(path: Path) -> bool:
    return (path / ANSWERS_FILE).is_file() and (path / "0.txt").is_file()


def task_files(folder: Path) -> list[Path]:
    """Every task file of a folder (its *.txt but out.txt), in task order."""
    return sorted((p for p in Path(folder).glob("*.txt") if p.name != ANSWERS_FILE), key=sort_key)


# ------------------------------------------------------------------------------------------- answers

def numbered_tasks(folder: str) -> dict[int, str]:
    """The tasks the answers are for: task number -> normalized path of `N.txt`."""
    try:
        names = os.listdir(folder)
    except OSError as error:
        raise InputError(f"{folder}: cannot list the task folder ({error.strerror})") from None
    tasks = {}
    for name in names:
        match = TASK_NAME.match(name)
        if match:
            tasks[int(match.group(1))] = normalize_path(os.path.join(folder, name))
    return tasks


def read_answers(folder: str) -> dict[str, int]:
    """Answers of every task of `folder`: absolute path of `N.txt` -> its offset (line N+1 of out.txt)."""
    out_path = os.path.join(folder, ANSWERS_FILE)
    lines = read_text(out_path, "the answers").splitlines()
    answers = {}
    for number, path in sorted(numbered_tasks(folder).items()):
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
    for line in truth_file.read_text().splitlines():
        t = json.loads(line)
        p = folder / t["task"]
        text = p.read_text(encoding="utf-8")
        lo = t["gap_start"] - 1
        out[str(p.absolute())] = text[:lo] + t["original"] + text[lo + len(t["edited"]):]
    return out


# ----------------------------------------------------------------------------------- writing new folders

class TaskFolderError(ValueError):
    pass


@dataclass(frozen=True)
class InjectedEdit:
    kind: str          # insert / delete / replace
    answer: int        # 1-based character offset, the task's answer
    gap_start: int     # 1-based offset of the gap in the edited file
    original: str      # the gap before the edit
    edited: str        # the gap after it


def inject(text: str, rng: random.Random, tries: int = 50) -> tuple[str, InjectedEdit] | None:
    """Apply one random whitespace edit that keeps the tokens intact; None if no such edit is found."""
    stream = tokenize(text)
    n = len(stream)
    if n < 2:
        return None
    tokens = [stream.token_text(i) for i in range(n)]
    for _ in range(tries):
        i = rng.randrange(1, n)      # a gap between two tokens
        gap = stream.gap_text(i)
        lo = stream.gap_start(i)
        hi = lo + len(gap)
        kind = rng.choice(KINDS) if gap else "insert"
        char = rng.choice(WHITESPACE)
        at_end = rng.random() < 0.5
        # Edits that give the same text at either end of the gap get one canonical answer, the
        # competition's: an inserted character is the last of its run; a character deleted from a
        # uniform gap is answered by the gap's first remaining character.
        if kind == "insert":
            at_end = at_end or char + gap == gap + char
            edited = gap + char if at_end else char + gap
            answer = (hi if at_end else lo) + 1
        elif kind == "delete":
            at_end = at_end and gap[1:] != gap[:-1]
            edited = gap[:-1] if at_end else gap[1:]
            answer = hi if at_end else lo + 1
        else:
            pos = len(gap) - 1 if at_end else 0
            if gap[pos] == char:
                continue
            edited = gap[:pos] + char + gap[pos + 1:]
            answer = lo + pos + 1
        new_text = text[:lo] + edited + text[hi:]
        new_stream = tokenize(new_text)
        if [new_stream.token_text(j) for j in range(len(new_stream))] != tokens:
            continue     # the edit merged or split tokens: not a formatting error
        return new_text, InjectedEdit(kind, answer, lo + 1, gap, edited)
    return None


def make_tasks(texts: list[tuple[str, str]], out: Path, count: int | None, seed: int, force: bool = False) -> int:
    """Write `count` tasks (default: one per file) into `out`; returns how many were written."""
    if out.exists() and any(out.iterdir()) and not force:
        raise TaskFolderError(f"{out}: folder exists and is not empty (use --force to overwrite its tasks)")
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    order = list(range(len(texts)))
    rng.shuffle(order)
    count = len(texts) if count is None else count
    answers, truth = [], []
    k = 0
    while len(answers) < count and k < 20 * max(count, 1):
        name, text = texts[order[k % len(order)]]
        k += 1
        made = inject(text, rng)
        if made is None:
            continue
        new_text, edit = made
        (out / f"{len(answers)}.txt").write_text(new_text, encoding="utf-8", newline="")
        answers.append(edit.answer)
        truth.append({"task": f"{len(answers) - 1}.txt", "source": name, **asdict(edit)})
    (out / ANSWERS_FILE).write_text("".join(f"{a}\n" for a in answers))
    (out / TRUTH_FILE).write_text("".join(json.dumps(t) + "\n" for t in truth))
    return len(answers)
