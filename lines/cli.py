"""Commands: `bin/train-line-ranker` (train_main) and `bin/rank --task codrep2018` (rank_main)."""
from __future__ import annotations

import argparse
import os
import sys
import time
import multiprocessing
from pathlib import Path

from .model import LineRanker, ModelError, RankerConfig
from .tasks import TaskError, read_task, task_number, task_paths

DEFAULT_MODEL = Path(".models/lines")


def _pool(workers, initializer=None, initargs=()):
    """Worker processes started by a fresh server, not forked: LightGBM's OpenMP runtime deadlocks in a
    child forked after the parent used it."""
    return multiprocessing.get_context("forkserver").Pool(workers, initializer=initializer, initargs=initargs)


# ------------------------------------------------------------------------------------------ ranking

_RANKER: LineRanker | None = None
_BASELINE = False


def _init(model_dir: str, baseline: bool):
    global _RANKER, _BASELINE
    _RANKER = LineRanker(model_dir)
    _BASELINE = baseline


def _rank_one(path: str):
    try:
        task = read_task(path)
    except TaskError as e:
        return path, None, str(e)
    ranked = _RANKER.rank_baseline(task) if _BASELINE else _RANKER.rank(task)
    return path, ranked.lines, None


def _sort_key(path: str):
    return (os.path.dirname(path), task_number(path), os.path.basename(path))


def rank_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="rank --task codrep2018",
        description="CodRep 2018: for each task (a new Java line, a blank line, a Java file), list every line "
                    "of the file, the most likely to be the one the new line replaced first. Output: "
                    "'<absolute task path> <line> <line> ...' per task, ordered by folder and task number; "
                    "a signature line (model, features, versions) and timing go to stderr.")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="a CodRep 2018 data set folder (its Tasks/ are ranked), a folder of task files, or task files")
    p.add_argument("--model", type=Path, default=DEFAULT_MODEL,
                   help=f"model directory from bin/train-line-ranker (default {DEFAULT_MODEL})")
    p.add_argument("--workers", type=int, default=1, help="ranking processes (default 1)")
    p.add_argument("--task", choices=["codrep2018"], default="codrep2018",
                   help="accepted for bin/rank's routing; this command ranks CodRep 2018 tasks only")
    p.add_argument("--baseline", action="store_true",
                   help="rank by the model's best single feature only (the baseline the ranker is compared with)")
    return p


def rank_paths(paths: list[str], model: Path, workers: int = 1, baseline: bool = False, out=sys.stdout,
               err=sys.stderr) -> tuple[int, int]:
    """Rank every task under `paths`, printing one line per task; return (ranked, failed)."""
    files: list[str] = []
    failed = 0
    for arg in paths:
        try:
            files.extend(task_paths(arg))
        except TaskError as e:
            print(f"rank: error: {e}", file=err)
            failed += 1
    files = sorted(set(files), key=_sort_key)
    ranked = 0
    if workers <= 1:
        _init(str(model), baseline)
        results = map(_rank_one, files)
        pool = None
    else:
        pool = _pool(workers, initializer=_init, initargs=(str(model), baseline))
        results = pool.imap(_rank_one, files, chunksize=16)
    try:
        for path, lines, msg in results:
            if lines is None:
                print(f"rank: error: {msg}", file=err)
                failed += 1
                continue
            out.write(path + " " + " ".join(map(str, lines)) + "\n")
            ranked += 1
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return ranked, failed


def rank_main(argv=None) -> int:
    args = rank_parser().parse_args(argv)
    if args.workers < 1:
        print("rank: error: --workers must be >= 1", file=sys.stderr)
        return 2
    try:
        ranker = LineRanker(args.model)
    except (ModelError, OSError) as e:
        print(f"rank: error: {e}", file=sys.stderr)
        return 2
    sig = ranker.signature_line() + ("|ranking:baseline(" + ranker.baseline[0] + ")" if args.baseline else "")
    print(f"signature: {sig}", file=sys.stderr)
    t = time.time()
    ranked, failed = rank_paths(args.paths, args.model, args.workers, args.baseline)
    sys.stdout.flush()
    dt = time.time() - t
    print(f"ranked {ranked} tasks in {dt:.1f} s ({ranked / dt if dt else 0:.1f} tasks/s, {args.workers} workers)"
          + (f", {failed} failed" if failed else ""), file=sys.stderr)
    print(f"signature: {sig}", file=sys.stderr)
    return 1 if failed and not ranked else 0


