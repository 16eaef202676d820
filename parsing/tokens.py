"""The things that flow out of parsing: tokens, the whitespace gaps between them, and whole streams.

Offsets are 1-based character offsets of the file as read in UTF-8 with newlines untouched.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .offsets import has_line_break, last_line


@dataclass(frozen=True, slots=True)
class Token:
    kind: str    # tree-sitter node type ('identifier', '{', 'line_comment', ...), or 'error' / 'bom'
    text: str
    start: int   # 1-based character offset of the first character

    @property
    def end(self) -> int:
        """1-based offset just past the last character."""
        return self.start + len(self.text)


@dataclass(frozen=True, slots=True)
class Gap:
    text: str    # the exact whitespace before a token (or after the last one), possibly empty
    start: int   # 1-based character offset where the gap begins (the next token's start when empty)

    @property
    def end(self) -> int:
        return self.start + len(self.text)


@dataclass(frozen=True)
class TokenStream:
    """A file as alternating gaps and tokens: gap[0] tok[0] gap[1] tok[1] ... tok[n-1] gap[n].

    Kept as parallel lists of kinds and 0-based character spans because building millions of objects is
    what made tokenization slow; `tokens` and `gaps` build the dataclasses on demand.
    """
    source: str
    kinds: tuple[str, ...]
    starts: tuple[int, ...]   # 0-based, inclusive
    ends: tuple[int, ...]     # 0-based, exclusive

    def __post_init__(self):
        if not (len(self.kinds) == len(self.starts) == len(self.ends)):
            raise ValueError("kinds, starts and ends differ in length")

    def __len__(self) -> int:
        return len(self.kinds)

    def token_text(self, i: int) -> str:
        return self.source[self.starts[i]:self.ends[i]]

    def token_texts(self) -> list[str]:
        return list(self.texts)

    @cached_property
    def texts(self) -> tuple[str, ...]:
        """The text of every token (computed once: the schemes and the ranker both need them)."""
        src = self.source
        return tuple([src[s:e] for s, e in zip(self.starts, self.ends)])

    @cached_property
    def gap_texts(self) -> tuple[str, ...]:
        """The text of every gap, 0..len(self) (computed once: tokenizing, the schemes and the ranker
        all need them)."""
        src = self.source
        return tuple([src[a:b] for a, b in zip((0, *self.ends), (*self.starts, len(src)))])

    @cached_property
    def line_gaps(self) -> tuple[tuple[int, str], ...]:
        """(index, the whitespace it ends with after its last line break) of every gap holding a line break:
        the indentation of the code lines that start in gaps (the schemes, the indentation unit and the
        ranker all need them)."""
        if "\r" in self.source:   # a CRLF or lone-CR file: a line break is any of LF, CRLF, CR
            return tuple([(i, last_line(gap)) for i, gap in enumerate(self.gap_texts) if has_line_break(gap)])
        return tuple([(i, gap[gap.rfind("\n") + 1:]) for i, gap in enumerate(self.gap_texts) if "\n" in gap])

    @cached_property
    def line_tokens(self) -> tuple[int, ...]:
        """The index of every token holding a line break (comments, text blocks: they set the indentation
        themselves; the schemes and the ranker both need them). Few, so found with `in`, not a call each."""
        if "\r" in self.source:
            return tuple([i for i, text in enumerate(self.texts) if has_line_break(text)])
        return tuple([i for i, text in enumerate(self.texts) if "\n" in text])

    def gap_text(self, i: int) -> str:
        """Whitespace before token i; i == len(self) is the trailing gap."""
        lo = self.ends[i - 1] if i > 0 else 0
        hi = self.starts[i] if i < len(self.kinds) else len(self.source)
        return self.source[lo:hi]

    def gap_start(self, i: int) -> int:
        """0-based offset where gap i begins."""
        return self.ends[i - 1] if i > 0 else 0

    @property
    def tokens(self) -> tuple[Token, ...]:
        src = self.source
        return tuple(Token(k, src[s:e], s + 1) for k, s, e in zip(self.kinds, self.starts, self.ends))

    @property
    def gaps(self) -> tuple[Gap, ...]:
        return tuple(Gap(self.gap_text(i), self.gap_start(i) + 1) for i in range(len(self.kinds) + 1))

    def with_gap(self, i: int, text: str) -> "TokenStream":
        """The same tokens with gap i replaced by `text` (what a repair of that gap produces)."""
        lo = self.gap_start(i)
        hi = self.starts[i] if i < len(self.kinds) else len(self.source)
        shift = len(text) - (hi - lo)
        starts = self.starts[:i] + tuple(s + shift for s in self.starts[i:])
        ends = self.ends[:i] + tuple(e + shift for e in self.ends[i:])
        return TokenStream(self.source[:lo] + text + self.source[hi:], self.kinds, starts, ends)

    def reassemble(self) -> str:
        """Concatenate gaps and tokens; equals `source` for every stream (the lossless property)."""
        parts = []
        for i in range(len(self.kinds)):
            parts.append(self.gap_text(i))
            parts.append(self.token_text(i))
        parts.append(self.gap_text(len(self.kinds)))
        return "".join(parts)
