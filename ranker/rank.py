"""A file's text -> every character offset, most suspicious first.

Every plausible repair of every gap is planned (ranker/plans.py), and its gain is the change in the file's
log10 probability under the n-gram model(s), adapted to the file's style and habits; each offset keeps its
best repair, and the offsets are ranked by that repair's gain. Most repairs cannot win: each is first
bounded cheaply (its changed symbol's score, the best the symbols after it could do), and rescored in full
only when its bound can still reach its offset's best gain so far, and, when only the best K offsets are
asked for (`top`) or those whose gain reaches `least`, what those need (ranker/native.cpp's FileRanker).
The answer is the same as rescoring every repair; a full ranking needs each offset's best, the top K only
theirs. A chunk of gaps is scored at a time, so that memory stays bounded on large files.
"""
from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from lm._native import rescoring
from parsing.java import BOM, same_tokens
from parsing.languages import get_language
from parsing.offsets import has_line_break, last_line
from parsing.schemes import Scheme

from ._native import FileRanker, StyleCache, all_offsets, format_ranking
from .habits import HabitCounts, habit_model
from .repairs import joinable
from .score import ScoredStream, Scorer, score_stream
from .symbols import symbol_ids
from .walk import Walked, covers, interned, style_ids, tables, walk_units

TYPE_CHECKING = False   # typing.TYPE_CHECKING without importing typing (start-up time: tests/test_ranker.py)
if TYPE_CHECKING:   # for the annotations only: ranker/counts.py imports numpy, which ranking does without
    from .counts import Counts

# Dirichlet strength of the style cache, chosen on codrep2019/learning (tasks 0..999 by name, c18-o7
# model): alpha 0.5: 0.9845, 1: 0.9846, 2: 0.9825, 4: 0.9802, no cache: 0.9717.
CACHE_ALPHA = 1.0


@dataclass(frozen=True, slots=True)
class Candidate:
    """An offset of a ranking with its best repair: gap `gap`'s text `observed` written `repaired`."""
    offset: int       # 1-based character offset the repair blames
    score: float      # log10 gain of the best repair blaming this offset
    gap: int          # the gap the repair changes (gap i precedes token i)
    observed: str     # the gap's text now
    repaired: str     # its text after the repair


