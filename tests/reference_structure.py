"""bin/check's statement lines (check/structure.py) as numpy finds them, array by array: the compiled one
(parsing/native.cpp's statement_structure) makes the same, in one pass each. Kept as the oracle tests compare
it with, on token soups and on real files.
"""
from __future__ import annotations

import numpy as np

from check.structure import _CODE, _COMMENTS, _ENDS, _NOT_BLOCK, KINDS, _codes


def _is(code, *names):
    """Where the codes `code` are one of the symbols `names`."""
    out = code == _CODE[names[0]]
    for name in names[1:]:
        out |= code == _CODE[name]
    return out


def last_before(targets, target_level, queries, query_level, inclusive: bool = False):
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


def structure(ids, starts_line):
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
        head = last_before(opened, pdepth[opened], shut, pdepth[shut] - 1)
        keyword = np.where(head > 0, code[np.maximum(head - 1, 0)], 0)
        controls = _is(keyword, "if", "for", "while")
        body[closing[controls]] = True
        keyword_at[closing[controls]] = head[controls] - 1
    candidate = starts & (_is(prev_code, *_ENDS) | closes | after_label | (prev < 0) | body)

    # the enclosing `{` of the candidates and of the blocks: the last `{` before them one level out
    enclosing = np.full(n, -1)
    need = np.nonzero(candidate | block)[0]
    opened = np.nonzero(opens)[0]
    enclosing[need] = last_before(opened, depth[opened] + 1, need, depth[need])
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
    found = last_before(at_heads, depth[at_heads], blocks, depth[blocks], inclusive=True)
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
