"""Score a file's symbol stream once, then batches of repairs, under KenLM models (log10).

For a repair of gap i, only symbol 2i changes, plus the next newline gap's symbol when the repair moves
the indentation it is measured against. The compiled loop in `lm._native` rescores each repair from the
stored KenLM state(s) before symbol 2i and stops as soon as the state after a symbol equals the original
one: from there on every score is the same. With a project model, each symbol's probability is
(1 - w) P_general + w P_project, each model keeping its own state.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lm.model import LanguageModel
from parsing.offsets import LINE_BREAK
from parsing.schemes import Scheme
from parsing.tokens import TokenStream

from .plans import RepairPlans


class Scorer:
    """One KenLM model, or a general model interpolated with a project model."""

    def __init__(self, general: LanguageModel, project: LanguageModel | None = None, weight: float = 0.0):
        self.general, self.project, self.weight = general, project, weight
        self.scheme = general.scheme
        self.native = general.mixture(project, weight)
        self.plans = RepairPlans(self.ids, self.native.models)   # repairs by kind of gap, for these models

    def ids(self, symbols: list[str]) -> np.ndarray:
        """KenLM word ids: one row per symbol, one column per model."""
        return self.native.index(symbols)

    def rescore(self, scored: ScoredStream, k1: np.ndarray, w1: np.ndarray, k2: np.ndarray,
                w2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For repairs changing symbol k1 to ids w1 and, where k2 >= 0, symbol k2 to ids w2: (log10 gain
        of the repaired stream, log10 score of the new symbol k1)."""
        return self.native.rescore(scored.native, k1, w1, k2, w2)


@dataclass(frozen=True, eq=False)
class ScoredStream:
    """A file's symbols with their log10 scores (and, inside `native`, the KenLM state before each)."""
    stream: TokenStream
    symbols: list[str]             # 2n+1 symbols, then '</s>'
    native: object                 # lm._native.Scored
    indents: list[str]             # indentation of the line each gap starts on
    unit: str | None               # the file's indentation unit, when the scheme counts in it (else None)
    next_newline_gap: np.ndarray   # for gap i: the next gap whose symbol depends on gap i's indentation, or -1

    @property
    def scores(self) -> np.ndarray:
        """log10 P(symbol k | history), one per symbol."""
        return self.native.scores


def score_stream(scorer: Scorer, scheme: Scheme, stream: TokenStream) -> ScoredStream:
    symbols, indents, unit = scheme.walk(stream)
    symbols.append("</s>")
    native = scorer.native.score(scorer.ids(symbols))
    return ScoredStream(stream, symbols, native, indents, unit, next_newline_gaps(stream))


_NEWLINE = LINE_BREAK   # LF, CRLF or a lone CR: a line break starts where it matches


def next_newline_gaps(stream: TokenStream) -> np.ndarray:
    """For each gap, the next gap whose symbol would change if this gap's indentation did: the next gap
    holding a newline, unless a multi-line token (which sets the indentation itself) comes first; or -1."""
    n = len(stream.kinds)
    newlines = np.fromiter((m.start() for m in _NEWLINE.finditer(stream.source)), dtype=np.int64)
    starts = np.asarray(stream.starts, dtype=np.int64)
    ends = np.asarray(stream.ends, dtype=np.int64)
    gap_lo = np.concatenate(([0], ends))
    gap_hi = np.concatenate((starts, [len(stream.source)]))
    # newlines before a position: a span holds one when the counts at its two ends differ
    newline_gaps = np.flatnonzero(np.searchsorted(newlines, gap_lo) != np.searchsorted(newlines, gap_hi))
    multiline_tokens = np.flatnonzero(np.searchsorted(newlines, starts) != np.searchsorted(newlines, ends))
    gaps = np.arange(n + 1)
    at = np.searchsorted(newline_gaps, gaps, side="right")
    nxt = np.append(newline_gaps, -1)[at]
    at = np.searchsorted(multiline_tokens, gaps, side="left")
    token = np.append(multiline_tokens, n + 1)[at]
    return np.where((nxt >= 0) & (token < nxt), -1, nxt)
