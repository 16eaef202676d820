"""How much of the real-slip set any checker can find that decides a gap by what is around it: the set's
changed gaps against the same project's clean files, per **pattern** of a gap (the kinds of its two tokens
and the shape of its whitespace: spaces and tabs on a line; or line breaks, trailing whitespace, whitespace
on blank lines, the indentation's characters and its change from the line before).

- **Chosen with the labels** (`oracle`): the patterns, each of one project, that hold the most changed gaps
  while their gaps in the clean files (each a false finding) stay within a budget per 1000 clean lines.
  It knows the answers and is scored on the data it chose on, so it bounds from above what a checker of
  such evidence finds within that budget. `Gaps.keyed(with_file_counts)` adds how often the file itself
  writes the pattern; `least_files=2` takes only patterns slipped in two or more files (learnt from another
  file).
- **Rare in the project** (`rarity`): a gap whose pattern is in at most k other files of its project and
  once in its own file, a rule that needs no labels.

Each also tells the before files where it flags just the changed gaps: the most `--fix` could restore.
Used by `bin/check-bench --realslips-ceiling` (bench/realslips.py); the page is docs/results/realslips-ceiling.md.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from formats.realslips import SlipSet, taken_stream, whatever_the_taste

MAX_LINES = 3      # line breaks and spaces counted up to this many (more are alike)
MAX_SHIFT = 16     # an indentation's change from the line before, in columns, clipped to +-this
TAB = 4            # columns of a tab in that change

Pattern = tuple    # (kind before, kind after, shape): hashable, compared whole


def token_class(kind: str) -> str:
    """A token's kind as a pattern sees it: names are alike, literals are alike, the rest are their kind."""
    if kind in ("identifier", "type_identifier"):
        return "identifier"
    return "literal" if kind.endswith("_literal") else kind


def _columns(indent: str) -> int:
    return len(indent.expandtabs(TAB))


def _shape(gap: str, indent_before: int) -> tuple:
    breaks = gap.count("\n") + (gap.count("\r") - gap.count("\r\n"))
    if not breaks:
        return ("line", min(len(gap), MAX_LINES), "\t" in gap)
    lines = gap.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    first, blanks, indent = lines[0], lines[1:-1], lines[-1]
    chars = "none" if not indent else "tabs" if set(indent) == {"\t"} else "spaces" if set(indent) == {" "} else "mixed"
    shift = max(-MAX_SHIFT, min(MAX_SHIFT, _columns(indent) - indent_before))
    return ("breaks", min(breaks, MAX_LINES), bool(first), any(blanks), chars, shift)


def gap_patterns(text: str) -> list[Pattern] | None:
    """The pattern of each gap of `text` (the set's gaps: formats/realslips.py's gap_texts), or None where the
    set would not take the file."""
    stream = taken_stream(text)
    if stream is None:
        return None
    classes = ["^", *map(token_class, stream.kinds), "$"]
    out, indent = [], 0
    for i, gap in enumerate(stream.gap_texts):
        out.append((classes[i], classes[i + 1], _shape(gap, indent)))
        if "\n" in gap or "\r" in gap:
            indent = _columns(gap.replace("\r", "\n").rsplit("\n", 1)[1])
    return out


def with_file_counts(patterns: Sequence[Pattern]) -> list[Pattern]:
    """Each pattern with how often the rest of its file has it (0, 1, or 2 for more)."""
    counts = Counter(patterns)
    return [(p, min(counts[p] - 1, 2)) for p in patterns]


@dataclass(frozen=True)
class Gaps:
    """The set as patterns: each before file's (project, patterns, its changed gaps' (index, kind)), each clean
    file's (project, patterns, lines)."""
    before: tuple[tuple[str, tuple[Pattern, ...], tuple[tuple[int, str], ...]], ...]
    clean: tuple[tuple[str, tuple[Pattern, ...], int], ...]
    unread: int          # changed gaps in files the set's gaps could not be read from (none in the set)

    @property
    def changed(self) -> list[tuple[str, Pattern, str]]:
        """Each changed gap's (project, pattern, kind)."""
        return [(project, patterns[i], kind) for project, patterns, changed in self.before for i, kind in changed]

    @property
    def clean_lines(self) -> int:
        return sum(n for *_, n in self.clean)

    def keyed(self, keys: Callable[[Sequence[Pattern]], list]) -> Gaps:
        """The same gaps, each file's patterns made `keys(patterns)` (with_file_counts: with the file's counts)."""
        return Gaps(tuple((project, tuple(keys(patterns)), changed) for project, patterns, changed in self.before),
                    tuple((project, tuple(keys(patterns)), n) for project, patterns, n in self.clean), self.unread)


