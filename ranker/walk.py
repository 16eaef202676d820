"""The C++ walk's ids (parsing/units.py) as the ranker takes them: each scorer's KenLM ids and plans, the style
cache's symbol ids, and the joinable gaps the walk leaves to Python; the tables grow only when a file brings
a new symbol or kind of gap."""
from __future__ import annotations

from array import array

from parsing.schemes import Scheme
from parsing.units import UNKNOWN, Walked, covers, interned
from parsing.units import walk_units as _walk_units

from ._native import gather, gather_ids
from .repairs import joinable
from .symbols import symbol_ids

__all__ = ["Walked", "covers", "interned", "walk_units", "style_ids", "tables", "StyleWalk"]


def walk_units(text: str, keep: bool = False, parsed: bytes | None = None) -> Walked | None:
    """parsing.units.walk_units, every gap's joinable flag told (Python's str where a character is not ASCII)."""
    walked = _walk_units(text, keep, parsed)
    if walked is not None and UNKNOWN in walked.joinable:
        lo, hi = walked.lo, walked.hi
        for i, j in enumerate(walked.joinable):
            if j == UNKNOWN:
                walked.joinable[i] = joinable(text[hi[i - 1]:lo[i]], text[hi[i]:lo[i + 1]][:3])
    return walked


_STYLE_IDS = array("q")   # per symbol id of the walk: ranker.symbols' id


def style_ids(walked: Walked) -> array:
    """The style cache's ids of the file's symbols ('</s>' left out)."""
    symbols = interned().symbols
    if len(_STYLE_IDS) < len(symbols):
        _STYLE_IDS.extend(symbol_ids(symbols[len(_STYLE_IDS):]))
    return gather(_STYLE_IDS, walked.symbols)


class StyleWalk:
    """A file's walk as its style is read off it (the folder's learning pass, bin/check's evidence): its
    symbols' style ids, its indentation unit and, on demand, its symbols, gap texts and gaps' indentations;
    from the C++ walk where it covers the scheme (from the leaves an earlier walk kept, `parsed`; with `keep`
    they are kept, packed, in `parsed`), else from the scheme's own walk of the tokens."""

    def __init__(self, scheme: Scheme, text: str, keep: bool = False, parsed: bytes | None = None,
                 walked: Walked | None = None):
        """`walked`: the C++ walk of `text` when the caller made it (ranker/rank.py's walk_text)."""
        self._walked = walked if walked is not None else walk_units(text, keep, parsed) if covers(scheme) else None
        if self._walked is not None:
            common = interned()
            self.ids, self.unit, self.parsed = style_ids(self._walked), common.unit(self._walked), self._walked.parsed
        else:
            stream = scheme.tokenize(text)
            self._symbols, self._indents, self.unit = scheme.walk(stream)
            self._gap_texts = stream.gap_texts
            self.ids, self.parsed = symbol_ids(self._symbols), None

    def symbols(self) -> list[str]:
        return interned().symbol_texts(self._walked) if self._walked is not None else self._symbols

    def gap_indents(self) -> list[str]:
        return interned().gap_indents(self._walked) if self._walked is not None else self._indents

    def gap_texts(self) -> tuple[str, ...]:
        return interned().gap_texts(self._walked) if self._walked is not None else tuple(self._gap_texts)


class WalkTables:
    """For one scorer: the KenLM ids (one per model) and the plan of everything the C++ walk has interned
    so far, by its ids."""

    def __init__(self, scorer):
        self.scorer = scorer
        self.models = scorer.native.models
        self.kenlm = array("I")     # per symbol id: its KenLM ids, `models` of them
        self.plans = array("q")     # per kind of gap id: its plan in the scorer's RepairPlans
        self.eos = scorer.ids(["</s>"])

    def update(self) -> None:
        common = interned()
        if len(self.kenlm) < len(common.symbols) * self.models:
            self.kenlm.extend(self.scorer.ids(common.symbols[len(self.kenlm) // self.models:]))
        for gap, indent, nxt, unit in common.keys(len(self.plans)):
            self.plans.extend(self.scorer.plans.plans([gap], [indent], [nxt], unit))

    def lm_ids(self, walked: Walked) -> array:
        """The KenLM ids of the file's symbols, then '</s>' (Scorer.ids)."""
        return gather_ids(self.kenlm, walked.symbols, self.models) + self.eos

    def gap_plans(self, walked: Walked) -> array:
        return gather(self.plans, walked.keys)


def tables(scorer) -> WalkTables:
    """The scorer's tables (made on first use), up to date with the walker."""
    if scorer.walk_tables is None:
        scorer.walk_tables = WalkTables(scorer)
    scorer.walk_tables.update()
    return scorer.walk_tables
