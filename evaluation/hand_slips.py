"""The slips a reviewer sees at a glance, injected into code whose style is consistent: twelve kinds, each
written where the file's own habit is clear, so that the truth is certain (in a repository whose CI
enforces a formatter, whatever else a checker reports is a false alarm).

    tab             one indentation unit of a line written as a tab (a tab-indented file: a tab as 4 spaces)
    trailing        spaces left at the end of a code line
    space-semicolon `x ;`: a space before a statement's ';'
    comma           `a,b`: the space after a ',' taken out
    keyword-paren   `if(`: the space between `if`, `for`, `while`, `switch`, `catch` or `synchronized` and '('
    binary          `a+b`: the spaces on both sides of a binary operator taken out
    double-space    `=  new`: a space after an assignment or a binary operator doubled
    double-blank    a blank line made two
    missing-blank   the blank line after a member's closing '}' taken out
    brace-line      `) {` written with the '{' on a line of its own (at the line's indentation)
    deep-block      a statement, with its whole block, indented one unit too deep
    continuation    a continuation line indented 4 columns (a tab-indented file: one tab) too deep

A slip is written only where the file writes the right form: the kind's site must hold the form the file
writes at nearly all of its sites of that kind (`_clear`), and the slipped text must tokenize to the same
tokens. Its record names every gap it changed (in the slipped text), which a finding must touch to find it.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from parsing.java import tokenize
from parsing.offsets import last_line
from parsing.style import detect_indentation
from parsing.tokens import TokenStream

from .injection import keeps_tokens

KINDS = ("tab", "trailing", "space-semicolon", "comma", "keyword-paren", "binary", "double-space", "double-blank",
         "missing-blank", "brace-line", "deep-block", "continuation")
KEYWORDS = frozenset({"if", "for", "while", "switch", "catch", "synchronized"})
BINARY = frozenset({"+", "-", "*", "/", "%", "==", "!=", "<=", ">=", "&&", "||", "=", "+=", "-=", "*=", "/=",
                    "->", "|", "&", "^"})
_OPERANDS = frozenset({"identifier", ")", "]", "decimal_integer_literal", "string_literal", "character_literal",
                       "true", "false", "null", "this", "decimal_floating_point_literal", "hex_integer_literal"})
_COMMENTS = frozenset({"line_comment", "block_comment"})
CLEAR = 0.98   # a kind is injected into a file only where this share of its sites hold the right form


@dataclass(frozen=True)
class HandSlip:
    """One slip written into a file: its kind, the file's text before and after, and the spans (0-based,
    [start, end) of the slipped text) of the gaps it changed."""
    kind: str
    original: str
    slipped: str
    gaps: tuple[tuple[int, int], ...]

    def touched(self, start: int, end: int) -> bool:
        """Whether a finding on the gap [start, end) of the slipped text is on this slip (an empty gap
        touches where it is)."""
        return any(start <= b and a <= end for a, b in self.gaps)


def _line_indent(stream: TokenStream, i: int) -> str:
    """The indentation of the line token i is on."""
    for j in range(i, -1, -1):
        if "\n" in stream.gap_texts[j]:
            return last_line(stream.gap_texts[j])
    return ""


def _rewrite(stream: TokenStream, edits: dict[int, str]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The text with gaps `edits` (index -> new text) rewritten, and the spans of the rewritten gaps in it."""
    text, out, spans, shift, last = stream.source, [], [], 0, 0
    for g in sorted(edits):
        lo = stream.gap_start(g)
        old = stream.gap_texts[g]
        out.append(text[last:lo])
        out.append(edits[g])
        spans.append((lo + shift, lo + shift + len(edits[g])))
        shift += len(edits[g]) - len(old)
        last = lo + len(old)
    out.append(text[last:])
    return "".join(out), tuple(spans)