@dataclass(frozen=True, eq=False)
class RankedFile:
    """The candidate offsets, best first, each with its best repair (as parallel arrays: building an
    object per candidate cost more than scoring it). `complete`: every candidate offset is here; else only
    the ones asked for (the top K, or those whose gain reaches `least`; perhaps a few more)."""
    path: str
    length: int              # characters in the file
    candidates: array        # 1-based offsets, best first (int64)
    scores: array            # log10 gain of each candidate's best repair (float64)
    gaps: array              # the gap each repair changes (int64)
    rows: array              # its row in the scorer's plans (int64)
    gap_texts: tuple[str, ...]   # every gap's text
    gap_starts: array            # every gap's 0-based start (int64)
    repaired_texts: list[str]    # every planned repair's text (the plans' rows)
    complete: bool = True
    language: str = "java"       # parsing.languages: whose tokens a finding's repair must keep

    @property
    def observed(self) -> list[str]:
        """Each candidate's gap text."""
        return [self.gap_texts[g] for g in self.gaps]

    @property
    def repaired(self) -> list[str]:
        """Each candidate's gap text after its repair."""
        return [self.repaired_texts[r] for r in self.rows]

    def offsets(self) -> array:
        """All offsets 1..length: the candidates best first, then every other offset ascending."""
        self._require_complete()
        return all_offsets(self.candidates, self.length)

    def best(self, top: int | None = None, start: int = 0) -> list[Candidate]:
        """The `top` best candidates (all by default) from the `start`th on, with their repairs."""
        end = len(self.candidates) if top is None else min(start + top, len(self.candidates))
        texts, repaired = self.gap_texts, self.repaired_texts
        return [Candidate(o, s, g, texts[g], repaired[r])
                for o, s, g, r in zip(self.candidates[start:end], self.scores[start:end], self.gaps[start:end],
                                      self.rows[start:end])]

    def exact_best(self, text: str, top: int) -> list[Candidate]:
        """The `top` best candidates whose repair, applied to `text`, gives the same tokens: rank_text keeps
        only such repairs by rule, which a file that does not parse can defeat (tree-sitter recovers from
        errors by context), so each candidate reported is checked (parsing.java.same_tokens). (Fewer when the
        ranking is not complete and ran out: `top_candidates` ranks further then.)"""
        out: list[Candidate] = []
        start = 0
        same = same_tokens if self.language == "java" else get_language(self.language).same_tokens
        while len(out) < top and start < len(self.candidates):
            for c in self.best(top, start):
                lo = self.gap_starts[c.gap]
                if same(text, lo, lo + len(c.observed), c.repaired):
                    out.append(c)
                    if len(out) == top:
                        break
            start += top
        return out

    def after_bom(self) -> "RankedFile":
        """The same ranking for the file with a BOM before it (one more character, and one more token: an
        empty gap before it)."""
        def shifted(a: array) -> array:
            return array(a.typecode, [x + 1 for x in a])
        return RankedFile(self.path, self.length + 1, shifted(self.candidates), self.scores, shifted(self.gaps),
                          self.rows, ("", *self.gap_texts), array("q", [0]) + shifted(self.gap_starts),
                          self.repaired_texts, self.complete, self.language)

    def line(self, top: int | None = None) -> str:
        """The CodRep 2019 prediction line: '<path> <offset> <offset> ...'."""
        if self.length == 0:
            return self.path
        if top is None or top > len(self.candidates):
            self._require_complete()
        return self.path + " " + format_ranking(self.candidates, self.length, -1 if top is None else top)

    def _require_complete(self) -> None:
        if not self.complete:
            raise ValueError(f"{self.path}: only the best candidates were ranked (rank_text's top or least)")


@dataclass(frozen=True)
class Style:
    """What the style cache learns from besides the file: nothing, or the folder's counts minus a part."""
    folder: Counts | None = None     # ranker/counts.py's Counts (shared); not imported: numpy's
    exclude: Counts | None = None
    habits: HabitCounts | None = None    # the folder's whitespace habits, the file's own left out
    parsed: bytes | None = None   # the file's leaves as learning it parsed them (parsing/units.py), so that ranking
                                  # it does not parse it again (ignored when the text is not the same)


def keeps_layout(gap: str, repaired: str) -> bool:
    """Whether a repair of a gap that is syntax (a logical line break, parsing.python.syntax_gaps) keeps it:
    still a line break, to the same indentation (blank lines and trailing whitespace are not syntax)."""
    return has_line_break(repaired) == has_line_break(gap) and last_line(repaired) == last_line(gap)


def joinable_gaps(stream) -> array:
    """Per gap: whether the tokens around it would still be the same tokens with nothing between them
    (the ends of the file always are)."""
    starts, ends, texts = stream.starts, stream.ends, stream.texts
    out = array("B", [1]) * (len(starts) + 1)
    # only a one-character gap can be emptied by one edit
    for i in [i for i, (s, e) in enumerate(zip(starts[1:], ends), 1) if s - e == 1]:
        out[i] = joinable(texts[i - 1], texts[i][:3])
    return out


def after_line_comment(stream, language=None) -> array:
    """Per gap: whether a line comment ends just before it (the gap must start with a line break, or
    what follows joins the comment). `language`: the stream's (parsing.languages), None for Java."""
    out = array("B", [0])
    if language is None or language.name == "java":
        out.extend([kind == "line_comment" for kind in stream.kinds])
    else:   # a language whose one comment kind is both: told by its text
        comments, mark = language.comment_kinds, language.line_comment or "\0"
        out.extend([kind in comments and text.startswith(mark) for kind, text in zip(stream.kinds, stream.texts)])
    return out


