"""One file's text -> the findings bin/check believes, each with its repair, rule and confidence.

The ranker scores every plausible repair of the file. A finding is its best repair when that repair's gain
reaches its rule's least score, its confidence (check/calibration.py: from the score, the rule and the
evidence of the rest of the ranking) reaches the least confidence reported, and it keeps the tokens (the
repaired text splits into the same token texts: parsing.java.same_tokens). The repair is then applied and
the file ranked again, so that the next finding is judged on a file without the first error (one slip makes
its neighbours look odd too), as the file's next finding, and the findings of a file fix it together.
"""
from __future__ import annotations

import bisect
import math
import os
import re
from array import array
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property

from parsing.java import BOM, same_tokens, tokenize
from parsing.offsets import Lines
from parsing.schemes import Scheme, gap_symbol
from ranker.explain import line_col
from ranker.habits import NONE, habits
from ranker.rank import UNWALKED, RankedFile, Style, rank_text, walk_text
from ranker.repairs import codrep_edit
from ranker.score import Scorer
from ranker.walk import Walked

from .breaks import STRUCTURAL, Break, FileGaps, breaks
from .calibration import POOLED, Calibration, Evidence, evidence_of
from .findings import Finding
from .rules import describe
from .safety import harmful
from .suppress import MISREAD, may_have_quiet, may_turn_off, misread_gaps, quiet_gaps

_LONE_LF = re.compile(r"(?<!\r)\n")
MAX_FINDINGS = 10   # per file: past this many, the file is in no one style (bin/check says so)


@dataclass(frozen=True)
class CheckConfig:
    least: dict[str, float]          # rule -> the least score reported (Calibration.least_scores); POOLED: the rest
    max_findings: int = MAX_FINDINGS
    adapt: bool = True               # file adaptation (the ranker's style cache)
    least_confidence: float = 0.0    # the least confidence reported
    evidence_floor: float = math.inf   # the score the ranking must reach down to for the evidence
    habit_least: float = math.inf      # the least belief of a habit break reported (check/breaks.py; inf: none)

    @property
    def floor(self) -> float:
        return min(*self.least.values(), self.evidence_floor)

    def reported(self, rule: str, score: float) -> bool:
        return score >= self.least.get(rule, self.least[POOLED])

    def for_file(self, calibration: Calibration, known: Evidence) -> "CheckConfig":
        """This config with each rule's least score raised by the evidence known of a file before it is
        ranked (its length, its findings so far; calibration.least_scores): a finding scoring less cannot
        reach the least confidence whatever the rest of its evidence. Exact, and the ranking goes less deep."""
        if self.least_confidence <= 0:
            return self
        tighter = calibration.least_scores(self.least_confidence, known)
        return replace(self, least={r: max(v, tighter.get(r, tighter[POOLED])) for r, v in self.least.items()})


class _TokenTexts:
    """The token texts of an _Edits as a sequence, each read when asked (a file's few near a match, not all)."""

    def __init__(self, edits: "_Edits"):
        self.edits = edits

    def __len__(self) -> int:
        return self.edits.token_count()

    def __getitem__(self, i: int) -> str:
        return self.edits.token_text(i)


