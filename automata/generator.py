"""StaMinA-style problems with known targets (after Walkinshaw et al.'s published protocol).

Target: a Forest-Fire graph (forward burning f=0.31, backward burning b=0.385) grown state by state, each
edge labelled with a symbol its source does not use yet (so the machine is deterministic), plus a self-loop
with probability 0.2 and a parallel edge (another symbol, same target) with probability 0.2 per new state;
states accept with probability 1/2. The machine is trimmed and minimised and redrawn until it has about 50
states (45..55). As in Leskovec's model the new state links to its ambassador and to every state burned from
it; our reading where the protocol is silent: the ambassador also gets one edge to the new state, so every
state is reachable from the start state 0.

Sample: 20,000 strings, half positive random walks (at a state with d outgoing edges the walk stops with
probability 1/(1+d) if the state accepts, else follows a uniformly chosen edge), half negatives made by
Poisson(3) random edits (insert, delete, substitute; at least one) of fresh walks, kept only when the target
rejects them. 1,500 distinct strings are set aside as the test set; the training set is the first
sparsity% of the remaining entries in random order (another copy of a test word, which random walks make
for short words, may stay in training).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from .dfa import DFA
from .grid import ALPHABETS, PER_CELL, SPARSITIES, Cell
from .samples import Sample, Word, format_abbadingo, format_stamina

FORWARD_BURN = 0.31
BACKWARD_BURN = 0.385
SELF_LOOP = 0.2
PARALLEL = 0.2
TARGET_STATES = 50
POOL_SIZE = 20_000
TEST_SIZE = 1_500
EDITS_MEAN = 3.0
MAX_WALK = 400


@dataclasses.dataclass(frozen=True)
class Recipe:
    """The generator's free choices, where the published protocol leaves room (the defaults are ours).

    forward_burn, backward_burn, self_loop, parallel: the Forest-Fire target. stop_scale: a walk at an accepting
    state with d outgoing edges stops with probability 1/(1 + stop_scale * d) (larger: longer walks). edits_mean:
    a negative is max(1, Poisson(edits_mean)) edits of a walk, or exactly one when edits_mean is 0. edit_kinds:
    relative weights of insert, delete, substitute. negative_share: the pool's share of negatives. pool: the
    pool's size. test_copies: False removes every copy of a test word from training (the test set then shares no
    word with it), True only the drawn entries.
    """

    forward_burn: float = FORWARD_BURN
    backward_burn: float = BACKWARD_BURN
    self_loop: float = SELF_LOOP
    parallel: float = PARALLEL
    stop_scale: float = 1.0
    edits_mean: float = EDITS_MEAN
    edit_kinds: tuple[float, float, float] = (1.0, 1.0, 1.0)
    negative_share: float = 0.5
    pool: int = POOL_SIZE
    test_copies: bool = True


DEFAULT_RECIPE = Recipe()
# Other readings of the protocol, for development grids that are less like one generator: Leskovec's other
# burning parameters, longer walks, one-edit negatives (of each kind alone too), the real sets' sizes and
# positive share (about 13,000 strings at 100%, 55% positive), and test words kept out of training entirely.
RECIPES: dict[str, Recipe] = {
    "ours": DEFAULT_RECIPE,
    "burn": Recipe(forward_burn=0.37, backward_burn=0.32, self_loop=0.1, parallel=0.1),
    "long": Recipe(stop_scale=2.0),
    "one-edit": Recipe(edits_mean=0.0),
    "substitute": Recipe(edits_mean=0.0, edit_kinds=(0.0, 0.0, 1.0)),
    "real-size": Recipe(pool=14_500, negative_share=0.45, stop_scale=1.5, test_copies=False),
    "mixed": Recipe(forward_burn=0.35, backward_burn=0.30, stop_scale=1.5, edits_mean=1.0, pool=16_000,
                    test_copies=False),
}


@dataclasses.dataclass(frozen=True)
class Problem:
    target: DFA
    training: Sample
    test: Sample  # labelled with the target's answers
    cell: Cell
    seed: int


def forest_fire_dfa(rng: np.random.Generator, alphabet: int, n_nodes: int, recipe: Recipe = DEFAULT_RECIPE) -> DFA:
    """One Forest-Fire machine before minimisation."""
    out: list[dict[int, int]] = [dict()]  # state -> {symbol: target}
    preds: list[set[int]] = [set()]
    succs: list[set[int]] = [set()]

    def add_edge(q: int, r: int) -> bool:
        free = [a for a in range(alphabet) if a not in out[q]]
        if not free:
            return False
        out[q][int(rng.choice(free))] = r
        succs[q].add(r)
        preds[r].add(q)
        return True

    for v in range(1, n_nodes):
        out.append({})
        preds.append(set())
        succs.append(set())
        ambassador = int(rng.integers(v))
        # So the new state is reachable from the start state: from the ambassador, or from a random state
        # that still has a free symbol when the ambassador uses them all (small alphabets).
        if not add_edge(ambassador, v):
            free = [q for q in range(v) if len(out[q]) < alphabet]
            if free:
                add_edge(int(rng.choice(free)), v)
            else:
                # Every symbol is taken: put the new state in the middle of the ambassador's edge q -a-> r.
                a = int(rng.choice(sorted(out[ambassador])))
                r = out[ambassador][a]
                out[ambassador][a] = v
                preds[v].add(ambassador)
                add_edge(v, r)
        burned = {ambassador}
        frontier = [ambassador]
        add_edge(v, ambassador)
        while frontier:
            w = frontier.pop()
            # Geometric numbers of forward and backward links to follow (means f/(1-f), b/(1-b)).
            n_fwd = int(rng.geometric(1 - recipe.forward_burn)) - 1
            n_bwd = int(rng.geometric(1 - recipe.backward_burn)) - 1
            fwd = [x for x in succs[w] if x not in burned and x != v]
            bwd = [x for x in preds[w] if x not in burned and x != v]
            pick = list(rng.permutation(fwd))[:n_fwd] + list(rng.permutation(bwd))[:n_bwd]
            for x in pick:
                x = int(x)
                if x in burned:
                    continue
                burned.add(x)
                add_edge(v, x)
                frontier.append(x)
        if rng.random() < recipe.self_loop:
            add_edge(v, v)
        if rng.random() < recipe.parallel and succs[v]:
            add_edge(v, int(rng.choice(sorted(succs[v]))))
    delta = -np.ones((n_nodes, alphabet), np.int32)
    for q, edges in enumerate(out):
        for a, r in edges.items():
            delta[q, a] = r
    accepting = rng.random(n_nodes) < 0.5
    return DFA(delta, accepting)


def target_machine(rng: np.random.Generator, alphabet: int, states: int = TARGET_STATES,
                   recipe: Recipe = DEFAULT_RECIPE) -> DFA:
    """Redraw until the minimised machine has states +-10%."""
    n_nodes = states
    for _ in range(1000):
        dfa = forest_fire_dfa(rng, alphabet, n_nodes, recipe).minimize()
        if abs(dfa.n_states - states) <= states // 10:
            return dfa
        n_nodes += 1 if dfa.n_states < states else -1
        n_nodes = max(n_nodes, 2)
    raise RuntimeError("could not draw a target of the requested size")


def random_walk(rng: np.random.Generator, dfa: DFA, stop_scale: float = 1.0) -> Word:
    while True:
        q, word = 0, []
        for _ in range(MAX_WALK):
            nxt = np.flatnonzero(dfa.delta[q] >= 0)
            if dfa.accepting[q] and rng.random() < 1.0 / (1 + stop_scale * len(nxt)):
                return tuple(word)
            if len(nxt) == 0:
                break
            a = int(rng.choice(nxt))
            word.append(a)
            q = int(dfa.delta[q, a])


def random_edit(rng: np.random.Generator, word: Word, alphabet: int, edits_mean: float = EDITS_MEAN,
                kinds: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> Word:
    w = list(word)
    uniform = kinds == (1.0, 1.0, 1.0)
    p = np.asarray(kinds) / sum(kinds)
    for _ in range(max(1, int(rng.poisson(edits_mean))) if edits_mean > 0 else 1):
        if not w:
            kind = 0
        elif uniform:  # the default recipe's draws, kept as they were
            kind = rng.integers(3)
        else:
            kind = int(rng.choice(3, p=p))
        if kind == 0:
            w.insert(int(rng.integers(len(w) + 1)), int(rng.integers(alphabet)))
        elif kind == 1:
            del w[int(rng.integers(len(w)))]
        else:
            w[int(rng.integers(len(w)))] = int(rng.integers(alphabet))
    return tuple(w)


def make_problem(seed: int, alphabet: int, sparsity: float, recipe: Recipe = DEFAULT_RECIPE) -> Problem:
    rng = np.random.default_rng(seed)
    r = recipe
    target = target_machine(rng, alphabet, recipe=r)
    words: list[Word] = []
    labels: list[bool] = []
    for _ in range(int(round(r.pool * (1 - r.negative_share)))):
        words.append(random_walk(rng, target, r.stop_scale))
        labels.append(True)
    tries = 0
    while len(words) < r.pool and tries < 50 * r.pool:
        tries += 1
        w = random_edit(rng, random_walk(rng, target, r.stop_scale), alphabet, r.edits_mean, r.edit_kinds)
        if not target.accepts(w):
            words.append(w)
            labels.append(False)
    order = rng.permutation(len(words))
    test_words: list[Word] = []
    seen: set[Word] = set()
    for i in order:
        if len(test_words) == TEST_SIZE:
            break
        if words[i] not in seen:
            seen.add(words[i])
            test_words.append(words[i])
    # The entries drawn for the test set leave the pool; other copies of the same word may stay in training
    # (otherwise short words of small alphabets, repeated by many walks, would strip the training set bare).
    taken: set[int] = set()
    got: set[Word] = set()
    for i in order:
        if len(got) == len(test_words):
            break
        if words[i] not in got:
            got.add(words[i])
            taken.add(int(i))
    if not r.test_copies:
        taken = {int(i) for i in order if words[i] in got}
    rest = [i for i in order if int(i) not in taken]
    keep = rest[: int(round(len(rest) * sparsity / 100.0))]
    training = Sample(alphabet, tuple(words[i] for i in keep), tuple(labels[i] for i in keep))
    test_labels = tuple(bool(x) for x in target.classify(test_words))
    test = Sample(alphabet, tuple(test_words), test_labels)
    return Problem(target, training, test, Cell(alphabet, float(sparsity)), seed)


def first_number(cell: Cell) -> int:
    """The competition's number of the first problem of a cell (1, 6, 11, ...)."""
    c = ALPHABETS.index(cell.alphabet) * len(SPARSITIES) + SPARSITIES.index(cell.sparsity)
    return c * PER_CELL + 1


def write_problem(problem: Problem, out_dir, number: int | None = None) -> list[Path]:
    """N_training.txt (Abbadingo), N_test.txt (StaMinA lines labelled +/-), N_target.dfa, N_target.dot."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    n = number if number is not None else first_number(problem.cell)
    paths = [out / f"{n}_training.txt", out / f"{n}_test.txt", out / f"{n}_target.dfa", out / f"{n}_target.dot"]
    paths[0].write_text(format_abbadingo(problem.training))
    paths[1].write_text(format_stamina(problem.test))
    problem.target.save(paths[2])
    paths[3].write_text(problem.target.to_dot())
    return paths
