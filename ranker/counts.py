"""What is learned of a repository's files: one count type, and the one function that learns a file's.

A file's `Counts` are its gap symbols counted in wide contexts, one level per reach of REACHES (the prior of a
file's own counts when the ranker adapts to a folder: ranker/cache.py), in the narrow context with the counts
learned beside it (`learned_narrow`: bin/check's evidence, not the ranker's), and its whitespace habits
(ranker/habits.py). A folder's (ranker/folder.py) and a work tree's (check/repostyle.py, which caches them) are
the sum of their files', `shared`. Keys are int64 (ranker/cache.py's: hashes of symbol texts, the same in
every process), sorted and unique, each with its count, so that sums are sorted merges and a folder's counts
travel to cluster workers pickled as they are.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parsing.java import BOM
from parsing.schemes import Scheme

from .cache import REACHES, SYMBOL_BITS, learned_narrow, wide_keys
from .habits import HabitCounts
from .symbols import PAD, intern
from .walk import StyleWalk

Pair = tuple[np.ndarray, np.ndarray]   # keys (sorted, unique) and their counts, int64


def _none() -> Pair:
    return np.zeros(0, np.int64), np.zeros(0, np.int64)


def counted(keys: np.ndarray) -> Pair:
    """Keys as a Pair: each distinct one with how often it occurs."""
    distinct, n = np.unique(np.asarray(keys, dtype=np.int64), return_counts=True)
    return distinct.astype(np.int64, copy=False), n.astype(np.int64, copy=False)


def lookup(pair: Pair, asked: np.ndarray) -> np.ndarray:
    """The count of each of keys `asked` in `pair` (0: not there)."""
    keys, counts = pair
    if not len(keys):
        return np.zeros(len(asked), dtype=np.int64)
    at = np.minimum(np.searchsorted(keys, asked), len(keys) - 1)
    return np.where(keys[at] == asked, counts[at], 0)


@dataclass(frozen=True, eq=False)
class Counts:
    """What is learned of some files' gaps, summed: per level of REACHES the (wide context, gap symbol) keys and
    their counts, the narrow keys and counts (learned_narrow's), and the whitespace habits."""
    wide: tuple[Pair, ...]
    narrow: Pair
    habits: HabitCounts

    @staticmethod
    def empty() -> "Counts":
        return Counts((_none(),) * len(REACHES), _none(), HabitCounts.of_values(()))

    def shared(self) -> "Counts":
        """These counts as a folder keeps them: a wide context with a single key seen once dropped. A context
        seen once is only ever the gap under test's own, which is left out of its evidence: the folder's
        table loses nothing and shrinks by half to three quarters."""
        return Counts(tuple(_pruned(*pair) for pair in self.wide), self.narrow, self.habits)

    def merged(self, delta: "Counts") -> "Counts":
        """self + delta, as `total([self, delta])` gives it, without sorting the whole table again (a run that
        changed one file changes a few thousand of its million keys)."""
        wide = tuple(_merged(*t, *d) for t, d in zip(self.wide, delta.wide))
        return Counts(wide, _merged(*self.narrow, *delta.narrow), self.habits + delta.habits)

    def narrow_count(self, key: int) -> int:
        """How often the `narrow_key` `key` occurs."""
        return int(self.narrow_counts(np.array([key], dtype=np.int64))[0])

    def narrow_counts(self, keys: np.ndarray) -> np.ndarray:
        """How often each of `narrow_key`s `keys` occurs."""
        return lookup(self.narrow, np.asarray(keys, dtype=np.int64))

    def count(self, ctx: tuple[str, ...], symbol: str) -> int:
        """How often `symbol` fills the gap between the 2R tokens of `ctx`, for one R of REACHES ('|' past
        the ends)."""
        reach = len(ctx) // 2
        level = REACHES.index(reach)
        ids = [PAD]
        for i, token in enumerate(ctx):
            ids += [intern(token), intern(symbol) if i == reach - 1 else PAD]
        key = wide_keys(np.array(ids, dtype=np.int64))[level][reach:reach + 1]
        return int(lookup(self.wide[level], key)[0])


def total(parts: list[Counts], signs: list[int] | None = None) -> Counts:
    """The sum of `parts`, each counted `signs[i]` times (+1 or -1; keys whose count comes to 0 dropped)."""
    signs = signs or [1] * len(parts)
    wide = tuple(_summed([p.wide[level] for p in parts], signs) for level in range(len(REACHES)))
    narrow = _summed([p.narrow for p in parts], signs)
    habits = HabitCounts.of_values(())
    for p, s in zip(parts, signs):
        habits = habits + p.habits if s > 0 else habits - p.habits
    return Counts(wide, narrow, habits)


def learn_text(scheme: Scheme, text: str, keep: bool = False) -> tuple[Counts, bytes | None]:
    """What is learned of one file's text, without its BOM (ranked without it: rank_text; its counts are the
    ones taken off), and with `keep` its leaves as the walk parsed them, packed (ranking it then does not parse
    it again: Style.parsed; None where the C++ walk does not cover the scheme)."""
    if text.startswith(BOM):
        text = text[1:]
    walk = StyleWalk(scheme, text, keep=keep)
    gaps = walk.gap_texts()
    narrow = _summed([learned_narrow(walk.ids, gaps)], [1])
    learned = Counts(tuple(map(counted, wide_keys(walk.ids))), narrow, HabitCounts.of(gaps, walk.unit))
    return learned, walk.parsed if keep else None


def _summed(pairs: list[Pair], signs: list[int]) -> Pair:
    """Pairs summed key by key, each counted its sign's times; keys whose count is 0 dropped. (A stable sort
    of the pairs one after another: each is sorted, and the sort merges such runs.)"""
    if not pairs:
        return _none()
    keys = np.concatenate([k for k, _ in pairs])
    counts = np.concatenate([c if s > 0 else -c for (_, c), s in zip(pairs, signs)])
    if not len(keys):
        return _none()
    order = np.argsort(keys, kind="stable")
    keys, counts = keys[order], counts[order]
    del order
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    keys, counts = keys[starts], np.add.reduceat(counts, starts)
    keep = counts != 0
    return (keys, counts) if keep.all() else (keys[keep], counts[keep])


def _merged(keys: np.ndarray, counts: np.ndarray, dkeys: np.ndarray, dcounts: np.ndarray) -> Pair:
    """Sorted unique (keys, counts) plus a few sorted unique (dkeys, dcounts), without sorting the whole
    table again."""
    at = np.searchsorted(keys, dkeys)
    found = at < len(keys)
    found[found] = keys[at[found]] == dkeys[found]
    counts = counts.copy()
    counts[at[found]] += dcounts[found]
    keys = np.insert(keys, at[~found], dkeys[~found])
    counts = np.insert(counts, at[~found], dcounts[~found])
    keep = counts != 0
    return keys[keep], counts[keep]


def _pruned(keys: np.ndarray, counts: np.ndarray) -> Pair:
    """A level's keys less those of the contexts with a single key seen once (`shared`)."""
    if not len(keys):
        return keys, counts
    # the keys are sorted, so a context's keys are neighbours: its run found without sorting again
    contexts = keys >> SYMBOL_BITS
    starts = np.flatnonzero(np.concatenate(([True], contexts[1:] != contexts[:-1])))
    sizes = np.diff(np.append(starts, len(keys)))
    once = np.repeat((sizes == 1) & (counts[starts] == 1), sizes)
    return keys[~once], counts[~once]
