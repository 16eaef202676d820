"""Realistic whitespace slips injected into a clean Java file (`bin/make-tasks --edits real`): the kinds of
edit developers make and later fix, of any size, in the mix of the real-slip development set.

Each kind undoes one kind of the set's fixes (formats/realslips.py's kinds, which name the fix: "blank line
removed" is a slip that added one). Counted on the development set's truth.jsonl (the first kind of each of
its 758 changed gaps; `REAL_MIX`, checked against the set by the tests), leaving out its 5 line-ending and 1
"end of file: line break removed" gaps:

    join lines 141         (the fix: line break added)    add blank line 103       (blank line removed)
    remove blank line 89   (blank line added)             tab/space swapped 74     (tab<->space)
    reindent 71            (indentation change)           add trailing whitespace 60 (trailing whitespace removed)
    break line 58          (line break removed)           remove space 49          (space added)
    unindent blank line 43 (trailing whitespace added)    add space 38             (space removed)
    change spaces 12       (space amount changed)         remove final newline 10  (end of file: line break added)
    add final blank line 2 (end of file: blank line removed)   remove final blank line 2 (end of file: blank line added)

Sizes follow the file: a re-indent moves a line by one unit of the file's indentation (parsing/style.py; in
a tab-indented file only a line that keeps a tab), a broken line continues one or two units deeper, a tab
replaces a whole unit (in a tab-indented file, 4 spaces each of a line's tabs), trailing whitespace is a space, two,
or a tab where the gap has one; a blank line loses its indentation only in a file most of whose blank lines
have one; line breaks keep the file's CRLF. Each is a slip of the kind it is named after, as the set labels
it (formats.realslips.classify of the fix). The answer is the edited gap's first character (its 1-based
offset, as bin/check's `gap_offset`; the next token's when the edited gap is empty); an edit must keep the
token texts.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from formats.codrep2019 import InjectedEdit
from parsing.offsets import last_line
from parsing.style import detect_indentation
from parsing.tokens import TokenStream

from .injection import apply, keeps_tokens

Edit = Callable[[str, "Where"], "str | None"]   # (the gap, where it is) -> the slipped gap, or None: not here


@dataclass(frozen=True)
class Where:
    """What an edit may need to know of a gap: the file's indentation unit and line break, the indentation
    of the line the gap is on, whether it is the file's last gap, and a random source."""
    unit: str
    newline: str
    line_indent: str
    last: bool
    rng: random.Random
    indented_blanks: bool = False   # most of the file's blank lines keep an indentation


def _newlines(gap: str) -> int:
    return gap.count("\n")


def _join(gap, w):
    return " " if _newlines(gap) == 1 and not w.last else None


def _break(gap, w):
    if "\n" in gap or w.last:
        return None
    return w.newline + w.line_indent + w.unit * w.rng.choice((1, 2))


def _remove_blank(gap, w):
    if _newlines(gap) < 2 or w.last:
        return None
    parts = gap.split("\n")
    return "\n".join(parts[:1] + parts[2:])


def _add_blank(gap, w):
    if "\n" not in gap or w.last:
        return None
    at = gap.index("\n") + 1
    return gap[:at] + w.newline + gap[at:]


def _reindent(gap, w):
    if "\n" not in gap or w.last:
        return None
    indent = last_line(gap)
    head = gap[:len(gap) - len(indent)]
    if w.unit == "\t" and "\t" not in indent:
        return None   # a tab where there was none is the set's tab<->space, not a re-indent
    deeper = head + indent + w.unit
    if indent.startswith(w.unit) and (w.unit != "\t" or indent.count("\t") > 1) and w.rng.random() < 0.5:
        return head + indent[len(w.unit):]
    return deeper


def _swap_tabs(gap, w):
    if "\n" not in gap or w.last:
        return None
    indent = last_line(gap)
    head = gap[:len(gap) - len(indent)]
    if "\t" in head:
        return None   # a tab stays in the gap: the set's indentation change, not tab<->space
    if w.unit == "\t":
        return head + indent.replace("\t", "    ") if "\t" in indent else None
    return head + indent.replace(w.unit, "\t", 1) if w.unit in indent and "\t" not in indent else None


def _trailing(gap, w):
    if "\n" not in gap or w.last:
        return None
    at = gap.index("\n")
    if at > 0 and gap[at - 1] == "\r":
        at -= 1
    # a tab only beside one: a tab brought into a gap without one is the set's tab<->space
    return gap[:at] + w.rng.choice((" ", "  ", "\t") if "\t" in gap else (" ", "  ")) + gap[at:]


