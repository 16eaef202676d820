"""State merging in the red-blue framework: RPNI and Blue-Fringe with EDSM evidence.

The hypothesis is the APTA being folded in place. Red states are final states of the machine; blue states are
the non-red children of red states; below a blue state hangs a tree that no merge has touched from the red
side. Merging blue b into red r redirects b's incoming edge to r and folds b's tree into what r reaches:
where r lacks a child the blue subtree is grafted as is (O(1)), so a merge test costs only the overlap of the
two, and every change is logged so a rejected or scored-only merge is undone exactly.
"""
from __future__ import annotations

import dataclasses
import math
import time
from collections import deque

import numpy as np

from .apta import APTA
from .dfa import DFA


@dataclasses.dataclass(frozen=True)
class MergeResult:
    """A learned machine with how it was reached."""

    dfa: DFA
    algorithm: str
    merges: int
    seconds: float
    note: str = ""
    work: int = 0  # the native learner's count of steps (see automata/native.cpp)


class Hypothesis:
    """Mutable red-blue state of a merge run over one APTA."""

    def __init__(self, apta: APTA, sinks: bool = False, dead_conflict: bool = False, alive_weight: int = 0,
                 set_log: float = 0.0):
        self.apta = apta
        self.set_log = set_log
        self.sinks = sinks
        self.dead_conflict = dead_conflict
        self.alive_weight = alive_weight
        self.ch = [dict(c) for c in apta.children]
        self.pos = list(apta.pos)
        self.neg = list(apta.neg)
        # Strings passing through (or ending at) each node, per label: a node no positive string reaches is a
        # 'sink' candidate (in StaMinA most negatives leave the target through a missing transition).
        self.pt, self.nt = _through_counts(apta)
        # Distinct positive strings per edge, folded along with the nodes (the statistical symbol test's counts;
        # a child's own count will not do once a loop makes the child its parent). Only the test needs them.
        self.ept = ([{a: self.pt[c] for a, c in kids.items()} for kids in apta.children] if set_log > 0
                    else None)
        self.red: list[int] = [0]
        self.is_red = {0}
        self.merges = 0
        # Shortlex rank of every APTA node: RPNI's canonical order and the tie-break everywhere.
        rank = [0] * apta.size
        order = deque([0])
        k = 0
        while order:
            v = order.popleft()
            rank[v] = k
            k += 1
            for a in sorted(apta.children[v]):
                order.append(apta.children[v][a])
        self.rank = rank

    # ---- the fold ----------------------------------------------------------------------------------------
    def try_merge(self, red: int, parent: int, sym: int, blue: int, commit: bool = False,
                  touched: list | None = None):
        """Score of merging blue (child of parent on sym) into red, or None if labels conflict.

        Evidence (EDSM): one point per folded pair whose two nodes are both labelled (they must agree), plus
        alive_weight per pair that positive strings pass through on both sides (shared behaviour). With
        dead_conflict, a node only negative strings reach may not fold with one a positive string reaches. With
        set_log, every folded pair that positive strings pass through must pass the symbol test (_alike).
        With commit the merge stays; otherwise the hypothesis is restored exactly. touched, when given, receives
        every node the test read, so a cached score can be dropped once one of them changes.
        """
        ch, pos, neg, pt, nt = self.ch, self.pos, self.neg, self.pt, self.nt
        dead_conflict, alive_w = self.dead_conflict, self.alive_weight
        labels_log: list[tuple[int, int, int, int, int]] = []
        ept = self.ept
        ept_log: list[tuple[int, int, int | None]] = []
        grafts: list[tuple[int, int]] = []
        ch[parent][sym] = red
        score = 0
        ok = True
        stack = [(red, blue)]
        if touched is not None:
            touched.append(parent)
        while stack:
            r, b = stack.pop()
            if touched is not None:
                touched.append(r)
                touched.append(b)
            pb, nb = pos[b], neg[b]
            pr, nr = pos[r], neg[r]
            if (pb and nr) or (nb and pr):
                ok = False
                break
            if (pb or nb) and (pr or nr):
                score += 1
            ptb, ptr = pt[b], pt[r]
            if dead_conflict and ((ptb == 0 and ptr > 0) or (ptr == 0 and ptb > 0)):
                ok = False
                break
            if ptb and ptr:
                score += alive_w
                if ept is not None and not _alike(ept[b], ept[r], ptb, ptr, self.set_log):
                    ok = False
                    break
            labels_log.append((r, pr, nr, ptr, nt[r]))
            if ept is not None:
                er = ept[r]
                for a, x in ept[b].items():
                    ept_log.append((r, a, er.get(a)))
                    er[a] = er.get(a, 0) + x
            pos[r] = pr + pb
            neg[r] = nr + nb
            pt[r] = ptr + ptb
            nt[r] += nt[b]
            cr = ch[r]
            for a, cb in ch[b].items():
                c = cr.get(a)
                if c is None:
                    cr[a] = cb
                    grafts.append((r, a))
                else:
                    stack.append((c, cb))
        if ok and commit:
            self.merges += 1
            return score
        for r, a in reversed(grafts):
            del ch[r][a]
        for r, a, x in reversed(ept_log):
            if x is None:
                del ept[r][a]
            else:
                ept[r][a] = x
        for r, pr, nr, ptr, ntr in reversed(labels_log):
            pos[r] = pr
            neg[r] = nr
            pt[r] = ptr
            nt[r] = ntr
        ch[parent][sym] = blue
        return score if ok else None

    def blues(self) -> list[tuple[int, int, int]]:
        """(parent, symbol, blue) in shortlex order of the blue nodes."""
        out = []
        for r in self.red:
            for a, c in self.ch[r].items():
                if c not in self.is_red and not (self.sinks and self.pt[c] == 0):
                    out.append((r, a, c))
        out.sort(key=lambda t: self.rank[t[2]])
        return out

    def promote(self, blue: int) -> None:
        self.red.append(blue)
        self.is_red.add(blue)

    def to_dfa(self, unlabelled_accepts: bool = False) -> DFA:
        """Red states become the machine; blue subtrees (if any remain) are kept as tree states."""
        order, index = [0], {0: 0}
        i = 0
        while i < len(order):
            v = order[i]
            i += 1
            for a in sorted(self.ch[v]):
                c = self.ch[v][a]
                if self.sinks and self.pt[c] == 0:
                    continue  # a sink: the transition is left missing, so the word is rejected
                if c not in index:
                    index[c] = len(order)
                    order.append(c)
        k = self.apta.alphabet
        delta = -np.ones((len(order), k), np.int32)
        acc = np.zeros(len(order), bool)
        for v, q in index.items():
            acc[q] = self.pos[v] > 0 or (unlabelled_accepts and self.neg[v] == 0)
            for a, c in self.ch[v].items():
                if c in index:
                    delta[q, a] = index[c]
        return DFA(delta, acc)