# ------------------------------------------------------------------------------------------ training

def train_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="train-line-ranker",
        description="Train the CodRep 2018 line ranker from data sets (folders with Tasks/ and Solutions/): a "
                    "KenLM model over the identifier-keeping `text` scheme, a stage-1 LightGBM lambdarank over "
                    "string features and a stage-2 one over token, parse and LM features, plus a signature. "
                    "With --dev, the model is then scored on held-out data sets beside the best single feature.")
    p.add_argument("sources", nargs="+", metavar="SOURCE", help="CodRep 2018 data set folders to train on")
    p.add_argument("--output", type=Path, required=True, help="model directory to write (e.g. .models/lines)")
    p.add_argument("--dev", action="append", default=[], metavar="FOLDER",
                   help="data set to score after training (never trained on); repeatable")
    p.add_argument("--workers", type=int, default=2, help="processes for features and LightGBM (default 2)")
    p.add_argument("--order", type=int, default=RankerConfig.lm_order, help="LM n-gram order (default %(default)s)")
    p.add_argument("--top-k", type=int, default=RankerConfig.top_k, help="lines re-ranked by stage 2 (default %(default)s)")
    p.add_argument("--rounds1", type=int, default=200, help="boosting rounds of stage 1 (default %(default)s)")
    p.add_argument("--rounds2", type=int, default=300, help="boosting rounds of stage 2 (default %(default)s)")
    p.add_argument("--limit", type=int, help="use only the first N tasks of each source (quick runs)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def score_dev(model: Path, folders: list[str], workers: int, baseline: bool):
    """(LineScores, tasks/s) of ranking the dev folders with the model (or its baseline)."""
    import io
    from evaluation.codrep2018 import parse_predictions, read_datasets, score_line_predictions
    buf = io.StringIO()
    t = time.time()
    rank_paths(folders, model, workers, baseline, out=buf)
    dt = time.time() - t
    preds = parse_predictions(buf.getvalue().splitlines(), "<ranking>")
    scores = score_line_predictions(read_datasets(folders), preds)
    return scores, scores.total_files / dt if dt else 0.0


def train_main(argv=None) -> int:
    from lm.kenlm_tools import KenlmError
    from .train import TrainConfig, train

    args = train_parser().parse_args(argv)
    if args.workers < 1 or args.top_k < 1 or not 1 <= args.order <= 10:
        print("train-line-ranker: error: --workers and --top-k must be >= 1, --order within 1..10", file=sys.stderr)
        return 2
    cfg = TrainConfig(sources=tuple(args.sources), output=args.output,
                      ranker=RankerConfig(top_k=args.top_k, lm_order=args.order), workers=args.workers,
                      rounds1=args.rounds1, rounds2=args.rounds2, limit=args.limit, progress=not args.quiet)
    try:
        sig = train(cfg)
    except (TaskError, KenlmError, OSError, ValueError) as e:
        print(f"train-line-ranker: error: {e}", file=sys.stderr)
        return 2
    ranker = LineRanker(args.output)
    print(f"signature: {ranker.signature_line()}", file=sys.stderr)
    b = sig["baseline"]
    print(f"trained in {sig['seconds']['total']} s on {sig['tasks']:,} tasks; model {sig['model_bytes'] / 2**20:.1f} MiB "
          f"in {args.output}; best single feature on the training tasks: {b['feature']} (sign {b['sign']:+g}, "
          f"error {b['train_error']:.4f}, Recall@1 {b['train_recall_at_1']:.4f})", file=sys.stderr)
    if args.dev:
        from evaluation.common import InputError
        try:
            learned, speed = score_dev(args.output, args.dev, args.workers, False)
            base, _ = score_dev(args.output, args.dev, args.workers, True)
        except (InputError, TaskError) as e:
            print(f"train-line-ranker: error: dev scoring: {e}", file=sys.stderr)
            return 2
        names = "+".join(Path(d.rstrip("/")).name for d in args.dev)
        print(f"dev {names} ({learned.total_files} tasks): learned ranker: average line error "
              f"{learned.average_line_error:.4f}, Recall@1 {learned.recall_at_1:.4f} ({speed:.1f} tasks/s, "
              f"{args.workers} workers) | best single feature {b['feature']}: average line error "
              f"{base.average_line_error:.4f}, Recall@1 {base.recall_at_1:.4f}", file=sys.stderr)
    print(args.output)
    return 0
