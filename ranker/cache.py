"""File-local style: a cache of which gap symbols this file uses between which tokens.

The gap under test is left out of its own evidence (leave-one-out), so a file's single odd gap does not
vouch for itself, while a style the file uses consistently (a space inside parentheses, tabs, K&R braces)
makes the same gap elsewhere in the file unsurprising even when other projects never write it.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict


class GapCache:
    def __init__(self, symbols: list[str], extra: list[list[str]] = ()):
        """`symbols`: the alternating gap/token symbols of the file (without '</s>'). `extra`: the symbol
        streams of other files whose style also counts (folder adaptation)."""
        self.symbols = symbols
        self.counts: dict[tuple[str, str], Counter] = defaultdict(Counter)
        self.totals: Counter = Counter()
        for syms in [symbols, *extra]:
            self._add(syms)

    @staticmethod
    def context(symbols: list[str], gap: int) -> tuple[str, str]:
        k = 2 * gap
        before = symbols[k - 1] if k > 0 else "<s>"
        after = symbols[k + 1] if k + 1 < len(symbols) else "</s>"
        return before, after

    def _add(self, syms: list[str]):
        counts, totals = self.counts, self.totals
        for k in range(0, len(syms), 2):
            # (token before, token after): coarser contexts were tried and hurt (they override the
            # n-gram model's context-specific prediction)
            ctx = (syms[k - 1] if k else "<s>", syms[k + 1] if k + 1 < len(syms) else "</s>")
            counts[ctx][syms[k]] += 1
            totals[ctx] += 1


    def adapted(self, gap: int, symbol: str, lm_log10: float, alpha: float) -> float:
        """log10 of the n-gram probability adapted to the file: a Dirichlet posterior whose prior is the
        n-gram model, (count + alpha * P_lm) / (total + alpha), counts leaving the observed gap out."""
        ctx = self.context(self.symbols, gap)
        total = self.totals[ctx] - 1
        count = self.counts[ctx][symbol] - (symbol == self.symbols[2 * gap])
        return math.log10((count + alpha * 10.0 ** lm_log10) / (total + alpha))