# Repairs scored in one batch (whole gaps), small enough that a chunk's rescoring memos and columns stay in
# the CPU's caches: in chunks of 2**18 (a 64 KB file in one), 64 KB files cost 1.5 times the CPU per
# character of 4 KB files (their rescoring and bounding 1.4-1.5 times); in chunks of 2**12, 1.23 times,
# though like changes in like contexts are then remembered only within a chunk (30% more KenLM lookups on
# 64 KB files; docs/speed-ranker.md). The answer is the same for any chunk size.
CHUNK_ROWS = 1 << 12
PLAN_GAPS = 1 << 16      # gaps whose plans are looked up at once (the lookup keys are Python tuples)


UNWALKED = object()   # rank_text's `walked` when the caller has not walked the text: rank_text walks it


def walk_text(scheme: Scheme, text: str, style: Style = Style()) -> Walked | None:
    """The C++ walk rank_text makes of `text` (its BOM left out), or None where rank_text tokenizes in Python:
    made ahead of ranking, for a batch of files (ranker/cli.py's _rank_batch)."""
    body = text[1:] if text.startswith(BOM) else text
    return walk_units(body, parsed=style.parsed) if body and covers(scheme) else None


def rank_text(scorer: Scorer, scheme: Scheme, text: str, path: str = "", adapt: bool = True,
              style: Style = Style(), alpha: float = CACHE_ALPHA, chunk_rows: int = CHUNK_ROWS,
              top: int | None = None, least: float | Callable[[int], float] | None = None,
              walked: Walked | None | object = UNWALKED) -> RankedFile:
    """Score every plausible repair; each offset keeps its best repair (ties: the first planned); the
    offsets best first (ties: lower offset). With `top`, only the K best offsets are sure to be there
    (exactly as in the full ranking), with `least` only those whose gain reaches it: the other repairs are
    not rescored in full, and the RankedFile is not `complete` (`least` may be a function of the file's
    number of gaps, asked once it is tokenized: bin/check's least scores depend on a file's length). The
    repairs are scored `chunk_rows` at a time (whole gaps): the offsets a gap blames are its own, so each
    chunk picks its offsets' best repairs on its own. `walked`: `walk_text` of this text, when the caller made
    it."""
    if text.startswith(BOM):   # ranked without it (nothing to repair there), offsets counting it
        return rank_text(scorer, scheme, text[1:], path, adapt, style, alpha, chunk_rows, top, least,
                         walked).after_bom()
    n = len(text)
    if not text:
        none = array("q")
        return RankedFile(path, 0, none, array("d"), none, none, ("",), array("q", [0]), [], True)
    if walked is UNWALKED:
        walked = walk_text(scheme, text, style)
    syntax = None   # per gap: syntax that no repair may change (Python's logical line breaks), or None
    if walked is not None:
        native, gap_texts, gap_starts, gaps, ids = _walked_columns(scorer, walked, adapt)
        del walked
    else:
        native, gap_texts, gap_starts, gaps, ids, syntax = _python_columns(scorer, scheme, text, adapt)
    if callable(least):
        least = least(len(gap_texts))
    ranker = _file_ranker(scorer, scheme, gaps, ids, n, adapt, style, alpha, top, least)
    del gaps, ids   # the ranker has its own copies
    ranker.rank(rescoring, scorer.native, native, chunk_rows)
    del native   # the symbols' scores and KenLM states: the kept offsets are sorted in their memory
    offsets, gains, gaps, rows, complete = ranker.finish()
    if syntax is not None and any(syntax[g] for g in gaps):   # their offsets go last, in order (all_offsets)
        keep = [k for k, (g, r) in enumerate(zip(gaps, rows))
                if not syntax[g] or keeps_layout(gap_texts[g], scorer.plans.repaired[r])]
        offsets, gains, gaps, rows = (array(a.typecode, [a[k] for k in keep]) for a in (offsets, gains, gaps, rows))
    return RankedFile(path, n, offsets, gains, gaps, rows, gap_texts, gap_starts, scorer.plans.repaired, complete,
                      scheme.language)


