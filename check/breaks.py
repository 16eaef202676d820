"""Gaps that break a habit of the repository, each with the repair that keeps it.

Real slips are mostly not the one-character edits the n-gram model ranks best: trailing whitespace left on
a line, a tab-indented line in a space-indented file, `if(` in a repository that writes `if (`. The model's
gain for such a repair is small (the JDK it learned from never writes them either way), but the repository
says it plainly: what it writes in the same place everywhere else. A
**break** is a gap whose whitespace the repository's other files (and the rest of the file) write rarely
where they write the repair often:

- `trailing`: whitespace ending a code line (the habit counts of ranker/habits.py: what trails a line);
- `blank-line`: whitespace on a blank line (Eclipse's formatter keeps the indentation there: the counts
  tell such a repository apart);
- `mixed-indent`: a tab in a space-indented file, a space before a tab in a tab-indented one, the line
  re-indented in the file's unit;
- `spacing`: the gap symbol of a gap on a line (parsing/symbols.py) between the same two kinds of tokens,
  against the one the repository writes most there of one space and none (`if(`, `x ;`, a run of spaces);
  the breaks on both sides of one token (`a+b`, `key ,1`) are a pair, one slip (`Break.pair`);
- `line-break`: the same, where what the repository writes most there is the line broken at the line's
  own indentation (`) {` in a repository that puts `{` on a line of its own);
- `join`, `brace`, the blank-line habits (`blank-line-missing`, `blank-line-missing-after-block`,
  `blank-line-extra`, `blank-lines-doubled`) and `continuation`: a gap holding a line break against the
  lines joined, `{` on its header's line or its own, a blank line fewer or more, or the line a unit or two
  off, counted over the line break's family (every indentation of it);
- `indent-char`: a line indented with a tab in a repository whose other files indent with spaces, or the
  reverse;
- `continuation-first` and `continuation-sibling`: a statement's first continuation line, or a bracket's
  first line, at an offset the repository rarely writes, and a continuation line unlike its siblings in the
  same bracket (parsing/style.py's first_continuations and continuation_siblings);
- `indentation`: a line that starts a statement (or closes a block, or is a `case` label) indented from its
  block's header otherwise than the file indents the other lines of its kind (check/structure.py), when
  the repository writes the repair's gap symbol between the same two kinds of tokens far more often (a line
  one level too deep, a `}` that does not line up); the lines moved with it (the comments just above it,
  the statements after it off by the same columns, every line they hold) follow it, re-indented alike;
- `final-newline`: the file's end without its line break (or with blank lines after it) where the
  repository's other files end after the same token with one. The whole-file belief, fitted without it,
  does not believe it: in whole files it cost more clean-file breaks than it found (docs/notes/habits.md).

Tried and left out (docs/notes/habits.md): a line's indentation against the repository's
indentation symbols alone (without the structure), and a bare blank line where the repository indents its
blank lines.

Pure: from a file's walk (gap texts, symbols and their ids, indentations, unit, narrow keys) and the
repository's counts. Judging a change (`FileGaps.established`), only the change's gaps are candidates, the
file's own counts are those of the lines it left alone, and the change's own are counted apart (a break's
`change_observed` and `change_repaired`). How far each break is believed is check/calibration.py's (the
habit belief, fitted on slips made by hand in repositories whose CI enforces a formatter: bench/hand_slips.py;
judging a change, the change belief, fitted on real commits: bench/commits.py).
"""
from __future__ import annotations

import re
from array import array
from collections import Counter
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

from parsing.offsets import LINE_BREAK, last_line, split_last_line
from parsing.style import (
    STATEMENT_ENDS,
    columns,
    continuation_siblings,
    first_continuations,
    indentation_of,
    line_starts,
    mixed,
)
from parsing.symbols import gap_symbol
from ranker.habits import VARIABLES, HabitCounts, habit_values, habits
from ranker.repairs import retab

HABITS = ("trailing", "blank-line", "mixed-indent", "indent-char", "spacing", "line-break", "join", "brace",
          "blank-line-missing", "blank-line-missing-after-block", "blank-line-extra", "blank-lines-doubled",
          "continuation", "continuation-first", "continuation-sibling", "indentation", "final-newline")
