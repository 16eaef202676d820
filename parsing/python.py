"""Python source text -> whitespace-aware token stream, with tree-sitter-python.

The same stream as parsing.java's: tree-sitter leaves, strings (f-strings included) and comments kept whole,
whitespace in the gaps. A backslash line continuation is a token of kind 'line_continuation' (its text
holds the newline).
"""
from __future__ import annotations

from functools import lru_cache

import tree_sitter
import tree_sitter_python

from .java import stream_of_leaves
from .tokens import TokenStream

WHOLE_KINDS = frozenset({"string", "comment"})


@lru_cache(maxsize=1)
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language()))


def parse(text: str) -> tree_sitter.Tree:
    return _parser().parse(text.encode("utf-8"))


@lru_cache(maxsize=1)
def _walker():
    """The C walker (parsing/native.cpp) over tree-sitter-python, and the kind names of its ids."""
    from ._native import Leaves
    walker = Leaves(tree_sitter_python.language(), sorted(WHOLE_KINDS))
    return walker, [walker.name(k) for k in range(1 << 16)]


def leaves(data: bytes) -> tuple[list[str], list[int], list[int]]:
    walker, names = _walker()
    kinds, starts, ends = walker.of(data)
    return list(map(names.__getitem__, kinds.tolist())), starts.tolist(), ends.tolist()


def tokenize(text: str) -> TokenStream:
    """Tokenize Python source `text` (already decoded) into a lossless TokenStream."""
    data = text.encode("utf-8")
    return stream_of_leaves(text, data, *leaves(data))
