"""bin/fim-fit: fit the n-gram predictor's feature weights (fim.ngram.DEFAULT_WEIGHTS) on task files whose
middles are known, and print them with the exact match they give on the training and validation tasks.

Each task's candidates are made and scored as bin/fim makes them (each task file is its own project);
the weights are fitted as a conditional logit: the softmax over a task's candidates of log10 P + the
weighted features, its likelihood of the true line maximised (L-BFGS, an L2 penalty on the standardised
weights; tasks whose true line is not among the candidates do not count), relative to the log10
probability (its weight is 1). Each --l2 is tried; the one with the best exact match on the --valid tasks
(on the training tasks when there are none) is printed as a DEFAULT_WEIGHTS literal.

Exit status: 0 done; 2 bad usage or input (one line on stderr); 130 interrupted.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from formats.files import InputError, read_text
from unnatural import cli

from .model import FimModel, default_model, ensure_default
from .ngram import FEATURES, NgramPredictor, PredictConfig, Scorer, read_context
from .project import ProjectLines
from .tasks import FimTask, TaskError, read_tasks

PROG = "fim-fit"
L2S = (1.0, 3.0, 10.0, 30.0, 100.0)
_worker: dict = {}


@dataclass(frozen=True)
class Candidates:
    """One task's candidates: a row per candidate, [log10 P, FEATURES...], and which is the true line."""
    table: np.ndarray
    true: np.ndarray     # bool per row


def candidates(predictor: NgramPredictor, task: FimTask) -> Candidates:
    ctx = read_context(task, predictor.scheme, predictor.order, predictor.language)
    scorer = Scorer(predictor.lm, predictor.cache_for(ctx), predictor.cfg.cache_weight)
    preds = predictor.candidates(task, ctx, scorer, predictor.start(ctx))
    table = np.array([[p.lm] + [p.features.get(f, 0.0) for f in FEATURES]
                      for p in preds]).reshape(-1, 1 + len(FEATURES))
    true = np.array([p.fill.strip() == task.middle.strip() for p in preds], dtype=bool)
    return Candidates(table, true)


def exact_match(tasks: list[Candidates], weights: np.ndarray) -> float:
    """The share of tasks whose best candidate under `weights` ([1, feature weights...]) is the true line."""
    hits = sum(bool(c.true[np.argmax(c.table @ weights)]) for c in tasks if len(c.table))
    return hits / len(tasks) if tasks else 0.0


def fit(tasks: list[Candidates], l2: float) -> np.ndarray:
    """Conditional-logit weights, [1, feature weights...] (relative to log10 P)."""
    from scipy.optimize import minimize
    use = [c for c in tasks if c.true.any()]
    if not use:
        raise InputError("no task has its true line among the candidates: nothing to fit")
    x = np.vstack([c.table for c in use])
    group = np.concatenate([[i] * len(c.table) for i, c in enumerate(use)])
    starts = np.r_[0, np.flatnonzero(np.diff(group)) + 1]
    target = np.concatenate([c.true for c in use]).astype(float)
    target /= np.bincount(group, weights=target)[group]
    mean, scale = x.mean(0), x.std(0) + 1e-9
    z = (x - mean) / scale

    def loss(w):
        s = z @ w
        e = np.exp(s - np.maximum.reduceat(s, starts)[group])
        p = e / np.bincount(group, weights=e)[group]
        penalty = np.r_[0.0, w[1:]]      # the log10 probability's weight is not penalised
        return (-(target * np.log(p + 1e-300)).sum() + l2 * (penalty ** 2).sum(),
                z.T @ (p - target) + 2 * l2 * penalty)

    w = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B").x / scale
    if w[0] <= 0:
        raise InputError("the fitted weight of the log10 probability is not positive; more tasks are needed")
    return w / w[0]


def weights_literal(w: np.ndarray) -> str:
    """The weights as fim.ngram.DEFAULT_WEIGHTS is written (3 significant digits, zeros left out)."""
    pairs = [f'("{f}", {float(f"{v:.3g}")!r}),' for f, v in zip(FEATURES, w[1:]) if abs(v) >= 1e-3]
    lines = [""]
    for pair in pairs:       # a line breaks between pairs only
        if lines[-1] and len(lines[-1]) + 1 + len(pair) > 106:
            lines.append("")
        lines[-1] += (" " if lines[-1] else "") + pair
    return "DEFAULT_WEIGHTS = (\n" + "\n".join("    " + x for x in lines) + "\n)"


