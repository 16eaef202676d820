"""Whitespace habits: what trails a line, what fills blank lines and what mixes tabs and spaces in an
indentation, scored apart from the n-gram model by a project's own rates of them.

The gap symbols of the default scheme leave out trailing whitespace and whitespace on blank lines, and
measure indentation in columns: the JDK, the default corpus, has no trailing whitespace, no whitespace on
blank lines and no tab, so a model trained on it found every such gap of a real project maximally
surprising, and a file rarely writes enough of them for the style cache to learn otherwise. Instead, a gap
holding a line break is also scored by three categorical variables: what trails the old line (nothing,
spaces, tabs, both), whether the new line's indentation mixes characters against the file's unit (a tab in
a space-indented file, a space before a tab in a tab-indented one; parsing.style.mixed) and, when it holds a
blank line, whether a blank line holds whitespace; and how its line breaks are written (LF, CRLF, a lone
CR, or mixed within the gap): the gap symbols write every line break as LF, so a CRLF file is scored on
its own terms and a lone LF in it (or a CRLF in an LF file) is what stands out. Their probabilities are
Dirichlet posteriors: the file's own counts (the gap under test left out), plus the folder's when the
folder is learned, around the prior of a typical project.

The priors are macro means over the 24 CodRep 2018 projects with at least 30 distinct files that are
neither development nor held-out sets (evaluation/devsets.py): trailing spaces end 1.47% of a project's
line breaks (median 0.62%), tabs 0.10%, both 0.05%; 1.87% of its lines mix their indentation (median
0.28%); 14.1% of its gaps with a blank line have whitespace on one. No file of CodRep 2018, CodRep 2019
or the JDK has a CR: the line-ending prior is a choice, LF for almost every project, CRLF for some
(repositories written on Windows), a lone CR for hardly any.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import lru_cache

from parsing.offsets import LINE_BREAK, has_line_break
from parsing.style import mixed

HEADS = ("", "s", "t", "st")          # what trails the old line
HEAD_PRIOR = (0.9838, 0.0147, 0.0010, 0.0005)
MIXED_PRIOR = (1 - 0.0187, 0.0187)
BLANK_WS_PRIOR = (1 - 0.141, 0.141)
ENDINGS = ("\n", "\r\n", "\r")    # how a gap's line breaks are written (then: mixed)
ENDING_PRIOR = (0.97, 0.028, 0.001, 0.001)
PRIORS = (HEAD_PRIOR, MIXED_PRIOR, BLANK_WS_PRIOR, ENDING_PRIOR)
VARIABLES = len(PRIORS)               # values per gap (ranker/native.cpp's kHabits)
# The line-ending variable counts only where the rates have seen a CR: repairs never write one, so in a file
# (and folder) of LF line breaks it would only add noise, and such files rank exactly as they did without it
# (ranker/native.cpp's Habits leaves it out then).
ENDING = 3
STRENGTH = 20.0                       # the prior's weight, in line breaks
NONE = -1                             # the variable does not apply (no line break; no blank line)


@lru_cache(maxsize=1 << 16)
def habits(gap: str, unit: str | None) -> tuple[int, int, int, int]:
    """(what trails the old line: index into HEADS; whether the new line's indentation is mixed: 0/1;
    whether a blank line holds whitespace: 0/1; how the line breaks are written: index into ENDINGS, or
    len(ENDINGS) when they differ), NONE where the gap has no line break, or no blank line."""
    if not has_line_break(gap):
        return NONE, NONE, NONE, NONE
    lines = LINE_BREAK.split(gap)
    head = lines[0]
    h = HEADS.index(("s" if " " in head else "") + ("t" if "\t" in head else ""))
    m = int(mixed(lines[-1], unit)) if unit else NONE
    endings = set(LINE_BREAK.findall(gap)) if "\r" in gap else {"\n"}
    e = ENDINGS.index(endings.pop()) if len(endings) == 1 else len(ENDINGS)
    return h, m, (int(any(lines[1:-1])) if len(lines) > 2 else NONE), e


_VALUE_BYTES: dict[str | None, dict[str, bytes]] = {}   # per unit, per gap text: its habits as 4 int8 bytes


def habit_values(gaps, unit: str | None) -> array:
    """The variables of each gap text, flat: gap i's are items VARIABLES * i .. VARIABLES * i + 3 (int8).
    (Each gap text's bytes looked up in a dict and joined: a file repeats a few dozen gap texts, and a call
    and four ints per gap were a tenth of a folder's learning pass.)"""
    known = _VALUE_BYTES.setdefault(unit, {})
    try:
        return array("b", b"".join(map(known.__getitem__, gaps)))
    except KeyError:
        new = set(gaps).difference(known)
        if len(known) + len(new) > 1 << 16:   # bounded, as the habits' own cache
            known.clear()
            new = set(gaps)
        for gap in new:
            known[gap] = array("b", habits(gap, unit)).tobytes()
        return array("b", b"".join(map(known.__getitem__, gaps)))


@dataclass(frozen=True)
class HabitCounts:
    """Counts of each variable's values over some files' gaps."""
    counts: tuple[tuple[float, ...], ...]    # per variable, per value

    @staticmethod
    def of(gaps, unit: str | None) -> "HabitCounts":
        return HabitCounts.of_values(habit_values(gaps, unit))

    @staticmethod
    def of_values(values) -> "HabitCounts":
        """The counts of flat values (habit_values)."""
        flat = (values if isinstance(values, array) and values.typecode == "b" else array("b", values)).tobytes()
        columns = [flat[j::VARIABLES] for j in range(VARIABLES)]   # counted as bytes: memchr, not a loop
        return HabitCounts(tuple(tuple(float(column.count(v)) for v in range(len(prior)))
                                 for column, prior in zip(columns, PRIORS)))

    def __add__(self, other: "HabitCounts") -> "HabitCounts":
        return HabitCounts(tuple(tuple(x + y for x, y in zip(a, b)) for a, b in zip(self.counts, other.counts)))

    def __sub__(self, other: "HabitCounts") -> "HabitCounts":
        return HabitCounts(tuple(tuple(x - y for x, y in zip(a, b)) for a, b in zip(self.counts, other.counts)))


def habit_model(counts: HabitCounts | None, own: bool, strength: float = STRENGTH):
    """The habits as ranker._native scores them: log10 of each variable's value under its Dirichlet
    posterior, (count + strength prior) / (total + strength), summed over the variables that apply. The
    counts are `counts` (None: none) and, with `own`, those of the file's gaps (which the ranker gives it, from
    their plans), each gap's own values left out of its evidence."""
    from ._native import Habits
    counts = counts or HabitCounts.of_values(())
    return Habits([list(c) for c in counts.counts], [list(p) for p in PRIORS], strength, own)


def habit_scores(counts: HabitCounts, values, own=None, strength: float = STRENGTH) -> list[float]:
    """log10 probability of the variables' `values` (flat, VARIABLES per gap) under the rates `counts`, each
    gap's own values `own` (flat, or None: the counts do not hold the gaps) left out of them (the gaps' own
    counts are then taken out of `counts`, as the ranker adds them)."""
    gaps = len(values) // VARIABLES
    if own is None:
        model = habit_model(counts, False, strength)
        model.observe(array("b", values))
    else:
        model = habit_model(counts - HabitCounts.of_values(own), True, strength)
        model.observe(array("b", own))
    return model.scores(array("b", values), array("q", range(gaps))).tolist()
