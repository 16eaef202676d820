"""The ranker as it was before it was made fast: plain Python, one repair at a time, KenLM through the
kenlm module. Tests rank the same files both ways and require identical rankings and scores.

Kept deliberately simple (and slow); it is an oracle for tests only.
"""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

import kenlm

from parsing.java import tokenize
from parsing.schemes import gap_symbol
from parsing.style import mixed
from ranker.cache import REACHES
from ranker.habits import ENDING, ENDINGS, HEADS, PRIORS, STRENGTH
from ranker.repairs import DEFAULT_EDITS, EDITS, FIRST, LAST, codrep_edit, gap_edits, joinable
from ranker.score import next_newline_gaps


def edit_offset(where: int, gap_start: int, gap_end: int) -> int:
    """1-based offset blamed by an edit, from the gap's 0-based [start, end) (ranker/rank.py does this on
    whole arrays)."""
    if where == FIRST:
        return gap_start + 1 if gap_end > gap_start else gap_end + 1
    if where == LAST:
        return gap_end
    return gap_end + 1


def _step(general, project, weight, state, symbol):
    if project is None:
        out = kenlm.State()
        return general.model.BaseScore(state, symbol, out), out
    g_out, p_out = kenlm.State(), kenlm.State()
    g = general.model.BaseScore(state[0], symbol, g_out)
    p = project.model.BaseScore(state[1], symbol, p_out)
    return math.log10((1.0 - weight) * 10.0 ** g + weight * 10.0 ** p), (g_out, p_out)


def _begin(general, project):
    def one(lm):
        s = kenlm.State()
        lm.model.BeginSentenceWrite(s)
        return s
    return one(general) if project is None else (one(general), one(project))


def gap_context(symbols, k):
    return (symbols[k - 1] if k else "<s>", symbols[k + 1] if k + 1 < len(symbols) else "</s>")


def wide_context(symbols, k, reach):
    """The `reach` tokens before gap symbol k and the `reach` after it, '|' past the ends."""
    n = len(symbols)
    return tuple(symbols[j] if 0 <= j < n else "|" for j in range(k - 2 * reach + 1, k + 2 * reach, 2))


class StyleCounts:
    """Narrow counts (token before, token after), or wide ones (one table per reach of REACHES)."""

    def __init__(self, streams=(), wide=False):
        self.counts = defaultdict(Counter)
        self.totals = Counter()
        self.wide = wide
        for syms in streams:
            self.add(syms)

    def contexts(self, syms, k):
        return [(r, wide_context(syms, k, r)) for r in REACHES] if self.wide else [gap_context(syms, k)]

    def add(self, syms):
        for k in range(0, len(syms), 2):
            for ctx in self.contexts(syms, k):
                self.counts[ctx][syms[k]] += 1
                self.totals[ctx] += 1

    def count(self, ctx, symbol):
        c = self.counts.get(ctx)
        return c.get(symbol, 0) if c else 0


class GapCache:
    """The folder's wide counts (minus `exclude`) as the prior, then the file's own narrow counts, the
    observed gap left out."""

    def __init__(self, symbols, folder=None, exclude=None):
        self.symbols = symbols
        self.own = StyleCounts([symbols])
        self.folder = folder
        self.exclude = exclude if exclude is not None else StyleCounts(wide=True)

    def adapted(self, gap, symbol, lm_log10, alpha):
        k = 2 * gap
        p = 10.0 ** lm_log10
        if self.folder is not None:
            for ctx in self.folder.contexts(self.symbols, k):
                count = self.folder.count(ctx, symbol) - self.exclude.count(ctx, symbol)
                total = self.folder.totals[ctx] - self.exclude.totals[ctx]
                p = (count + alpha * p) / (total + alpha)
        ctx = gap_context(self.symbols, k)
        count = self.own.count(ctx, symbol) - (symbol == self.symbols[k])
        total = self.own.totals[ctx] - 1
        p = (count + alpha * p) / (total + alpha)
        return math.log10(p)


_BREAK = re.compile(r"\r\n|\r|\n")   # a line break, as Java has it


def habit_values(gap, unit):
    """What trails the old line, whether the new line's indentation is mixed, whether a blank line holds
    whitespace, how the line breaks are written (None where a variable does not apply), computed here
    without ranker/habits.py's arrays."""
    breaks = _BREAK.findall(gap)
    if not breaks:
        return (None, None, None, None)
    lines = _BREAK.split(gap)
    head = ("s" if " " in lines[0] else "") + ("t" if "\t" in lines[0] else "")
    blank = any(lines[1:-1]) if len(lines) > 2 else None
    ending = ENDINGS.index(breaks[0]) if len(set(breaks)) == 1 else len(ENDINGS)
    return (HEADS.index(head), int(mixed(lines[-1], unit)), None if blank is None else int(blank), ending)


