"""Java source text -> whitespace-aware token stream, with tree-sitter-java.

Tokens are tree-sitter leaves, except that comments and string, character and text-block literals are
kept whole. Whatever lies between two leaves is the gap: whitespace by construction, except for characters
tree-sitter skipped (a BOM, stray bytes in broken files), which become tokens of kind 'bom' or 'error' so
that the stream stays lossless.
"""
from __future__ import annotations

import re

from .grammar import Grammar, grammar_language, same_tokens_with
from .language import Language
from .offsets import ASCII, BOM, byte_to_char
from .tokens import TokenStream

TYPE_CHECKING = False   # typing.TYPE_CHECKING without importing typing (start-up time: tests/test_ranker.py)
if TYPE_CHECKING:   # for the annotations only: bin/rank's start-up does not load the binding
    import tree_sitter

# Leaves that tree-sitter would split further but that are one token for us.
WHOLE_KINDS = frozenset({"string_literal", "character_literal", "text_block", "line_comment", "block_comment"})
_NON_SPACE = re.compile(r"\S+")
# Java's operators and comment marks of two or more characters (two tokens that would form one cannot meet
# without whitespace: ranker.repairs.joinable)
JOINED_OPERATORS = ("==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
                    "<<", ">>", ">>>", "<<=", ">>=", ">>>=", "->", "::", "...", "//", "/*", "*/")


GRAMMAR = Grammar(grammar_language("tree_sitter_java"), WHOLE_KINDS)


def parse(text: str) -> tree_sitter.Tree:
    return GRAMMAR.parse(text)


def leaf_arrays(data: bytes):
    """`leaves` as the C walk returns them: arrays (array.array) of kind ids, start bytes and end bytes."""
    return GRAMMAR.leaf_arrays(data)


def leaves(data: bytes) -> tuple[list[str], list[int], list[int]]:
    """(kind, start byte, end byte) of every non-empty leaf of `data` parsed as Java, in document order,
    nodes of WHOLE_KINDS taken whole (MISSING nodes are empty, so never leaves). Walked in C
    (parsing/native.cpp; tests/reference_leaves.py is the same walk in Python)."""
    return GRAMMAR.leaves(data)


def tokenize(text: str) -> TokenStream:
    """Tokenize Java source `text` (already decoded) into a lossless TokenStream. A CR is a line break in
    Java as LF is (alone or in CRLF), but tree-sitter-java ends a line comment at LF only: it parses the
    bytes with every CR written as LF (one byte for one, so every span is the same), and a comment line
    ending in CRLF or CR leaves its line break to the gap."""
    data = text.encode("utf-8")
    return stream_of_leaves(text, data, *leaves(data.replace(b"\r", b"\n") if b"\r" in data else data))


def same_tokens(text: str, start: int, end: int, replacement: str, tokens: list[str] | None = None) -> bool:
    """Whether `text` with its characters [start, end) replaced by `replacement` splits into the same token
    texts as `text` (whose `tokens` may be given). Told from the leaves, the edited text parsed incrementally
    from the original's tree (kept for the next edit of the same text: a file's findings cost one parse and
    a few small reparses), unless either text has more than leaves and ASCII whitespace: then tokenized."""
    return same_tokens_with(GRAMMAR, tokenize, text, start, end, replacement, tokens)


def stream_of_leaves(text: str, data: bytes, kinds: list[str], starts: list[int], ends: list[int]) -> TokenStream:
    """The lossless TokenStream of `text` (UTF-8 `data`) from its leaves' kinds and byte spans: what the
    Java and Python tokenizers share."""
    to_char = byte_to_char(data, text)
    if to_char is not ASCII:   # byte offsets -> character offsets
        starts, ends = list(map(to_char, starts)), list(map(to_char, ends))
    # the usual case, checked in bulk: leaves in order with only whitespace between them
    if all(map(int.__le__, ends[:-1], starts[1:])):
        stream = TokenStream(text, tuple(kinds), tuple(starts), tuple(ends))
        between = "".join(stream.gap_texts)
        if not between or between.isspace():
            return stream
    out_k, out_s, out_e = [], [], []
    prev = 0
    for kind, s, e in zip(kinds, starts, ends):
        if s < prev:           # overlapping leaves (never seen): keep only the new part
            s = prev
            if e <= s:
                continue
        if s > prev:
            _skipped(text, prev, s, out_k, out_s, out_e)
        out_k.append(kind)
        out_s.append(s)
        out_e.append(e)
        prev = e
    if prev < len(text):
        _skipped(text, prev, len(text), out_k, out_s, out_e)
    return TokenStream(text, tuple(out_k), tuple(out_s), tuple(out_e))


def _skipped(text, lo, hi, out_k, out_s, out_e):
    """Text between two leaves: whitespace stays gap; anything else becomes a token so nothing is lost."""
    between = text[lo:hi]
    if between.isspace():
        return
    for m in _NON_SPACE.finditer(between):
        s, e = lo + m.start(), lo + m.end()
        if text[s] == BOM and e - s > 1:   # a BOM glued to junk: split so the BOM keeps its own kind
            out_k.append("bom")
            out_s.append(s)
            out_e.append(s + 1)
            s += 1
        out_k.append("bom" if text[s:e] == BOM else "error")
        out_s.append(s)
        out_e.append(e)


LANGUAGE = Language(
    "java", (".java",), "parsing.java", "tree-sitter-java", frozenset({"line_comment", "block_comment"}),
    scheme="kind-units", default_model=".models/default-kind-units-o6.bin",
    default_corpus="the JDK 17 sources (Debian's openjdk-17-source, its lib/src.zip; corpora/)",
    line_comment="//", block_comment=("/*", "*/"),
    format_off=("@formatter:off", "spotless:off", "CHECKSTYLE:OFF"),
    format_on=("@formatter:on", "spotless:on", "CHECKSTYLE:ON"),
    suppress=("// unnatural: ignore",))