def top_candidates(scorer: Scorer, scheme: Scheme, text: str, path: str, top: int, adapt: bool = True,
                   style: Style = Style(), walked: Walked | None | object = UNWALKED) -> list[Candidate]:
    """The `top` best candidates whose repairs keep the tokens (RankedFile.exact_best), ranking only the
    best offsets, and further when too many of those fail the check."""
    k = top
    if walked is UNWALKED:   # walked once, whatever the number of rankings
        walked = walk_text(scheme, text, style)
    while True:
        ranked = rank_text(scorer, scheme, text, path, adapt, style, top=k, walked=walked)
        found = ranked.exact_best(text, top)
        if len(found) >= top or ranked.complete:
            return found
        k *= 4


# A file's background of odd spots: a clean file can hold real oddities (a tab after a space, an operator
# without its space), and a file with many of them makes a high top gain less telling than a file where
# one spot stands alone. Chosen on the detection development sets (docs/detection-design.md, "The
# file-level score"): the file-level AUC of the top finding's score, gain - 0.5 x the mean gain of the 5 best
# findings more than 40 characters from the first, among its 10 best (40: an error raises its
# neighbours' gains too): weights 0.25/0.5/0.75/1 gave 0.9769/0.9791/0.9771/0.9695 (the top gain alone:
# 0.9721), means of the best 4/5/6/9: 0.9790/0.9791/0.9790/0.9786.
BACKGROUND_POOL = 10
BACKGROUND_SPOTS = 5
BACKGROUND_DISTANCE = 40
BACKGROUND_WEIGHT = 0.5


@dataclass(frozen=True)
class Explained:
    """A file's best candidates (raw log10 gains) and its background: the mean gain of its
    BACKGROUND_SPOTS best candidates after the first that lie more than BACKGROUND_DISTANCE characters
    from it, among its BACKGROUND_POOL best (0 when there are none)."""
    candidates: list[Candidate]
    background: float

    def score(self, candidate: Candidate) -> float:
        """A candidate's score comparable across files: its gain less BACKGROUND_WEIGHT x the file's
        background (the same shift for every candidate of a file: the file's order is kept)."""
        return candidate.score - BACKGROUND_WEIGHT * self.background


def background(candidates: list[Candidate]) -> float:
    """The mean gain of the BACKGROUND_SPOTS best of `candidates` (best first) after the first that lie
    more than BACKGROUND_DISTANCE characters from it; 0 when there are none."""
    if not candidates:
        return 0.0
    first = candidates[0].offset
    spots = [c.score for c in candidates[1:] if abs(c.offset - first) > BACKGROUND_DISTANCE][:BACKGROUND_SPOTS]
    return sum(spots) / len(spots) if spots else 0.0


def explained_candidates(scorer: Scorer, scheme: Scheme, text: str, path: str, top: int, adapt: bool = True,
                         style: Style = Style(), walked: Walked | None | object = UNWALKED) -> Explained:
    """The `top` best candidates (top_candidates) and the file's background, read from its
    BACKGROUND_POOL best whatever `top` is (a file's scores do not depend on how many are printed)."""
    pool = top_candidates(scorer, scheme, text, path, max(top, BACKGROUND_POOL), adapt, style, walked)
    return Explained(pool[:top], background(pool[:BACKGROUND_POOL]))


def _walked_columns(scorer: Scorer, walked: Walked, adapt: bool) -> tuple:
    """(the stream's scores, gap texts, gap starts, _gap_columns, style ids or None) from the C++ walk."""
    t = tables(scorer)
    native = scorer.native.score(t.lm_ids(walked))
    gaps = (t.gap_plans(walked), walked.lo, walked.hi, walked.joinable, walked.after_comment, walked.next_newline,
            native.scores[0:-1:2])
    return native, interned().gap_texts(walked), walked.lo, gaps, style_ids(walked) if adapt else None


