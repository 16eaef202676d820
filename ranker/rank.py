"""A file's text -> every character offset, most suspicious first.

Every plausible repair of every gap is scored in batches (rows of numpy arrays, rescored by the compiled
loop in lm._native), a chunk of gaps at a time so that memory stays bounded on large files: plan the rows,
rescore them, adapt them to the file's style and habits, keep each offset's best repair; the offsets are
then ranked by that repair's gain.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parsing.java import BOM, tokenize
from parsing.schemes import Scheme

from ._native import best_repairs, format_ranking
from .cache import GapCache, StyleCounts
from .habits import HabitCounts, habit_scores, habit_values
from .plans import PlanTable
from .repairs import FIRST, LAST, Repair, joinable
from .score import Scorer, ScoredStream, score_stream

# Dirichlet strength of the style cache, chosen on codrep2019/learning (tasks 0..999 by name, c18-o7
# model): alpha 0.5: 0.9845, 1: 0.9846, 2: 0.9825, 4: 0.9802, no cache: 0.9717.
CACHE_ALPHA = 1.0


@dataclass(frozen=True, slots=True)
class Finding:
    offset: int       # 1-based character offset
    score: float      # log10 gain of the best repair blaming this offset
    repair: Repair


@dataclass(frozen=True, eq=False)
class RankedFile:
    """The candidate offsets, best first, each with its best repair (as parallel arrays: building an
    object per candidate cost more than scoring it)."""
    path: str
    length: int              # characters in the file
    candidates: np.ndarray   # 1-based offsets, best first
    scores: np.ndarray       # log10 gain of each candidate's best repair
    gaps: np.ndarray         # the gap each repair changes
    observed: np.ndarray     # that gap's text (object)
    repaired: np.ndarray     # its text after the repair (object)

    def offsets(self) -> np.ndarray:
        """All offsets 1..length: the candidates best first, then every other offset ascending."""
        mask = np.ones(self.length + 1, dtype=bool)
        mask[0] = False
        mask[self.candidates] = False
        return np.concatenate([self.candidates, np.flatnonzero(mask)])

    def findings(self, top: int | None = None, start: int = 0) -> list[Finding]:
        """The `top` best candidates (all by default) from the `start`th on, with their repairs."""
        end = len(self.candidates) if top is None else min(start + top, len(self.candidates))
        return [Finding(int(o), float(s), Repair(int(g), ob, rp, int(o)))
                for o, s, g, ob, rp in zip(self.candidates[start:end], self.scores[start:end], self.gaps[start:end],
                                           self.observed[start:end], self.repaired[start:end])]

    def exact_findings(self, text: str, top: int) -> list[Finding]:
        """The `top` best findings whose repair, applied to `text`, gives the same tokens: rank_text keeps
        only such repairs by rule, which a file that does not parse can defeat (tree-sitter recovers from
        errors by context), so each finding reported is checked by tokenizing its repair."""
        stream = tokenize(text)
        before = stream.token_texts()
        out: list[Finding] = []
        start = 0
        while len(out) < top and start < len(self.candidates):
            for f in self.findings(top, start):
                lo = stream.gap_start(f.repair.gap)
                repaired = text[:lo] + f.repair.repaired + text[lo + len(f.repair.observed):]
                if tokenize(repaired).token_texts() == before:
                    out.append(f)
                    if len(out) == top:
                        break
            start += top
        return out

    def after_bom(self) -> "RankedFile":
        """The same ranking for the file with a BOM before it (one more character, and one more token)."""
        return RankedFile(self.path, self.length + 1, self.candidates + 1, self.scores, self.gaps + 1,
                          self.observed, self.repaired)

    def line(self, top: int | None = None) -> str:
        """The CodRep 2019 prediction line: '<path> <offset> <offset> ...'."""
        if self.length == 0:
            return self.path
        return self.path + " " + format_ranking(self.candidates, self.length, -1 if top is None else top)


@dataclass(frozen=True)
class Style:
    """What the style cache learns from besides the file: nothing, or the folder's counts minus a part."""
    folder: StyleCounts | None = None
    exclude: StyleCounts | None = None
    habits: HabitCounts | None = None    # the folder's whitespace habits, the file's own left out


def joinable_gaps(stream) -> np.ndarray:
    """Per gap: whether the tokens around it would still be the same tokens with nothing between them
    (the ends of the file always are)."""
    src, starts, ends = stream.source, stream.starts, stream.ends
    out = np.ones(len(starts) + 1, dtype=bool)
    for i in range(1, len(starts)):
        if starts[i] - ends[i - 1] == 1:   # only a one-character gap can be emptied by one edit
            out[i] = joinable(src[max(ends[i - 1] - 3, starts[i - 1]):ends[i - 1]], src[starts[i]:min(starts[i] + 3, ends[i])])
    return out


def after_line_comment(stream) -> np.ndarray:
    """Per gap: whether a line comment ends just before it (the gap must start with a line break, or
    what follows joins the comment)."""
    out = np.zeros(len(stream.kinds) + 1, dtype=bool)
    out[1:] = np.asarray(stream.kinds, dtype=object) == "line_comment"
    return out


