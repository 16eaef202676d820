"""C++ source text -> whitespace-aware token stream, with tree-sitter-cpp; the `cpp` token scheme.

As parsing.c (whose symbols C++ shares: its grammar extends C's), raw strings kept whole too. A `.h` header is
C++ where the repository has C++ sources (parsing.languages.language_of).
"""
from __future__ import annotations

from .c import COMMENT_KINDS, WHOLE_KINDS, token_symbol, tokenizer
from .grammar import Grammar, lazy_language, same_tokens_with
from .language import Language

JOINED_OPERATORS = ("==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=",
                    "^=", "<<", ">>", "<<=", ">>=", "->", "->*", ".*", "::", "<=>", "...", "##", "//", "/*", "*/")

GRAMMAR = Grammar(lazy_language("tree_sitter_cpp"), WHOLE_KINDS)
tokenize = tokenizer(GRAMMAR)


def same_tokens(text: str, start: int, end: int, replacement: str, tokens: list[str] | None = None) -> bool:
    return same_tokens_with(GRAMMAR, tokenize, text, start, end, replacement, tokens)


LANGUAGE = Language(
    "cpp", (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".h"), "parsing.cpp", "tree-sitter-cpp", COMMENT_KINDS,
    scheme="cpp", default_model=".models/default-cpp-o6.bin",
    default_corpus="Boost 1.74's headers (Debian's libboost1.74-dev, /usr/include/boost)",
    line_comment="//", block_comment=("/*", "*/"),
    format_off=("clang-format off",), format_on=("clang-format on",),
    suppress=("// NOLINT", "/* NOLINT", "// unnatural: ignore"),
    own_schemes=(("cpp", "C++: identifiers and literals abstracted to their kind, indentation in the file's own units",
                token_symbol, None),))
