"""Read a CodRep 2019 task folder as a training corpus without learning its injected errors.

Every task is a base file with one whitespace edit, and each base file appears many times. Copies of a
base file are identical once whitespace is removed, so group them that way; within a group, each gap
takes the whitespace most copies agree on, which recovers the clean base file whenever the group has at
least three copies (every edit touches one gap of one copy). Groups of one or two copies cannot be
voted on and are kept as they are.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path

_WS = re.compile(rb"\s+")


def task_files(folder: Path) -> list[Path]:
    files = [p for p in folder.glob("*.txt") if p.name != "out.txt"]
    return sorted(files, key=lambda p: (int(p.stem) if p.stem.isdigit() else 1 << 60, p.name))


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
    from parsing.java import tokenize

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
