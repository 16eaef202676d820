"""A file's text -> every character offset, most suspicious first."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parsing.java import tokenize
from parsing.schemes import Scheme

from .cache import GapCache, StyleCounts
from .repairs import Repair, edit_offset, gap_edits
from .score import Scorer, observed_adjustment, repair_delta, score_stream

# Dirichlet strength of the style cache, chosen on codrep2019/learning (tasks 0..999 by name, c18-o7
# model): alpha 0.5: 0.9845, 1: 0.9846, 2: 0.9825, 4: 0.9802, no cache: 0.9717.
CACHE_ALPHA = 1.0


@dataclass(frozen=True, slots=True)
class Finding:
    offset: int       # 1-based character offset
    score: float      # log10 gain of the best repair blaming this offset
    repair: Repair


@dataclass(frozen=True)
class RankedFile:
    path: str
    length: int                     # characters in the file
    findings: tuple[Finding, ...]   # candidate offsets, best first

    def offsets(self) -> np.ndarray:
        """All offsets 1..length: the candidates best first, then every other offset ascending."""
        cand = np.fromiter((f.offset for f in self.findings), dtype=np.int64, count=len(self.findings))
        mask = np.ones(self.length + 1, dtype=bool)
        mask[0] = False
        mask[cand] = False
        return np.concatenate([cand, np.flatnonzero(mask)])

    def line(self, top: int | None = None) -> str:
        """The CodRep 2019 prediction line: '<path> <offset> <offset> ...'."""
        if self.length == 0:
            return self.path
        offsets = self.offsets() if top is None else self.offsets()[:top]
        return self.path + " " + " ".join(map(str, offsets.tolist()))


@dataclass(frozen=True)
class Style:
    """What the style cache learns from besides the file: nothing, or the folder's counts minus a part."""
    folder: StyleCounts | None = None
    exclude: StyleCounts | None = None


def find_repairs(scorer: Scorer, scheme: Scheme, text: str, adapt: bool = True, style: Style = Style(),
                 alpha: float = CACHE_ALPHA) -> list[Finding]:
    """Score every plausible repair; each offset keeps its best repair; best first (ties: lower offset)."""
    stream = tokenize(text)
    scored = score_stream(scorer, scheme, stream)
    cache = GapCache(scored.symbols[:-1], style.folder, style.exclude) if adapt else None
    n = len(text)
    best: dict[int, Finding] = {}
    for i in range(len(stream) + 1):
        gap = stream.gap_text(i)
        start = stream.gap_start(i)
        end = start + len(gap)
        adjust = observed_adjustment(scored, i, cache, alpha) if cache is not None else None
        for repaired, where in gap_edits(gap):
            offset = edit_offset(where, start, end)
            if offset > n:
                continue   # an insertion after the file's last character
            delta = repair_delta(scorer, scored, i, repaired, cache, alpha, adjust)
            f = best.get(offset)
            if f is None or delta > f.score:
                best[offset] = Finding(offset, delta, Repair(i, gap, repaired, offset))
    return sorted(best.values(), key=lambda f: (-f.score, f.offset))


def rank_text(scorer: Scorer, scheme: Scheme, text: str, path: str = "", adapt: bool = True,
              style: Style = Style()) -> RankedFile:
    findings = find_repairs(scorer, scheme, text, adapt, style) if text else []
    return RankedFile(path, len(text), tuple(findings))
