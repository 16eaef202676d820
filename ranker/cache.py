"""File-local (and folder) style: which gap symbols are written between which tokens.

The gap under test is left out of its own evidence (leave-one-out), so a file's single odd gap does not
vouch for itself, while a style the file uses consistently (a space inside parentheses, tabs, Allman
braces) makes the same gap elsewhere in the file unsurprising even when other projects never write it.
With folder adaptation, the other files of the folder add their counts too (in the strict variant, minus
the file's own near-duplicates, which would otherwise hand it its own clean copy).

The n-gram probability p of a gap symbol becomes, context level after context level, the Dirichlet
posterior (count + alpha * p) / (total + alpha). Levels: (token before, token after); with folder counts
also three tokens a side. The file's own counts and every lookup are ranker/native.cpp's StyleCache (the
ranker imports no numpy); the folder's counts are kept here, with numpy, for folder adaptation.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ._native import StyleCache
from .symbols import BOS, EOS, MASK as _MASK, PAD, SYMBOL_BITS, intern as _intern, symbol_ids, symbol_names

_wide: dict[tuple, int] = {}
REACH = 3                 # tokens a side in a wide context


def contexts(ids: np.ndarray, wide: bool) -> list[np.ndarray]:
    """For each gap of a stream (`ids`: its 2n+1 symbol ids), its context id at each level: narrow (the
    token before and the token after, '<s>' and '</s>' at the ends; packed), and when `wide` the REACH
    token symbols on each side (interned). Coarser contexts (only one side) were tried and hurt: they
    override the n-gram model's context-specific prediction."""
    ids = np.asarray(ids, dtype=np.int64)
    tokens = ids[1::2]
    before = np.concatenate(([BOS], tokens))
    after = np.concatenate((tokens, [EOS]))
    levels = [before << SYMBOL_BITS | after]
    if wide:
        pad = np.concatenate(([PAD] * REACH, tokens, [PAD] * REACH))
        windows = sliding_window_view(pad, 2 * REACH)   # gap i: tokens i-3 .. i+2
        # interned as Python tuples only once each (a file repeats most of its windows): a tuple per gap
        # took 70 MB for a 5 MB file
        first, inverse = _distinct_rows(windows)
        intern = _wide.setdefault
        ids = np.fromiter((intern(tuple(w), len(_wide)) for w in windows[first].tolist()), dtype=np.int64,
                          count=len(first))
        levels.append(ids[inverse])
    return levels


