"""Folder adaptation: the style of every file the ranker is given, learned without labels."""
from __future__ import annotations

import hashlib
from collections import defaultdict
from functools import partial
from pathlib import Path

from formats.codrep2019 import near_duplicate_key
from formats.files import InputError, read_source
from parsing.grammar import release_freed_memory
from parsing.java import BOM
from parsing.schemes import Scheme

from .counts import Counts, learn_text, total
from .rank import Style


def _learn_file(scheme: Scheme, strict: bool, max_bytes: int | None, path: str):
    """A file's counts (ranker/counts.py), when `strict` the hash of its text without whitespace, and its leaves,
    packed, when the C++ walk covers it (ranking it then does not parse it again: about 3 bytes a token);
    None when it cannot be read (it is reported when ranked)."""
    try:
        text = read_source(Path(path), max_bytes)
    except InputError:
        return None
    # (without a BOM, as learn_text learns it)
    duplicate = hashlib.sha1(near_duplicate_key(text.removeprefix(BOM).encode("utf-8"))).digest() if strict else None
    counts, parsed = learn_text(scheme, text, keep=True)
    return counts, duplicate, parsed


def folder_style(paths: list[str], scheme: Scheme, strict: bool, workers: int = 1, max_bytes: int | None = None):
    """A function path -> Style: the folder's counts (the sum of its files', ranker/counts.py: the wide-context
    gap counts the ranker adapts to, the narrow ones bin/check weighs a finding with) and whitespace habits,
    minus the file itself (it counts on its own, leave-one-out) or, when strict, minus every near-duplicate of
    it (identical without whitespace). `workers` processes read the files.

    Memory: a file's own counts are not kept once summed (the ranker counts the file again, folder_cache, and
    takes them off), only the folder's, keeping only the contexts seen more than once (Counts.shared), and,
    when strict, each group's; the sums are made here, once, before bin/rank forks its workers (they share
    them), and what reading the files freed is given back to the system first. Each file's leaves are kept,
    packed (about 3 bytes a token: 19 MB for the JDK's first 5,000 files), so that ranking it does not parse
    it again (Style.parsed)."""
    learn_file = partial(_learn_file, scheme, strict, max_bytes)
    if workers > 1 and len(paths) > 1:
        from unnatural.parallel import ordered_map
        learned = ordered_map(learn_file, paths, workers, parent=True)   # this process reads its share too
    else:
        learned = map(learn_file, paths)
    files: list[Counts] = []
    own_habits = {}
    parsed: dict[str, bytes | None] = {}
    group_of: dict[str, bytes] = {}
    members: dict[bytes, list[Counts]] = defaultdict(list)
    for p, result in zip(paths, learned):
        if result is None:
            continue
        counts, duplicate, parsed[p] = result
        files.append(counts)
        own_habits[p] = counts.habits
        if strict:
            group_of[p] = duplicate
            members[duplicate].append(counts)
        del counts, result
    folder = total(files).shared()
    groups = {key: total(group) for key, group in members.items()}
    del files, members
    release_freed_memory()
    habits = folder.habits

    def style(path: str) -> Style:
        if path not in own_habits:   # not read here: nothing of it to take off
            return Style(folder, Counts.empty(), habits)
        exclude = groups[group_of[path]] if strict else None   # None: the file's own counts (folder_cache)
        return Style(folder, exclude, habits - own_habits[path], parsed[path])
    return style