# The habits whose repairs indent a line as the structure says (a sibling's, a bracket's step, a block's): a
# continuation made as deep as the line before is then no harm (check/safety.py)
STRUCTURAL = frozenset({"continuation-sibling", "continuation-first", "indentation"})
# A candidate break: the repository writes the repair at least MIN_SEEN times in the same place, and the gap
# as it is in at most MAX_SHARE of them (the belief then weighs how far; this only keeps the list short).
MIN_SEEN = 5
MAX_SHARE = 0.25
# A gap whose symbol the file itself writes more than MAX_OWN times is the file's habit, whatever the
# repository's: no symbol break (of the development set's breaks at a changed gap, 5 in 124 were; no such
# break was believed even at `high`). It also spares asking the repository about most gaps.
MAX_OWN = 2
WIDE_TAB = 8     # the tab stops of terminals and many editors (a tab in a space-indented file may mean either)


@dataclass(frozen=True)
class Break:
    """A gap (the walk's index: the file's BOM left out) and the repair that keeps the habit it breaks, with
    how often the repository's other files and the rest of the file write each of them."""
    gap: int
    observed: str
    repaired: str
    habit: str               # one of HABITS
    repo_observed: int
    repo_repaired: int
    file_observed: int       # elsewhere in the file (judging a change: in the lines it left alone)
    file_repaired: int
    follows: int = -1        # a line of a block shifted whole: the gap of its header's break (-1: none)
    change_observed: int = 0   # judging a change: elsewhere in the lines it added or modified
    change_repaired: int = 0
    # the spacing break on the other side of the same token, both on one line (-1: none): the two are one slip
    # (`a+b`, `key ,1`), believed as the likelier of them, so that a fix never mends one side alone
    pair: int = -1


@dataclass(frozen=True)
class FileGaps:
    """What the breaks are found in: a file's gap texts, its 2n+1 symbols (gaps at even places) and their ids
    (ranker/symbols.py's), each gap's line indentation, its unit and the narrow key of each gap
    (ranker/cache.py)."""
    texts: tuple[str, ...]
    symbols: list[str]
    indents: list[str]
    unit: str | None
    keys: object             # numpy int64 array, one per gap
    ids: object = None       # the symbols' ids (None: no indentation breaks)
    # judging a change: the gaps of the lines it left alone (numpy bool, one per gap), the file's established
    # writing, which alone is the file's own evidence (None: every gap). A change that writes `if(` three
    # times breaks the file's habit three times; it does not make `if(` the file's habit.
    established: object = None

    def self_count(self, gap: int) -> int:
        """1 when `gap` is counted in the file's own evidence (its own count is taken off), else 0."""
        return 1 if self.established is None or self.established[gap] else 0

    def changed_texts(self) -> list[str]:
        """The gap texts of the change (none without one)."""
        if self.established is None:
            return []
        import numpy as np
        return [self.texts[i] for i in np.nonzero(~np.asarray(self.established, dtype=bool))[0].tolist()]

    def mine(self, gap: int, changed: bool = False) -> bool:
        """Whether `gap` is one of the file's established gaps (`changed`: of the change's)."""
        return bool(self.self_count(gap)) != changed

    def elsewhere(self, own: int, change: int, gap: int) -> tuple[int, int]:
        """How often the file's established gaps and the change's write what `gap` writes (`own`, `change`,
        the gap counted on its side), but for the gap itself."""
        itself = self.self_count(gap)
        return own - itself, change - 1 + itself

    @cached_property
    def habit_values(self) -> array:
        """Each gap's habit variables, flat (ranker/habits.py's habit_values)."""
        return habit_values(self.texts, self.unit)

    @cached_property
    def line_events(self) -> tuple[list[str], list[int], list[int] | None]:
        """The token symbols, the tokens that start a line and (from the ids) the events of the structure walk
        (ranker/cache.py's line_events; None: parsing/style.py finds them)."""
        if self.ids is not None:
            from ranker.cache import line_events
            return line_events(self.ids)
        tokens = self.symbols[1::2]
        return tokens, line_starts(self.texts, len(tokens)), None

    @cached_property
    def own_habits(self) -> tuple[tuple[float, ...], ...]:
        """The file's own counts of each habit variable's values (of its established gaps)."""
        return self._habits_where(False)

    @cached_property
    def change_habits(self) -> tuple[tuple[float, ...], ...]:
        """The same, of the change's gaps (zeros without one)."""
        return self._habits_where(True)

    def _habits_where(self, changed: bool) -> tuple[tuple[float, ...], ...]:
        if self.established is None and not changed:
            return HabitCounts.of_values(self.habit_values).counts
        import numpy as np
        values = np.frombuffer(self.habit_values, dtype=np.int8).reshape(-1, VARIABLES)
        kept = np.zeros(len(values), bool) if self.established is None else np.asarray(self.established, bool)
        return HabitCounts.of_values(array("b", values[kept != changed].tobytes())).counts