def read_gaps(slips: SlipSet, clean_text: Callable[[str, str], str]) -> Gaps:
    """The set's gaps as patterns, the clean files' texts from `clean_text(project, file)`."""
    before, unread = [], 0
    for change in slips.changes:
        patterns = gap_patterns(change.before)
        if patterns is None:
            unread += len(change.gaps)
            continue
        before.append((change.project, tuple(patterns), tuple((g.index, g.kind) for g in change.gaps)))
    clean = tuple((c.project, tuple(gap_patterns(clean_text(c.project, c.file)) or ()), c.lines) for c in slips.clean)
    return Gaps(tuple(before), clean, unread)


@dataclass(frozen=True)
class Found:
    """What a rule finds: changed gaps found, of all of them, by kind; findings in the clean files."""
    found: Counter        # kind -> changed gaps found
    gaps: Counter         # kind -> changed gaps
    false: int            # findings in clean files
    clean_lines: int
    recurring: int = 0    # found with a pattern slipped in two or more before files of its project
    alone: float = 0.0    # before files whose gaps the rule flags are their changed gaps (what --fix needs)

    def share(self, taste: bool | None = None) -> float:
        kinds = [k for k in self.gaps if taste is None or whatever_the_taste(k) == taste]
        total = sum(self.gaps[k] for k in kinds)
        return sum(self.found[k] for k in kinds) / total if total else 0.0

    @property
    def false_per_kloc(self) -> float:
        return 1000 * self.false / self.clean_lines if self.clean_lines else 0.0


def _alone(gaps: Gaps, flags: Callable[[str, Sequence[Pattern]], list[bool]]) -> float:
    """The share of before files whose flagged gaps are exactly their changed gaps."""
    return sum({i for i, flag in enumerate(flags(project, patterns)) if flag} == {i for i, _ in changed}
               for project, patterns, changed in gaps.before) / max(len(gaps.before), 1)


def _most_within(value: Counter, cost: Counter, capacity: int) -> set:
    """The keys of most total `value` whose total `cost` is at most `capacity` (a knapsack, solved exactly:
    the costs are whole numbers and the capacity small)."""
    free = {k for k in value if cost[k] == 0}
    items = [k for k in value if 0 < cost[k] <= capacity]
    best = [0] * (capacity + 1)
    took = []                     # took[i][c]: item i taken in the best of capacity c over items 0..i
    for k in items:
        w, v = cost[k], value[k]
        row = [False] * (capacity + 1)
        for c in range(capacity, w - 1, -1):
            if best[c - w] + v > best[c]:
                best[c], row[c] = best[c - w] + v, True
        took.append(row)
    chosen, c = set(free), capacity
    for i in range(len(items) - 1, -1, -1):
        if took[i][c]:
            chosen.add(items[i])
            c -= cost[items[i]]
    return chosen


def _slipped_files(gaps: Gaps) -> Counter:
    """(project, pattern) -> the before files whose changed gaps have it."""
    return Counter((project, p) for project, patterns, changed in gaps.before
                   for p in {patterns[i] for i, _ in changed})