# Repairs scored in one batch: a chunk's arrays take a few tens of MB whatever the file's size (a 5 MB
# file has about 15 million repairs), and batches this large still amortise the calls into numpy and C++.
CHUNK_ROWS = 1 << 18
PLAN_GAPS = 1 << 16      # gaps whose plans are looked up at once (the lookup keys are Python tuples)


@dataclass(frozen=True, eq=False)
class _Gaps:
    """What scoring any chunk of a file's repairs needs: its gaps' spans and plans, and the per-gap parts
    of the adaptation (computed once per file)."""
    length: int                # characters in the file
    native: object             # the scored symbols (lm._native.Scored)
    next_newline_gap: np.ndarray   # per gap (ScoredStream.next_newline_gap)
    unit: str | None           # the file's indentation unit, when the scheme counts in it
    lo: np.ndarray             # each gap's 0-based span [lo, hi)
    hi: np.ndarray
    plan: np.ndarray           # each gap's plan (its rows in `table`)
    joinable: np.ndarray       # per gap: whether emptying it keeps its two tokens apart (joinable_gaps)
    after_comment: np.ndarray  # per gap: whether a line comment ends just before it
    table: PlanTable
    cache: GapCache | None     # the style cache (None: not adapted)
    observed_cache: np.ndarray | None   # per gap: how much the cache moves its observed symbol's score
    habit_counts: HabitCounts | None    # the whitespace habits' rates (None: the scheme has no habits)
    observed_habits: np.ndarray | None  # per gap: its habit values
    adapt: bool


def rank_text(scorer: Scorer, scheme: Scheme, text: str, path: str = "", adapt: bool = True,
              style: Style = Style(), alpha: float = CACHE_ALPHA, chunk_rows: int = CHUNK_ROWS) -> RankedFile:
    """Score every plausible repair; each offset keeps its best repair (ties: the first planned); the
    offsets best first (ties: lower offset). The repairs are scored `chunk_rows` at a time (whole gaps):
    the offsets a gap blames are its own, so each chunk picks its offsets' best repairs on its own."""
    if text.startswith(BOM):   # ranked without it (nothing to repair there), offsets counting it
        return rank_text(scorer, scheme, text[1:], path, adapt, style, alpha, chunk_rows).after_bom()
    n = len(text)
    if not text:
        empty = np.zeros(0, dtype=np.int64)
        return RankedFile(path, 0, empty, np.zeros(0), empty, np.zeros(0, object), np.zeros(0, object))
    stream = tokenize(text)
    gaps = _gaps(scorer, scheme, stream, n, adapt, style, alpha)
    gap_texts = stream.gap_texts
    del stream   # the tokens' spans (a large file's memory is mostly per token): the chunks need the gaps'
    parts = [_best_of_chunk(scorer, gaps, lo, hi, alpha) for lo, hi in _chunks(gaps, chunk_rows)]
    table = gaps.table
    del gaps     # the scores and the style cache: the merge reuses their memory
    offset, delta, gap, rows = _merge(parts)
    return RankedFile(path, n, offset, delta, gap, np.asarray(gap_texts, dtype=object)[gap], table.repaired[rows])


def _gaps(scorer: Scorer, scheme: Scheme, stream, n: int, adapt: bool, style: Style, alpha: float) -> _Gaps:
    """Score the file's symbols once, plan each gap's repairs, and what adapting them needs per gap."""
    scored = score_stream(scorer, scheme, stream)
    lo = np.concatenate(([0], np.asarray(stream.ends, dtype=np.int64)))
    hi = np.concatenate((np.asarray(stream.starts, dtype=np.int64), [n]))
    plan = _plans(scorer, scored)
    cache, observed_cache = _style_cache(scored, style, alpha) if adapt else (None, None)
    counts, observed_habits = _file_habits(stream, scored.unit, adapt, style) if scheme.units else (None, None)
    return _Gaps(n, scored.native, scored.next_newline_gap, scored.unit, lo, hi, plan, joinable_gaps(stream),
                 after_line_comment(stream), scorer.plans.table(), cache, observed_cache, counts, observed_habits, adapt)


def _style_cache(scored: ScoredStream, style: Style, alpha: float) -> tuple[GapCache, np.ndarray]:
    """The style cache, which moves the repaired gap symbol's score and the observed one's; and for each
    gap how much it moves the observed one's."""
    cache = GapCache(scored.symbols[:-1], style.folder, style.exclude)
    observed_lm = scored.scores[0:-1:2]   # gap symbol i is symbol 2i
    observed = np.concatenate([
        cache.adapted(np.arange(a, b), cache.gap_ids[a:b], observed_lm[a:b], alpha) - observed_lm[a:b]
        for a, b in _blocks(len(observed_lm), CHUNK_ROWS)])
    return cache, observed