@dataclass
class _Edits:
    """The gaps fixed so far: the file's original gaps (texts and starts, from its first ranking: the file is
    not tokenized again for them), and each fixed gap's new text."""
    text: str
    gap_texts: tuple[str, ...] = ()
    gap_starts: array | None = None
    fixed: dict[int, str] = field(default_factory=dict)
    lines: frozenset[int] | None = None   # judging a change: its lines (None: the whole file)
    _texts: list[str] | None = None
    _quiet: frozenset[int] | None = None
    _judged: object = None   # judged_gaps()

    def skipped(self, gap: int) -> bool:
        """Whether gap `gap` is no candidate: fixed already, quiet, or (judging a change) on no line of it."""
        return gap in self.fixed or gap in self.quiet() or not self.judged(gap)

    def judged(self, gap: int) -> bool:
        """Whether gap `gap` is judged: every gap, or judging a change, one that spans (from its first
        character to the next token's) a line the change added or modified."""
        return self.lines is None or bool(self.judged_gaps()[gap])

    def judged_gaps(self):
        """judged() of every gap, a numpy bool array (asked of thousands of gaps: computed once)."""
        if self._judged is None:
            import numpy as np
            starts = np.asarray(self.gap_starts, dtype=np.int64)
            if self.lines is None:
                self._judged = np.ones(len(starts), dtype=bool)
                return self._judged
            ends = starts + np.fromiter(map(len, self.gap_texts), dtype=np.int64, count=len(self.gap_texts))
            line_starts = np.asarray(Lines(self.text).starts, dtype=np.int64)
            first, last = np.searchsorted(line_starts, starts, "right"), np.searchsorted(line_starts, ends, "right")
            changed = np.zeros(len(line_starts) + 1, dtype=np.int64)   # by 1-based line, then their running count
            changed[[n for n in self.lines if 0 < n <= len(line_starts)]] = 1
            before = np.cumsum(changed)
            self._judged = before[last] - before[first - 1] > 0
        return self._judged

    def quiet(self) -> frozenset[int]:
        """The gaps the file turns checking off for (check/suppress.py)."""
        if self._quiet is None:
            if may_turn_off(self.text):   # the comments are needed: a tokenizing
                self._quiet = quiet_gaps(tokenize(self.text))
            elif may_have_quiet(self.text):   # the tokens the ranking read are enough: those at a match
                self._quiet = frozenset(misread_gaps(_TokenTexts(self), self.gap_texts, self._tokens_at(MISREAD)))
            else:
                self._quiet = frozenset()
        return self._quiet

    def _tokens_at(self, pattern: re.Pattern) -> list[int]:
        """The tokens that start where `pattern` matches the text (a match in a comment or a string starts
        none)."""
        out = []
        for m in pattern.finditer(self.text):
            i = bisect.bisect_right(self.gap_starts, m.start()) - 1
            if 0 <= i < self.token_count() and self.gap_starts[i] + len(self.gap_texts[i]) == m.start():
                out.append(i)
        return out

    @cached_property
    def tabs(self) -> bool:
        """Whether the file holds a tab (asked of every candidate: the text is scanned once)."""
        return "\t" in self.text

    def token_count(self) -> int:
        return len(self.gap_texts) - 1

    def token_text(self, i: int) -> str:
        """The text of token i: what lies between gap i and gap i + 1."""
        return self.text[self.gap_starts[i] + len(self.gap_texts[i]):self.gap_starts[i + 1]]

    def around(self, gap: int) -> tuple[str, str]:
        """The texts of the tokens before and after `gap` ('' past the file's ends)."""
        return (self.token_text(gap - 1) if gap > 0 else "",
                self.token_text(gap) if gap < self.token_count() else "")

    def token_texts(self) -> list[str]:
        if self._texts is None:
            text, starts = self.text, self.gap_starts
            self._texts = [text[a + len(g):b] for a, g, b in zip(starts, self.gap_texts, starts[1:])]
        return self._texts

    def current_start(self, gap: int) -> int:
        """0-based start of `gap` in the text with the fixes so far applied."""
        return self.gap_starts[gap] + sum(len(new) - len(self.gap_texts[g]) for g, new in self.fixed.items() if g < gap)

    def apply(self, current: str, gap: int, observed: str, repaired: str) -> str:
        lo = self.current_start(gap)
        return current[:lo] + repaired + current[lo + len(observed):]


