"""Plausible repairs of one gap, and the character offset each repair blames.

A CodRep 2019 error is one whitespace character inserted, deleted or replaced. Undoing it means, for the
gap it landed in: deleting a character, replacing one, or inserting one. The answer offset is the
character that was inserted or replaced, or, for a deletion, where the character was (the next token's
first character when the gap became empty, else the gap's first remaining character). Edits at the gap's
first and last character and at the next token cover every answer in the shared data sets.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import lru_cache

from parsing.java import JOINED_OPERATORS
from parsing.offsets import has_line_break, last_line
from parsing.style import TAB_STOP, columns

WHITESPACE = (" ", "\t", "\n")


def _tails(operators) -> dict[str, tuple[str, ...]]:
    """Each operator split in two, head -> every tail: what joinable asks of two tokens' meeting ends (tried
    operator by operator, joinable's cache misses were most of joinable_gaps' time on files of new tokens)."""
    out: dict[str, tuple[str, ...]] = {}
    for op in operators:
        for k in range(1, len(op)):
            out[op[:k]] = (*out.get(op[:k], ()), op[k:])
    return out


# two tokens whose meeting ends would form one of Java's operators or comment marks of two or more characters
# (JOINED_OPERATORS) cannot be joined by deleting the whitespace between them
_TAILS = _tails(JOINED_OPERATORS)
_LONGEST_HEAD = max(map(len, _TAILS))
# where a repair points: the gap's first char, its last, the next token's first; MIDDLE, a repair of any size: the
# gap's second char when it has a middle (else its first), which no one-character repair blames, so that each
# offset's best repair hides no CodRep 2019 repair behind a larger one
FIRST, LAST, NEXT, MIDDLE = 0, 1, 2, 3


def _word(ch: str) -> bool:
    return ch.isalnum() or ch in "_$"


@lru_cache(maxsize=1 << 16)
def joinable(left: str, right: str) -> bool:
    """Whether two tokens written with nothing between them still read as the same two tokens (the whole
    left one, for a number is told by its first character, and the right one's first 3 characters)."""
    a, b = left[-1:], right[:1]
    if not a or not b:
        return True
    # a number before '.' would take it in ('1.'), an identifier ending in a digit would not ('be5.server')
    number = left[:1].isdigit() or left[:1] == "." and left[1:2].isdigit()
    if _word(a) and _word(b) or number and b == "." or a == "." and b.isdigit() or a in "\"'" and b in "\"'":
        return False
    # some operator split between them: a suffix of `left` is its head, `right` starts with its tail
    for j in range(1, min(len(left), _LONGEST_HEAD) + 1):
        tails = _TAILS.get(left[-j:])
        if tails is not None and right.startswith(tails):
            return False
    return True


def gap_edits(gap: str) -> list[tuple[str, int]]:
    """(repaired gap text, FIRST/LAST/NEXT) for every single-character edit worth scoring."""
    out: list[tuple[str, int]] = []
    if not gap:
        for c in WHITESPACE:
            out.append((c, NEXT))
        return out
    first, last = gap[0], gap[-1]
    # an inserted character is usually the gap's last (pushed just before a token): when deleting either
    # end gives the same gap, blame the last
    if len(gap) > 1:
        out.append((gap[:-1], LAST))                  # the last character was inserted
    if len(gap) == 1 or gap[1:] != gap[:-1]:
        out.append((gap[1:], FIRST))                  # the first character was inserted
    for c in WHITESPACE:
        if c != first:
            out.append((c + gap[1:], FIRST))          # the first character replaced another
        if len(gap) > 1 and c != last:
            out.append((gap[:-1] + c, LAST))          # the last character replaced another
        out.append((c + gap, FIRST))                  # a character was deleted before the gap's start
        out.append((gap + c, NEXT))                   # ... or at its end
    return out


def retab(ws: str, unit: str | None) -> str:
    """Indentation `ws` written in the file's unit: tabs as the unit's spaces in a space-indented file, each
    TAB_STOP spaces as a tab in a tab-indented one (spaces left over stay: alignment)."""
    if not unit:
        return ws
    if unit == "\t":
        return "\t" * (columns(ws) // TAB_STOP) + " " * (columns(ws) % TAB_STOP)
    return " " * (ws.count("\t") * len(unit) + ws.count(" "))


def wide_edits(gap: str, indent: str, unit: str | None) -> list[str]:
    """The repairs of a gap that no one-character edit makes, as people slip and fix whitespace: its
    line's trailing whitespace removed; its blank lines made 0 or 1; its indentation the line's own, one
    unit deeper or shallower, two deeper (a continuation), or written in the file's unit (tabs <-> spaces);
    two lines joined (one space or none); a line broken before the next token, at the line's indentation
    or deeper; a run of spaces or a tab made one space. `indent`: the indentation of the gap's line;
    `unit`: the file's (None: not known). The gap itself and duplicates are left out."""
    out: list[str] = []
    step = unit or "    "
    if has_line_break(gap):
        nl = "\r\n" if "\r\n" in gap else "\n"
        breaks = gap.count("\n") or gap.count("\r")
        tail = last_line(gap)
        shallower = [tail[:-len(step)]] if tail.endswith(step) else []
        for k in dict.fromkeys((breaks, 1, 2, breaks - 1)):
            if k < 1:
                continue
            for t in (tail, retab(tail, unit), indent, indent + step, indent + 2 * step, tail + step, *shallower):
                out.append(nl * k + t)
        out += [" ", ""]
    else:
        if gap != " ":
            out.append(" ")
        for t in (indent, indent + step, indent + 2 * step):
            out.append("\n" + t)
    seen = {gap}
    return [r for r in out if not (r in seen or seen.add(r))]


# The error model: how likely the error each repair undoes is, as a log10 prior added to the repair's gain.
# CodRep 2019's tasks (and bin/make-tasks's, evaluation/injection.py) make five kinds of error and no other
# (docs/codrep2019.md); a repair undoing anything else (a replacement, a space taken out of a longer run, a
# line's indentation moved by one column) is then a worse explanation of the file than its n-gram gain alone
# says. OTHER_EDIT, the log10 prior of those, was chosen on codrep2019/learning (tasks 0..1999) and the
# detection development sets, file alone: 0: MRR 0.9869 / development mean 0.9477; -3: 0.9948 / 0.9720;
# -6: 0.9965 / 0.9771; -10: 0.9965 / 0.9785; -20: 0.9965 / 0.9785 (docs/codrep2019.md). 'any' ranks every
# repair by its gain alone, as before.
OTHER_EDIT = -10.0


@dataclass(frozen=True)
class ErrorModel:
    """Which repairs are planned and how each is weighed: `other` is the log10 prior of a repair undoing no
    CodRep 2019 kind of error; `wide`: the repairs of any size people make (wide_edits) are planned too."""
    other: float
    wide: bool = False


# 'codrep2019' ranks CodRep's one-character errors; 'any' every one-character repair by its gain alone;
# 'real' (bin/check) repairs of any size as well, as the slips developers fix in their repositories are
EDITS = {"codrep2019": ErrorModel(OTHER_EDIT), "any": ErrorModel(0.0), "real": ErrorModel(0.0, wide=True)}
DEFAULT_EDITS = "codrep2019"


def codrep_edit(observed: str, repaired: str) -> bool:
    """Whether the repair undoes one of CodRep 2019's kinds of error: a tab or line break inserted right
    before a token (or a tab at the start of a gap without a line break: 'package\\t com'), a space
    inserted into an empty gap, a one-space gap emptied, or the only line break of a gap deleted."""
    if observed[-1:] in ("\t", "\n") and repaired == observed[:-1]:
        return True
    if observed[:1] == "\t" and repaired == observed[1:] and "\n" not in observed:
        return True
    if (observed, repaired) in ((" ", ""), ("", " ")):
        return True
    return "\n" not in observed and repaired == "\n" + observed


def edit_priors(gap: str, edits: list[tuple[str, int]], other: float) -> array:
    """log10 prior of the error each of a gap's repairs (gap_edits) undoes: 0 for CodRep 2019's kinds,
    `other` for the rest."""
    return array("d", [0.0 if codrep_edit(gap, repaired) else other for repaired, _ in edits])