def breaks(walked: FileGaps, repo_habits: HabitCounts | None, repo_counts, keys_of) -> list[Break]:
    """The file's breaks, by gap. `repo_habits`: the repository's habit counts with the file left out (None:
    no repository); `repo_counts(keys)`: how often the repository writes each narrow key (an array), the file
    included; `keys_of(triples)`: the narrow keys of (before, gap, after) symbol triples (ranker/cache.py's
    narrow_keys_of). The symbols' counts are asked for all gaps at once (a file has thousands)."""
    import numpy as np

    from ranker.counts import counted, lookup  # numpy: imported once a file is walked
    texts, syms, unit = walked.texts, walked.symbols, walked.unit
    values = np.frombuffer(walked.habit_values, dtype=np.int8).reshape(-1, VARIABLES)
    keys = np.asarray(walked.keys, dtype=np.int64)
    file_counts = counted(keys)
    kept = None if walked.established is None else np.asarray(walked.established, bool)
    kept_counts = file_counts if kept is None else counted(keys[kept])
    change_counts = None if kept is None else counted(keys[~kept])

    def own_count(ks) -> np.ndarray:
        """How often the file's established gaps write each of narrow keys `ks` (its own evidence)."""
        return lookup(kept_counts, np.asarray(ks, dtype=np.int64))

    def change_count(ks) -> np.ndarray:
        """How often the change's gaps write each of them (zeros without one)."""
        ks = np.asarray(ks, dtype=np.int64)
        return np.zeros(len(ks), np.int64) if change_counts is None else lookup(change_counts, ks)

    def others_count(ks) -> np.ndarray:
        """The repository's counts of narrow keys `ks` without the file's own, all of it (0 at least: a file the
        counts were not learned from, one outside the tree or a staged version, has keys they lack)."""
        return np.maximum(repo_counts(ks) - lookup(file_counts, np.asarray(ks, dtype=np.int64)), 0)

    def likelier(gap: int, options: list[str]) -> str:   # the one the repository writes most there
        counts = repo_counts(keys_of([(syms[2 * gap - 1], gap_symbol(o, walked.indents[gap], unit),
                                       syms[2 * gap + 1]) for o in options]))
        return options[int(np.argmax(counts))]

    found: dict[int, Break] = {}
    inner = np.zeros(len(texts), dtype=bool)
    inner[1:-1] = True   # the file's ends: the final-newline rule's
    if kept is not None:   # judging a change: only its gaps are candidates
        inner &= ~kept
    # a habit broken (trailing whitespace, mixed indentation, whitespace on a blank line): found in numpy, so
    # that the loops go over a few gaps, not all
    for gap in np.nonzero(inner & (values[:, :3] > 0).any(axis=1))[0].tolist():
        b = _habit_break(gap, walked, repo_habits, likelier)
        if b is not None:
            found[gap] = b
    for b in _indent_char_breaks(walked, repo_counts, keys_of):
        found.setdefault(b.gap, b)
    for b in _continuation_breaks(walked, repo_counts, keys_of) + _sibling_breaks(walked, repo_counts, keys_of):
        found.setdefault(b.gap, b)
    asked: list[tuple[int, str, str]] = []   # (gap, repair, its symbol) of the spacing breaks to weigh
    newline = next((m.group() for m in map(LINE_BREAK.search, texts) if m), "\n")   # the file's line break
    itself = 1 if walked.established is None else np.asarray(walked.established, dtype=np.int64)
    rare = inner & (own_count(keys) - itself < MAX_OWN)   # the file writes the gap's symbol elsewhere < MAX_OWN times
    for gap in np.nonzero(rare & (values[:, 0] < 0))[0].tolist():   # on a line
        # one space, none, or the line broken there at its own indentation (`) {` where `{` goes below)
        for r in (" ", "", newline + walked.indents[gap]):
            symbol = gap_symbol(r, walked.indents[gap], unit)
            if symbol != syms[2 * gap]:
                asked.append((gap, r, symbol))
    # a line break with none of the habits above broken: the lines joined (`)` and `{` on two lines), a blank
    # line more or fewer, or a continuation's indentation a unit or two off
    for gap in np.nonzero(rare & (values[:, 0] == 0) & (values[:, 1] <= 0) & (values[:, 2] <= 0))[0].tolist():
        for r in _line_options(texts[gap], newline, unit, syms[2 * gap - 1] in STATEMENT_ENDS):
            symbol = gap_symbol(r, walked.indents[gap], unit)
            if symbol != syms[2 * gap]:
                asked.append((gap, r, symbol))
    if asked:
        # a symbol's count is its family's: a line break's whatever its indentation, when the repair keeps the
        # indentation and changes the line breaks (a blank line, two lines joined, one broken): what those
        # say is in how the lines break, and the indentation's shifts split the counts many ways
        observed_of = [_family(syms[2 * g], symbol) for g, _, symbol in asked]
        repaired_of = [_family(symbol, syms[2 * g]) for g, _, symbol in asked]
        parts = [_family_keys(syms[2 * g - 1], xs, syms[2 * g + 1], keys_of)
                 for (g, _, _), xs in zip(asked * 2, observed_of + repaired_of)]
        starts = np.cumsum([0] + [len(x) for x in parts[:-1]])   # each ask's first key (a family has one at least)
        flat_keys = np.concatenate(parts)
        others, own = np.add.reduceat(others_count(flat_keys), starts), np.add.reduceat(own_count(flat_keys), starts)
        change = np.add.reduceat(change_count(flat_keys), starts)
        k = len(asked)
        best: dict[int, tuple[int, str, int, int]] = {}   # gap -> (seen elsewhere, repair, observed, ask)
        for j, (gap, repaired, _) in enumerate(asked):
            n, o = int(others[k + j]), int(others[j])
            if gap not in best or n > best[gap][0]:
                best[gap] = (n, repaired, o, j)
        for gap, (n, repaired, o, j) in best.items():
            if _kept(o, n) and gap not in found:   # the structure's breaks (a continuation) come first
                habit = _symbol_habit(texts[gap], repaired, syms[2 * gap - 1], syms[2 * gap + 1])
                file_observed, change_observed = walked.elsewhere(int(own[j]), int(change[j]), gap)
                found[gap] = Break(gap, texts[gap], repaired, habit, o, n, file_observed, int(own[k + j]),
                                   change_observed=change_observed, change_repaired=int(change[k + j]))
    end = _final_break(walked, others_count, keys_of, newline)
    if end is not None:
        found[end.gap] = end
    if walked.ids is not None:
        for b in _indentation_breaks(walked, values[:-1, 0] >= 0, others_count, own_count, keys_of):
            # the structure's judgement of a statement's line before a symbol's (a blank line, lines joined)
            if b.follows < 0 or b.gap not in found:
                found[b.gap] = b
    return _paired([found[g] for g in sorted(found)])


