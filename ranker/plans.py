"""Every repair of one kind of gap, planned once per process.

A file's gaps are a few kinds repeated many times (one space; a newline to the same indentation; ...).
Planning a repair (its text, where it points, its gap symbol, the next newline gap's new symbol and their
KenLM ids) is Python work that once cost more than KenLM itself, so it is done once per kind of gap and
kept in flat columns (ranker/native.cpp's PlanTable); a file's repairs are then rows picked from them.

A kind of gap is (gap text, indentation of its line, text of the next newline gap measured against it or
None, the file's indentation unit or None): together they fix every repaired symbol and the next newline
gap's symbol before and after.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass

from parsing.offsets import has_line_break, last_line
from parsing.schemes import gap_symbol

from ._native import PlanTable
from .habits import habit_values
from .repairs import MIDDLE, NEXT, ErrorModel, edit_priors, gap_edits, wide_edits
from .symbols import symbol_ids

GapKind = tuple[str, str, "str | None", "str | None"]


class RepairPlans:
    """Plans by kind of gap, for one scorer (the ids are its models'): their rows in a PlanTable
    (ranker/native.cpp: where each repair points, the KenLM ids of its gap symbol and of the next newline
    gap's new symbol, its interned symbol, whether it empties the gap or starts with a line break, its
    whitespace habits, the prior of the error it undoes), and each row's repaired text here."""

    def __init__(self, ids, models: int, errors: ErrorModel = ErrorModel(0.0)):
        self._ids = ids          # list[str] -> array of KenLM ids, `models` per symbol
        self.errors = errors    # which repairs, and the log10 prior of those undoing no CodRep 2019 kind of error
        self._index: dict[GapKind, int] = {}
        self._owns: dict[tuple, _Own] = {}   # (gap, indent, unit) -> what its kinds share
        self.table = PlanTable(models)
        self.repaired: list[str] = []   # per row: the repaired gap text

    def plans(self, gaps: list[str], indents: list[str], next_gaps: list[str | None],
              unit: str | None = None) -> list[int]:
        """The plan of each gap (gap text, its line's indentation, the next newline gap's text or None),
        for a file whose gap symbols count indentation in `unit` (None: whitespace runs)."""
        keys = list(zip(gaps, indents, next_gaps, [unit] * len(gaps)))
        out = list(map(self._index.get, keys))
        if None not in out:
            return out
        for i, p in enumerate(out):
            if p is None:
                out[i] = self._index.get(keys[i])   # planned earlier in this same file
                if out[i] is None:
                    out[i] = self._index[keys[i]] = self._add(*keys[i])
        return out

    def _add(self, gap: str, indent: str, next_gap: str | None, unit: str | None) -> int:
        own = self._own(gap, indent, unit)
        seconds = [None] * len(own.repaired)
        if next_gap is not None:
            # the next newline gap is measured against this gap's last line (or the same line when none)
            observed_next = gap_symbol(next_gap, own.indent_after, unit)
            for e, new_indent in enumerate(own.indents):
                sym = gap_symbol(next_gap, new_indent, unit)
                seconds[e] = sym if sym != observed_next else None
        plan = self.table.add(**own.columns, second=array("B", [s is not None for s in seconds]),
                              w2=self._ids([s or "</s>" for s in seconds]))
        self.repaired.extend(own.repaired)
        return plan

    def _own(self, gap: str, indent: str, unit: str | None) -> _Own:
        """The repairs of a gap on a line indented by `indent`, whatever the next newline gap is (a kind of gap
        with each of the few next newline gaps a file has shares them: planned once: 14.4 -> 10.4 ms for the
        kinds of half of validation, a process's first files)."""
        key = (gap, indent, unit)
        own = self._owns.get(key)
        if own is not None:
            return own
        edits = gap_edits(gap)
        if self.errors.wide:
            known = {r for r, _ in edits}
            edits += [(r, MIDDLE if gap else NEXT) for r in wide_edits(gap, indent, unit) if r not in known]
        repaired = [r for r, _ in edits]
        symbols = [gap_symbol(r, indent, unit) for r in repaired]
        own = self._owns[key] = _Own(
            repaired, [last_line(r) if has_line_break(r) else indent for r in repaired],
            last_line(gap) if has_line_break(gap) else indent,
            dict(where=array("b", [where for _, where in edits]), w1=self._ids(symbols), symbol=symbol_ids(symbols),
                 empty=array("B", [not r for r in repaired]),
                 breaks=array("B", [r[:1] in ("\n", "\r") for r in repaired]),
                 # the file's unit is part of the kind of gap, so the habits of each repair are fixed here
                 habits=habit_values(repaired, unit), observed_habits=habit_values([gap], unit),
                 edit=edit_priors(gap, edits, self.errors.other)))
        return own


@dataclass(frozen=True)
class _Own:
    """RepairPlans._own: a gap's repaired texts, the indentation the next newline gap is measured against after
    each repair and without one, and its PlanTable columns but the next newline gap's."""
    repaired: list[str]
    indents: list[str]
    indent_after: str
    columns: dict
