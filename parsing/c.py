"""C source text -> whitespace-aware token stream, with tree-sitter-c; and the `c` token scheme's symbols.

The stream is parsing.java's: tree-sitter leaves, with string, character and system-header literals and
comments kept whole, whitespace in the gaps, whatever tree-sitter skipped a token of its own (lossless).
A preprocessor directive's body (`#define X (a + b)`: 'preproc_arg') is one leaf as tree-sitter gives it,
backslash continuations inside. The line break that ends a directive is a gap as any other: a repair that
removed it would change the leaves, so same_tokens refuses it.

Symbols (the `c` scheme, indentation in the file's units as Java's `kind-units`): identifiers ID, type names
TYPE, numbers NUM, strings STR, characters CHAR, `<stdio.h>` SYSLIB, a directive's body PPARG, comments
LINECOMMENT, DOC (`/**`, `/*!`) or BLOCKCOMMENT; keywords, primitive types and operators are their text.
"""
from __future__ import annotations

from functools import lru_cache

from .grammar import Grammar, lazy_language, same_tokens_with
from .java import stream_of_leaves
from .language import Language
from .symbols import safe_symbol
from .tokens import TokenStream

WHOLE_KINDS = frozenset({"string_literal", "char_literal", "system_lib_string", "comment", "raw_string_literal"})
FIXED = {"number_literal": "NUM", "string_literal": "STR", "raw_string_literal": "STR", "char_literal": "CHAR",
         "system_lib_string": "SYSLIB", "preproc_arg": "PPARG", "ERROR": "ERR", "error": "ERR", "bom": "BOM",
         "type_identifier": "TYPE"}
COMMENT_KINDS = frozenset({"comment"})
# C's operators and comment marks of two or more characters (ranker.repairs.joinable: two tokens that would
# form one cannot meet without whitespace)
JOINED_OPERATORS = ("==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=",
                    "^=", "<<", ">>", "<<=", ">>=", "->", "...", "##", "//", "/*", "*/")


@lru_cache(maxsize=1 << 16)
def token_symbol(kind: str, text: str) -> str:
    sym = FIXED.get(kind)
    if sym is not None:
        return sym
    if kind == "comment":
        return "LINECOMMENT" if text.startswith("//") else "DOC" if text.startswith(("/**", "/*!")) else "BLOCKCOMMENT"
    if kind.endswith("identifier"):   # identifier, field_, statement_, namespace_identifier
        return "ID"
    return safe_symbol(text, kind.upper())


def tokenizer(grammar: Grammar):
    def tokenize(text: str) -> TokenStream:
        """`text` (already decoded) as a lossless TokenStream; parsed with every CR as LF (one byte for one)
        as parsing.java.tokenize does, so that a CRLF line comment ends where an LF one does."""
        data = text.encode("utf-8")
        return stream_of_leaves(text, data, *grammar.leaves(data.replace(b"\r", b"\n") if b"\r" in data else data))
    return tokenize


GRAMMAR = Grammar(lazy_language("tree_sitter_c"), WHOLE_KINDS)
tokenize = tokenizer(GRAMMAR)


def same_tokens(text: str, start: int, end: int, replacement: str, tokens: list[str] | None = None) -> bool:
    return same_tokens_with(GRAMMAR, tokenize, text, start, end, replacement, tokens)


LANGUAGE = Language(
    "c", (".c", ".h"), "parsing.c", "tree-sitter-c", COMMENT_KINDS,
    scheme="c", default_model=".models/default-c-o6.bin",
    default_corpus="C sources of the GNU C library (Debian's glibc-source)",
    line_comment="//", block_comment=("/*", "*/"),
    format_off=("clang-format off",), format_on=("clang-format on",),
    suppress=("// NOLINT", "/* NOLINT", "// unnatural: ignore"),
    own_schemes=(("c", "C: identifiers and literals abstracted to their kind, indentation in the file's own units",
                token_symbol, None),))