def _paired(found: list[Break]) -> list[Break]:
    """The breaks, those of spacing on both sides of one token each naming the other as its pair."""
    out = list(found)
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        if b.gap == a.gap + 1 and a.habit == b.habit == "spacing":
            out[i], out[i + 1] = replace(a, pair=b.gap), replace(b, pair=a.gap)
    return out


_LINE_SYMBOL = re.compile(r"(·n\d+r?)(=|[+-]\d+)")
_SHIFTS = ("=", *(f"{d:+d}" for d in range(-8, 9) if d))


@lru_cache(maxsize=1 << 14)   # a file asks a few hundred times, of a few dozen pairs
def _family(symbol: str, other_symbol: str) -> tuple[str, ...]:
    """The symbols counted for gap symbol `symbol` against the other way of writing the gap (`other_symbol`):
    every indentation shift of its line breaks when both break the line a different number of times
    (or one does not) and `symbol` has no remainder of columns; else `symbol` alone."""
    m = _LINE_SYMBOL.fullmatch(symbol)
    o = _LINE_SYMBOL.fullmatch(other_symbol)
    if m is None or (o is not None and o.group(1) == m.group(1)):
        return (symbol,)
    return tuple(m.group(1) + shift for shift in _SHIFTS)


_FAMILY_KEYS: dict[tuple[str, tuple[str, ...], str], object] = {}   # (before, family, after) -> its narrow keys


