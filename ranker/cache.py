"""File-local (and folder) style: which gap symbols are written between which tokens.

The gap under test is left out of its own evidence (leave-one-out), so a file's single odd gap does not
vouch for itself, while a style the file uses consistently (a space inside parentheses, tabs, Allman
braces) makes the same gap elsewhere in the file unsurprising even when other projects never write it.
With folder adaptation, the other files of the folder add their counts too (in the strict variant, minus
the file's own near-duplicates, which would otherwise hand it its own clean copy).
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict


def gap_context(symbols: list[str], k: int) -> tuple[str, str]:
    """(token before, token after) of the gap symbol at index k. Coarser contexts (only one side) were
    tried and hurt: they override the n-gram model's context-specific prediction."""
    return (symbols[k - 1] if k else "<s>", symbols[k + 1] if k + 1 < len(symbols) else "</s>")


def wide_context(symbols: list[str], k: int, reach: int = 3) -> tuple[str, ...]:
    """The `reach` token symbols on each side of the gap symbol at index k (gap symbols left out)."""
    n = len(symbols)
    return tuple(symbols[j] if 0 <= j < n else "|" for j in range(k - 2 * reach + 1, k + 2 * reach, 2))


class StyleCounts:
    """Gap symbol counts per context: (token before, token after), and, when `wide`, three tokens a side."""

    def __init__(self, streams: list[list[str]] = (), wide: bool = False):
        self.counts: dict[tuple, Counter] = defaultdict(Counter)
        self.totals: Counter = Counter()
        self.wide = wide
        for syms in streams:
            self.add(syms)

    def add(self, syms: list[str]) -> None:
        counts, totals = self.counts, self.totals
        for k in range(0, len(syms), 2):
            ctx = gap_context(syms, k)
            counts[ctx][syms[k]] += 1
            totals[ctx] += 1
            if self.wide:
                ctx = wide_context(syms, k)
                counts[ctx][syms[k]] += 1
                totals[ctx] += 1

    def count(self, ctx, symbol) -> int:
        c = self.counts.get(ctx)
        return c.get(symbol, 0) if c else 0   # not c[symbol]: Counter's __missing__ is slow


class GapCache:
    def __init__(self, symbols: list[str], folder: StyleCounts | None = None,
                 exclude: StyleCounts | None = None):
        """`symbols`: the file's alternating gap/token symbols (no '</s>'). `folder`: counts over the
        folder's files; `exclude`: the part of them not to use (the file itself, or its near-duplicates)."""
        self.symbols = symbols
        self.own = StyleCounts([symbols], wide=folder is not None and folder.wide)
        self.folder = folder
        self.exclude = exclude if exclude is not None else self.own

    def _evidence(self, ctx, symbol: str, observed: bool) -> tuple[int, int]:
        """(count of symbol, total) in a context, the observed gap left out."""
        count = self.own.count(ctx, symbol) - observed
        total = self.own.totals[ctx] - 1
        if self.folder is not None:
            count += self.folder.count(ctx, symbol) - self.exclude.count(ctx, symbol)
            total += self.folder.totals[ctx] - self.exclude.totals[ctx]
        return count, total

    def adapted(self, gap: int, symbol: str, lm_log10: float, alpha: float) -> float:
        """log10 of the n-gram probability adapted to the style: a Dirichlet posterior whose prior is the
        n-gram model, (count + alpha * P_lm) / (total + alpha), counts leaving the observed gap out.
        With wide contexts (folder adaptation), a second posterior sits on top of that one."""
        k = 2 * gap
        observed = symbol == self.symbols[k]
        count, total = self._evidence(gap_context(self.symbols, k), symbol, observed)
        p = (count + alpha * 10.0 ** lm_log10) / (total + alpha)
        if self.own.wide:
            count, total = self._evidence(wide_context(self.symbols, k), symbol, observed)
            p = (count + alpha * p) / (total + alpha)
        return math.log10(p)
