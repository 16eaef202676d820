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
(ranker/symbols.py's), gap texts and unit (the lines by a compiled pass, parsing/native.cpp's
statement_structure; the offsets with numpy); every line's base is its header's indentation as
written, so a block shifted together with its header is one break, not one per line.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from parsing.offsets import LINE_BREAK
from parsing.style import columns
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


def _roles() -> np.ndarray:
    """Per code, the roles parsing/native.cpp's statement_structure reads it in (its Role bits)."""
    from parsing._native import STRUCTURE_ROLES as bit
    roles = np.zeros(256, np.uint16)
    for names, role in ((("{",), "open-brace"), (("}",), "close-brace"), (("(", "["), "open"),
                        ((")", "]"), "close"), (_COMMENTS, "comment"), (_ENDS, "end"), (_NOT_BLOCK, "not-block"),
                        (("else", "do"), "body-keyword"), (("if",), "if"), (("if", "for", "while"), "control"),
                        (("case", "default"), "label"), ((":",), "colon"), (("case",), "case"),
                        (("default",), "default"), (("(",), "paren"), ((")",), "close-paren")):
        for name in names:
            roles[_CODE[name]] |= bit[role]
    return roles


_ROLES = _roles()


def _structure(ids, starts_line):
    """(each statement line's first token, its kind's index in KINDS, the first token of its base's line): the
    compiled walk's (parsing/native.cpp's statement_structure; tests/reference_structure.py, numpy's)."""
    from parsing._native import statement_structure
    tok = np.asarray(ids, dtype=np.int64)[1::2]
    starts = np.ascontiguousarray(np.asarray(starts_line, dtype=bool)[:len(tok)]).view(np.uint8)
    lines, kinds, bases = statement_structure(np.ascontiguousarray(_codes(tok)), starts, _ROLES)
    return tuple(np.frombuffer(x, dtype=np.int64) for x in (lines, kinds, bases))


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


def _offsets(ids, gap_texts, starts_line):
    """The statement lines as (first token, kind's index, base's first token, offset), and per kind its
    offsets' counts and its habit: (the offset the file writes most, how many lines are at it)."""
    lines, kinds, bases = _structure(ids, starts_line)
    rows = [(i, k, b, _indent(gap_texts[i])[1] - _base_indent(gap_texts, b)[1])
            for i, k, b in zip(lines.tolist(), kinds.tolist(), bases.tolist())]
    counts: dict[int, Counter] = defaultdict(Counter)
    for _, k, _, offset in rows:
        counts[k][offset] += 1
    habit = {k: min(c.items(), key=lambda kv: (-kv[1], kv[0])) for k, c in counts.items()}   # ties: the least
    return rows, counts, habit


@dataclass(frozen=True)
class Run:
    """Consecutive statement lines of one block, each the same columns off its kind's habit: lines moved
    together, as a block pasted one level too deep is. `lines`: the line-starting gaps (the walk's indices)
    the re-indentation moves, in order: the comment lines just above the run at its indentation, its lines
    and every line under them, up to the block's next statement line (or its close), each by `shift`
    columns."""
    first: StatementLine     # the run's first statement line
    habit: int               # the offset the file writes most for its kind
    at_habit: int            # the file's lines of its kind at that offset
    at_own: int              # the file's lines of its kind at the first line's offset, the run's included
    length: int              # the run's statement lines of the first's kind (at_own counts them)
    shift: int               # columns: habit - the first line's offset
    lines: tuple[int, ...]
    whole: bool              # no other statement line among `lines` is off its habit (the lines moved as one)


def shifted_runs(ids, gap_texts, starts_line, least: int) -> list[Run]:
    """The runs of statement lines whose offset is not the one the file writes most for their kind (when it
    writes that one at least `least` times), each with the lines a re-indentation moves with it. A line off
    by other columns than the line before it, or a sibling at its habit between them, starts a run of its own."""
    rows, counts, habit = _offsets(ids, gap_texts, starts_line)
    off = {i for i, k, _, offset in rows if offset != habit[k][0] and habit[k][1] >= least}
    if not off:   # most files
        return []
    siblings: dict[int, list[tuple[int, int, int]]] = defaultdict(list)   # base -> (line, kind, offset), in order
    for i, k, b, offset in rows:
        siblings[b].append((i, k, offset))
    starts = np.nonzero(np.asarray(starts_line, dtype=bool))[0]
    comment = np.isin(_codes(np.asarray(ids, dtype=np.int64)[1::2]), [_CODE[c] for c in _COMMENTS])
    out = []
    for b, rows_of in siblings.items():
        if not any(i in off for i, _, _ in rows_of):
            continue
        at = 0
        while at < len(rows_of):
            i, k, offset = rows_of[at]
            best, at_best = habit[k]
            if offset == best or at_best < least:
                at += 1
                continue
            shift, end = best - offset, at + 1
            while end < len(rows_of) and habit[rows_of[end][1]][0] - rows_of[end][2] == shift \
                    and habit[rows_of[end][1]][1] >= least:
                end += 1
            after = rows_of[end - 1][0]   # the run's last line; its lines go on to the next sibling's
            limit = rows_of[end][0] if end < len(rows_of) else None
            before = rows_of[at - 1][0] if at else b
            moved = _moved(gap_texts, starts, comment, i, before, after, limit)
            own = {t for t, _, _ in rows_of[at:end]}
            same = sum(kind == k for _, kind, _ in rows_of[at:end])   # all at `offset`: the shift is one
            out.append(Run(_line(gap_texts, i, k, b), best, at_best, counts[k][offset], same, shift, moved,
                           not any(t in off and t not in own for t in moved)))
            at = end
    return sorted(out, key=lambda r: r.first.gap)


def _moved(gap_texts, starts, comment, first: int, before: int, last: int, limit: int | None) -> tuple[int, ...]:
    """The line-starting tokens a run from line `first` to line `last` moves: the comment lines above `first`
    (after line `before`) at its indentation, and from `first` on every line no shallower than it, up to
    `limit` (the next sibling; None: the file's end)."""
    indent, width = _indent(gap_texts[first])
    at = int(np.searchsorted(starts, first))
    head = at
    while head > 0 and starts[head - 1] > before and comment[starts[head - 1]] \
            and _indent(gap_texts[starts[head - 1]])[0] == indent:
        head -= 1
    out = [int(t) for t in starts[head:at]]
    for t in starts[at:].tolist():
        if (limit is not None and t >= limit) or (t > last and _indent(gap_texts[t])[1] < width):
            break
        out.append(t)
    return tuple(out)