def _candidates(i: int) -> Candidates:
    return candidates(_worker["predictors"][_worker["owner"][i]], _worker["tasks"][i])


def read_all(paths: list[Path], model: FimModel, cfg: PredictConfig, workers: int,
             progress: bool, desc: str) -> list[Candidates]:
    """Every task's candidates, each task file being its own project."""
    tasks, owner, predictors = [], [], []
    for path in paths:
        mine = read_tasks(read_text(path), str(path))
        if any(not t.middle for t in mine):
            raise TaskError(f"{path}: a task without its middle: weights are fitted on known middles")
        predictors.append(NgramPredictor(model.lm, model.scheme, model.index, cfg,
                                         ProjectLines(mine, model.language.name)))
        owner += [len(predictors) - 1] * len(mine)
        tasks += mine
    _worker.update(tasks=tasks, owner=owner, predictors=predictors)
    indices = range(len(tasks))
    if workers > 1:
        from unnatural.parallel import ordered_map
        results = ordered_map(_candidates, indices, workers)
    else:
        results = map(_candidates, indices)
    return list(tqdm(results, total=len(tasks), desc=desc, unit="task", disable=not progress, file=sys.stderr))


@cli.command(PROG)
def main(argv=None) -> int:
    p = cli.parser(PROG, " ".join(__doc__.strip().split()))
    p.add_argument("train", nargs="+", type=Path, metavar="TASKS.json", help="task files with their middles "
                   "(bin/make-fim-tasks), each its own project")
    p.add_argument("--valid", action="append", type=Path, default=[], metavar="TASKS.json",
                   help="a task file the L2 penalty is chosen on; repeatable (default: the training tasks)")
    p.add_argument("--l2", default=",".join(f"{x:g}" for x in L2S),
                   help="comma-separated L2 penalties to try (default %(default)s)")
    cli.add_model(p, None, "the model (default: the tasks' language's default FIM model)")
    p.add_argument("--language", choices=("java", "python"), default="java",
                   help="the default model's language when no --model is given (default java)")
    p.add_argument("--beam", type=int, default=PredictConfig.beam,
                   help=f"beam width of the line generator, as bin/fim's (default {PredictConfig.beam})")
    cli.add_workers(p, "candidate processes", default=2)
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    args = p.parse_args(argv)
    progress = not args.quiet
    try:
        try:
            l2s = [float(x) for x in args.l2.split(",")]
        except ValueError:
            raise InputError(f"--l2 {args.l2}: not comma-separated numbers") from None
        path = args.model or ensure_default(default_model(args.language), PROG, progress, args.workers)
        model = FimModel(path, PROG, progress)
        cfg = PredictConfig(beam=args.beam)     # as bin/fim's (the weights only choose where the beam starts)
        train = read_all(args.train, model, cfg, args.workers, progress, "train")
        valid = read_all(args.valid, model, cfg, args.workers, progress, "valid") if args.valid else train
    except InputError as e:     # TaskError and ModelError too
        raise cli.CommandError(e) from None
    except OSError as e:
        raise cli.CommandError(f"{e.filename}: {e.strerror}") from None
    reach = sum(c.true.any() for c in valid) / len(valid)
    print(f"{PROG}: {len(train)} training tasks, {len(valid)} validation tasks (true line among the "
          f"candidates: {reach:.3f})", file=sys.stderr)
    print("l2\ttrain\tvalid")
    best = None
    for l2 in l2s:
        try:
            w = fit(train, l2)
        except InputError as e:
            raise cli.CommandError(e) from None
        em = exact_match(train, w), exact_match(valid, w)
        print(f"{l2:g}\t{em[0]:.4f}\t{em[1]:.4f}", flush=True)
        if best is None or em[1] > best[0]:
            best = (em[1], l2, w)
    print(f"# l2 {best[1]:g}: exact match {best[0]:.4f} on the validation tasks")
    print(weights_literal(best[2]))
    return cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
