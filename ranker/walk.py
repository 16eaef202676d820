"""The default scheme's walk in C++: a Java file's leaves straight to the columns the ranker takes.

For the kind-units scheme, parsing/native.cpp's `Leaves.units` does in one call what tokenizing
(parsing.java.tokenize), the scheme walk (parsing.schemes.walk: gap and token symbols, each gap's
indentation, the file's unit), ranker.score.next_newline_gaps and ranker.rank's joinable_gaps and
after_line_comment do in Python, per token: that Python was about 28% of a ranking's CPU. It hands out ids
interned for the life of the process (symbols, whitespace texts, kinds of gap); the tables here turn them
into each scorer's KenLM ids, plans and the style cache's symbol ids, growing only when a file brings a new
one. The Python walk stays the reference (tests/test_walk.py: the same columns on every kind of file) and
is what the other schemes use, and what a file the C++ walk does not cover falls back to: one with anything
but ASCII whitespace between its leaves (a BOM past the start, bytes tree-sitter skipped), overlapping
leaves, or a token written as its own text that is not ASCII.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import cache

from parsing.java import GRAMMAR
from parsing.schemes import IDENTIFIER_SYMBOLS, LITERAL_SYMBOLS, RESERVED, Scheme, _kind_symbol

from ._native import gather, gather_ids
from .repairs import _JOINED, joinable
from .symbols import symbol_ids


def covers(scheme: Scheme) -> bool:
    """Whether the C++ walk writes `scheme`'s symbols (the kind-units scheme's, Java's)."""
    return scheme.language == "java" and scheme.units and scheme.walker is None and scheme.token_symbol is _kind_symbol


@cache
def _walker():
    walker = GRAMMAR.walker[0]
    walker.units_scheme(fixed={**LITERAL_SYMBOLS, **IDENTIFIER_SYMBOLS},
                        prefixed=[("block_comment", "/**", "JAVADOC")],   # as parsing.schemes._kind_symbol
                        reserved=sorted(RESERVED), operators=list(_JOINED), line_comment="line_comment")
    return walker


@dataclass(frozen=True, eq=False)
class Walked:
    """A file's gaps and symbols as the C++ walk gives them (ids interned for the process)."""
    lo: array            # each gap's first character (0-based, int64)
    hi: array            # just past its last
    symbols: array       # 2n+1 symbol ids, gap and token alternating
    gaps: array          # each gap's text id
    keys: array          # each gap's kind (text, indentation, next newline gap's text, unit) id
    next_newline: array  # ranker.score.next_newline_gaps
    joinable: array      # ranker.rank.joinable_gaps (uint8)
    after_comment: array  # ranker.rank.after_line_comment (uint8)
    unit: int            # the file's unit's text id
    parsed: bytes | None  # with `keep`: the leaves, packed, for walking the same text again without parsing it


def walk_units(text: str, keep: bool = False, parsed: bytes | None = None) -> Walked | None:
    """The kind-units walk of Java source `text` (no BOM), or None when the C++ walk does not cover it.
    `parsed`: a Walked.parsed, which saves the parse when it is this text's (else it is parsed again)."""
    walker = _walker()
    out = walker.units(text.encode("utf-8"), keep, parsed)
    if out is None:
        return None
    walked = Walked(*out)
    if 2 in walked.joinable:   # a non-ASCII character where two tokens meet: Python's str tells
        lo, hi = walked.lo, walked.hi
        for i, j in enumerate(walked.joinable):
            if j == 2:
                walked.joinable[i] = joinable(text[hi[i - 1]:lo[i]], text[hi[i]:lo[i + 1]][:3])
    return walked


class _Interned:
    """What the C++ walk has interned so far, by its ids: each symbol's style cache id (ranker.symbols) and
    each whitespace text; the same for every scorer."""

    def __init__(self):
        self.symbol_ids = array("q")   # per symbol id: ranker.symbols' id
        self.symbols: list[str] = []   # per symbol id: the symbol
        self.texts: list[str] = []     # per whitespace text id: the text

    def update(self) -> list[str]:
        """Take in what the walker interned since the last call; the new symbols."""
        walker = _walker()
        new = walker.unit_symbols(len(self.symbols))
        if new:
            self.symbols.extend(new)
            self.symbol_ids.extend(symbol_ids(new))
        self.texts.extend(walker.unit_texts(len(self.texts)))
        return new

    def style_ids(self, walked: Walked) -> array:
        """The style cache's ids of the file's symbols ('</s>' left out)."""
        return gather(self.symbol_ids, walked.symbols)

    def gap_texts(self, walked: Walked) -> tuple[str, ...]:
        return tuple(map(self.texts.__getitem__, walked.gaps))

    def unit(self, walked: Walked) -> str:
        return self.texts[walked.unit]


_INTERNED = _Interned()


def interned() -> _Interned:
    """The symbols and texts the C++ walk has interned, up to date."""
    _INTERNED.update()
    return _INTERNED


class WalkTables:
    """For one scorer: the KenLM ids (one per model) and the plan of everything the C++ walk has interned
    so far, by its ids."""

    def __init__(self, scorer):
        self.scorer = scorer
        self.models = scorer.native.models
        self.kenlm = array("I")     # per symbol id: its KenLM ids, `models` of them
        self.plans = array("q")     # per kind of gap id: its plan in the scorer's RepairPlans
        self.eos = scorer.ids(["</s>"])

    def update(self) -> None:
        common = interned()
        if len(self.kenlm) < len(common.symbols) * self.models:
            self.kenlm.extend(self.scorer.ids(common.symbols[len(self.kenlm) // self.models:]))
        texts, plans = common.texts, self.scorer.plans
        for gap, indent, nxt, unit in _walker().unit_keys(len(self.plans)):
            self.plans.extend(plans.plans([texts[gap]], [texts[indent]], [texts[nxt] if nxt >= 0 else None],
                                          texts[unit]))

    def lm_ids(self, walked: Walked) -> array:
        """The KenLM ids of the file's symbols, then '</s>' (Scorer.ids)."""
        return gather_ids(self.kenlm, walked.symbols, self.models) + self.eos

    def gap_plans(self, walked: Walked) -> array:
        return gather(self.plans, walked.keys)


def tables(scorer) -> WalkTables:
    """The scorer's tables (made on first use), up to date with the walker."""
    if scorer.walk_tables is None:
        scorer.walk_tables = WalkTables(scorer)
    scorer.walk_tables.update()
    return scorer.walk_tables
