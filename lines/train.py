"""Train the line ranker from CodRep 2018 data sets: LM, stage-1 and stage-2 LightGBM lambdarank models.

The LM and stage-1 scores that become features of a training task must not have seen that task's file
(the `text`-scheme LM would otherwise remember the very line that was replaced, and the ranker would learn
to trust it more than it deserves on new files). So files are split into folds by the hash of their
content; a task's LM features come from the LM built on the other folds and its stage-1 score from the
stage-1 model trained on the other folds. The shipped LM and stage-1 model are trained on everything.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from importlib import metadata
import multiprocessing
from pathlib import Path

import numpy as np
from tqdm import tqdm

from lm.kenlm_tools import build_binary, lmplz
from lm.signature import versions
from lm.sources import codrep2018_body
from parsing.java import tokenize
from parsing.schemes import get_scheme

from .features import CHEAP_NAMES, RICH_NAMES, cheap_features, prepare, rich_features
from .model import LM_FILE, SIGNATURE, STAGE1, STAGE2, RankerConfig, stage2_inputs
from .tasks import TaskError, iter_dataset, read_task

STAGE1_PARAMS = dict(objective="lambdarank", learning_rate=0.1, num_leaves=31, min_data_in_leaf=40,
                     feature_fraction=0.9, lambdarank_truncation_level=16, verbose=-1, seed=1)
STAGE2_PARAMS = dict(objective="lambdarank", learning_rate=0.05, num_leaves=31, min_data_in_leaf=40,
                     feature_fraction=0.9, lambdarank_truncation_level=8, verbose=-1, seed=1)


def _pool(workers, initializer=None, initargs=()):
    """Worker processes started by a fresh server, not forked: LightGBM's OpenMP runtime deadlocks in a
    child forked after the parent used it."""
    return multiprocessing.get_context("forkserver").Pool(workers, initializer=initializer, initargs=initargs)


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


def all_versions() -> dict:
    v = versions()
    for dist in ("lightgbm", "rapidfuzz", "numpy"):
        try:
            v[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            v[dist] = "absent"
    return v


def _log(msg: str) -> None:
    tqdm.write(msg, file=sys.stderr)


# ------------------------------------------------------------------------------------------ workers

def _corpus_job(path: str):
    """Task file -> (digest of its program, `text`-scheme corpus line or None)."""
    try:
        body = codrep2018_body(Path(path).read_bytes())
    except OSError:
        return path, None, None
    digest = hashlib.sha1(body).digest()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return path, digest, None
    stream = tokenize(text)
    if not len(stream):
        return path, digest, None
    return path, digest, " ".join(get_scheme("text").symbols(stream))


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
    import kenlm
    _LMS.clear()
    for key, p in paths.items():
        _LMS[key] = kenlm.Model(str(p))


def _rich_job(job):
    path, lm_key, top, s1_top = job
    task = read_task(path)
    return rich_features(task.new_line, task.lines, top, s1_top, _LMS.get(lm_key))


# ------------------------------------------------------------------------------------------ steps

def collect_tasks(sources, limit=None) -> list[tuple[str, int]]:
    out = []
    for src in sources:
        if not (Path(src) / "Tasks").is_dir() or not (Path(src) / "Solutions").is_dir():
            raise TaskError(f"{src}: not a CodRep 2018 data set (needs Tasks/ and Solutions/)")
        items = list(iter_dataset(src))
        out.extend(items[:limit] if limit else items)
    if not out:
        raise TaskError("no task with a solution in " + ", ".join(sources))
    return out


def write_fold_corpora(items, folds: int, tmp: Path, pool, progress: bool):
    """Tokenize each distinct program once; write fold corpora; return {task path: fold} and counts."""
    fold_of_path: dict[str, int] = {}
    seen: set[bytes] = set()
    handles = [open(tmp / f"fold{f}.txt", "w", encoding="utf-8") for f in range(folds)]
    files = [0] * folds
    tokens = [0] * folds
    try:
        jobs = pool.imap(_corpus_job, [p for p, _ in items], chunksize=8)
        for path, digest, line in tqdm(jobs, total=len(items), desc="tokenizing programs", unit="task",
                                       disable=not progress, file=sys.stderr):
            if digest is None:
                continue
            fold = digest[0] % folds
            fold_of_path[path] = fold
            if digest in seen or line is None:
                continue
            seen.add(digest)
            handles[fold].write(line + "\n")
            files[fold] += 1
            tokens[fold] += (line.count(" ") + 1) // 2
    finally:
        for h in handles:
            h.close()
    return fold_of_path, files, tokens


def build_lm(corpora: list[Path], out: Path, order: int, tmp: Path) -> list[str]:
    """lmplz + build_binary on the concatenation of `corpora`."""
    if len(corpora) == 1:
        corpus = corpora[0]
    else:
        corpus = tmp / f"{out.name}.corpus.txt"
        with open(corpus, "wb") as dst:
            for c in corpora:
                with open(c, "rb") as src:
                    shutil.copyfileobj(src, dst)
    arpa = tmp / f"{out.name}.arpa"
    args = lmplz(corpus, arpa, order, tmp)
    build_binary(arpa, out)
    arpa.unlink()
    if corpus not in corpora:
        corpus.unlink()
    return args


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
        with _pool(cfg.workers) as pool:
            fold_of, files, tokens = write_fold_corpora(items, rc.folds, tmp, pool, cfg.progress)
        seconds["tokenize"] = round(time.time() - t0, 1)
        # LMs: one per fold without that fold (for training features), one on everything (shipped)
        t = time.time()
        corpora = [tmp / f"fold{f}.txt" for f in range(rc.folds)]
        lm_paths = {}
        bar = tqdm(total=rc.folds + 1, desc="building LMs", unit="lm", disable=not cfg.progress, file=sys.stderr)
        for f in range(rc.folds):
            others = [c for g, c in enumerate(corpora) if g != f and files[g]]
            if others:
                lm_paths[f] = tmp / f"lm-not{f}.bin"
                build_lm(others, lm_paths[f], rc.lm_order, tmp)
            bar.update()
        lm_args = build_lm([c for g, c in enumerate(corpora) if files[g]], out / LM_FILE, rc.lm_order, tmp)
        bar.update()
        bar.close()
        lm_sig = {"order": rc.lm_order, "scheme": "text", "sources": [{"source": s} for s in cfg.sources],
                  "files": sum(files), "tokens": sum(tokens), "lmplz": lm_args, "versions": versions(),
                  "binary_bytes": (out / LM_FILE).stat().st_size}
        (out / (LM_FILE + ".json")).write_text(json.dumps(lm_sig, indent=2) + "\n")
        seconds["lm"] = round(time.time() - t, 1)

        # stage 1: cheap features of the prefiltered candidates of every task
        t = time.time()
        kept = [(p, s) for p, s in items if p in fold_of]
        with _pool(cfg.workers) as pool:
            jobs = pool.imap(_cheap_job, [(p, s, rc.prefilter) for p, s in kept], chunksize=16)
            rows = []
            for (p, s), (path, res, err) in tqdm(zip(kept, jobs), total=len(kept), desc="stage-1 features",
                                                unit="task", disable=not cfg.progress, file=sys.stderr):
                if res is None:
                    _log(f"warning: {err}; skipped")
                    continue
                rows.append((TrainTask(p, s, fold_of[p]), res))
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
        with _pool(cfg.workers, initializer=_load_lms, initargs=({k: str(v) for k, v in lm_paths.items()},)) as pool:
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
        "programs": sum(files),
        "lm_tokens": sum(tokens),
        "features": {"stage1": list(CHEAP_NAMES), "stage2": list(CHEAP_NAMES + RICH_NAMES)},
        "params": {"stage1": STAGE1_PARAMS, "stage2": STAGE2_PARAMS, "rounds1": cfg.rounds1,
                   "rounds2": cfg.rounds2, "stage1_tasks": cfg.stage1_tasks, "stage1_rows": cfg.stage1_rows},
        "baseline": {"feature": best_name, "sign": best_sign, "train_error": round(best_err, 5),
                     "train_recall_at_1": round(best_r1, 5)},
        "train_recall": {"prefilter": round(sum(1 for _, p in blocks if p >= 0) / max(len(blocks), 1), 5),
                         f"stage1_top{rc.top_k}": round(in_top, 5)},
        "versions": all_versions(),
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seconds": seconds,
        "model_bytes": size,
    }
    (out / SIGNATURE).write_text(json.dumps(signature, indent=2) + "\n")
    signature["model_bytes"] = sum(p.stat().st_size for p in out.iterdir() if p.is_file())
    (out / SIGNATURE).write_text(json.dumps(signature, indent=2) + "\n")
    return signature