class _Context:
    """How often a gap's whitespace, as it is and as a repair writes it, is written between the same two kinds
    of tokens (the gap symbols of the scheme between the two token symbols: ranker/cache.py's narrow_keys),
    in the repository's other files and elsewhere in the file: what the file's original text says (walked
    once: from the walk the first ranking took, when there is one)."""

    def __init__(self, scheme: Scheme, text: str, style: Style = Style(), walked=None):
        # a BOM is walked without (as the learning pass walks it) but ranked as a token before the first, with
        # an empty gap before it (RankedFile.after_bom): the ranking's gap g is the walk's g - 1
        self.bom = int(text.startswith(BOM))
        self.scheme, self.text = scheme, text[self.bom:]
        self.folder, self.parsed, self.habits = style.folder, style.parsed, style.habits
        self.walked = walked   # the C++ walk of the text (without its BOM) the first ranking took, if any
        self._walked = None
        self._split = None   # the walk with the lines a change left alone marked (_established)

    def _walk(self):
        if self._walked is None:
            from ranker.cache import narrow_keys  # numpy: only once a file has a candidate
            from ranker.walk import StyleWalk
            walk = StyleWalk(self.scheme, self.text, parsed=self.parsed, walked=self.walked)   # the ranking's
            self.walked = None
            self._walked = FileGaps(walk.gap_texts(), walk.symbols(), walk.gap_indents(), walk.unit,
                                    narrow_keys(walk.ids), walk.ids)
        return self._walked

    def indent(self, gap: int) -> str:
        """The indentation of the line the ranking's gap `gap` starts on."""
        return self._walk().indents[max(gap - self.bom, 0)]

    def gaps(self, ranked_gaps: int) -> int:
        """The file's gaps as the walk counts them, from the ranking's count."""
        return ranked_gaps - self.bom

    def evidence(self, evidence: Evidence, gap: int, repaired: str) -> Evidence:
        """`evidence` with the counts of the ranking's gap `gap` (of the original text) and its repair to
        `repaired`: of their gap symbols between the same two kinds of tokens when the repair changes the
        symbol, else of the whitespace habit it changes (what trails a line, tabs in the indentation,
        whitespace on blank lines, line endings: ranker/habits.py), in the repository's other files and in
        the file (all of it, judging a change too: the belief of the ranking's findings was fitted so)."""
        walked = self._walk()
        syms, keys = walked.symbols, walked.keys
        gap -= self.bom
        fixed_symbol = gap_symbol(repaired, walked.indents[gap], walked.unit)
        if fixed_symbol == syms[2 * gap]:
            return replace(evidence, **self._habit_counts(walked, gap, repaired), gaps=len(keys))
        from ranker.cache import narrow_key
        before = syms[2 * gap - 1] if gap > 0 else "|"
        after = syms[2 * gap + 1] if 2 * gap + 1 < len(syms) else "|"
        observed = narrow_key(before, syms[2 * gap], after)
        fixed = narrow_key(before, fixed_symbol, after)
        own_observed, own_repaired = int((keys == observed).sum()), int((keys == fixed).sum())
        repo = self.folder.narrow_count if self.folder is not None else (lambda key: 0)
        # the folder counted the file too: its own part is taken off
        return replace(evidence, repo_observed=max(repo(observed) - own_observed, 0),
                       repo_repaired=max(repo(fixed) - own_repaired, 0), file_observed=own_observed - 1,
                       file_repaired=own_repaired, gaps=len(keys))

    def breaks(self, edits: "_Edits | None" = None) -> list[Break]:
        """The gaps of the file's original text that break a habit of the repository (the walk's indices);
        judging a change, with the lines it left alone as the file's own evidence."""
        from ranker.cache import narrow_keys_of
        repo = self.folder.narrow_counts if self.folder is not None else (lambda keys: keys * 0)
        return breaks(self._established(edits), self.habits, repo, narrow_keys_of)

    def _established(self, edits: "_Edits | None") -> FileGaps:
        """The walk, and judging a change, the gaps it left alone marked as the file's established writing."""
        walked = self._walk()
        if edits is None or edits.lines is None:
            return walked
        if self._split is None:
            self._split = replace(walked, established=~edits.judged_gaps()[self.bom:self.bom + len(walked.texts)])
        return self._split

    def _habit_counts(self, walked: FileGaps, gap: int, repaired: str) -> dict[str, int]:
        """The counts of the first habit whose value the repair changes (none: zeros)."""
        observed_values, repaired_values = habits(walked.texts[gap], walked.unit), habits(repaired, walked.unit)
        changed = [j for j, (o, r) in enumerate(zip(observed_values, repaired_values)) if o != r and NONE not in (o, r)]
        if not changed:
            return dict(repo_observed=0, repo_repaired=0, file_observed=0, file_repaired=0)
        j = changed[0]
        own = walked.own_habits[j]
        repo = self.habits.counts[j] if self.habits is not None else (0.0,) * len(own)
        o, r = observed_values[j], repaired_values[j]
        return dict(repo_observed=int(repo[o]), repo_repaired=int(repo[r]), file_observed=int(own[o]) - 1,
                    file_repaired=int(own[r]))