def _alike(eb: dict, er: dict, ptb: int, ptr: int, set_log: float) -> bool:
    """The statistical alive-symbol test: False when a symbol that positive strings take from one node and
    not from the other is too unlikely to be chance (below probability exp(-set_log)), had the c strings
    that take it been spread over both nodes' visits alike: all c miss the other with (n_has / n_all)^c."""
    for a in set(eb) | set(er):
        xb, xr = eb.get(a, 0), er.get(a, 0)
        if (xb == 0) == (xr == 0):
            continue
        c, has = (xb, ptb) if xb else (xr, ptr)
        if c * math.log((ptb + ptr) / has) > set_log:
            return False
    return True


def _through_counts(apta: APTA) -> tuple[list[int], list[int]]:
    """Per node, how many distinct positive / negative strings end at or below it.

    Distinct, not with multiplicity: a short walk repeated a hundred times shows one path, not a hundred.
    """
    pt = [1 if p else 0 for p in apta.pos]
    nt = [1 if n else 0 for n in apta.neg]
    parent = [-1] * apta.size
    for v, kids in enumerate(apta.children):
        for c in kids.values():
            parent[c] = v
    # Children always have larger ids than their parent (built in one pass), so a reverse sweep sums subtrees.
    for v in range(apta.size - 1, 0, -1):
        p = parent[v]
        pt[p] += pt[v]
        nt[p] += nt[v]
    return pt, nt


def rpni(apta: APTA, unlabelled_accepts: bool = False) -> MergeResult:
    """RPNI: blue states in shortlex order, each merged into the first compatible red state or promoted."""
    t0 = time.perf_counter()
    h = Hypothesis(apta)
    while True:
        blues = h.blues()
        if not blues:
            break
        parent, sym, blue = blues[0]
        for r in h.red:
            if h.try_merge(r, parent, sym, blue, commit=True) is not None:
                break
        else:
            h.promote(blue)
    dfa = h.to_dfa(unlabelled_accepts)
    return MergeResult(dfa, "rpni", h.merges, time.perf_counter() - t0)


