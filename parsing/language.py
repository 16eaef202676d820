"""What a language module says about its language (parsing.java, parsing.python, parsing.c, parsing.cpp): one
frozen record per language, which parsing.languages collects. Adding a language is one module that defines
`LANGUAGE` (and, when it has a scheme of its own, that scheme's token symbols), named in languages.MODULES.
Imports nothing heavy: a grammar is loaded only when a file of its language is read."""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

from .tokens import TokenStream


@dataclass(frozen=True)
class Language:
    name: str
    suffixes: tuple[str, ...]
    module: str                       # parsing.<module>: tokenize(text), same_tokens(text, start, end, repl)
    grammar: str                      # the tree-sitter grammar's distribution on PyPI (signatures name it)
    comment_kinds: frozenset[str]     # tree-sitter kinds of comments
    scheme: str                       # the default token scheme of its models (parsing.schemes)
    default_model: str                # relative to the repository (or the installed package's models/)
    default_corpus: str               # what `make demo` builds the default model from, in words
    line_comment: str | None = None   # how a line comment starts ('//', '#')
    block_comment: tuple[str, str] | None = None
    # markers in comments: a formatter told to leave a region alone, and a line's suppression of findings
    format_off: tuple[str, ...] = ()
    format_on: tuple[str, ...] = ()
    suppress: tuple[str, ...] = ()
    # gaps that are syntax, never repaired nor injected: described here, told by `syntax_gap` (None: none)
    syntax: str = ""
    syntax_gap: Callable[[TokenStream], list[bool]] | None = field(default=None, compare=False)
    same_syntax: Callable[[str, str], bool] | None = field(default=None, compare=False)   # (text, edited)
    # schemes of its own: (name, description, token_symbol(kind, text), walker or None: in units as
    # kind-units) each; () for Java, whose schemes parsing.schemes defines
    own_schemes: tuple = field(default=(), compare=False)

    def tokenize(self, text: str) -> TokenStream:
        return importlib.import_module(self.module).tokenize(text)

    def same_tokens(self, text: str, start: int, end: int, replacement: str, tokens: list[str] | None = None) -> bool:
        """Whether `text` with [start, end) replaced splits into the same tokens (and, where gaps are syntax,
        the same syntax): parsing.java.same_tokens for each language."""
        return importlib.import_module(self.module).same_tokens(text, start, end, replacement, tokens)
