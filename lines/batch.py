"""Rank many CodRep 2018 tasks with a trained model, in worker processes, in task order."""
from __future__ import annotations

import multiprocessing
import sys
from typing import Callable

from formats.codrep2018 import TaskError, read_task, task_paths
from formats.files import sort_key
from unnatural import cli

from .model import LineRanker


def forkserver_pool(workers: int, initializer=None, initargs=()):
    """Worker processes started by a fresh server, not forked: LightGBM's OpenMP runtime deadlocks in a
    child forked after the parent used it."""
    return multiprocessing.get_context("forkserver").Pool(workers, initializer=initializer, initargs=initargs)


_RANKER: LineRanker | None = None
_BASELINE = False


def _init(model_dir: str, baseline: bool):
    global _RANKER, _BASELINE
    cli.ignore_interrupts()
    _RANKER = LineRanker(model_dir)
    _BASELINE = baseline


def _rank_one(path: str):
    try:
        task = read_task(path)
    except TaskError as e:
        return path, None, str(e)
    ranked = _RANKER.rank_baseline(task) if _BASELINE else _RANKER.rank(task)
    return path, ranked.lines, None


def rank_paths(paths: list[str], model, workers: int = 1, baseline: bool = False, out=sys.stdout,
               error: Callable[[str], None] = print) -> tuple[int, int]:
    """Rank every task under `paths`, printing `<task path> <line> <line> ...` per task to `out`; a task that
    cannot be read goes to `error`. Returns (ranked, failed)."""
    files: list[str] = []
    failed = 0
    for arg in paths:
        try:
            files.extend(task_paths(arg))
        except TaskError as e:
            error(str(e))
            failed += 1
    files = sorted(set(files), key=sort_key)
    ranked = 0
    if workers <= 1:
        _init(str(model), baseline)
        results = map(_rank_one, files)
        pool = None
    else:
        pool = forkserver_pool(workers, initializer=_init, initargs=(str(model), baseline))
        results = pool.imap(_rank_one, files, chunksize=16)
    try:
        for path, lines, msg in results:
            if lines is None:
                error(msg)
                failed += 1
                continue
            out.write(path + " " + " ".join(map(str, lines)) + "\n")
            ranked += 1
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return ranked, failed
