"""The indentation a file's structure implies for the lines that start a statement, and the lines that stray
from it.

A statement's line is indented from its block's **base**, the indentation of the line that starts the
statement opening the block (the `if (x) {` line; with the brace on a line of its own, the `if (x)` line;
for an annotated method, its annotation's line), or for a block inside parentheses (a lambda's, an anonymous
class's) the indentation of the line its `{` is on; a body without braces, from the line of its `if`,
`for`, `while`, `else` or `do`. How far is each file's own habit, per kind of line: a statement (one unit,
in most files), a block's closing `}` (none), a `case` label (none, or one unit), a statement after one
(one unit, or two) and a body without braces (one unit). A line whose offset is not its kind's habit in
the file is a candidate break: a line indented one level too deep, a `}` that does not line up with its
statement.

Only these lines are judged: a continuation, an array initializer's elements, a comment, what follows a
qualified label (`case A.B:`) and the lines of a block opened inside parentheses at the end of a
continuation line (`.post(x, new Callback() {`, indented from that line or from the statement's, as
repositories differ) are not: their indentation is alignment and taste. Pure: from a walk's symbol ids
(ranker/symbols.py's), gap texts and unit, with numpy; every line's base is its header's indentation as
written, so a block shifted together with its header is one break, not one per line.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from parsing.offsets import LINE_BREAK
from parsing.style import columns
from ranker.repairs import retab
from ranker.symbols import intern

KINDS = ("statement", "close", "label", "after-label", "body")
_COMMENTS = ("LINECOMMENT", "BLOCKCOMMENT", "JAVADOC")
_ENDS = (";", "{", "}")
_NOT_BLOCK = ("=", "]", ",", "(")   # a `{` after one opens an array initializer or an annotation's value


@dataclass(frozen=True)
class StatementLine:
    """A line that starts a statement: the gap before its first token (the walk's index, 0 = before the
    first token), its kind (one of KINDS), its indentation, its block's base and its offset from the base in
    columns."""
    gap: int
    kind: str
    indent: str
    base: str
    offset: int


# The symbols the structure reads, each a small code (0: any other), looked up in one table of every id
_SYMBOLS = ("{", "}", "(", "[", ")", "]", ";", ":", "=", ",", "else", "do", "if", "for", "while", "case",
            "default", *_COMMENTS)
_CODE = {s: i + 1 for i, s in enumerate(_SYMBOLS)}
_table = np.zeros(0, np.uint8)


def _codes(tok: np.ndarray) -> np.ndarray:
    """Each id's code in _SYMBOLS (the table grows with the ids interned so far)."""
    global _table
    if len(tok) and tok.max() >= len(_table):
        table = np.zeros(int(tok.max()) + 1 + 1024, np.uint8)
        for symbol, code in _CODE.items():
            at = intern(symbol)
            if at < len(table):
                table[at] = code
        _table = table
    return _table[tok]


def _is(code, *names):
    """Where the codes `code` are one of the symbols `names`."""
    out = code == _CODE[names[0]]
    for name in names[1:]:
        out |= code == _CODE[name]
    return out


def _last_before(targets, target_level, queries, query_level, inclusive: bool = False):
    """For each query position, the last target position before it (or at it, `inclusive`) of the same level;
    -1 where none. (One sort of both, by level then position, instead of a pass per level.)"""
    if not len(queries):
        return np.zeros(0, np.int64)
    position = np.concatenate([targets, queries])
    level = np.concatenate([target_level, query_level])
    # a target sorts before a query at the same position when inclusive, after it otherwise
    is_query = np.concatenate([np.zeros(len(targets), bool), np.ones(len(queries), bool)])
    order = np.lexsort((is_query if inclusive else ~is_query, position, level))
    ranked_target = np.where(is_query[order], -1, np.arange(len(order)))
    last = np.maximum.accumulate(ranked_target)
    found = np.full(len(order), -1)
    ok = last >= 0
    found[ok] = order[last[ok]]
    found[ok] = np.where(level[found[ok]] == level[order[ok]], found[ok], -1)   # not from a level below
    out = np.empty(len(queries), np.int64)
    mine = is_query[order]
    out[order[mine] - len(targets)] = np.where(found[mine] >= 0, position[np.maximum(found[mine], 0)], -1)
    return out