def _family_keys(before: str, family: tuple[str, ...], after: str, keys_of):
    """The narrow keys of each symbol of `family` between `before` and `after` (a file asks hundreds of times,
    mostly the same few: kept for the process, bounded)."""
    got = _FAMILY_KEYS.get((before, family, after))
    if got is None:
        if len(_FAMILY_KEYS) > 1 << 16:
            _FAMILY_KEYS.clear()
        got = _FAMILY_KEYS[(before, family, after)] = keys_of([(before, x, after) for x in family])
    return got


def _line_options(text: str, newline: str, unit: str | None, statement: bool) -> list[str]:
    """The other ways to write a gap that holds a line break and nothing else but indentation: the two lines
    joined by a space (one line break), a blank line fewer or one more (up to two), and, on a line that
    continues a statement (the token before it does not end one), the indentation a unit shallower, two
    shallower, or a unit deeper. (A statement's own line is judged by the structure: _indentation_breaks.)"""
    breaks_ = len(LINE_BREAK.findall(text))
    last = LINE_BREAK.split(text)[-1]
    out = [" "] if breaks_ == 1 else []
    if breaks_ >= 2:
        out.append(newline * (breaks_ - 1) + last)
    if breaks_ <= 2:
        out.append(newline * (breaks_ + 1) + last)
    if unit and not statement and breaks_ == 1:
        width = len(unit)
        ind = retab(last, unit)
        for step in (-1, -2, 1):
            cut = ind[:len(ind) + step * width] if step < 0 else ind + unit * step
            if step > 0 or len(ind) >= -step * width:
                out.append(newline + cut)
    return out


def _indent_char_breaks(walked: FileGaps, repo_counts, keys_of) -> list[Break]:
    """The lines indented with a tab first in a repository whose other files indent with spaces, or with
    spaces in one that indents with tabs (ranker/cache.py's INDENT_LINES counts), re-indented in the
    repository's character: a tab as one unit of the file's spaces (its unit when it has one of spaces, else
    of its lines that start with a space), each TAB_STOP columns as a tab. What the mixed-indent habit misses:
    a file too short to tell its own unit (one tab line against one space line reads as tab-indented), and
    spaces alone in a tab-indented file."""
    from ranker.cache import INDENT_LINES, indent_lines
    texts = walked.texts
    # the file as the learning pass counted it (taken off the repository's), and its established lines
    every, change = indent_lines(texts), indent_lines(walked.changed_texts())
    own = tuple(e - c for e, c in zip(every, change))
    tab, space = (max(int(n) - o, 0) for n, o in zip(repo_counts(keys_of(list(INDENT_LINES))).tolist(), every))
    if _kept(tab, space):
        foreign, unit = "\t", walked.unit if walked.unit and walked.unit != "\t" else None
        if unit is None:
            unit = indentation_of([i for i in walked.indents if i[:1] == " "] or ["    "]).unit
        observed, repaired, own_observed, own_repaired, side = tab, space, own[0], own[1], 0
    elif _kept(space, tab):
        foreign, unit = " ", "\t"
        observed, repaired, own_observed, own_repaired, side = space, tab, own[1], own[0], 1
    else:
        return []
    out = []
    starts = ("\n" + foreign, "\r" + foreign)   # a line indented with it (most gaps are not: asked first)
    for gap in range(1, len(texts) - 1):
        text = texts[gap]
        if starts[0] not in text and starts[1] not in text:
            continue
        head, indent = split_last_line(text)
        if not head or indent[:1] != foreign:
            continue
        fixed = head + retab(indent, unit)
        if fixed != text:
            file_observed, change_observed = walked.elsewhere(own_observed, change[side], gap)
            out.append(Break(gap, text, fixed, "indent-char", observed, repaired, file_observed, own_repaired,
                             change_observed=change_observed, change_repaired=change[1 - side]))
    return out


