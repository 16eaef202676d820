"""Score repairs by how much more probable they make the symbol stream under KenLM models.

For a repair of gap i, only symbol 2i changes, plus the next newline gap's symbol when the repair moves
the indentation it is measured against. Rescoring starts from the stored KenLM state(s) before symbol 2i
and stops as soon as the state after a symbol equals the original one: from there on every score is the
same. With a project model, each symbol's probability is (1 - w) P_general + w P_project, each model
keeping its own state.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import kenlm

from lm.model import LanguageModel
from parsing.schemes import Scheme, gap_symbol
from parsing.tokens import TokenStream

from .cache import GapCache


class Scorer:
    """One KenLM model, or a general model interpolated with a project model."""

    def __init__(self, general: LanguageModel, project: LanguageModel | None = None, weight: float = 0.0):
        if project is not None and project.scheme != general.scheme:
            raise ValueError(f"project model scheme '{project.scheme}' differs from '{general.scheme}'")
        self.general, self.project, self.weight = general, project, weight
        self.scheme = general.scheme
        self.mixed = project is not None and weight > 0
        self._g = general.model.BaseScore
        self._p = project.model.BaseScore if project is not None else None

    def begin(self):
        if self.mixed:
            return (self.general.begin(), self.project.begin())
        return self.general.begin()

    def step(self, state, symbol: str):
        """(log10 P(symbol | state), next state)."""
        if not self.mixed:
            out = kenlm.State()
            return self._g(state, symbol, out), out
        g_out, p_out = kenlm.State(), kenlm.State()
        g = self._g(state[0], symbol, g_out)
        p = self._p(state[1], symbol, p_out)
        w = self.weight
        return math.log10((1.0 - w) * 10.0 ** g + w * 10.0 ** p), (g_out, p_out)


@dataclass(frozen=True)
class ScoredStream:
    """A file's symbols with the per-symbol log10 scores and the KenLM state before each symbol."""
    stream: TokenStream
    symbols: list[str]          # 2n+1 symbols, then '</s>'
    scores: list[float]         # log10 P(symbol k | history), len == len(symbols)
    states: list                # states[k]: context symbol k was scored in (len(symbols) + 1 entries)
    indents: list[str]          # indentation of the line each gap starts on
    next_newline_gap: list[int] # for gap i: the next gap whose symbol depends on gap i's indentation, or -1


def score_stream(scorer: Scorer, scheme: Scheme, stream: TokenStream) -> ScoredStream:
    symbols, indents = scheme.walk(stream)
    symbols.append("</s>")
    step = scorer.step
    state = scorer.begin()
    states, scores = [state], []
    for sym in symbols:
        s, state = step(state, sym)
        scores.append(s)
        states.append(state)
    return ScoredStream(stream, symbols, scores, states, indents, _next_newline_gaps(stream))


def _next_newline_gaps(stream: TokenStream) -> list[int]:
    """For each gap, the next gap whose symbol would change if this gap's indentation did (the next
    newline gap, unless a multi-line token resets the indentation first), or -1."""
    src = stream.source
    n = len(stream.kinds)
    next_nl = [-1] * (n + 1)
    pending: list[int] = []
    for i in range(n + 1):
        if "\n" in stream.gap_text(i):
            for p in pending:
                next_nl[p] = i
            pending = []
        pending.append(i)
        if i < n and src.find("\n", stream.starts[i], stream.ends[i]) >= 0:
            pending = []   # a multi-line token sets the indentation itself
    return next_nl


def observed_adjustment(scored: ScoredStream, gap: int, cache: GapCache, alpha: float) -> float:
    """How much the style cache moves the observed gap's own log10 score (the same for all its repairs)."""
    k = 2 * gap
    return cache.adapted(gap, scored.symbols[k], scored.scores[k], alpha) - scored.scores[k]


def repair_delta(scorer: Scorer, scored: ScoredStream, gap: int, repaired: str,
                 cache: GapCache | None = None, alpha: float = 1.0, observed_adjust: float | None = None) -> float:
    """log10 P(repaired stream) - log10 P(observed stream); with a cache, the repaired gap's own symbol
    is scored by the n-gram model adapted to the file's (or folder's) style. `observed_adjust`:
    observed_adjustment() of the gap, when the caller has it already."""
    new_sym = gap_symbol(repaired, scored.indents[gap])
    changes = {2 * gap: new_sym}
    j = scored.next_newline_gap[gap]
    if j >= 0:
        new_indent = repaired[repaired.rfind("\n") + 1:] if "\n" in repaired else scored.indents[gap]
        sym_j = gap_symbol(scored.stream.gap_text(j), new_indent)
        if sym_j != scored.symbols[2 * j]:
            changes[2 * j] = sym_j
    delta, first = _rescore(scorer, scored, changes)
    if cache is not None:
        if observed_adjust is None:
            observed_adjust = observed_adjustment(scored, gap, cache, alpha)
        delta += cache.adapted(gap, new_sym, first, alpha) - first - observed_adjust
    return delta


def _rescore(scorer: Scorer, scored: ScoredStream, changes: dict[int, str]) -> tuple[float, float]:
    """(log10 gain of the changed stream, log10 score of the first changed symbol)."""
    if not scorer.mixed:
        return _rescore_one(scorer._g, scored, changes)
    step = scorer.step
    symbols, scores, states = scored.symbols, scored.scores, scored.states
    todo = sorted(changes)
    end = len(symbols)
    delta = 0.0
    t = 0
    k = todo[0]
    state = states[k]
    first = None
    while k < end:
        s, out = step(state, changes.get(k, symbols[k]))
        if first is None:
            first = s
        delta += s - scores[k]
        k += 1
        if out == states[k]:
            # same context as the observed stream: scores agree until the next changed symbol
            while t < len(todo) and todo[t] < k:
                t += 1
            if t == len(todo):
                break
            k = todo[t]
            out = states[k]
        state = out
    return delta, first


def _rescore_one(base, scored: ScoredStream, changes: dict[int, str]) -> tuple[float, float]:
    """_rescore for a single model, with KenLM called directly: this loop is where ranking spends its
    time. A repair changes one symbol, or two (a gap and the next newline gap measured against it)."""
    symbols, scores, states = scored.symbols, scored.scores, scored.states
    if len(changes) == 1:
        (k, sym), = changes.items()
        k2, sym2 = -1, None
    else:
        (k, sym), (k2, sym2) = sorted(changes.items())
    end = len(symbols)
    new_state = kenlm.State
    out = new_state()
    first = base(states[k], sym, out)
    delta = first - scores[k]
    while True:
        k += 1
        if out == states[k]:
            # same context as the observed stream: scores agree until the next changed symbol
            if k > k2:
                return delta, first
            k = k2
            out = states[k]
        if k >= end:
            return delta, first
        state, out = out, new_state()
        delta += base(state, sym2 if k == k2 else symbols[k], out) - scores[k]