def _structure(ids, starts_line):
    """(each statement line's first token, its kind's index in KINDS, the first token of its base's line)."""
    tok = np.asarray(ids, dtype=np.int64)[1::2]
    n = len(tok)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    code = _codes(tok)
    opens, closes = code == _CODE["{"], code == _CODE["}"]
    parens = _is(code, "(", "[").astype(np.int64) - _is(code, ")", "]")
    step = opens.astype(np.int64) - closes
    depth = np.cumsum(step) - step            # braces open before each token
    pdepth = np.cumsum(parens) - parens       # parentheses and brackets open before each token
    comment = code >= _CODE[_COMMENTS[0]]
    index = np.arange(n)
    last_code = np.maximum.accumulate(np.where(~comment, index, -1))
    prev = np.concatenate(([-1], last_code[:-1]))                 # the previous token that is not a comment
    prev_code = np.where(prev >= 0, code[np.maximum(prev, 0)], 0)
    starts = np.asarray(starts_line, dtype=bool)[:n] & ~comment
    line_of = np.maximum.accumulate(np.where(starts | (index == 0), index, 0))   # each token's line's first token
    block = opens & ~_is(prev_code, *_NOT_BLOCK)
    # after a label's `:` (`case X:`, `default:`): the `:` two tokens after `case`, or right after `default`

    def back(k: int):   # the code of the token k before each token's previous one
        return np.where(prev - k >= 0, code[np.maximum(prev - k, 0)], 0)
    after_label = (prev_code == _CODE[":"]) & ((back(2) == _CODE["case"]) | (back(1) == _CODE["default"]))
    # an unbraced body: after the `)` of an `if`, `for` or `while` head, or after `else` or `do`
    body = starts & _is(prev_code, "else", "do") & (code != _CODE["if"])   # `else` then `if`: a chain
    keyword_at = np.where(body, prev, -1)          # the keyword whose body it is
    closing = np.nonzero(starts & (prev_code == _CODE[")"]))[0]
    if len(closing):
        shut = prev[closing]                       # the `)` before each such line: its `(` is one level out
        opened = np.nonzero(code == _CODE["("])[0]
        head = _last_before(opened, pdepth[opened], shut, pdepth[shut] - 1)
        keyword = np.where(head > 0, code[np.maximum(head - 1, 0)], 0)
        controls = _is(keyword, "if", "for", "while")
        body[closing[controls]] = True
        keyword_at[closing[controls]] = head[controls] - 1
    candidate = starts & (_is(prev_code, *_ENDS) | closes | after_label | (prev < 0) | body)

    # the enclosing `{` of the candidates and of the blocks: the last `{` before them one level out
    enclosing = np.full(n, -1)
    need = np.nonzero(candidate | block)[0]
    opened = np.nonzero(opens)[0]
    enclosing[need] = _last_before(opened, depth[opened] + 1, need, depth[need])
    inside = enclosing >= 0
    safe = np.maximum(enclosing, 0)
    kept = candidate & inside & block[safe] & (pdepth == pdepth[safe])
    # each block's header line: the last statement line at the block's own level (a line of a candidate
    # at level 0 counts too), or, inside parentheses, the line its `{` is on
    header = line_of.copy()
    heads = kept | (candidate & ~inside & (pdepth == 0))   # not a `for` head's clause after its `;`
    blocks = np.nonzero(block)[0]
    own_level = pdepth[blocks] == np.where(inside[blocks], pdepth[safe[blocks]], 0)
    at_heads = np.nonzero(heads)[0]
    found = _last_before(at_heads, depth[at_heads], blocks, depth[blocks], inclusive=True)
    ok = (found >= 0) & own_level
    header[blocks[ok]] = found[ok]
    # a block inside parentheses whose `{` ends a continuation line: repositories indent its lines from that
    # line or from the statement's line; not judged
    in_parens = block & (pdepth != np.where(inside, pdepth[safe], 0))
    kept &= ~(in_parens & ~heads[line_of])[safe]

    label = _is(code, "case", "default") & kept
    in_switch = np.zeros(n, dtype=bool)   # a block holding a label: its statements follow one
    in_switch[enclosing[label]] = True
    lines = np.nonzero(kept)[0]
    kinds = np.where(closes[lines], KINDS.index("close"), np.where(label[lines], KINDS.index("label"), np.where(
        in_switch[enclosing[lines]], KINDS.index("after-label"), KINDS.index("statement"))))
    bases = header[enclosing[lines]]
    is_body = body[lines]
    kinds[is_body] = KINDS.index("body")
    bases[is_body] = line_of[keyword_at[lines[is_body]]]
    return lines, kinds, bases


@lru_cache(maxsize=1 << 14)
def _indent(gap: str) -> tuple[str, int]:
    """A line-starting gap's indentation and its columns."""
    last = LINE_BREAK.split(gap)[-1]
    return last, columns(last)


def _base_indent(gap_texts, base: int) -> tuple[str, int]:
    """The indentation of the line token `base` starts (the file's first token: none) and its columns."""
    return _indent(gap_texts[base]) if base > 0 else ("", 0)


def _line(gap_texts, i: int, kind: int, base: int) -> StatementLine:
    """The statement line of token `i`, of kind KINDS[kind], measured from the line of token `base`."""
    (own, columns_own), (from_, columns_from) = _indent(gap_texts[i]), _base_indent(gap_texts, base)
    return StatementLine(i, KINDS[kind], own, from_, columns_own - columns_from)


def statement_lines(ids, gap_texts, starts_line) -> list[StatementLine]:
    """The statement lines of a file: `ids` its 2n+1 symbols' ids (gaps at even places), `gap_texts` its
    n+1 gap texts, `starts_line` whether each of its n tokens starts a line (numpy bool)."""
    lines, kinds, bases = _structure(ids, starts_line)
    return [_line(gap_texts, i, k, b) for i, k, b in zip(lines.tolist(), kinds.tolist(), bases.tolist())]


def off_habit(ids, gap_texts, starts_line, least: int):
    """The statement lines whose offset is not the one the file writes most for their kind, when it writes that
    one at least `least` times: (line, that offset, how many lines of the kind are at it, how many at the line's)."""
    lines, kinds, bases = _structure(ids, starts_line)
    if not len(lines):
        return []
    own = [_indent(gap_texts[i])[1] for i in lines.tolist()]
    base = [_base_indent(gap_texts, b)[1] for b in bases.tolist()]
    offsets = np.asarray(own, dtype=np.int64) - np.asarray(base, dtype=np.int64)
    out = []
    for k in np.unique(kinds).tolist():
        these = kinds == k
        values, counts = np.unique(offsets[these], return_counts=True)
        best = int(np.argmax(counts))
        if counts[best] < least:
            continue
        for j in np.nonzero(these & (offsets != values[best]))[0].tolist():
            at = int(counts[np.searchsorted(values, offsets[j])])
            out.append((_line(gap_texts, int(lines[j]), k, int(bases[j])), int(values[best]), int(counts[best]), at))
    return out


def expected_indent(base: str, offset: int, unit: str | None) -> str:
    """The indentation `offset` columns from `base`, written in the file's unit."""
    return retab(" " * max(columns(base) + offset, 0), unit if unit else " ")