def edsm_steps(h: Hypothesis, min_score: int = 0, stop=None, max_red: int = 200, max_blues: int = 0) -> None:
    """Blue-Fringe with EDSM evidence, in place on h.

    Each round: a blue state that no red state accepts is promoted at once; otherwise the highest-evidence
    (red, blue) pair is merged, unless its evidence is below min_score, in which case the shallowest blue is
    promoted instead (too little evidence to trust a merge) while there are fewer than max_red red states.
    stop(h) -> True ends the run early. max_blues > 0 looks only at that many blue states per round, those
    with the most distinct strings below them (the best-evidenced decisions first; it bounds the work).

    Scores are cached per (red, blue) with the nodes each test read; a merge drops only the cached scores
    that read a node it changed, and a promotion changes nothing, so most pairs are scored once.
    """
    cache: dict[tuple[int, int], int | None] = {}
    readers: dict[int, set[tuple[int, int]]] = {}

    def score(r: int, parent: int, sym: int, blue: int):
        key = (r, blue)
        if key in cache:
            return cache[key]
        touched: list[int] = []
        s = h.try_merge(r, parent, sym, blue, touched=touched)
        cache[key] = s
        for v in set(touched):
            readers.setdefault(v, set()).add(key)
        return s

    while True:
        if stop is not None and stop(h):
            return
        blues = h.blues()
        if not blues:
            return
        best = None
        promoted = False
        considered = blues
        if max_blues and len(blues) > max_blues:
            considered = sorted(blues, key=lambda t: (-(h.pt[t[2]] + h.nt[t[2]]), h.rank[t[2]]))[:max_blues]
        for parent, sym, blue in considered:
            found = False
            for r in h.red:
                s = score(r, parent, sym, blue)
                if s is None:
                    continue
                found = True
                if best is None or s > best[0]:
                    best = (s, r, parent, sym, blue)
            if not found:
                h.promote(blue)
                promoted = True
                break
        if promoted:
            continue
        s, r, parent, sym, blue = best
        if s < min_score and len(h.red) < max_red:
            h.promote(considered[0][2])
        else:
            changed: list[int] = []
            h.try_merge(r, parent, sym, blue, commit=True, touched=changed)
            for v in set(changed):
                for key in readers.pop(v, ()):
                    cache.pop(key, None)


class TimeUp(Exception):
    """A learner ran past its work budget."""


def edsm(apta: APTA, min_score: int = 0, unlabelled_accepts: bool = False, sinks: bool = False,
         dead_conflict: bool = False, alive_weight: int = 0, max_blues: int = 0,
         max_red: int = 200, max_work: int | None = None, set_log: float = 0.0) -> MergeResult:
    """Blue-Fringe EDSM to the end, in C++ (automata/native.cpp: edsm_steps step for step, the same machine).

    max_work bounds the steps the run may take (folded pairs, compared symbols, scores looked up); past it
    TimeUp is raised. It is a count, not seconds, so a budget decides the same way on any machine.
    """
    from . import _native  # built by make setup

    t0 = time.perf_counter()
    got = _native.edsm(apta.size, apta.alphabet, apta.edges, np.asarray(apta.pos, np.int64),
                       np.asarray(apta.neg, np.int64), min_score, sinks, dead_conflict, alive_weight, max_blues,
                       max_red, unlabelled_accepts, -1 if max_work is None else max_work, set_log)
    if got is None:
        raise TimeUp
    delta, acc, merges, work = got
    return MergeResult(DFA(delta, acc), "edsm", merges, time.perf_counter() - t0, work=work)


def edsm_python(apta: APTA, min_score: int = 0, unlabelled_accepts: bool = False, sinks: bool = False,
                dead_conflict: bool = False, alive_weight: int = 0, max_blues: int = 0,
                max_red: int = 200, set_log: float = 0.0) -> MergeResult:
    """The same run in Python (what the native learner is tested against)."""
    t0 = time.perf_counter()
    h = Hypothesis(apta, sinks=sinks, dead_conflict=dead_conflict, alive_weight=alive_weight, set_log=set_log)
    edsm_steps(h, min_score=min_score, max_blues=max_blues, max_red=max_red)
    return MergeResult(h.to_dfa(unlabelled_accepts), "edsm", h.merges, time.perf_counter() - t0)
