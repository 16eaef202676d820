"""A file's text -> every character offset, most suspicious first.

Every plausible repair of every gap is scored in one batch (rows of numpy arrays, rescored by the compiled
loop in lm._native); each offset keeps its best repair; offsets are ranked by that repair's gain.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parsing.java import tokenize
from parsing.schemes import Scheme

from ._native import best_repairs, format_ranking
from .cache import GapCache, StyleCounts
from .habits import HabitCounts, habit_scores, habit_values
from .repairs import FIRST, LAST, Repair, joinable
from .score import Scorer, score_stream

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


def rank_text(scorer: Scorer, scheme: Scheme, text: str, path: str = "", adapt: bool = True,
              style: Style = Style(), alpha: float = CACHE_ALPHA) -> RankedFile:
    """Score every plausible repair; each offset keeps its best repair (ties: the first planned); the
    offsets best first (ties: lower offset)."""
    n = len(text)
    if not text:
        empty = np.zeros(0, dtype=np.int64)
        return RankedFile(path, 0, empty, np.zeros(0), empty, np.zeros(0, object), np.zeros(0, object))
    stream = tokenize(text)
    scored = score_stream(scorer, scheme, stream)
    lo = np.concatenate(([0], np.asarray(stream.ends, dtype=np.int64)))     # each gap's 0-based span
    hi = np.concatenate((np.asarray(stream.starts, dtype=np.int64), [n]))
    gap_texts = stream.gap_texts
    nxt = scored.next_newline_gap
    gap_text_array = np.asarray(gap_texts, dtype=object)
    next_gap_texts = np.where(nxt >= 0, gap_text_array[nxt], None)
    plans = scorer.plans
    plan_of_gap = np.asarray(plans.plans(gap_texts, scored.indents, next_gap_texts.tolist(), scored.unit), dtype=np.int64)
    table = plans.table()
    rows, gap = table.rows(plan_of_gap)

    # the offset each repair blames: the gap's first or last character, or the next token's first
    where = table.where[rows]
    g_lo, g_hi = lo[gap], hi[gap]
    offset = np.where(where == FIRST, np.where(g_hi > g_lo, g_lo + 1, g_hi + 1),
                      np.where(where == LAST, g_hi, g_hi + 1))
    # not an insertion after the file's last character, and only repairs that keep every token as it is
    keep = (offset <= n) & ~(table.empty[rows] & ~joinable_gaps(stream)[gap]) \
        & ~(after_line_comment(stream)[gap] & ~table.breaks[rows])
    rows, gap, offset = rows[keep], gap[keep], offset[keep]

    second = table.second[rows]
    k2 = np.where(second, 2 * nxt[gap], -1)
    delta, first = scorer.rescore(scored, 2 * gap, table.w1[rows], k2, table.w2[rows])
    if adapt:
        # the style cache moves the repaired gap symbol's score, and the observed one's (one batch: the
        # observed symbols of every gap, then every repair's)
        cache = GapCache(scored.symbols[:-1], style.folder, style.exclude)
        observed_lm = scored.scores[0:-1:2]   # gap symbol i is symbol 2i
        gaps = len(observed_lm)
        adapted = cache.adapted(np.concatenate((np.arange(gaps), gap)),
                                np.concatenate((cache.gap_ids, table.symbol[rows])),
                                np.concatenate((observed_lm, first)), alpha)
        observed = adapted[:gaps] - observed_lm
        delta = delta + ((adapted[gaps:] - first) - observed[gap])

    if scheme.units:
        # the scheme leaves trailing whitespace, whitespace on blank lines and mixed indentation out of
        # its symbols: they are scored by their rates in the file (and the folder), around a typical
        # project's (ranker/habits.py); without adaptation, by the typical project's alone
        observed_habits = habit_values(gap_texts, scored.unit)
        counts = HabitCounts.of_values(observed_habits if adapt else observed_habits[:0])
        if adapt and style.habits is not None:
            counts = counts + style.habits
        own = observed_habits[gap] if adapt else None
        delta = delta + (habit_scores(counts, habit_values(table.repaired[rows], scored.unit), own)
                         - habit_scores(counts, observed_habits[gap], own))

    best = best_repairs(offset, delta)
    return RankedFile(path, n, offset[best], delta[best], gap[best], gap_text_array[gap[best]],
                      table.repaired[rows[best]])
