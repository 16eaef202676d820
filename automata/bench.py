"""Held-out benchmark on the real StaMinA training sets, ours against AALpy's EDSM.

For each problem: split the distinct labelled strings 80/20 (seed 0), learn on the 80% with multiplicities,
score BCR on the held-out 20%. AALpy runs in a child process with a per-problem timeout (its EDSM can take
minutes); its results are cached under .bench/stamina/ because they never change for a given version, so a
re-run only re-learns ours. AALpy is the `stamina` extra, which `make setup` installs at the version of
constraints.txt; the learners never import it.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import json
import multiprocessing as mp
import time
from pathlib import Path

from .bcr import bcr
from .grid import Cell, cell_of_problem
from .samples import Sample, Word, read_sample, split_distinct

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / ".bench" / "stamina"


@dataclasses.dataclass(frozen=True)
class BenchRow:
    problem: int
    cell: Cell
    bcr: float | None  # None: timed out
    seconds: float
    states: int


class AalpyMissing(RuntimeError):
    pass


def ensure_aalpy() -> None:
    if importlib.util.find_spec("aalpy") is None:
        raise AalpyMissing("AALpy is not installed (the `stamina` extra); run 'make setup'")


def _aalpy_child(train: Sample, held: list[tuple[Word, bool]], queue) -> None:
    from aalpy.learning_algs import run_EDSM  # only here: the benchmark's child process

    data = [(tuple(w), bool(lab)) for w, lab in zip(train.words, train.labels)]
    t0 = time.perf_counter()
    model = run_EDSM(data, automaton_type="dfa", print_info=False)
    secs = time.perf_counter() - t0
    preds = []
    for w, _ in held:
        q = model.initial_state
        for a in w:
            q = q.transitions.get(a)
            if q is None:
                break
        preds.append(q is not None and bool(q.is_accepting))
    queue.put((bcr([lab for _, lab in held], preds), secs, len(model.states)))


def aalpy_edsm(number: int, train: Sample, held, timeout: float, use_cache: bool = True) -> BenchRow:
    key = CACHE / f"aalpy-edsm-{number}-t{int(timeout)}.json"
    if use_cache and key.exists():
        d = json.loads(key.read_text())
        return BenchRow(number, cell_of_problem(number), d["bcr"], d["seconds"], d["states"])
    ensure_aalpy()
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_aalpy_child, args=(train, held, queue))
    t0 = time.perf_counter()
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.terminate()
        proc.join()
        result = {"bcr": None, "seconds": time.perf_counter() - t0, "states": 0}
    else:
        b, secs, states = queue.get(timeout=10)
        result = {"bcr": b, "seconds": secs, "states": states}
    CACHE.mkdir(parents=True, exist_ok=True)
    key.write_text(json.dumps(result))
    return BenchRow(number, cell_of_problem(number), result["bcr"], result["seconds"], result["states"])


def ours(number: int, train: Sample, held, algo: str, time_limit: float) -> BenchRow:
    from .learn import learn

    res = learn(train, algo=algo, time_limit=time_limit)
    preds = res.dfa.classify([w for w, _ in held])
    return BenchRow(number, cell_of_problem(number), bcr([lab for _, lab in held], preds), res.seconds,
                    res.dfa.n_states)


def load_split(data_dir: Path, number: int):
    sample = read_sample(Path(data_dir) / f"{number}_training.txt")
    return split_distinct(sample, seed=0, train_fraction=0.8)