def check_text(scorer: Scorer, scheme: Scheme, text: str, path: str, cfg: CheckConfig, calibration: Calibration,
               style: Style = Style(), lines: frozenset[int] | None = None,
               walked: Walked | None | object = UNWALKED) -> tuple[Finding, ...]:
    """The findings in `text` that cfg reports, best first, each judged after the ones before it are fixed;
    judging a change, only on the gaps that span one of its `lines` (1-based), which alone count to the most
    a file gets. `walked`: walk_text's walk of `text`, where the caller made it."""
    if not text:
        return ()
    edits = _Edits(text, lines=lines)
    if walked is UNWALKED:
        walked = walk_text(scheme, text, style)   # once, for the first ranking and the context
    context = _Context(scheme, text, style, walked)
    crlf = text.count("\r\n") * 2 > text.count("\n")
    current = text
    out: list[Finding] = []
    while len(out) < cfg.max_findings:
        # only the candidates that can be reported are ranked (exactly as in a full ranking): below the
        # floor the ranker stops rescoring
        def file_cfg(gaps: int) -> CheckConfig:   # the least scores of this file, as long as it is, so far
            return cfg.for_file(calibration, Evidence(earlier=_earlier(out), gaps=gaps))
        ranked = rank_text(scorer, scheme, current, path, cfg.adapt, style, least=lambda gaps: file_cfg(gaps).floor,
                           walked=walked if current is text else UNWALKED)
        if edits.gap_starts is None:   # the original's ranking: its gaps are the original's
            edits.gap_texts, edits.gap_starts = ranked.gap_texts, ranked.gap_starts
        chosen = _best_repair(ranked, current, edits, context, file_cfg(context.gaps(len(ranked.gap_texts))),
                              calibration, _earlier(out))
        if chosen is None:
            break
        f, rule, message, confidence, evidence = chosen
        if crlf and f.repaired != (repaired := _LONE_LF.sub("\r\n", f.repaired)):
            # a line break a repair writes is the file's own (the model reads CRLF as LF)
            f = replace(f, repaired=repaired)
        gap = f.gap
        start = edits.gap_starts[gap]
        offset = f.offset - edits.current_start(gap) + start
        line, column = line_col(text, offset)
        out.append(Finding(path, line, column, offset, rule.id, message, confidence,
                           f.score, start, f.observed, f.repaired, evidence_fields(evidence)))
        current = edits.apply(current, gap, f.observed, f.repaired)
        edits.fixed[gap] = f.repaired
    if (len(out) < cfg.max_findings and cfg.habit_least < math.inf
            and edits.gap_starts is not None):
        room = cfg.max_findings - len(out)
        for f, follows in _habit_findings(text, path, edits, context, cfg, calibration):
            if not follows:   # the lines of a block shifted whole come with their header, uncounted
                if room == 0:
                    break
                room -= 1
            out.append(f)
    return tuple(out)


def evidence_fields(evidence: Evidence) -> dict:
    """A finding's evidence as the public Finding carries it: plain names and values (what --format json writes,
    and Evidence(**fields) reads back)."""
    return asdict(evidence)


def _habit_findings(text: str, path: str, edits: _Edits, context: _Context, cfg: CheckConfig,
                    calibration: Calibration) -> list[tuple[Finding, bool]]:
    """The habit breaks (check/breaks.py) of the original text that cfg reports, on gaps no finding of the
    ranking fixed, whose repairs keep the tokens and do no harm, most confident first. They carry no gain of
    the model (score 0): the repository's counts are their evidence. A break is reported when the habit
    belief reaches cfg's least belief, with the precision measured at its belief."""
    out = []
    believed = calibration.habits
    if believed is None:
        return out
    found = context.breaks(edits)
    gaps = context.gaps(len(edits.gap_texts))
    others = sum(b.follows < 0 for b in found) - 1   # a block shifted whole is one break
    reported: dict[int, float] = {}   # a break's gap -> its confidence, for the lines of a block that follow it
    evidence_of_break = {b.gap: Evidence(repo_observed=b.repo_observed, repo_repaired=b.repo_repaired,
                                         file_observed=b.file_observed, file_repaired=b.file_repaired,
                                         gaps=gaps, other_edit=True, habit=b.habit, breaks=max(others, 0),
                                         change_observed=b.change_observed, change_repaired=b.change_repaired)
                         for b in found}
    belief_of = {b.gap: believed.belief(evidence_of_break[b.gap]) for b in found if b.follows < 0}
    for b in found:
        gap = b.gap + context.bom
        if edits.skipped(gap):
            continue
        evidence = evidence_of_break[b.gap]
        if b.follows >= 0:   # a line of a block shifted whole: reported with its header, as confident
            if b.follows not in reported:
                continue
            confidence = reported[b.follows]
        else:
            # the two sides of one token's spacing are one slip: each as believed as the likelier
            belief = max(belief_of[b.gap], belief_of.get(b.pair, -math.inf))
            if belief < cfg.habit_least:   # most breaks are below it: asked before the harm
                continue
            confidence = believed.precision(belief)
        before, after = edits.around(gap)
        if harmful(b.observed, b.repaired, before, after, lambda: context.indent(gap), edits.tabs,
                   b.habit in STRUCTURAL):
            continue
        start = edits.gap_starts[gap]
        if not same_tokens(text, start, start + len(b.observed), b.repaired, edits.token_texts()):
            continue
        reported[b.gap] = confidence
        rule, message = describe(b.observed, b.repaired, before, after, "the repository")
        offset = start + min(len(os.path.commonprefix([b.observed, b.repaired])), len(b.observed)) + 1
        line, column = line_col(text, offset)
        # (a break's repair keeps the gap's own line breaks: CRLF stays CRLF)
        out.append((Finding(path, line, column, offset, rule.id, message, confidence, 0.0, start, b.observed,
                            b.repaired, evidence_fields(evidence)), b.follows >= 0,
                    b.follows if b.follows >= 0 else b.gap))
    # most confident first, a block's lines right after their header
    return [(f, follows) for f, follows, _ in sorted(out, key=lambda x: (-x[0].confidence, x[2], x[1], x[0].start))]