class Habits:
    """Counts of each variable's values over a file's gaps (plus a folder's), one gap left out at a time."""

    def __init__(self, gaps, unit, extra=None):
        self.counts = [Counter() for _ in PRIORS]
        for gap in gaps:
            for j, value in enumerate(habit_values(gap, unit)):
                if value is not None:
                    self.counts[j][value] += 1
        for j, c in enumerate(extra or ()):
            for value, n in enumerate(c):
                self.counts[j][value] += n

    def log10(self, values, own):
        total = 0.0
        for j, value in enumerate(values):
            if value is None:
                continue
            if j == ENDING and not any(self.counts[j][v] for v in range(1, len(ENDINGS) + 1)):
                continue   # no CR seen: line endings count for nothing
            c = self.counts[j][value] - (own is not None and own[j] == value)
            n = sum(self.counts[j].values()) - (own is not None and own[j] is not None)
            # C's log10, as ranker/native.cpp (numpy's, with AVX-512, may differ from it in the last bit)
            total += math.log10((c + STRENGTH * PRIORS[j][value]) / (n + STRENGTH))
        return total


def rank(scheme, text, general, project=None, weight=0.0, adapt=True, folder=None, exclude=None, alpha=1.0,
         folder_habits=None, edits=DEFAULT_EDITS):
    """[(offset, score)] best first, every candidate offset, as the ranker did before."""
    if project is not None and weight <= 0:
        project = None
    stream = tokenize(text)
    symbols, indents, unit = scheme.walk(stream)
    habits = None
    if scheme.units:
        habits = Habits(stream.gap_texts if adapt else (), unit, folder_habits if adapt else None)
    symbols.append("</s>")
    state = _begin(general, project)
    states, scores = [state], []
    for sym in symbols:
        s, state = _step(general, project, weight, state, sym)
        scores.append(s)
        states.append(state)
    nxt = next_newline_gaps(stream)
    cache = GapCache(symbols[:-1], folder, exclude) if adapt else None
    best = {}
    for i in range(len(stream) + 1):
        gap = stream.gap_text(i)
        start = stream.gap_start(i)
        end = start + len(gap)
        k = 2 * i
        adjust = cache.adapted(i, symbols[k], scores[k], alpha) - scores[k] if cache else 0.0
        for repaired, where in gap_edits(gap):
            offset = edit_offset(where, start, end)
            if offset > len(text):
                continue
            if 0 < i < len(stream) and not repaired and not joinable(stream.token_text(i - 1),
                                                                     stream.token_text(i)[:3]):
                continue    # the two tokens would read as one
            if i > 0 and stream.kinds[i - 1] == "line_comment" and repaired[:1] not in ("\n", "\r"):
                continue    # what follows would join the comment
            changes = {k: gap_symbol(repaired, indents[i], unit)}
            j = nxt[i]
            if j >= 0:
                new_indent = _BREAK.split(repaired)[-1] if _BREAK.search(repaired) else indents[i]
                sym_j = gap_symbol(stream.gap_text(j), new_indent, unit)
                if sym_j != symbols[2 * j]:
                    changes[2 * j] = sym_j
            delta, first = _rescore(general, project, weight, symbols, scores, states, changes)
            if cache:
                delta += cache.adapted(i, changes[k], first, alpha) - first - adjust
            if habits is not None:
                own = habit_values(gap, unit) if adapt else None
                delta += habits.log10(habit_values(repaired, unit), own) - habits.log10(habit_values(gap, unit), own)
            delta += 0.0 if codrep_edit(gap, repaired) else EDITS[edits].other   # the error model's prior
            if offset not in best or delta > best[offset][1]:
                best[offset] = (offset, delta)
    return sorted(best.values(), key=lambda f: (-f[1], f[0]))


def _rescore(general, project, weight, symbols, scores, states, changes):
    todo = sorted(changes)
    end = len(symbols)
    delta, t, k = 0.0, 0, todo[0]
    state = states[k]
    first = None
    while k < end:
        s, out = _step(general, project, weight, state, changes.get(k, symbols[k]))
        if first is None:
            first = s
        delta += s - scores[k]
        k += 1
        if out == states[k]:
            while t < len(todo) and todo[t] < k:
                t += 1
            if t == len(todo):
                break
            k = todo[t]
            out = states[k]
        state = out
    return delta, first
