"""Python source text -> whitespace-aware token stream, with tree-sitter-python.

The same stream as parsing.java's: tree-sitter leaves, strings (f-strings included) and comments kept whole,
whitespace in the gaps. A backslash line continuation is a token of kind 'line_continuation' (its text
holds the newline).
"""
from __future__ import annotations

from .grammar import Grammar, grammar_language
from .java import stream_of_leaves
from .tokens import TokenStream

WHOLE_KINDS = frozenset({"string", "comment"})
GRAMMAR = Grammar(grammar_language("tree_sitter_python"), WHOLE_KINDS)


def tokenize(text: str) -> TokenStream:
    """Tokenize Python source `text` (already decoded) into a lossless TokenStream."""
    data = text.encode("utf-8")
    return stream_of_leaves(text, data, *GRAMMAR.leaves(data))
