"""The default scheme's walk in C++: a Java file's leaves straight to its symbols and gap columns.

For the kind-units scheme, parsing/native.cpp's `Leaves.units` does in one call what tokenizing
(parsing.java.tokenize) and the scheme walk (parsing.schemes.walk: gap and token symbols, each gap's
indentation, the file's unit) do in Python per token, and what the ranker asks of the stream besides
(ranker.score.next_newline_gaps, ranker.rank's joinable_gaps and after_line_comment): that Python was
about 28% of a ranking's CPU and a third of building a model. It hands out ids interned for the life of
the process (symbols, whitespace texts, kinds of gap: `interned`), which the ranker maps to KenLM ids and
plans (ranker/walk.py). The Python walk stays the reference (tests/test_walk.py: the same on every kind
of file), what the other schemes use, and what a file the C++ walk does not cover falls back to: one with
anything but ASCII whitespace between its leaves (in practice only a BOM at its start, which tree-sitter
skips; other junk is a leaf of its own), overlapping leaves, or a token written as its own text that is
not ASCII.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import cache

from .java import GRAMMAR, JOINED_OPERATORS
from .schemes import IDENTIFIER_SYMBOLS, LITERAL_SYMBOLS, RESERVED, Scheme, kind_symbol

UNKNOWN = 2   # Walked.joinable: a character the C++ walk does not classify (not ASCII) meets the gap


def covers(scheme: Scheme) -> bool:
    """Whether the C++ walk writes `scheme`'s symbols (the kind-units scheme's, Java's)."""
    return scheme.language == "java" and scheme.units and scheme.walker is None and scheme.token_symbol is kind_symbol


@cache
def walker():
    """The C++ walker, told the kind-units scheme's token symbols."""
    w = GRAMMAR.walker[0]
    w.units_scheme(fixed={**LITERAL_SYMBOLS, **IDENTIFIER_SYMBOLS},
                   prefixed=[("block_comment", "/**", "JAVADOC")],   # as parsing.schemes.kind_symbol
                   reserved=sorted(RESERVED), operators=list(JOINED_OPERATORS), line_comment="line_comment")
    return w


@dataclass(frozen=True, eq=False)
class Walked:
    """A file's gaps and symbols as the C++ walk gives them (ids interned for the process)."""
    lo: array            # each gap's first character (0-based, int64)
    hi: array            # just past its last
    symbols: array       # 2n+1 symbol ids, gap and token alternating
    gaps: array          # each gap's text id
    keys: array          # each gap's kind (text, indentation, next newline gap's text, unit) id
    next_newline: array  # ranker.score.next_newline_gaps
    joinable: array      # ranker.rank.joinable_gaps (uint8; UNKNOWN where Python must tell)
    after_comment: array  # ranker.rank.after_line_comment (uint8)
    unit: int            # the file's unit's text id
    parsed: bytes | None  # with `keep`: the leaves, packed, for walking the same text again without parsing it
    error_line: int      # the first syntax error's line (1-based, as parsing.grammar's first_error_line; 0: none)


def walk_units(text: str, keep: bool = False, parsed: bytes | None = None) -> Walked | None:
    """The kind-units walk of Java source `text` (no BOM), or None when the C++ walk does not cover it.
    `parsed`: a Walked.parsed, which saves the parse when it is this text's (else it is parsed again)."""
    out = walker().units(text.encode("utf-8"), keep, parsed)
    return None if out is None else Walked(*out)


class Interned:
    """What the C++ walk has interned so far, by its ids: the symbols, the whitespace texts and the kinds of
    gap."""

    def __init__(self):
        self.symbols: list[str] = []
        self.texts: list[str] = []
        # per kind of gap id: (gap text, indentation, next newline gap's text or None, unit)
        self.kinds: list[tuple[str, str, str | None, str]] = []

    def update(self) -> list[str]:
        """Take in what the walker interned since the last call; the new symbols."""
        if walker().unit_sizes() == (len(self.symbols), len(self.texts), len(self.kinds)):
            return []   # most files bring nothing new: one call, not three
        new = walker().unit_symbols(len(self.symbols))
        self.symbols.extend(new)
        t = self.texts
        t.extend(walker().unit_texts(len(t)))
        self.kinds.extend((t[g], t[i], t[n] if n >= 0 else None, t[u])
                          for g, i, n, u in walker().unit_keys(len(self.kinds)))
        return new

    def gap_indents(self, walked: Walked) -> list[str]:
        """The indentation each gap is measured against (parsing.schemes.walk's `indents`)."""
        kinds = self.kinds
        return [kinds[k][1] for k in walked.keys]

    def symbol_texts(self, walked: Walked) -> list[str]:
        return list(map(self.symbols.__getitem__, walked.symbols))

    def gap_texts(self, walked: Walked) -> tuple[str, ...]:
        return tuple(map(self.texts.__getitem__, walked.gaps))

    def sentence(self, walked: Walked) -> str:
        """The file's symbols, space-separated (a corpus line)."""
        return " ".join(self.symbol_texts(walked))

    def unit(self, walked: Walked) -> str:
        return self.texts[walked.unit]

    def keys(self, start: int = 0) -> list[tuple[str, str, str | None, str]]:
        """The kinds of gap (gap text, indentation, next newline gap's text or None, unit) from id `start` on."""
        return self.kinds[start:]


_INTERNED = Interned()


def interned() -> Interned:
    """The symbols and texts the C++ walk has interned, up to date."""
    _INTERNED.update()
    return _INTERNED