def _final_break(walked: FileGaps, others_count, keys_of, newline: str) -> Break | None:
    """The file's end without its line break, or with blank lines or whitespace after it, where the
    repository's other files end after the same token with one line break (the counts are of files: a file
    has one end). Judging a change, only when the change wrote the last line."""
    gap = len(walked.texts) - 1
    observed = walked.texts[gap]
    if gap < 1 or observed == newline or (walked.established is not None and walked.established[gap]):
        return None
    before = walked.symbols[2 * gap - 1]
    symbol = gap_symbol(newline, walked.indents[gap], walked.unit)   # the repair's
    o, n = (int(x) for x in others_count(keys_of([(before, walked.symbols[2 * gap], "|"), (before, symbol, "|")])))
    return Break(gap, observed, newline, "final-newline", o, n, 0, 0) if _kept(o, n) else None


CONTINUATIONS = range(-8, 33)   # the offsets of a first continuation line asked of the repository, in columns


def _continuation_breaks(walked: FileGaps, repo_counts, keys_of) -> list[Break]:
    """The lines that first continue a statement (parsing/style.py's first_continuations) at an offset from it
    that the repository's other files rarely write where they write another one almost always (+4 columns in
    google-java-format's style, +8 in AOSP's), re-indented to that one in the file's unit."""
    from ranker.cache import continuation_triple
    if not walked.unit:
        return []
    tokens, starts, _ = walked.line_events
    lines = first_continuations(tokens, walked.texts, starts)
    if not lines:
        return []
    own = Counter(off for gap, off in lines if walked.mine(gap))   # the established lines'
    change = Counter(off for gap, off in lines if walked.mine(gap, changed=True))
    every = own + change
    repo = repo_counts(keys_of([continuation_triple(off) for off in CONTINUATIONS]))
    others = {off: max(int(n) - every[off], 0) for off, n in zip(CONTINUATIONS, repo.tolist())}
    best = max(others, key=lambda off: others[off])
    out = []
    for gap, off in lines:
        mine, in_change = walked.elsewhere(own[off], change[off], gap)
        if off == best or not _kept(others.get(off, 0), others[best]) or mine > MAX_OWN:
            continue
        text = walked.texts[gap]
        width = columns(walked.indents[gap]) + best
        if width < 0:
            continue
        fixed = at_width(text, width, walked.unit)
        out.append(Break(gap, text, fixed, "continuation-first", others.get(off, 0), others[best], mine, own[best],
                         change_observed=in_change, change_repaired=change[best]))
    return out


def _sibling_breaks(walked: FileGaps, repo_counts, keys_of) -> list[Break]:
    """The continuation lines indented otherwise than their siblings (parsing/style.py's continuation_siblings:
    the lines continuing a statement inside the same bracket) where the repository's siblings line up almost
    always, when the line is the odd one (its previous sibling lines up with the one before it, or its next
    sibling with the previous; a first sibling, when the next two line up), re-indented as a sibling that
    lines up; and a bracket's first line at a step from its opening line that the repository rarely writes
    where it writes another one almost always, re-indented at that step."""
    from ranker.cache import sibling_triple
    if not walked.unit:
        return []
    texts = walked.texts
    tokens, starts, events = walked.line_events
    pairs, firsts = continuation_siblings(tokens, texts, starts, events)
    own = Counter(d for g, _, d in pairs if walked.mine(g))   # the established lines'
    own_first = Counter((d, opened) for g, _, d, opened in firsts if walked.mine(g))
    change = Counter(d for g, _, d in pairs if walked.mine(g, changed=True))
    change_first = Counter((d, opened) for g, _, d, opened in firsts if walked.mine(g, changed=True))
    every, every_first = own + change, own_first + change_first
    steps = range(-8, 33)
    wanted = [(d, 0) for d in sorted({0, *every})] + [(d, o) for o in range(1, 4) for d in steps]
    repo = dict(zip(wanted, repo_counts(keys_of([sibling_triple(d, o) for d, o in wanted])).tolist()))
    others = {(d, o): max(int(n) - (every_first[(d, o)] if o else every[d]), 0) for (d, o), n in repo.items()}
    before = {g: (p, d) for g, p, d in pairs}    # line -> (its previous sibling, the difference)
    after = {p: (g, d) for g, p, d in pairs}     # line -> (its next sibling, the difference)

    def indented(g: int, like: int) -> str:
        return split_last_line(texts[g])[0] + last_line(texts[like])

    out = []
    for g, p, d in pairs:
        mine, in_change = walked.elsewhere(own[d], change[d], g)
        if not d or not _kept(others[(d, 0)], others[(0, 0)]) or mine > MAX_OWN:
            continue
        evidence = (others[(d, 0)], others[(0, 0)], mine, own[0])
        changed = dict(change_observed=in_change, change_repaired=change[0])
        if before.get(p, (None, 1))[1] == 0 or after.get(g, (None, 0))[1] == -d:   # this line is the odd one
            out.append(Break(g, texts[g], indented(g, p), "continuation-sibling", *evidence, **changed))
        elif p not in before and after.get(g, (None, 1))[1] == 0:   # the first sibling is
            out.append(Break(p, texts[p], indented(p, g), "continuation-sibling", *evidence, **changed))
    best = {o: max(steps, key=lambda d: others[(d, o)]) for o in range(1, 4)}
    for g, opener, d, o in firsts:
        step = best[o]
        mine, in_change = walked.elsewhere(own_first[(d, o)], change_first[(d, o)], g)
        if d == step or (d, o) not in others or not _kept(others[(d, o)], others[(step, o)]) \
                or mine > MAX_OWN:   # (an offset outside `steps` is not judged)
            continue
        head, indent = split_last_line(texts[opener])
        width = columns(indent if head else "") + step
        fixed = at_width(texts[g], max(width, 0), walked.unit)
        out.append(Break(g, texts[g], fixed, "continuation-first", others[(d, o)], others[(step, o)], mine,
                         own_first[(step, o)], change_observed=in_change, change_repaired=change_first[(step, o)]))
    return out


