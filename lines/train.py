"""Train the line ranker from CodRep 2018 data sets: LM, stage-1 and stage-2 LightGBM lambdarank models.

The LM and stage-1 scores that become features of a training task must not have seen that task's file
(the `text`-scheme LM would otherwise remember the very line that was replaced, and the ranker would learn
to trust it more than it deserves on new files). So files are split into folds by the hash of their
content; a task's LM features come from the LM built on the other folds and its stage-1 score from the
stage-1 model trained on the other folds. The shipped LM and stage-1 model are trained on everything.
"""
from __future__ import annotations

import json
import math
import os
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from tqdm import tqdm

from formats.codrep2018 import TaskError, is_dataset, iter_dataset, read_task, task_body
from formats.sources import RawFile
from lm.build import build_folds
from lm.corpus import fold_of
from lm.model import LanguageModel
from unnatural import cli
from unnatural.signature import versions

from .batch import forkserver_pool
from .features import CHEAP_NAMES, RICH_NAMES, cheap_features, prepare, rich_features
from .model import LM_FILE, SIGNATURE, STAGE1, STAGE2, RankerConfig, stage2_inputs

STAGE1_PARAMS = dict(objective="lambdarank", learning_rate=0.1, num_leaves=31, min_data_in_leaf=40,
                     feature_fraction=0.9, lambdarank_truncation_level=16, verbose=-1, seed=1)
STAGE2_PARAMS = dict(objective="lambdarank", learning_rate=0.05, num_leaves=31, min_data_in_leaf=40,
                     feature_fraction=0.9, lambdarank_truncation_level=8, verbose=-1, seed=1)


@dataclass(frozen=True)
class TrainConfig:
    sources: tuple[str, ...]
    output: Path
    ranker: RankerConfig = field(default_factory=RankerConfig)
    workers: int = 2
    rounds1: int = 200
    rounds2: int = 300
    stage1_tasks: int = 6000      # stage 1 learns from at most this many tasks (it only has to keep the
    stage1_rows: int = 24         # answer in its top K) and from the best rows of each by the first pass
    threads: int = 1              # LightGBM threads: OpenMP barely gains on 2 busy cores and can lose
    limit: int | None = None      # use only the first N tasks of each source (quick runs, tests)
    progress: bool = True


@dataclass(frozen=True)
class TrainTask:
    path: str
    solution: int      # 1-based
    fold: int


def _log(msg: str) -> None:
    tqdm.write(msg, file=sys.stderr)


# ------------------------------------------------------------------------------------------ workers

def _cheap_job(job):
    path, solution, prefilter = job
    try:
        task = read_task(path)
    except TaskError as e:
        return path, None, str(e)
    if not 1 <= solution <= len(task.lines):
        return path, None, f"{path}: solution {solution} outside 1..{len(task.lines)}"
    prep = prepare(task.new_line, task.lines, prefilter)
    feats = cheap_features(task.new_line, task.lines, prep)
    where = np.flatnonzero(prep.candidates == solution - 1)
    return path, (feats, prep.candidates.astype(np.int32), int(where[0]) if len(where) else -1), None


_LMS: dict = {}


def _load_lms(paths: dict):
    _LMS.clear()
    for key, p in paths.items():
        _LMS[key] = LanguageModel(p).load()


def _rich_job(job):
    path, lm_key, top, s1_top = job
    task = read_task(path)
    return rich_features(task.new_line, task.lines, top, s1_top, _LMS.get(lm_key))


# ------------------------------------------------------------------------------------------ steps

def collect_tasks(sources, limit=None) -> list[tuple[str, int]]:
    out = []
    for src in sources:
        if not is_dataset(Path(src)):
            raise TaskError(f"{src}: not a CodRep 2018 data set (needs Tasks/ and Solutions/)")
        items = list(iter_dataset(src))
        out.extend(items[:limit] if limit else items)
    if not out:
        raise TaskError("no task with a solution in " + ", ".join(sources))
    return out


def program_files(items, sources, folds: int) -> tuple[list[RawFile], dict[str, int]]:
    """The program (file body) of each task, and each task's fold (by the program's content, so copies of a
    program share a fold); a task whose file cannot be read has no fold and is left out."""
    source_of = {os.path.abspath(s): s for s in sources}
    files, fold = [], {}
    for path, _ in items:
        try:
            body = task_body(Path(path).read_bytes())
        except OSError:
            continue
        fold[path] = fold_of(body, folds)
        files.append(RawFile(source_of.get(str(Path(path).parent.parent), path), path, body, "codrep2018"))
    return files, fold