def _unindent_blank(gap, w):
    """A blank line's whitespace removed (where most of the file's blank lines keep their indentation)."""
    if not w.indented_blanks:
        return None
    lines = gap.split("\n")
    for i in range(1, len(lines) - 1):
        if lines[i].strip("\r"):
            lines[i] = lines[i][len(lines[i].rstrip("\r")):]
            return "\n".join(lines)
    return None


def _remove_space(gap, w):
    return "" if gap and "\n" not in gap and not gap.strip(" ") and not w.last else None


def _add_space(gap, w):
    return " " if gap == "" and not w.last else None


def _change_spaces(gap, w):
    if not gap or "\n" in gap or gap.strip(" ") or w.last:
        return None
    return gap + " " if len(gap) == 1 or w.rng.random() < 0.5 else gap[:-1]


def _remove_final_newline(gap, w):
    return "" if w.last and "\n" in gap else None


def _add_final_blank(gap, w):
    return gap + w.newline if w.last and "\n" in gap else None


def _remove_final_blank(gap, w):
    if not w.last or _newlines(gap) < 2:
        return None
    return gap[:gap.rindex("\n", 0, gap.rindex("\n")) + 1] if w.newline == "\n" else gap[:-len(w.newline)]


@dataclass(frozen=True)
class RealEdit:
    name: str
    fixed_as: str      # the kind of the development set's gap that this slip's fix is
    edit: Edit


REAL_EDITS: dict[str, RealEdit] = {e.name: e for e in (
    RealEdit("join lines", "line break added", _join),
    RealEdit("add blank line", "blank line removed", _add_blank),
    RealEdit("remove blank line", "blank line added", _remove_blank),
    RealEdit("tab/space swapped", "tab<->space", _swap_tabs),
    RealEdit("reindent", "indentation change", _reindent),
    RealEdit("add trailing whitespace", "trailing whitespace removed", _trailing),
    RealEdit("break line", "line break removed", _break),
    RealEdit("remove space", "space added", _remove_space),
    RealEdit("unindent blank line", "trailing whitespace added", _unindent_blank),
    RealEdit("add space", "space removed", _add_space),
    RealEdit("change spaces", "space amount changed", _change_spaces),
    RealEdit("remove final newline", "end of file: line break added", _remove_final_newline),
    RealEdit("add final blank line", "end of file: blank line removed", _add_final_blank),
    RealEdit("remove final blank line", "end of file: blank line added", _remove_final_blank),
)}

# The development set's changed gaps per kind of slip (module docstring): the default of --edits real.
REAL_MIX: dict[str, float] = {"join lines": 141, "add blank line": 103, "remove blank line": 89,
                              "tab/space swapped": 74, "reindent": 71, "add trailing whitespace": 60,
                              "break line": 58, "remove space": 49, "unindent blank line": 43, "add space": 38,
                              "change spaces": 12, "remove final newline": 10, "add final blank line": 2,
                              "remove final blank line": 2}


def mix_of(kinds) -> dict[str, int]:
    """The mix of slips that the fixes of these kinds (the primary kinds of a real-slip set's gaps) undo."""
    by_fix = {e.fixed_as: e.name for e in REAL_EDITS.values()}
    out = dict.fromkeys(REAL_EDITS, 0)
    for k in kinds:
        if k in by_fix:
            out[by_fix[k]] += 1
    return out


def _indented_blanks(stream: TokenStream) -> bool:
    """Whether most blank lines of the file hold whitespace (an Eclipse-formatted file's do)."""
    blanks = [line.strip("\r") for gap in stream.gap_texts for line in gap.split("\n")[1:-1]]
    return sum(map(bool, blanks)) * 2 > len(blanks)


def _line_indent(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    line = text[start:at]
    return line[:len(line) - len(line.lstrip(" \t"))]


def real_candidates(stream: TokenStream, kind: str, rng: random.Random) -> Iterator[tuple[str, InjectedEdit]]:
    """Every token-preserving slip of `kind` (REAL_EDITS) in the file, in random order."""
    spec = REAL_EDITS[kind]
    text = stream.source
    unit = detect_indentation(stream).unit
    newline = "\r\n" if "\r\n" in text else "\n"
    n = len(stream)
    blanks = spec.name == "unindent blank line" and _indented_blanks(stream)
    gaps = list(range(n + 1))
    rng.shuffle(gaps)
    for i in gaps:
        gap = stream.gap_texts[i]
        lo = stream.gap_start(i)
        if i == 0 or n == 0:
            continue   # the file's leading whitespace: nobody slips there
        edited = spec.edit(gap, Where(unit, newline, _line_indent(text, lo), i == n, rng, blanks))
        if edited is None or edited == gap:
            continue
        new, record = apply(stream, i, kind, edited, 0)
        if keeps_tokens(stream, new):
            yield new, record