def _symbol_habit(observed: str, repaired: str, before: str, after: str) -> str:
    """The habit a symbol break's repair keeps: a line broken, lines joined, blank lines, a continuation's
    indentation, or the spacing on a line; a brace on the line of its header or on its own (`after` is '{'),
    and a blank line missing after a block's '}' (between members), each apart: the repository keeps those
    where it leaves the others to taste."""
    o, r = len(LINE_BREAK.findall(observed)), len(LINE_BREAK.findall(repaired))
    if after == "{" and (o == 0) != (r == 0):
        return "brace"
    if not o:
        return "line-break" if r else "spacing"
    if not r:
        return "join"
    if o == r:
        return "continuation"
    # a blank line missing is told apart from one too many, and two or more blank lines from one: formatters
    # collapse the second, and leave the first to taste
    if o < r:
        return "blank-line-missing-after-block" if before == "}" else "blank-line-missing"
    return "blank-lines-doubled" if o > 2 else "blank-line-extra"


def _indentation_breaks(walked: FileGaps, starts_line, others_count, own_count, keys_of) -> list[Break]:
    """The runs of statement lines indented otherwise than the file's habit for their kind (check/structure.py)
    whose first line's re-indented gap symbol the repository keeps to between the same two kinds of tokens
    (`others_count(keys)`: its other files; `own_count(keys)`: the file's established gaps, the gap itself
    included): that line's break, and the lines moved with it (the comments just above, the run's other
    lines and what they hold) each a break that follows it. Left to the mixed-indent habit: a line, or its
    block's header, that mixes tabs and spaces."""
    import numpy as np

    from .structure import shifted_runs  # numpy: imported once a file is walked
    texts, syms, unit = walked.texts, walked.symbols, walked.unit
    runs = []
    for run in shifted_runs(walked.ids, texts, starts_line, MIN_SEEN):
        line = run.first
        if line.gap == 0 or run.at_own - run.length > MAX_OWN \
                or any(mixed(ws, unit or " ") for ws in (line.indent, line.base)):
            continue
        moved = _reindented(texts, run.lines, run.shift, unit) if run.whole else None
        if moved is None:   # the run's first line alone (another line under it is off by itself, or mixed)
            moved = _reindented(texts, (line.gap,), run.shift, unit)
        if moved and moved[0][0] > 0:
            runs.append((run, moved))
    if not runs:
        return []
    firsts = [moved[0] for _, moved in runs]
    alternative = keys_of([(syms[2 * g - 1], gap_symbol(r, walked.indents[g], unit), syms[2 * g + 1])
                           for g, r in firsts])
    observed_keys = np.asarray(walked.keys)[[g for g, _ in firsts]]
    seen, observed = others_count(alternative), others_count(observed_keys)
    own_seen, own_observed = own_count(alternative), own_count(observed_keys)
    out = []
    for (run, moved), n, o, on, oo in zip(runs, seen.tolist(), observed.tolist(), own_seen.tolist(),
                                          own_observed.tolist()):
        g = moved[0][0]
        if not _kept(o + oo - walked.self_count(g), n + on):
            continue
        out.append(Break(g, texts[g], moved[0][1], "indentation", int(o), int(n), run.at_own - run.length,
                         run.at_habit))
        out += [Break(h, texts[h], r, "indentation", int(o), int(n), run.at_own - run.length, run.at_habit,
                      follows=g) for h, r in moved[1:]]
    return out