def train_lambdarank(params: dict, blocks, rounds: int, threads: int, names):
    """blocks: list of (features, positive row index); groups without a positive are skipped."""
    import lightgbm as lgb
    use = [(x, p) for x, p in blocks if p >= 0]
    X = np.vstack([x for x, _ in use])
    y = np.zeros(len(X), dtype=np.float32)
    offset = 0
    for x, p in use:
        y[offset + p] = 1.0
        offset += len(x)
    data = lgb.Dataset(X, y, group=[len(x) for x, _ in use], feature_name=list(names),
                       params={"max_bin": 255, "verbose": -1})
    return lgb.train(dict(params, num_threads=threads), data, num_boost_round=rounds)


def stage1_sample(blocks, prep_scores, idx, max_tasks: int, rows: int, seed: int = 1):
    """Training groups for stage 1: at most `max_tasks` of the tasks `idx` (a fixed random choice), each cut
    to its `rows` best candidates by the first-pass score plus the answer."""
    idx = np.asarray(idx)
    if len(idx) > max_tasks:
        idx = np.sort(np.random.default_rng(seed).choice(idx, max_tasks, replace=False))
    out = []
    for i in idx:
        x, pos = blocks[i]
        if pos < 0:
            continue
        keep = np.argsort(-prep_scores[i], kind="stable")[:rows]
        if pos not in keep:
            keep = np.append(keep, pos)
        keep = np.sort(keep)
        out.append((x[keep], int(np.flatnonzero(keep == pos)[0])))
    return out


def single_feature_scores(blocks, cands, solutions) -> dict[tuple[str, float], tuple[float, float]]:
    """(feature, sign) -> (average line error, Recall@1) of ranking candidates by that feature alone."""
    out = {}
    for j, name in enumerate(CHEAP_NAMES):
        for sign in (1.0, -1.0):
            losses, hits = [], 0
            for (x, _), c, sol in zip(blocks, cands, solutions):
                best = int(c[int(np.argmax(sign * x[:, j]))]) + 1
                losses.append(math.tanh(abs(best - sol)))
                hits += best == sol
            out[(name, sign)] = (math.fsum(losses) / len(losses), hits / len(losses))
    return out


