"""Score a file's symbol stream once, then batches of repairs, under KenLM models (log10).

For a repair of gap i, only symbol 2i changes, plus the next newline gap's symbol when the repair moves
the indentation it is measured against. The compiled loop in `lm._native` rescores each repair from the
stored KenLM state(s) before symbol 2i and stops as soon as the state after a symbol equals the original
one: from there on every score is the same. With a project model, each symbol's probability is
(1 - w) P_general + w P_project, each model keeping its own state.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass

from lm.model import LanguageModel
from parsing.schemes import Scheme
from parsing.tokens import TokenStream

from .plans import RepairPlans
from .repairs import DEFAULT_EDITS, EDITS


class Scorer:
    """One KenLM model, or a general model interpolated with a project model; and the error model that
    weighs each repair (ranker/repairs.py's EDITS)."""

    def __init__(self, general: LanguageModel, project: LanguageModel | None = None, weight: float = 0.0,
                 edits: str = DEFAULT_EDITS):
        self.general, self.project, self.weight, self.edits = general, project, weight, edits
        self.scheme = general.scheme
        self.native = general.mixture(project, weight)
        # repairs by kind of gap, for these models
        self.plans = RepairPlans(self.ids, self.native.models, EDITS[edits])
        self.walk_tables = None   # ranker.walk's, for the C++ walk's ids (made on first use)

    def ids(self, symbols: list[str]) -> array:
        """KenLM word ids: one row per symbol, one column per model (flat, row-major)."""
        return self.native.index(symbols)

    def rescore(self, scored: ScoredStream, k1, w1, k2, w2) -> tuple[array, array]:
        """For repairs changing symbol k1 to ids w1 and, where k2 >= 0, symbol k2 to ids w2 (int64 and
        uint32 buffers, ids row-major): (log10 gain of the repaired stream, log10 score of the new symbol k1)."""
        return self.native.rescore(scored.native, array("q", k1), array("I", w1), array("q", k2), array("I", w2))


@dataclass(frozen=True, eq=False)
class ScoredStream:
    """A file's symbols with their log10 scores (and, inside `native`, the KenLM state before each)."""
    stream: TokenStream
    symbols: list[str]             # 2n+1 symbols, then '</s>'
    native: object                 # lm._native.Scored
    indents: list[str]             # indentation of the line each gap starts on
    unit: str | None               # the file's indentation unit, when the scheme counts in it (else None)
    next_newline_gap: list[int]    # for gap i: the next gap whose symbol depends on gap i's indentation, or -1

    @property
    def scores(self) -> array:
        """log10 P(symbol k | history), one per symbol."""
        return self.native.scores


def score_stream(scorer: Scorer, scheme: Scheme, stream: TokenStream) -> ScoredStream:
    symbols, indents, unit = scheme.walk(stream)
    symbols.append("</s>")
    native = scorer.native.score(scorer.ids(symbols))
    return ScoredStream(stream, symbols, native, indents, unit, next_newline_gaps(stream))


def next_newline_gaps(stream: TokenStream) -> list[int]:
    """For each gap, the next gap whose symbol would change if this gap's indentation did: the next gap
    holding a newline, unless a multi-line token (which sets the indentation itself) comes first; or -1."""
    n = len(stream.kinds)
    # what ends the search, in stream order: a newline gap i (at 2i), a multi-line token i (at 2i + 1)
    # (a line break is LF, CRLF or a lone CR)
    stops = sorted([2 * i for i, _ in stream.line_gaps] + [2 * i + 1 for i in stream.line_tokens])
    out = [-1] * (n + 1)
    for a, b in zip(stops, stops[1:]):
        if b % 2 == 0:   # the gaps from stop a on (a newline gap is measured against the one before) to b
            out[a // 2 + (a % 2):b // 2] = [b // 2] * (b // 2 - a // 2 - (a % 2))
    if stops and stops[0] % 2 == 0:   # the gaps before the first stop
        out[:stops[0] // 2] = [stops[0] // 2] * (stops[0] // 2)
    return out
