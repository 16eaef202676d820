"""Symbols of a text put together from pieces: the prefix, a candidate middle line, the suffix.

The fill-in-the-middle scorer tokenizes the prefix and the suffix once per task and each candidate line on
its own, then says the gaps between the pieces as the token scheme would have said them in the whole file.
A *layout* is what a gap's symbol depends on besides its text, fed gap by gap and token by token: the
current line's indentation for the Java schemes (`parsing.schemes.walk`), the stack of blocks and the
bracket depth for `python` (`parsing.python_scheme.PythonLayout`).
"""
from __future__ import annotations

from functools import lru_cache

from parsing.python_scheme import PythonLayout
from parsing.schemes import Scheme, gap_symbol
from parsing.tokens import TokenStream


class JavaLayout:
    """The indentation of the current line, as `parsing.schemes.walk` tracks it."""
    __slots__ = ("indent",)

    def __init__(self, indent: str = ""):
        self.indent = indent

    def copy(self) -> "JavaLayout":
        return JavaLayout(self.indent)

    def gap(self, gap: str) -> str:
        symbol = gap_symbol(gap, self.indent)
        if "\n" in gap:
            self.indent = gap[gap.rfind("\n") + 1:]
        return symbol

    def token(self, kind: str, text: str) -> None:
        if "\n" in text:
            line = text[text.rfind("\n") + 1:]
            self.indent = line[: len(line) - len(line.lstrip(" \t\f"))]


def new_layout(scheme: Scheme):
    return PythonLayout() if scheme.language == "python" else JavaLayout()


Piece = tuple[tuple[str, str, str], ...]   # (gap before, kind, text) of each token


def pieces(stream: TokenStream) -> tuple[Piece, str]:
    """A stream's tokens with the gap before each, and its trailing gap."""
    gaps, src = stream.gap_texts, stream.source
    toks = tuple((gaps[i], k, src[s:e]) for i, (k, s, e) in enumerate(zip(stream.kinds, stream.starts, stream.ends)))
    return toks, gaps[-1]


def feed(layout, scheme: Scheme, tokens, out: list[str], first_gap: str | None = None) -> None:
    """Append the symbols of `tokens` ((gap before, kind, text)...) to `out`, the first token's gap
    replaced by `first_gap` when given."""
    token_symbol = scheme.token_symbol
    for j, (gap, kind, text) in enumerate(tokens):
        out.append(layout.gap(first_gap if j == 0 and first_gap is not None else gap))
        out.append(token_symbol(kind, text))
        layout.token(kind, text)


class LineLexer:
    """A single line's tokens ((gap before, kind, text)...; the first gap is empty), remembered."""

    def __init__(self, scheme: Scheme):
        self.scheme = scheme
        self._lex = lru_cache(maxsize=1 << 16)(self._lex_uncached)

    def _lex_uncached(self, line: str) -> Piece:
        return pieces(self.scheme.tokenize(line))[0]

    def __call__(self, line: str) -> Piece:
        return self._lex(line.strip())