def train(cfg: TrainConfig) -> dict:
    t0 = time.time()
    rc = cfg.ranker
    out = Path(cfg.output)
    out.mkdir(parents=True, exist_ok=True)
    items = collect_tasks(cfg.sources, cfg.limit)
    _log(f"train-line-ranker: {len(items):,} tasks from {', '.join(cfg.sources)}")
    seconds = {}
    with tempfile.TemporaryDirectory(prefix="unnatural-lines-", dir=out) as tmpdir:
        tmp = Path(tmpdir)
        # LMs through lm.build: one per fold without that fold (for training features), one on everything
        # (shipped); the folds split the programs by content hash
        programs, fold = program_files(items, cfg.sources, rc.folds)
        lm_sig, lm_paths, corpus = build_folds(programs, cfg.sources, "text", rc.lm_order, rc.folds, out / LM_FILE,
                                               tmp, cfg.workers, cfg.progress)
        seconds["tokenize"] = lm_sig["seconds"]["tokenize"]
        seconds["lm"] = round(lm_sig["seconds"]["total"] - lm_sig["seconds"]["tokenize"], 1)

        # stage 1: cheap features of the prefiltered candidates of every task
        t = time.time()
        kept = [(p, s) for p, s in items if p in fold]
        with forkserver_pool(cfg.workers) as pool:
            jobs = pool.imap(_cheap_job, [(p, s, rc.prefilter) for p, s in kept], chunksize=16)
            rows = []
            for (p, s), (path, res, err) in tqdm(zip(kept, jobs), total=len(kept), desc="stage-1 features",
                                                unit="task", disable=not cfg.progress, file=sys.stderr):
                if res is None:
                    _log(f"{cli.running_command()}: warning: {err}; skipped")
                    continue
                rows.append((TrainTask(p, s, fold[p]), res))
        tasks = [r[0] for r in rows]
        blocks = [(r[1][0], r[1][2]) for r in rows]
        cands = [r[1][1] for r in rows]
        i_indel, i_idf = CHEAP_NAMES.index("indel"), CHEAP_NAMES.index("idf")
        first_pass = [x[:, i_indel] + x[:, i_idf] for x, _ in blocks]
        seconds["stage1_features"] = round(time.time() - t, 1)
        t = time.time()
        folds = np.array([tk.fold for tk in tasks])
        oof = [None] * len(tasks)
        for f in tqdm(range(rc.folds), desc="stage-1 fold models", unit="fold", disable=not cfg.progress,
                      file=sys.stderr):
            inside = np.flatnonzero(folds == f)
            train_idx = np.flatnonzero(folds != f)
            if not len(inside):
                continue
            if not len(train_idx):
                train_idx = inside
            sample = stage1_sample(blocks, first_pass, train_idx, cfg.stage1_tasks, cfg.stage1_rows, seed=f + 1)
            booster = train_lambdarank(STAGE1_PARAMS, sample, cfg.rounds1, cfg.threads, CHEAP_NAMES)
            for i in inside:
                oof[i] = booster.predict(blocks[i][0], num_threads=1)
        sample = stage1_sample(blocks, first_pass, np.arange(len(blocks)), cfg.stage1_tasks, cfg.stage1_rows)
        stage1 = train_lambdarank(STAGE1_PARAMS, sample, cfg.rounds1, cfg.threads, CHEAP_NAMES)
        stage1.save_model(str(out / STAGE1))
        seconds["stage1_train"] = round(time.time() - t, 1)

        # stage 2: rich features of the stage-1 top K, LM of the other folds
        t = time.time()
        jobs2, meta = [], []
        for i, tk in enumerate(tasks):
            pos = stage2_inputs(oof[i], rc.top_k)
            jobs2.append((tk.path, tk.fold if tk.fold in lm_paths else None, cands[i][pos], oof[i][pos]))
            hit = np.flatnonzero(pos == blocks[i][1])
            meta.append((pos, int(hit[0]) if len(hit) else -1))
        blocks2 = []
        with forkserver_pool(cfg.workers, initializer=_load_lms,
                             initargs=({k: str(v) for k, v in lm_paths.items()},)) as pool:
            res = pool.imap(_rich_job, jobs2, chunksize=8)
            for i, rich in enumerate(tqdm(res, total=len(jobs2), desc="stage-2 features", unit="task",
                                          disable=not cfg.progress, file=sys.stderr)):
                pos, hit = meta[i]
                blocks2.append((np.hstack([blocks[i][0][pos], rich]), hit))
        seconds["stage2_features"] = round(time.time() - t, 1)
        t = time.time()
        stage2 = train_lambdarank(STAGE2_PARAMS, blocks2, cfg.rounds2, cfg.threads, CHEAP_NAMES + RICH_NAMES)
        stage2.save_model(str(out / STAGE2))
        seconds["stage2_train"] = round(time.time() - t, 1)

    # the best single feature on the training tasks: the baseline to beat
    solutions = [tk.solution for tk in tasks]
    singles = single_feature_scores(blocks, cands, solutions)
    (best_name, best_sign), (best_err, best_r1) = min(singles.items(), key=lambda kv: kv[1][0])
    in_top = sum(1 for _, hit in blocks2 if hit >= 0) / max(len(blocks2), 1)
    seconds["total"] = round(time.time() - t0, 1)
    size = sum(p.stat().st_size for p in out.iterdir() if p.is_file())
    signature = {
        "task": "codrep2018-lines",
        "config": asdict(rc),
        "sources": [Path(s.rstrip("/")).name for s in cfg.sources],
        "source_paths": [os.path.abspath(s) for s in cfg.sources],
        "tasks": len(tasks),
        "programs": corpus.files,
        "lm_tokens": corpus.tokens,
        "features": {"stage1": list(CHEAP_NAMES), "stage2": list(CHEAP_NAMES + RICH_NAMES)},
        "params": {"stage1": STAGE1_PARAMS, "stage2": STAGE2_PARAMS, "rounds1": cfg.rounds1,
                   "rounds2": cfg.rounds2, "stage1_tasks": cfg.stage1_tasks, "stage1_rows": cfg.stage1_rows},
        "baseline": {"feature": best_name, "sign": best_sign, "train_error": round(best_err, 5),
                     "train_recall_at_1": round(best_r1, 5)},
        "train_recall": {"prefilter": round(sum(1 for _, p in blocks if p >= 0) / max(len(blocks), 1), 5),
                         f"stage1_top{rc.top_k}": round(in_top, 5)},
        "versions": versions("lightgbm", "rapidfuzz", "numpy"),
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seconds": seconds,
        "model_bytes": size,
    }
    (out / SIGNATURE).write_text(json.dumps(signature, indent=2) + "\n")
    signature["model_bytes"] = sum(p.stat().st_size for p in out.iterdir() if p.is_file())
    (out / SIGNATURE).write_text(json.dumps(signature, indent=2) + "\n")
    return signature