def at_width(gap: str, width: int, unit: str | None) -> str:
    """`gap` with its last line's indentation `width` columns wide, in the file's unit (none: spaces)."""
    return split_last_line(gap)[0] + retab(" " * width, unit)


def _reindented(texts, lines, shift: int, unit: str | None) -> list[tuple[int, str]] | None:
    """Each of `lines` (line-starting gaps) with its indentation moved by `shift` columns, in the file's unit,
    those it changes; None when one would go left of the margin or mixes tabs and spaces."""
    out = []
    for g in lines:
        indent = last_line(texts[g])
        width = columns(indent) + shift
        if width < 0 or mixed(indent, unit or " "):
            return None
        fixed = at_width(texts[g], width, unit)
        if fixed != texts[g]:
            out.append((g, fixed))
    return out


def _habit_break(gap: int, walked: FileGaps, repo: HabitCounts | None, likelier) -> Break | None:
    """The break of the first of trailing whitespace, mixed indentation and whitespace on a blank line that the
    gap has and the repository keeps from, with the counts of that habit; its repair mends every one of them
    the gap has and the repository keeps from, so that one fix leaves none (each its own part of the gap: the
    old line's end, the new line's indentation, the blank lines between). A mixed indentation is re-written
    in the file's unit with a tab as wide as the unit or reaching the next 8-column stop, whichever the
    repository writes more between the same two kinds of tokens (`likelier`)."""
    text, unit, own, change = walked.texts[gap], walked.unit, walked.own_habits, walked.change_habits
    values = habits(text, unit)
    lines = LINE_BREAK.split(text)
    breaks_ = LINE_BREAK.findall(text)

    def joined(new: list[str]) -> str:
        return "".join(line + brk for line, brk in zip(new, breaks_)) + new[-1]

    def reindented(new: list[str]) -> list[str]:
        head = text[:len(text) - len(lines[-1])]
        options = [retab(lines[-1], unit)]
        if unit and unit != "\t":
            options.append(" " * columns(lines[-1], WIDE_TAB))
        return new[:-1] + [likelier(gap, [head + o for o in options])[len(head):]]

    first, new = None, list(lines)
    for habit, j, fixed in (("trailing", 0, lambda new: [""] + new[1:]),
                            ("mixed-indent", 1, reindented),
                            ("blank-line", 2, lambda new: [new[0]] + [""] * (len(new) - 2) + [new[-1]])):
        if values[j] <= 0:   # kept (0) or does not apply (NONE)
            continue
        mended = fixed(new)
        if mended == new or (j == 1 and mixed(mended[-1], unit or "")):
            continue
        theirs = repo.counts[j] if repo is not None else (0.0,) * len(own[j])
        observed = sum(theirs[1:])
        if not _kept(observed, theirs[0]):
            continue
        new = mended
        first = first or (habit, int(observed), int(theirs[0]),
                          *walked.elsewhere(int(sum(own[j][1:])), int(sum(change[j][1:])), gap), int(own[j][0]),
                          int(change[j][0]))
    if first is None:
        return None
    habit, observed, repaired, file_observed, change_observed, file_repaired, change_repaired = first
    return Break(gap, text, joined(new), habit, observed, repaired, file_observed, file_repaired,
                 change_observed=max(change_observed, 0), change_repaired=change_repaired)


def _kept(observed: float, repaired: float) -> bool:
    """Whether the repository keeps the habit: writes the repair MIN_SEEN times or more, and the gap as it is
    in at most MAX_SHARE of the two."""
    return repaired >= MIN_SEEN and observed <= MAX_SHARE * (observed + repaired)
