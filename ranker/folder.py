"""Folder adaptation: the style of every file the ranker is given, learned without labels."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from formats.codrep2019 import near_duplicate_key
from formats.files import InputError, read_source
from parsing.grammar import release_freed_memory
from parsing.java import tokenize
from parsing.schemes import Scheme

from .cache import StyleCounts
from .rank import Style
from .habits import HabitCounts


def folder_style(paths: list[str], scheme: Scheme, strict: bool, max_bytes: int | None = None):
    """A function path -> Style: the folder's gap counts, minus the file itself (it counts on its own,
    leave-one-out) or, when strict, minus every near-duplicate of it (identical without whitespace).

    Memory: a file's own counts are not kept (the ranker counts the file again, its StyleCache, and takes
    them off), only the folder's and, when strict, each group's; the folder's count tables are built
    here, once, before bin/rank forks its workers (they share them), and what reading the files freed is
    given back to the system first (a folder holding a 5 MB file: bin/rank's peak 581 -> 491 MB)."""
    folder = StyleCounts(wide=True)
    habits = HabitCounts.of([], None)
    own_habits: dict[str, HabitCounts] = {}
    group_of: dict[str, bytes] = {}
    groups: dict[bytes, StyleCounts] = defaultdict(lambda: StyleCounts(wide=True))
    for p in paths:
        try:
            text = read_source(Path(p), max_bytes)
        except InputError:
            continue    # reported when the file itself is ranked
        stream = tokenize(text)
        syms, _, unit = scheme.walk(stream)
        ids = folder.add(syms)
        own_habits[p] = HabitCounts.of(stream.gap_texts, unit)
        habits = habits + own_habits[p]
        if strict:
            key = near_duplicate_key(text.encode("utf-8"))
            group_of[p] = key
            groups[key].add_ids(ids)
        del stream, syms, text
    release_freed_memory()
    folder.tables()
    for group in groups.values():
        group.tables()

    def style(path: str) -> Style:
        if path not in own_habits:   # not read here: nothing of it to take off
            return Style(folder, StyleCounts(wide=True), habits)
        exclude = groups[group_of[path]] if strict else None   # None: the file's own counts (its StyleCache's)
        return Style(folder, exclude, habits - own_habits[path])
    return style