def _file_habits(stream, unit: str | None, adapt: bool, style: Style) -> tuple[HabitCounts, np.ndarray]:
    """The scheme leaves trailing whitespace, whitespace on blank lines and mixed indentation out of its
    symbols: they are scored by their rates in the file (and the folder), around a typical project's
    (ranker/habits.py); without adaptation, by the typical project's alone. Returns those rates, and each
    gap's habit values (int8: they are small)."""
    gap_texts = stream.gap_texts
    observed = np.concatenate([habit_values(gap_texts[a:b], unit).astype(np.int8)
                               for a, b in _blocks(len(gap_texts), PLAN_GAPS)])
    counts = HabitCounts.of_values(observed if adapt else observed[:0])
    if adapt and style.habits is not None:
        counts = counts + style.habits
    return counts, observed


def _blocks(n: int, size: int):
    """Ranges [a, b) of at most `size` covering 0..n-1."""
    return [(a, min(a + size, n)) for a in range(0, n, size)]


def _plans(scorer: Scorer, scored: ScoredStream) -> np.ndarray:
    """Each gap's plan: the kind of gap its text, indentation and next newline gap make."""
    gap_texts = scored.stream.gap_texts
    nxt = scored.next_newline_gap
    out = []
    for a, b in _blocks(len(gap_texts), PLAN_GAPS):
        next_gap_texts = [gap_texts[k] if k >= 0 else None for k in nxt[a:b].tolist()]
        out.extend(scorer.plans.plans(gap_texts[a:b], scored.indents[a:b], next_gap_texts, scored.unit))
    return np.asarray(out, dtype=np.int64)


def _chunks(gaps: _Gaps, chunk_rows: int):
    """Ranges [lo, hi) of gaps with about `chunk_rows` repairs each (at least one gap)."""
    ends = np.cumsum(gaps.table.count[gaps.plan])
    lo, total = 0, len(ends)
    while lo < total:
        done = ends[lo - 1] if lo else 0
        hi = max(lo + 1, int(np.searchsorted(ends, done + chunk_rows, side="right")))
        yield lo, hi
        lo = hi


def _best_of_chunk(scorer: Scorer, gaps: _Gaps, lo: int, hi: int, alpha: float):
    """The repairs of gaps lo..hi-1 scored, and for each offset they blame its best: (offsets, gains, gaps,
    plan rows)."""
    rows, gap, offset = _repairs(gaps, lo, hi)
    delta, first = _rescore(scorer, gaps, rows, gap)
    if gaps.cache is not None:
        delta = _adapt(gaps, rows, gap, first, delta, alpha)
    if gaps.habit_counts is not None:
        delta = _habits(gaps, rows, gap, delta)
    best = best_repairs(offset, delta)
    return offset[best], delta[best], gap[best], rows[best]


def _merge(parts: list) -> list[np.ndarray]:
    """The chunks' best repairs (offsets, gains, gaps, rows) as one list, best first (emptying `parts`)."""
    columns = [np.concatenate(column) for column in zip(*parts)]
    parts.clear()
    best = best_repairs(columns[0], columns[1])   # offsets are unique here: ordered as one batch would be
    for i, column in enumerate(columns):
        columns[i] = column[best]
    return columns


def _repairs(gaps: _Gaps, lo: int, hi: int):
    """The plan rows of gaps lo..hi-1, the gap of each, and the offset each blames: the gap's first or last
    character, or the next token's first."""
    rows, gap = gaps.table.rows(gaps.plan[lo:hi])
    gap = gap + lo
    where = gaps.table.where[rows]
    g_lo, g_hi = gaps.lo[gap], gaps.hi[gap]
    offset = np.where(where == FIRST, np.where(g_hi > g_lo, g_lo + 1, g_hi + 1),
                      np.where(where == LAST, g_hi, g_hi + 1))
    # not an insertion after the file's last character, and only repairs that keep every token as it is
    keep = (offset <= gaps.length) & ~(gaps.table.empty[rows] & ~gaps.joinable[gap]) \
        & ~(gaps.after_comment[gap] & ~gaps.table.breaks[rows])
    return rows[keep], gap[keep], offset[keep]


def _rescore(scorer: Scorer, gaps: _Gaps, rows: np.ndarray, gap: np.ndarray):
    """(log10 gain of each repaired stream under the n-gram model(s), log10 score of the repaired gap symbol)."""
    table = gaps.table
    k2 = np.where(table.second[rows], 2 * gaps.next_newline_gap[gap], -1)
    return scorer.native.rescore(gaps.native, 2 * gap, table.w1[rows], k2, table.w2[rows])


def _adapt(gaps: _Gaps, rows: np.ndarray, gap: np.ndarray, first: np.ndarray, delta: np.ndarray,
           alpha: float) -> np.ndarray:
    """The gains once the style cache has moved the repaired gap symbol's score and the observed one's."""
    adapted = gaps.cache.adapted(gap, gaps.table.symbol[rows], first, alpha)
    return delta + ((adapted - first) - gaps.observed_cache[gap])


def _habits(gaps: _Gaps, rows: np.ndarray, gap: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """The gains plus the change in the whitespace habits' log10 probability."""
    unit = gaps.unit
    observed = gaps.observed_habits[gap]
    own = observed if gaps.adapt else None
    return delta + (habit_scores(gaps.habit_counts, habit_values(gaps.table.repaired[rows], unit), own)
                    - habit_scores(gaps.habit_counts, observed, own))
