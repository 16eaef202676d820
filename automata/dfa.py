"""Deterministic finite automata with partial transitions: a missing transition rejects the word.

Text format (one DFA per file, '#' comments allowed):
    dfa <states> <alphabet>
    start 0
    accept <state> ...
    <from> <symbol> <to>        one line per transition
"""
from __future__ import annotations

import dataclasses
import shutil
import subprocess
from collections import deque
from typing import Iterable, Sequence

import numpy as np

from unnatural import cli

from .samples import MAX_ALPHABET, FormatError, Word, read_text_file

# the largest machine read from a file (its table has states x symbols cells): learned ones have thousands
MAX_CELLS = 50_000_000


@dataclasses.dataclass(frozen=True, eq=False)
class DFA:
    """States 0..n-1, start state 0; delta[q, a] = next state or -1 (missing: reject)."""

    delta: np.ndarray  # int32, shape (n, alphabet)
    accepting: np.ndarray  # bool, shape (n,)

    def __post_init__(self):
        d = np.asarray(self.delta, dtype=np.int32)
        acc = np.asarray(self.accepting, dtype=bool)
        if d.ndim != 2 or acc.shape != (d.shape[0],) or d.shape[0] < 1:
            raise ValueError("delta must be (n, alphabet) with n >= 1 and accepting of length n")
        if d.size and (d.min() < -1 or d.max() >= d.shape[0]):
            raise ValueError("delta has a target outside the states")
        d.setflags(write=False)
        acc.setflags(write=False)
        object.__setattr__(self, "delta", d)
        object.__setattr__(self, "accepting", acc)

    @property
    def n_states(self) -> int:
        return self.delta.shape[0]

    @property
    def alphabet(self) -> int:
        return self.delta.shape[1]

    @property
    def n_transitions(self) -> int:
        return int((self.delta >= 0).sum())

    def run(self, word: Iterable[int]) -> int:
        """The state reached, or -1 once a transition is missing."""
        q = 0
        for a in word:
            q = int(self.delta[q, a])
            if q < 0:
                return -1
        return q

    def accepts(self, word: Iterable[int]) -> bool:
        q = self.run(word)
        return q >= 0 and bool(self.accepting[q])

    def classify(self, words: Sequence[Word]) -> np.ndarray:
        """Labels for many words at once: all words advance one symbol per numpy step."""
        q, _, _ = self.walk(words)
        return np.append(self.accepting, False)[q]

    def walk(self, words: Sequence[Word]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For many words at once: the state each ends in (n_states once a transition was missing), the
        1-based position of the symbol whose transition was missing (0: none was), and each word's length."""
        n = len(words)
        lengths = np.fromiter((len(w) for w in words), dtype=np.int64, count=n)
        width = int(lengths.max()) if n else 0
        mat = np.zeros((n, max(width, 1)), dtype=np.int32)
        for i, w in enumerate(words):
            if w:
                mat[i, : len(w)] = w
        # Index n_states is a dead sink: missing transitions lead there and it loops on every symbol.
        sink = self.n_states
        table = np.vstack([np.where(self.delta < 0, sink, self.delta), np.full((1, self.alphabet), sink)])
        q = np.zeros(n, dtype=np.int32)
        fell = np.zeros(n, dtype=np.int64)
        for t in range(width):
            live = lengths > t
            step = np.where(live, table[q, mat[:, t]], q)
            fell[(step == sink) & (q != sink)] = t + 1
            q = step
        return q, fell, lengths

    # ---- structure -------------------------------------------------------------------------------------
    def trim(self) -> "DFA":
        """Drop states that are unreachable or from which no accepting state is reachable (they only reject)."""
        n = self.n_states
        reach = np.zeros(n, bool)
        reach[0] = True
        todo = [0]
        while todo:
            q = todo.pop()
            for r in self.delta[q]:
                if r >= 0 and not reach[r]:
                    reach[r] = True
                    todo.append(int(r))
        useful = self.accepting & reach
        changed = True
        while changed:
            hit = np.zeros(n, bool)
            tgt = self.delta
            ok = (tgt >= 0) & useful[np.maximum(tgt, 0)]
            hit = ok.any(axis=1) & reach
            new = useful | hit
            changed = bool((new != useful).any())
            useful = new
        keep = useful.copy()
        keep[0] = True
        index = -np.ones(n, np.int32)
        index[np.flatnonzero(keep)] = np.arange(int(keep.sum()), dtype=np.int32)
        d = self.delta[keep]
        d = np.where(d >= 0, index[np.maximum(d, 0)], -1)
        return DFA(d, self.accepting[keep])

    def minimize(self) -> "DFA":
        """Canonical minimal partial DFA (Moore refinement after trimming), states renumbered in BFS order."""
        t = self.trim()
        n, k = t.n_states, t.alphabet
        # Treat 'missing' as a class of its own (-1) so partial DFAs minimise correctly.
        cls = t.accepting.astype(np.int64)
        while True:
            tgt = np.where(t.delta >= 0, cls[np.maximum(t.delta, 0)], -1)
            sig = np.concatenate([cls[:, None], tgt], axis=1)
            _, new = np.unique(sig, axis=0, return_inverse=True)
            new = new.ravel()
            if len(np.unique(new)) == len(np.unique(cls)):
                cls = new
                break
            cls = new
        m = int(cls.max()) + 1
        delta = -np.ones((m, k), np.int32)
        acc = np.zeros(m, bool)
        for q in range(n):
            c = cls[q]
            acc[c] = t.accepting[q]
            for a in range(k):
                r = t.delta[q, a]
                if r >= 0:
                    delta[c, a] = cls[r]
        return DFA(delta, acc).renumber_bfs(start=int(cls[0]))

    def renumber_bfs(self, start: int = 0) -> "DFA":
        """States in breadth-first order from start (symbols in order): a canonical numbering."""
        order, seen = [start], {start: 0}
        i = 0
        while i < len(order):
            q = order[i]
            i += 1
            for r in self.delta[q]:
                r = int(r)
                if r >= 0 and r not in seen:
                    seen[r] = len(order)
                    order.append(r)
        index = -np.ones(self.n_states, np.int32)
        index[order] = np.arange(len(order), dtype=np.int32)
        d = self.delta[order]
        d = np.where(d >= 0, index[np.maximum(d, 0)], -1)
        return DFA(d, self.accepting[order])

    def equivalent(self, other: "DFA") -> bool:
        """Same language (product walk; a missing transition is the dead state on both sides)."""
        if self.alphabet != other.alphabet:
            return False
        seen = {(0, 0)}
        todo = deque([(0, 0)])
        while todo:
            p, q = todo.popleft()
            ap = p >= 0 and bool(self.accepting[p])
            aq = q >= 0 and bool(other.accepting[q])
            if ap != aq:
                return False
            for a in range(self.alphabet):
                nxt = (int(self.delta[p, a]) if p >= 0 else -1, int(other.delta[q, a]) if q >= 0 else -1)
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return True

    # ---- text format -----------------------------------------------------------------------------------
    def to_text(self) -> str:
        out = [f"dfa {self.n_states} {self.alphabet}", "start 0",
               "accept " + " ".join(str(q) for q in np.flatnonzero(self.accepting))]
        for q, a in zip(*np.nonzero(self.delta >= 0)):
            out.append(f"{q} {a} {self.delta[q, a]}")
        return "\n".join(out) + "\n"

    @classmethod
    def from_text(cls, text: str, path="<string>") -> "DFA":
        delta = acc = None
        for i, raw in enumerate(text.splitlines(), start=1):
            line = raw.split("#", 1)[0].split()
            if not line:
                continue
            try:
                if line[0] == "dfa":
                    n, k = int(line[1]), int(line[2])
                    if not (n >= 1 and 1 <= k <= MAX_ALPHABET and n * k <= MAX_CELLS):
                        raise FormatError(path, i, f"a machine has at least 1 state, 1 to {MAX_ALPHABET} symbols "
                                                   f"and at most {MAX_CELLS:,} transitions, not {n} x {k}")
                    delta = -np.ones((n, k), np.int32)
                    acc = np.zeros(n, bool)
                elif delta is None:
                    raise FormatError(path, i, "expected the header 'dfa <states> <alphabet>' first")
                elif line[0] == "start":
                    if int(line[1]) != 0:
                        raise FormatError(path, i, "the start state must be 0")
                elif line[0] == "accept":
                    for t in line[1:]:
                        if not 0 <= int(t) < len(acc):
                            raise FormatError(path, i, f"accepting state {t} out of range")
                        acc[int(t)] = True
                else:
                    if len(line) != 3:
                        raise FormatError(path, i, "transition lines are '<from> <symbol> <to>'")
                    q, a, r = map(int, line)
                    if not (0 <= q < delta.shape[0] and 0 <= r < delta.shape[0] and 0 <= a < delta.shape[1]):
                        raise FormatError(path, i, "state or symbol out of range")
                    if delta[q, a] >= 0 and delta[q, a] != r:
                        raise FormatError(path, i, f"second transition from {q} on {a}: not deterministic")
                    delta[q, a] = r
            except (ValueError, IndexError) as e:
                if isinstance(e, FormatError):
                    raise
                raise FormatError(path, i, f"cannot parse {raw.strip()!r}") from None
        if delta is None:
            raise FormatError(path, 1, "no 'dfa <states> <alphabet>' header")
        return cls(delta, acc)

    def save(self, path) -> None:
        with cli.atomic_output(path) as f:   # whole or not at all
            f.write(self.to_text())

    @classmethod
    def load(cls, path) -> "DFA":
        return cls.from_text(read_text_file(path), path)

    # ---- pictures --------------------------------------------------------------------------------------
    def to_dot(self, name: str = "dfa") -> str:
        """Graphviz dot; parallel transitions share one edge labelled with all their symbols."""
        out = [f"digraph {name} {{", "  rankdir=LR;", '  node [shape=circle, fontsize=10];',
               '  __start [shape=point];', "  __start -> 0;"]
        for q in range(self.n_states):
            shape = "doublecircle" if self.accepting[q] else "circle"
            out.append(f"  {q} [shape={shape}];")
        for q in range(self.n_states):
            by_target: dict[int, list[int]] = {}
            for a in range(self.alphabet):
                r = int(self.delta[q, a])
                if r >= 0:
                    by_target.setdefault(r, []).append(a)
            for r, syms in by_target.items():
                out.append(f'  {q} -> {r} [label="{",".join(map(str, syms))}"];')
        out.append("}")
        return "\n".join(out) + "\n"

    def render_png(self, path) -> bool:
        """Write a PNG through Graphviz's `dot` if it is installed; False when it is not."""
        dot = shutil.which("dot")
        if dot is None:
            return False
        subprocess.run([dot, "-Tpng", "-o", str(path)], input=self.to_dot().encode(), check=True)
        return True
