"""Python source text -> whitespace-aware token stream, with tree-sitter-python.

The same stream as parsing.java's: tree-sitter leaves, strings (f-strings included) and comments kept whole,
whitespace in the gaps. A backslash line continuation is a token of kind 'line_continuation' (its text
holds the newline).

Python's layout is syntax: a line break outside brackets ends a statement, and a line's indentation opens or
closes blocks. Those gaps (`syntax_gaps`) are never repaired, and an edit is the same only when Python's own
tokenizer sees the same tokens, INDENT, DEDENT and NEWLINE included (`same_tokens`).
"""
from __future__ import annotations

import io
import tokenize as _pytokenize

from .grammar import Grammar, lazy_language, same_tokens_with
from .java import stream_of_leaves
from .language import Language
from .python_scheme import CLOSE, OPEN, kind_symbol, kind_walk, token_symbol, walk
from .tokens import TokenStream

WHOLE_KINDS = frozenset({"string", "comment"})
GRAMMAR = Grammar(lazy_language("tree_sitter_python"), WHOLE_KINDS)


def tokenize(text: str) -> TokenStream:
    """Tokenize Python source `text` (already decoded) into a lossless TokenStream."""
    data = text.encode("utf-8")
    return stream_of_leaves(text, data, *GRAMMAR.leaves(data))


def syntax_gaps(stream: TokenStream) -> list[bool]:
    """Per gap (0..n): whether it is syntax, a line break outside brackets with the indentation after it (or
    the indentation before the first token)."""
    out, depth = [], 0
    for i, gap in enumerate(stream.gap_texts):
        out.append(i == 0 or (depth == 0 and ("\n" in gap or "\r" in gap)))
        if i < len(stream.kinds):
            kind = stream.kinds[i]
            if kind in OPEN:
                depth += 1
            elif kind in CLOSE and depth:
                depth -= 1
    return out


_LAYOUT = frozenset({_pytokenize.INDENT, _pytokenize.DEDENT, _pytokenize.NEWLINE})


def python_tokens(text: str) -> list[tuple[int, str]] | None:
    """The token stream as Python's tokenizer sees it (INDENT, DEDENT and NEWLINE by type alone; blank and
    comment lines' NL left out), or None when it cannot tokenize `text`."""
    try:
        toks = _pytokenize.generate_tokens(io.StringIO(text).readline)
        return [(t.type, "" if t.type in _LAYOUT else t.string) for t in toks
                if t.type not in (_pytokenize.NL, _pytokenize.ENDMARKER)]
    except (SyntaxError, _pytokenize.TokenError, ValueError):
        return None


def same_syntax(text: str, edited: str) -> bool:
    """Whether Python's tokenizer reads `edited` as it reads `text` (True when it cannot read `text`)."""
    before = python_tokens(text)
    return before is None or python_tokens(edited) == before


def same_tokens(text: str, start: int, end: int, replacement: str, tokens: list[str] | None = None) -> bool:
    """parsing.java.same_tokens for Python: the same leaves, and the same tokens to Python's tokenizer (no
    INDENT, DEDENT or NEWLINE made or lost); a text Python cannot tokenize is judged by the leaves alone."""
    if not same_tokens_with(GRAMMAR, tokenize, text, start, end, replacement, tokens, crs_as_lf=False):
        return False
    return same_syntax(text, text[:start] + replacement + text[end:])


LANGUAGE = Language(
    "python", (".py",), "parsing.python", "tree-sitter-python", frozenset({"comment"}),
    scheme="python-kind", default_model=".models/default-python-o6.bin",
    default_corpus="the Python 3.11 standard library of Debian's libpython3.11-stdlib (/usr/lib/python3.11)",
    line_comment="#", format_off=("# fmt: off", "# yapf: disable"), format_on=("# fmt: on", "# yapf: enable"),
    suppress=("# noqa", "# unnatural: ignore"),
    syntax="a line break outside brackets and the indentation after it (NEWLINE, INDENT, DEDENT)",
    syntax_gap=syntax_gaps, same_syntax=same_syntax,
    own_schemes=(("python", "Python: identifier text kept, literals abstracted, indentation in blocks", token_symbol,
                  walk),
                 ("python-kind", "Python: identifiers abstracted to their kind too, indentation in blocks (the "
                  "default for ranking and checking)", kind_symbol, kind_walk)))