def _python_columns(scorer: Scorer, scheme: Scheme, text: str, adapt: bool) -> tuple:
    """The same, tokenized and walked in Python (the reference; the other schemes), and which gaps are syntax
    (None: none is)."""
    stream = scheme.tokenize(text)
    language = get_language(scheme.language)
    syntax = language.syntax_gap(stream) if language.syntax_gap is not None else None
    scored = score_stream(scorer, scheme, stream)
    gap_starts = array("q", [0])
    gap_starts.extend(stream.ends)
    ids = symbol_ids(scored.symbols) if adapt else None
    if ids is not None:
        ids.pop()   # '</s>'
    # the tokens and symbols: a large file's memory is mostly theirs, as Python objects per token (a 5 MB
    # file: about 150 MB), and the ranker needs only the columns made of them
    return scored.native, stream.gap_texts, gap_starts, _gap_columns(scorer, scored, gap_starts, language), ids, syntax


def _gap_columns(scorer: Scorer, scored: ScoredStream, lo: array, language=None) -> tuple:
    """The file's gaps as the compiled ranker takes them: their plans, spans [lo, hi) (`lo`: their starts),
    which repairs keep the tokens, their next newline gaps and their observed symbols' scores."""
    stream = scored.stream
    hi = array("q", stream.starts)
    hi.append(len(stream.source))
    return (_plans(scorer, scored), lo, hi, joinable_gaps(stream), after_line_comment(stream, language),
            array("q", scored.next_newline_gap), scored.scores[0:-1:2])


def _file_ranker(scorer: Scorer, scheme: Scheme, gaps: tuple, ids: array | None, n: int, adapt: bool, style: Style,
                 alpha: float, top: int | None, least: float | None) -> FileRanker:
    """The compiled ranker of a file of `n` characters: its gaps (_gap_columns), and the style cache (of its
    symbol `ids`, when adapted) and habits they are adapted to."""
    cache = _style_cache(ids, style) if adapt else None
    # trailing whitespace, whitespace on blank lines, mixed indentation and line endings: the scheme leaves
    # them out of its symbols, and they are scored by their rates in the file (and the folder) around a
    # typical project's (ranker/habits.py); without adaptation, by the typical project's alone
    if not scheme.units:
        habits = None
    elif adapt and style.habits is not None:
        habits = habit_model(style.habits, True)
    else:
        habits = _typical_habits(adapt)
    # repairs of any size may also end the file with a line break: an offset past its last character
    length = n + 1 if scorer.plans.errors.wide else n
    return FileRanker(scorer.plans.table, length, *gaps, cache, habits, alpha, top, least)


@cache
def _typical_habits(own: bool):
    """The habits scored by a typical project's rates alone, and the file's own with `own` (the same for every
    file: FileRanker observes the file's gaps in a copy)."""
    return habit_model(None, own)


def _style_cache(ids: array, style: Style) -> StyleCache:
    """The style cache of a file (`ids`: its symbols' ids, '</s>' left out), which moves the repaired gap
    symbol's score and the observed one's."""
    if style.folder is None:
        return StyleCache(ids)
    from .cache import folder_cache  # numpy, for the folder's counts
    return folder_cache(ids, style.folder, style.exclude)


def _plans(scorer: Scorer, scored: ScoredStream) -> array:
    """Each gap's plan: the kind of gap its text, indentation and next newline gap make."""
    gap_texts = scored.stream.gap_texts
    nxt = scored.next_newline_gap
    out = array("q")
    for a in range(0, len(gap_texts), PLAN_GAPS):
        b = min(a + PLAN_GAPS, len(gap_texts))
        next_gap_texts = [gap_texts[k] if k >= 0 else None for k in nxt[a:b]]
        out.extend(scorer.plans.plans(gap_texts[a:b], scored.indents[a:b], next_gap_texts, scored.unit))
    return out
