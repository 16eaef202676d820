"""Folder adaptation: the style of every file the ranker is given, learned without labels."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from formats.codrep2019 import near_duplicate_key
from formats.files import InputError, read_source
from parsing.java import tokenize
from parsing.schemes import Scheme

from .cache import StyleCounts
from .rank import Style
from .habits import HabitCounts


def folder_style(paths: list[str], scheme: Scheme, strict: bool, max_bytes: int | None = None):
    """A function path -> Style: the folder's gap counts, minus the file itself (it counts on its own,
    leave-one-out) or, when strict, minus every near-duplicate of it (identical without whitespace)."""
    folder = StyleCounts(wide=True)
    habits = HabitCounts.of([], None)
    own: dict[str, StyleCounts] = {}
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
        folder.add(syms)
        own[p] = StyleCounts([syms], wide=True)
        own_habits[p] = HabitCounts.of(stream.gap_texts, unit)
        habits = habits + own_habits[p]
        if strict:
            key = near_duplicate_key(text.encode("utf-8"))
            group_of[p] = key
            groups[key].add(syms)

    def style(path: str) -> Style:
        exclude = groups[group_of[path]] if strict and path in group_of else own.get(path)
        return Style(folder, exclude, habits - own_habits[path] if path in own_habits else habits)
    return style