def _distinct_rows(windows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the index of one row of each distinct row of `windows`, each row's distinct row number), for rows
    of 2 * REACH symbol ids (each below 2**SYMBOL_BITS: three fit an int64)."""
    a = windows[:, 0] << 2 * SYMBOL_BITS | windows[:, 1] << SYMBOL_BITS | windows[:, 2]
    b = windows[:, 3] << 2 * SYMBOL_BITS | windows[:, 4] << SYMBOL_BITS | windows[:, 5]
    order = np.lexsort((b, a))
    a, b = a[order], b[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return order[new], inverse


class _Counts:
    """How often each int64 key occurs."""

    def __init__(self, keys: np.ndarray):
        self.keys, self.counts = np.unique(keys, return_counts=True)

    def get(self, keys: np.ndarray) -> np.ndarray:
        if not len(self.keys):
            return np.zeros(len(keys), dtype=np.int64)
        at = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return np.where(self.keys[at] == keys, self.counts[at], 0)


class StyleCounts:
    """Gap symbol counts per context, at the narrow level and, when `wide`, the wide one too."""

    def __init__(self, streams: list[list[str]] = (), wide: bool = False):
        self.wide = wide
        self._streams: list[list[np.ndarray]] = []   # per stream and level: (context, gap symbol) keys
        self._tables = None
        for syms in streams:
            self.add(syms)

    def add(self, syms: list[str]) -> "array":
        """Count a stream's gaps (its 2n+1 symbols); its symbol ids (symbols.symbol_ids: an int64 array.array)."""
        ids = symbol_ids(syms)
        self.add_ids(ids)
        return ids

    def add_ids(self, ids) -> None:
        ids = np.asarray(ids, dtype=np.int64)
        gaps = ids[0::2]
        self._streams.append([(c << SYMBOL_BITS | gaps, c) for c in contexts(ids, self.wide)])
        self._tables = None

    # Pickled (to a cluster worker: bin/rank --cluster --adapt folder) with its symbols and wide contexts
    # spelled out, since the integer ids are this process's own; unpickling interns them anew.
    def __getstate__(self) -> dict:
        narrow = [s[0][0] for s in self._streams]
        wide = [s[1][0] for s in self._streams] if self.wide else []
        used = np.unique(np.concatenate([k >> 2 * SYMBOL_BITS for k in narrow] + [k >> SYMBOL_BITS & _MASK for k in narrow]
                                        + [k & _MASK for k in narrow + wide] + [np.zeros(0, np.int64)]))
        windows = np.unique(np.concatenate([k >> SYMBOL_BITS for k in wide] + [np.zeros(0, np.int64)])).tolist()
        tuples = list(_wide)   # id -> window, in id order
        context = {c: tuples[c] for c in windows}
        used = np.union1d(used, np.asarray([i for c in context.values() for i in c], dtype=np.int64))
        names = symbol_names()
        return {"wide": self.wide, "narrow": narrow, "wide_keys": wide,
                "symbols": {i: names[i] for i in used.tolist()}, "contexts": context}

    def __setstate__(self, state: dict) -> None:
        symbols, context = state["symbols"], state["contexts"]
        to = np.zeros(max(symbols, default=0) + 1, dtype=np.int64)
        for old, name in symbols.items():
            to[old] = _intern(name)
        windows = np.zeros(max(context, default=0) + 1, dtype=np.int64)
        for old, window in context.items():
            windows[old] = _wide.setdefault(tuple(to[list(window)].tolist()), len(_wide))
        self.wide, self._tables, self._streams = state["wide"], None, []
        for k, keys in enumerate(state["narrow"]):
            ctx = to[keys >> 2 * SYMBOL_BITS] << SYMBOL_BITS | to[keys >> SYMBOL_BITS & _MASK]
            levels = [(ctx << SYMBOL_BITS | to[keys & _MASK], ctx)]
            if self.wide:
                keys = state["wide_keys"][k]
                ctx = windows[keys >> SYMBOL_BITS]
                levels.append((ctx << SYMBOL_BITS | to[keys & _MASK], ctx))
            self._streams.append(levels)

    def tables(self) -> list[tuple[_Counts, _Counts]]:
        """Per level: (counts of (context, symbol) keys, counts of contexts)."""
        if self._tables is None:
            levels = 2 if self.wide else 1
            self._tables = [
                tuple(_Counts(np.concatenate([s[level][part] for s in self._streams] or [np.zeros(0, np.int64)]))
                      for part in (0, 1))
                for level in range(levels)]
        return self._tables

    def count(self, ctx: tuple[str, str], symbol: str) -> int:
        """How often `symbol` fills the gap between the two tokens of `ctx` (the narrow level)."""
        key = (_intern(ctx[0]) << SYMBOL_BITS | _intern(ctx[1])) << SYMBOL_BITS | _intern(symbol)
        return int(self.tables()[0][0].get(np.array([key]))[0])


    def native_tables(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """Per level: (pair keys, their counts, context keys, their counts), as ranker/native.cpp's StyleCache
        takes a folder's counts."""
        return [(pairs.keys, pairs.counts, ctxs.keys, ctxs.counts) for pairs, ctxs in self.tables()]


def folder_cache(ids, folder: StyleCounts, exclude: StyleCounts | None) -> StyleCache:
    """The style cache of a file (`ids`: its 2n+1 interned symbols) with a folder's counts, minus
    `exclude`'s (None: the file itself)."""
    wide = contexts(ids, True)[1] if folder.wide else None
    return StyleCache(ids, wide, folder.native_tables(), exclude.native_tables() if exclude is not None else None)