def oracle(gaps: Gaps, budget: float, taste_only: bool = False, least_files: int = 1) -> Found:
    """The patterns, each of one project, chosen with the labels to hold the most changed gaps (`taste_only`:
    of the kinds that are slips whatever the taste) while their gaps in the clean files stay within `budget`
    per 1000 of the clean files' lines (the whole set's); only patterns slipped in `least_files` before files
    or more (2: what could be learnt from another file's slip, not only from the gap's own label)."""
    files, changed = _slipped_files(gaps), gaps.changed
    slips, clean = Counter(), Counter()
    for project, pattern, kind in changed:
        if files[project, pattern] >= least_files:
            slips[project, pattern] += not taste_only or whatever_the_taste(kind)
    for project, patterns, _ in gaps.clean:
        clean.update((project, p) for p in patterns)
    chosen = _most_within(slips, clean, math.floor(budget * gaps.clean_lines / 1000))
    spent = sum(clean[k] for k in chosen)
    kinds = Counter(kind for *_, kind in changed)
    found = Counter(kind for project, p, kind in changed if (project, p) in chosen)
    recurring = sum(1 for project, p, _ in changed if (project, p) in chosen and files[project, p] > 1)
    alone = _alone(gaps, lambda project, patterns: [(project, p) in chosen for p in patterns])
    return Found(found, kinds, spent, gaps.clean_lines, recurring, alone)


def rarity(gaps: Gaps, others: int) -> Found:
    """A gap whose pattern is in at most `others` other files of its project (before or clean) and once in
    its own file: what that finds, and its findings in the clean files."""
    files = Counter()
    for project, patterns, *_ in (*gaps.before, *gaps.clean):
        files.update((project, p) for p in set(patterns))

    def rare(project: str, patterns: Sequence[Pattern]) -> list[bool]:
        mine = Counter(patterns)
        return [mine[p] == 1 and files[project, p] - 1 <= others for p in patterns]

    kinds = Counter(kind for *_, kind in gaps.changed)
    found = Counter()
    for project, patterns, changed in gaps.before:
        flags = rare(project, patterns)
        found.update(kind for i, kind in changed if flags[i])
    false = sum(sum(rare(project, patterns)) for project, patterns, _ in gaps.clean)
    return Found(found, kinds, false, gaps.clean_lines, alone=_alone(gaps, rare))


def _row(label: str, what: str, f: Found, recurring: bool) -> str:
    total = sum(f.gaps.values())
    return (f"| {label} | {what} | {f.share():.3f} | {f.share(True):.3f} | {f.share(False):.3f} | "
            f"{f.false_per_kloc:.2f} | " + (f"{f.recurring / total:.3f} |" if recurring else "|")
            + f" {f.alone:.3f} |")


def tables(plain: Gaps, counted: Gaps, budgets: Sequence[float] = (0.3, 0.5, 1.0),
           rare: Sequence[int] = (0, 1, 4), kinds_at: float = 0.5) -> list[str]:
    """The page's tables: what each rule finds, and by kind what the labels choose at `kinds_at`."""
    out = ["| evidence | chosen | found | whatever the taste | the rest | false / KLOC | of it, slipped in 2+ files "
           "| files: just the changed gaps |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    counts = "pattern + the file's count"
    rows = [*(("pattern", "with the labels", b, plain, {}) for b in budgets),
            *((counts, "with the labels", b, counted, {}) for b in budgets),
            *((counts, "for the slips whatever the taste", b, counted, {"taste_only": True}) for b in budgets[1:]),
            *((counts, "slipped in 2+ files", b, counted, {"least_files": 2}) for b in budgets[1:])]
    for evidence, chosen, b, gaps, how in rows:
        out.append(_row(evidence, f"{chosen}, within {b:g} / KLOC", oracle(gaps, b, **how), True))
    for k in rare:
        out.append(_row("pattern", f"no labels: in <= {k} other files, once in its own", rarity(plain, k), False))
    by_kind = [oracle(plain, kinds_at), oracle(counted, kinds_at), oracle(counted, kinds_at, least_files=2)]
    out += ["", f"| kind | whatever the taste | gaps | pattern, chosen within {kinds_at:g} / KLOC | "
                f"and the file's count | slipped in 2+ files |", "|---|---|---:|---:|---:|---:|"]
    for kind in sorted(by_kind[0].gaps, key=lambda k: (-by_kind[0].gaps[k], k)):
        n = by_kind[0].gaps[kind]
        out.append(f"| {kind} | {'yes' if whatever_the_taste(kind) else ''} | {n} | "
                   + " | ".join(f"{f.found[kind] / n:.2f}" for f in by_kind) + " |")
    return out
