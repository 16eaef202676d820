"""Every repair of one kind of gap, planned once per process.

A file's gaps are a few kinds repeated many times (one space; a newline to the same indentation; ...).
Planning a repair (its text, where it points, its gap symbol, the next newline gap's new symbol and their
KenLM ids) is Python work that once cost more than KenLM itself, so it is done once per kind of gap and
kept in flat numpy columns; a file's repairs are then rows picked from those columns.

A kind of gap is (gap text, indentation of its line, text of the next newline gap measured against it or
None, the file's indentation unit or None): together they fix every repaired symbol and the next newline
gap's symbol before and after.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parsing.offsets import has_line_break, last_line
from parsing.schemes import gap_symbol

from .cache import symbol_ids
from .repairs import gap_edits

GapKind = tuple[str, str, "str | None", "str | None"]


@dataclass(frozen=True, eq=False)
class PlanTable:
    """The planned repairs as columns, one row per repair; plan p owns rows start[p] .. start[p]+count[p]."""
    start: np.ndarray      # per plan
    count: np.ndarray      # per plan
    where: np.ndarray      # FIRST / LAST / NEXT (repairs.py)
    w1: np.ndarray         # KenLM ids of the repaired gap's symbol, one column per model
    second: np.ndarray     # whether the repair changes the next newline gap's symbol too
    w2: np.ndarray         # ... and its ids then (zeros otherwise)
    repaired: np.ndarray   # repaired gap text (object)
    symbol: np.ndarray     # repaired gap symbol, as interned by the style cache
    empty: np.ndarray      # whether the repaired gap is empty (it joins two tokens)
    breaks: np.ndarray     # whether it starts with a line break (a line comment before it needs one)

    def rows(self, plans: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(row indices, and for each row the position in `plans` it came from) of plans[0], plans[1], ..."""
        counts = self.count[plans]
        owner = np.repeat(np.arange(len(plans)), counts)
        first_row = np.cumsum(counts) - counts   # where each plan's rows begin in the output
        rows = self.start[plans][owner] + (np.arange(len(owner)) - first_row[owner])
        return rows, owner


COLUMNS = ("start", "count", "where", "w1", "second", "w2", "repaired", "symbol", "empty", "breaks")


class RepairPlans:
    """Plans by kind of gap, for one scorer (the ids are its models')."""

    def __init__(self, ids, models: int):
        self._ids = ids          # list[str] -> (n, models) uint32 ids
        self._index: dict[GapKind, int] = {}
        self._rows = 0
        empty = np.zeros(0, dtype=np.int64)
        no_ids = np.zeros((0, models), dtype=np.uint32)
        self._table = PlanTable(empty, empty, empty.astype(np.int8), no_ids, empty.astype(bool), no_ids,
                                empty.astype(object), empty, empty.astype(bool), empty.astype(bool))
        self._new: list[dict[str, np.ndarray]] = []   # plans added since the table was last extended

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
        edits = gap_edits(gap)
        symbols = [gap_symbol(repaired, indent, unit) for repaired, _ in edits]
        seconds = [None] * len(edits)
        if next_gap is not None:
            # the next newline gap is measured against this gap's last line (or the same line when none)
            indent_after = last_line(gap) if has_line_break(gap) else indent
            observed_next = gap_symbol(next_gap, indent_after, unit)
            for e, (repaired, _) in enumerate(edits):
                new_indent = last_line(repaired) if has_line_break(repaired) else indent
                sym = gap_symbol(next_gap, new_indent, unit)
                seconds[e] = sym if sym != observed_next else None
        self._new.append({
            "start": np.array([self._rows]), "count": np.array([len(edits)]),
            "where": np.array([where for _, where in edits], dtype=np.int8),
            "w1": self._ids(symbols), "second": np.array([s is not None for s in seconds], dtype=bool),
            "w2": self._ids([s or "</s>" for s in seconds]),
            "repaired": np.array([repaired for repaired, _ in edits], dtype=object),
            "empty": np.array([not repaired for repaired, _ in edits], dtype=bool),
            "breaks": np.array([repaired[:1] in ("\n", "\r") for repaired, _ in edits], dtype=bool),
            "symbol": symbol_ids(symbols)})
        self._rows += len(edits)
        return len(self._index)   # the new plan's id (the caller files its key under it)

    def table(self) -> PlanTable:
        """The columns as numpy arrays, extended by the plans added since the last call."""
        if self._new:
            t = self._table
            self._table = PlanTable(*(np.concatenate([getattr(t, c)] + [p[c] for p in self._new])
                                      for c in COLUMNS))
            self._new = []
        return self._table