def _sites(stream: TokenStream, kind: str, unit: str) -> tuple[list[dict[int, str]], int]:
    """Every slip of `kind` the file allows (as gap rewrites), and how many sites of the kind write the
    wrong form already (for _clear)."""
    gaps, texts, kinds, n = stream.gap_texts, stream.texts, stream.kinds, len(stream)
    out: list[dict[int, str]] = []
    wrong = 0
    tab_file = unit == "\t"
    for i in range(1, n):
        g, prev, tok = gaps[i], texts[i - 1], texts[i]
        line_start = "\n" in g
        if kind == "tab" and line_start and kinds[i] not in _COMMENTS:
            ind = last_line(g)
            if tab_file and ind.startswith("\t"):
                out.append({i: g[:len(g) - len(ind)] + "    " + ind[1:]})
            elif not tab_file and ind.startswith(unit) and unit:
                out.append({i: g[:len(g) - len(ind)] + "\t" + ind[len(unit):]})
        elif kind == "trailing" and line_start and kinds[i - 1] not in _COMMENTS:
            head = g[:g.index("\n")]
            if head:
                wrong += 1
            else:
                out.append({i: " " * (1 + i % 3) + g})
        elif kind == "space-semicolon" and tok == ";" and i + 1 < n and "\n" in gaps[i + 1]:
            if g:
                wrong += 1
            elif kinds[i - 1] not in _COMMENTS:
                out.append({i: " "})
        elif kind == "comma" and prev == "," and not line_start:
            if g == "":
                wrong += 1
            elif g == " ":
                out.append({i: ""})
        elif kind == "keyword-paren" and prev in KEYWORDS and tok == "(":
            if g == "":
                wrong += 1
            elif g == " ":
                out.append({i: ""})
        elif kind == "binary" and tok in BINARY and kinds[i - 1] in _OPERANDS and i + 1 < n:
            after = gaps[i + 1]
            if g == "" and after == "":
                wrong += 1
            elif g == " " and after == " ":
                out.append({i: "", i + 1: ""})
        elif (kind == "double-space" and prev in BINARY and kinds[i - 2 if i >= 2 else 0] in _OPERANDS
              and not line_start):
            if g.startswith("  "):
                wrong += 1
            elif g == " ":
                out.append({i: "  "})
        elif kind == "double-blank" and g.count("\n") >= 2:
            if g.count("\n") > 2:
                wrong += 1
            elif kinds[i] not in _COMMENTS:
                out.append({i: "\n" + g})
        elif kind == "missing-blank" and prev == "}" and line_start and tok not in ("}", ")", ";", ",", "else",
                                                                                    "catch", "finally", "while"):
            if g.count("\n") == 1:
                wrong += 1
            elif g.count("\n") == 2:
                out.append({i: g[g.index("\n") + 1:]})
        elif kind == "brace-line" and tok == "{" and prev == ")" and i + 1 < n and "\n" in gaps[i + 1]:
            if line_start:
                wrong += 1
            elif g == " ":
                out.append({i: "\n" + _line_indent(stream, i - 1)})
        elif kind == "deep-block" and line_start and prev in (";", "{", "}") and tok not in ("}",) \
                and kinds[i] not in _COMMENTS and unit and last_line(g):
            block = _statement_gaps(stream, i)
            if block:
                out.append({j: gaps[j] + unit for j in block})
        elif kind == "continuation" and line_start and prev not in (";", "{", "}", ":", ",") \
                and kinds[i - 1] not in _COMMENTS and kinds[i] not in _COMMENTS and tok not in ("}", "@") \
                and not _annotation_line(stream, i - 1):
            out.append({i: g + ("\t" if tab_file else "    ")})
    return out, wrong


def _annotation_line(stream: TokenStream, i: int) -> bool:
    """Whether token i's line starts with an annotation."""
    for j in range(i, -1, -1):
        if j == 0 or "\n" in stream.gap_texts[j]:
            return stream.texts[j] == "@"
    return False


def _statement_gaps(stream: TokenStream, i: int) -> list[int]:
    """The line-starting gaps of the statement whose first token is token i (its own, and those of its
    block's lines up to its closing '}'), when it ends within the file; [] otherwise."""
    texts, gaps, n = stream.texts, stream.gap_texts, len(stream)
    depth, out = 0, [i]
    for j in range(i, n):
        t = texts[j]
        if j > i and "\n" in gaps[j]:
            out.append(j)
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return []
            if t == "}" and depth == 0 and (j + 1 >= n or texts[j + 1] not in ("else", "catch", "finally", ")",
                                                                             ",", ";", ".")):
                return out
        elif t == ";" and depth == 0:
            return out
    return []


def _clear(sites: int, wrong: int) -> bool:
    return sites >= 1 and sites / (sites + wrong) >= CLEAR


def inject(text: str, kind: str, rng: random.Random) -> HandSlip | None:
    """One slip of `kind` at a random site of `text`, where the file keeps the kind's right form; None when it
    has no such site or its habit is not clear."""
    stream = tokenize(text)
    unit = detect_indentation(stream).unit
    sites, wrong = _sites(stream, kind, unit or "")
    if not _clear(len(sites), wrong):
        return None
    rng.shuffle(sites)
    for edits in sites[:20]:
        slipped, spans = _rewrite(stream, edits)
        if keeps_tokens(stream, slipped):
            return HandSlip(kind, text, slipped, spans)
    return None


def seeded_order(files: list[str], seed: int) -> list[str]:
    """`files` in an order of their own for `seed` (the order in which a benchmark slips them)."""
    order = sorted(files)
    random.Random(seed).shuffle(order)
    return order
