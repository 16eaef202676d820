"""The two-stage line ranker: what a model directory holds and how one task is ranked with it.

    DIR/lm.bin (+ lm.bin.json)   KenLM model over the `text` scheme (identifiers kept)
    DIR/stage1.txt               LightGBM lambdarank over CHEAP_NAMES, for the prefiltered candidates
    DIR/stage2.txt               LightGBM lambdarank over CHEAP_NAMES + RICH_NAMES, for the stage-1 top K
    DIR/signature.json           configuration, feature names, versions, training figures, baseline

Ranking a task: `prepare` scores every line cheaply and keeps ~64 candidates; stage 1 orders them; stage 2
re-orders the best K with token, parse and LM features. The output lists every line of the file: the K
in stage-2 order, the other candidates in stage-1 order, then all remaining lines by similarity.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from formats.codrep2018 import Task
from lm.model import LanguageModel
from unnatural.signature import signature

from .features import CHEAP_NAMES, PREFILTER, RICH_NAMES, cheap_features, prepare, rich_features

SIGNATURE = "signature.json"
LM_FILE = "lm.bin"
STAGE1 = "stage1.txt"
STAGE2 = "stage2.txt"


class ModelError(ValueError):
    pass


@dataclass(frozen=True)
class RankerConfig:
    top_k: int = 8             # candidates re-ranked by stage 2
    prefilter: int = PREFILTER
    lm_order: int = 4
    folds: int = 2             # cross-fitting folds for the LM and stage-1 features of the training tasks


@dataclass(frozen=True)
class Ranked:
    path: str
    lines: tuple[int, ...]     # every line of the program, 1-based, best first


def order_lines(n: int, prep_scores: np.ndarray, cands: np.ndarray, s1: np.ndarray,
                top: np.ndarray, s2: np.ndarray | None) -> tuple[int, ...]:
    """Every 0-based line once: `top` by s2 (when given), other candidates by s1, the rest by prep_scores.
    Ties keep file order (a stable sort), so the output is deterministic."""
    seen = np.zeros(n, dtype=bool)
    out: list[int] = []
    if s2 is not None and len(top):
        first = top[np.argsort(-s2, kind="stable")]
        out.extend(first.tolist())
        seen[first] = True
    by_s1 = cands[np.argsort(-s1, kind="stable")]
    out.extend(i for i in by_s1.tolist() if not seen[i])
    seen[cands] = True
    rest = np.flatnonzero(~seen)
    out.extend(rest[np.argsort(-prep_scores[rest], kind="stable")].tolist())
    return tuple(out)


def stage2_inputs(s1: np.ndarray, k: int) -> np.ndarray:
    """Positions (into the candidate array) of the stage-1 top k, best first (stable on ties)."""
    return np.argsort(-s1, kind="stable")[:k]


def rank_task(task: Task, stage1, stage2, lm, cfg: RankerConfig) -> Ranked:
    prep = prepare(task.new_line, task.lines, cfg.prefilter)
    cheap = cheap_features(task.new_line, task.lines, prep)
    s1 = stage1.predict(cheap, num_threads=1)
    pos = stage2_inputs(s1, cfg.top_k)
    top = prep.candidates[pos]
    rich = rich_features(task.new_line, task.lines, top, s1[pos], lm)
    s2 = stage2.predict(np.hstack([cheap[pos], rich]), num_threads=1)
    order = order_lines(len(task.lines), prep.indel + prep.idf_overlap, prep.candidates, s1, top, s2)
    return Ranked(task.path, tuple(i + 1 for i in order))


def rank_task_single(task: Task, feature: str, sign: float, cfg: RankerConfig) -> Ranked:
    """The baseline: rank the candidates by one cheap feature alone (sign +1: higher is better)."""
    prep = prepare(task.new_line, task.lines, cfg.prefilter)
    cheap = cheap_features(task.new_line, task.lines, prep)
    s1 = sign * cheap[:, CHEAP_NAMES.index(feature)]
    order = order_lines(len(task.lines), prep.indel + prep.idf_overlap, prep.candidates, s1, prep.candidates[:0], None)
    return Ranked(task.path, tuple(i + 1 for i in order))


class LineRanker:
    """A trained model directory, loaded."""

    def __init__(self, model_dir: str | Path):
        import lightgbm as lgb

        d = Path(model_dir)
        sig_path = d / SIGNATURE
        if not sig_path.is_file():
            raise ModelError(f"{d}: not a line-ranker model (no {SIGNATURE}; train one with bin/train-line-ranker)")
        self.dir = d
        self.signature = json.loads(sig_path.read_text())
        if tuple(self.signature.get("features", {}).get("stage1", ())) != CHEAP_NAMES or \
                tuple(self.signature.get("features", {}).get("stage2", ())) != CHEAP_NAMES + RICH_NAMES:
            raise ModelError(f"{d}: trained with other features than this version computes; retrain it")
        self.cfg = RankerConfig(**self.signature["config"])
        self.stage1 = lgb.Booster(model_file=str(d / STAGE1))
        self.stage2 = lgb.Booster(model_file=str(d / STAGE2))
        self.lm = LanguageModel(d / LM_FILE).load()
        base = self.signature.get("baseline", {})
        self.baseline = (base.get("feature", "indel"), float(base.get("sign", 1.0)))

    def rank(self, task: Task) -> Ranked:
        return rank_task(task, self.stage1, self.stage2, self.lm, self.cfg)

    def rank_baseline(self, task: Task) -> Ranked:
        return rank_task_single(task, self.baseline[0], self.baseline[1], self.cfg)

    def signature_line(self) -> str:
        s = self.signature
        v = s.get("versions", {})
        return signature("line-ranker", [
            ("model", self.dir), ("stage1", f"lambdarank({len(CHEAP_NAMES)}f)"),
            ("stage2", f"lambdarank({len(CHEAP_NAMES) + len(RICH_NAMES)}f,top{self.cfg.top_k})"),
            ("lm", f"text-o{self.cfg.lm_order}"),
            ("trained", f"{'+'.join(s.get('sources', []))}({s.get('tasks', '?')}tasks)"),
            *((tool, v.get(tool)) for tool in ("lightgbm", "kenlm", "tree-sitter-java", "rapidfuzz", "unnatural"))])
