"""Folder adaptation: the style of every file the ranker is given, learned without labels."""
from __future__ import annotations

import hashlib
from collections import defaultdict
from functools import partial
from pathlib import Path

import numpy as np

from formats.codrep2019 import near_duplicate_key
from formats.files import InputError, read_source
from parsing.grammar import release_freed_memory
from parsing.java import BOM
from parsing.schemes import Scheme

from .cache import StyleCounts, learned_narrow, wide_keys
from .rank import Style
from .habits import HabitCounts
from .walk import StyleWalk


def _learn_file(scheme: Scheme, strict: bool, max_bytes: int | None, path: str):
    """A file's wide (context, gap symbol) keys per level, its narrow ones counted (bin/check's evidence, not
    the ranker's), its whitespace habits, when `strict` the hash of its text without whitespace, and its leaves,
    packed, when the C++ walk covers it (ranking it then does not parse it again: about 3 bytes a token);
    None when it cannot be read (it is reported when ranked)."""
    try:
        text = read_source(Path(path), max_bytes)
    except InputError:
        return None
    if text.startswith(BOM):   # ranked without it (rank_text): its counts are the ones taken off
        text = text[1:]
    duplicate = hashlib.sha1(near_duplicate_key(text.encode("utf-8"))).digest() if strict else None
    walk = StyleWalk(scheme, text, keep=True)
    narrow = learned_narrow(walk.ids, walk.gap_texts())
    return wide_keys(walk.ids), narrow, HabitCounts.of(walk.gap_texts(), walk.unit), duplicate, walk.parsed


def folder_style(paths: list[str], scheme: Scheme, strict: bool, workers: int = 1, max_bytes: int | None = None):
    """A function path -> Style: the folder's wide-context gap counts (ranker/cache.py; with its narrow
    ones, which bin/check weighs a finding with, not the ranker) and whitespace habits, minus the file
    itself (it counts on its own, leave-one-out) or, when strict, minus every near-duplicate of it
    (identical without whitespace). `workers` processes read the files.

    Memory: a file's own counts are not kept (the ranker counts the file again, folder_cache, and takes them
    off), only the folder's, keeping only the contexts seen more than once (StyleCounts.shared), and, when
    strict, each group's; the count tables are built here, once, before bin/rank forks its workers (they
    share them), and what reading the files freed is given back to the system first. Each file's leaves are
    kept, packed (about 3 bytes a token: 19 MB for the JDK's first 5,000 files), so that ranking it does not
    parse it again (Style.parsed)."""
    learn_file = partial(_learn_file, scheme, strict, max_bytes)
    if workers > 1 and len(paths) > 1:
        from unnatural.parallel import ordered_map
        learned = ordered_map(learn_file, paths, workers, parent=True)   # this process reads its share too
    else:
        learned = map(learn_file, paths)
    folder = StyleCounts(shared=True)
    habits = HabitCounts.of([], None)
    own_habits: dict[str, HabitCounts] = {}
    parsed: dict[str, bytes | None] = {}
    group_of: dict[str, bytes] = {}
    groups: dict[bytes, StyleCounts] = defaultdict(StyleCounts)
    for p, result in zip(paths, learned):
        if result is None:
            continue
        keys, narrow, own_habits[p], duplicate, parsed[p] = result
        folder.add_keys(keys)
        folder.add_narrow(*narrow)
        habits = habits + own_habits[p]
        if strict:
            group_of[p] = duplicate
            groups[duplicate].add_keys(keys)
        del keys, narrow, result
    release_freed_memory()
    folder.tables()
    for group in groups.values():
        group.tables()

    def style(path: str) -> Style:
        if path not in own_habits:   # not read here: nothing of it to take off
            return Style(folder, StyleCounts(), habits)
        exclude = groups[group_of[path]] if strict else None   # None: the file's own counts (folder_cache)
        return Style(folder, exclude, habits - own_habits[path], parsed[path])
    return style
