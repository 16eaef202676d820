"""DFASAT-style learning (after Heule & Verwer): EDSM merges down to a small core, then an exact search.

The red states left by EDSM keep fixed, distinct colours (the symmetry breaking: any solution can be renamed
so), every remaining node below the blue fringe gets exactly one of k colours, and the smallest k that
python-sat finds satisfiable within the time budget gives the machine. Anything that fails or runs out of
time falls back to the full EDSM result. Sink subtrees (reached by no positive string) stay out of the
encoding: their transitions are left missing, which rejects.
"""
from __future__ import annotations

import itertools
import threading
import time

import numpy as np
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from .apta import APTA
from .dfa import DFA
from .merging import Hypothesis, MergeResult, edsm, edsm_steps


def _core(h: Hypothesis) -> tuple[list[int], list[tuple[int, int, int]]]:
    """Non-red, non-sink nodes below the blue fringe, and the edges (u, a, v) into them."""
    nodes, edges = [], []
    todo = []
    for r in h.red:
        for a, c in h.ch[r].items():
            if c not in h.is_red and not (h.sinks and h.pt[c] == 0):
                todo.append((r, a, c))
    while todo:
        u, a, v = todo.pop()
        nodes.append(v)
        edges.append((u, a, v))
        for b, c in h.ch[v].items():
            if not (h.sinks and h.pt[c] == 0):
                todo.append((v, b, c))
    return nodes, edges


def _core_size(h: Hypothesis) -> int:
    return len(_core(h)[0])


def colour(h: Hypothesis, k: int, deadline: float) -> DFA | None | bool:
    """A k-state machine consistent with h (reds keep their colours), None if UNSAT, False on timeout."""
    reds = h.red
    rc = {r: i for i, r in enumerate(reds)}
    nodes, edges = _core(h)
    pool = IDPool()
    x = lambda v, c: pool.id(("x", v, c))  # noqa: E731
    z = lambda c: pool.id(("z", c))  # noqa: E731
    y = lambda a, c, d: pool.id(("y", a, c, d))  # noqa: E731
    clauses: list[list[int]] = []
    for r, c in rc.items():
        if h.pos[r]:
            clauses.append([z(c)])
        elif h.neg[r]:
            clauses.append([-z(c)])
        for a, t in h.ch[r].items():
            if t in rc:
                clauses.append([y(a, c, rc[t])])
    for v in nodes:
        lits = [x(v, c) for c in range(k)]
        clauses.append(lits)
        clauses.extend(CardEnc.atmost(lits, bound=1, vpool=pool, encoding=EncType.seqcounter).clauses)
        if h.pos[v]:
            clauses.extend([-x(v, c), z(c)] for c in range(k))
        elif h.neg[v]:
            clauses.extend([-x(v, c), -z(c)] for c in range(k))
    for u, a, v in edges:
        if u in rc:
            cu = rc[u]
            for d in range(k):
                clauses.append([-y(a, cu, d), x(v, d)])
                clauses.append([-x(v, d), y(a, cu, d)])
        else:
            for c, d in itertools.product(range(k), repeat=2):
                clauses.append([-x(u, c), -x(v, d), y(a, c, d)])
                clauses.append([-x(u, c), -y(a, c, d), x(v, d)])
        if time.perf_counter() > deadline:
            return False
    with Solver(name="glucose4", bootstrap_with=clauses) as solver:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return False
        timer = threading.Timer(remaining, solver.interrupt)
        timer.start()
        try:
            sat = solver.solve_limited(expect_interrupt=True)
        finally:
            timer.cancel()
        if sat is None:
            return False
        if not sat:
            return None
        model = set(lit for lit in solver.get_model() if lit > 0)
    col = dict(rc)
    for v in nodes:
        col[v] = next(c for c in range(k) if x(v, c) in model)
    delta = -np.ones((k, h.apta.alphabet), np.int32)
    labelled = np.zeros(k, bool)
    acc = np.zeros(k, bool)
    for v, c in col.items():
        if h.pos[v] or h.neg[v]:
            labelled[c] = True
            acc[c] = h.pos[v] > 0
    for r in reds:
        for a, t in h.ch[r].items():
            if t in col:
                delta[rc[r], a] = col[t]
    for u, a, v in edges:
        delta[col[u], a] = col[v]
    # Colours no labelled node took stay rejecting (the solver's choice there is arbitrary).
    return DFA(delta, acc & labelled).trim()


def dfasat(apta: APTA, time_limit: float = 30.0, core_nodes: int = 250, **edsm_options) -> MergeResult:
    """EDSM to a core of at most core_nodes nodes, then the smallest consistent colouring within time_limit."""
    t0 = time.perf_counter()
    deadline = t0 + time_limit
    edsm_options = dict(edsm_options)
    hyp_options = {k: edsm_options.pop(k) for k in ("sinks", "alive_weight", "set_log", "dead_conflict")
                   if k in edsm_options}
    full = edsm(apta, **hyp_options, **edsm_options)
    fallback = full.dfa
    part = Hypothesis(apta, **hyp_options)
    edsm_steps(part, stop=lambda h: _core_size(h) <= core_nodes, **edsm_options)
    if not part.blues():
        return MergeResult(fallback, "sat", full.merges, time.perf_counter() - t0, "EDSM finished before the core")
    for k in range(len(part.red), fallback.n_states):
        if time.perf_counter() > deadline:
            break
        got = colour(part, k, deadline)
        if got is False:
            break
        if got is not None:
            return MergeResult(got, "sat", part.merges, time.perf_counter() - t0,
                               f"SAT: {k} colours over {len(part.red)} red states")
    return MergeResult(fallback, "sat", full.merges, time.perf_counter() - t0,
                       "fell back to EDSM (no smaller machine found in time)")