def _earlier(findings) -> int:
    """The evidence's `earlier` of a file's findings so far: those that undo one of the five kinds of slip. A
    file with one slip of CodRep's kind rarely has another once it is fixed; a repair of any size (a line
    re-indented, blank lines) says little of the file's next finding."""
    return sum(codrep_edit(f.observed, f.repaired) for f in findings)


def _best_repair(ranked: RankedFile, current: str, edits: _Edits, context: _Context, cfg: CheckConfig,
                 calibration: Calibration, earlier: int):
    """(finding, rule, message, confidence, evidence) of the best candidate that cfg reports for its rule and
    confidence, on a gap not fixed yet, whose repair keeps the tokens; None when there is none. Its evidence
    counts as earlier the file's `earlier` findings or, when it had none, a better candidate here that was not
    reported (one keeping the tokens, on another gap): as the calibration run, which reports every candidate,
    saw a file's next candidate. (The belief asks only whether there was one: weights <= 0, so a candidate
    not confident without it is not with it.)"""
    floor = cfg.floor
    passed = _Passed(current, edits)
    start = 0
    while start < len(ranked.candidates) and ranked.scores[start] >= floor:
        for f in ranked.best(8, start):
            if f.score < floor:
                return None
            gap = f.gap
            if edits.skipped(gap):
                continue
            before, after = edits.around(gap)
            if harmful(f.observed, f.repaired, before, after, lambda: context.indent(gap), edits.tabs):
                continue
            rule, message = describe(f.observed, f.repaired, before, after)
            if cfg.reported(rule.id, f.score):
                evidence = replace(context.evidence(evidence_of(ranked.scores, ranked.gaps, gap, earlier), gap,
                                                    f.repaired),
                                   other_edit=not codrep_edit(f.observed, f.repaired))
                confidence = calibration.confidence(rule.id, f.score, evidence)
                if confidence >= cfg.least_confidence and not earlier and passed.any(gap):   # asked only now: a reparse
                    evidence = replace(evidence, earlier=1)
                    confidence = calibration.confidence(rule.id, f.score, evidence)
                if confidence >= cfg.least_confidence:
                    if passed.keeps(f):
                        if evidence.repo_repaired > evidence.repo_observed:
                            rule, message = describe(f.observed, f.repaired, before, after,
                                                     "the repository")
                        return f, rule, message, confidence, evidence
                    continue
            passed.add(f)
        start += 8
    return None


class _Passed:
    """The better candidates of a ranking that were not reported, by gap. Another repair of a gap passed over
    is still judged (a gap has a candidate at each offset it may blame: its best repair there need not be the
    one believed); whether one of them keeps the tokens is asked only when it matters (a reparse each)."""

    def __init__(self, current: str, edits: _Edits):
        self.current, self.edits = current, edits
        self.by_gap: dict = {}
        self.kept: dict[int, bool] = {}

    def keeps(self, f) -> bool:
        """Whether candidate f's repair keeps the tokens (the fixes so far kept them: the current text's are
        the original's)."""
        lo = self.edits.current_start(f.gap)
        return same_tokens(self.current, lo, lo + len(f.observed), f.repaired, self.edits.token_texts())

    def add(self, f) -> None:
        if codrep_edit(f.observed, f.repaired):   # as _earlier counts them
            self.by_gap.setdefault(f.gap, f)

    def any(self, besides: int) -> bool:
        """Whether a candidate passed over on another gap than `besides` keeps the tokens."""
        for gap, f in self.by_gap.items():
            if gap == besides:
                continue
            if gap not in self.kept:
                self.kept[gap] = self.keeps(f)
            if self.kept[gap]:
                return True
        return False
