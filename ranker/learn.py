"""Learning a repository's style without labels, before its files are ranked (bin/rank --adapt, bin/check).

Methods (chosen on the detection development sets, docs/detection.md):
- none: the n-gram model alone; file: each file's own gap counts (the default of bin/rank);
- folder: the file's own counts on top of the other files' counts as their prior (ranker/folder.py);
- project: a KenLM model of the repository's own files, interpolated with the general model, each file
  scored by the model of the folds it is not in (k folds by content hash, built through lm.build); plus
  the file's own counts;
- folder+project: both.

`learn` returns a `Learned`: for each path, the Scorer (general model, or general + project model) and
the Style to rank it with (`rank_text(learned.scorer(path), scheme, text, path, learned.adapt,
learned.style(path))`).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from formats.files import InputError, read_source
from formats.sources import RawFile
from lm.model import LanguageModel
from parsing.schemes import get_scheme
from unnatural import cli

from .rank import Style
from .repairs import DEFAULT_EDITS
from .score import Scorer

METHODS = ("none", "file", "folder", "folder-strict", "project", "folder+project")
# The project model, chosen on the development sets' subsets (150 tasks + 150 clean files each; means of
# MRR / AUC, --adapt project): weight 0.02: 0.9548 / 0.9275, 0.05: 0.9582 / 0.9275, 0.1: 0.9597 / 0.9274,
# 0.3: 0.9532 / 0.9252, 0.5: 0.9505 / 0.9209; at 0.1, order 6: 0.9591 / 0.9290, 5 folds: 0.9579 / 0.9249.
FOLDS = 2
ORDER = 5
WEIGHT = 0.1


@dataclass(frozen=True)
class LearnConfig:
    method: str = "file"
    folds: int = FOLDS         # project model: files are split into this many folds by content hash
    order: int = ORDER         # project model: n-gram order
    weight: float = WEIGHT     # project model: its weight in the interpolation with the general model

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"unknown learning method {self.method!r} (choose from {', '.join(METHODS)})")
        if self.folds < 2:
            raise ValueError(f"folds {self.folds}: a project model needs at least 2 folds")
        if not 0.0 <= self.weight <= 1.0:
            raise ValueError(f"project weight {self.weight} is outside 0..1")

    @property
    def folder(self) -> bool:
        return self.method.startswith("folder")

    @property
    def project(self) -> bool:
        return self.method.endswith("project")

    def fields(self) -> list[tuple[str, object]]:
        """What the signature line says about the learning."""
        out: list[tuple[str, object]] = [("adapt", self.method)]
        if self.project:
            out.append(("project", f"k{self.folds}-o{self.order}@{self.weight}"))
        return out


@dataclass
class Learned:
    """What was learned: per path, the scorer and the style to rank it with."""
    config: LearnConfig
    general: Scorer | None        # the general model's (None: never loaded here, as bin/rank --cluster)
    styles: Callable[[str], Style] | None = None
    scorers: dict[int, Scorer] = field(default_factory=dict)   # fold -> general + the model without it
    fold: dict[str, int] = field(default_factory=dict)         # path -> its fold
    seconds: dict[str, float] = field(default_factory=dict)    # time spent learning, by part

    @property
    def adapt(self) -> bool:
        """Whether the file's own counts adapt its scores (every method but none)."""
        return self.config.method != "none"

    def scorer(self, path: str) -> Scorer:
        """The general model interpolated with a project model that never saw `path`, or the general model
        alone (no project model was learned, or only `path`'s own fold has files)."""
        if path not in self.fold:    # not learned from: any project model is one that never saw it
            return next(iter(self.scorers.values()), self.general)
        return self.scorers.get(self.fold[path], self.general)   # its fold's complement may have no file

    def style(self, path: str) -> Style:
        return self.styles(path) if self.styles is not None else Style()


def learn(paths: list[str], general: LanguageModel, config: LearnConfig, scorer: Scorer | None = None,
          workers: int | None = None, progress: bool = False, max_bytes: int | None = None) -> Learned:
    """Learn from the files `paths` (unreadable ones are skipped: they are reported when ranked) on top of
    the general model; `scorer`: its Scorer (None: the files are ranked elsewhere, and only the folder's
    counts are learned here). `workers`: processes reading the files (folder) and tokenizing a project
    model's corpus. Files above `max_bytes` are skipped, as unreadable ones."""
    scheme = get_scheme(general.scheme)
    out = Learned(config, scorer)
    if config.folder:
        from .folder import folder_style  # the folder's counts, with numpy: not when ranking files alone
        t0 = time.time()
        out.styles = folder_style(paths, scheme, config.method == "folder-strict", workers or 1, max_bytes)
        out.seconds["folder"] = round(time.time() - t0, 2)
    if config.project:
        if scorer is None:
            raise ValueError("a project model is learned only where the files are ranked (give the scorer)")
        t0 = time.time()
        out.scorers, out.fold = project_scorers(paths, general, config, workers, progress, max_bytes,
                                                scorer.edits)
        out.seconds["project"] = round(time.time() - t0, 2)
    return out


def project_scorers(paths: list[str], general: LanguageModel, config: LearnConfig, workers: int | None = None,
                    progress: bool = False, max_bytes: int | None = None,
                    edits: str = DEFAULT_EDITS) -> tuple[dict[int, Scorer], dict[str, int]]:
    """For each fold, a scorer (error model `edits`) of the general model interpolated with a model of the
    other folds' files (built by lm.build in a temporary folder, removed once the models are loaded: KenLM
    maps them); and each path's fold."""
    from lm.build import EmptyCorpus, held_out_models  # the build pipeline: only when a project model is learned
    from lm.corpus import fold_of  # (tqdm: not when ranking files alone)
    files, fold = [], {}
    for p in paths:
        try:
            data = read_source(Path(p), max_bytes).encode("utf-8")
        except InputError:
            continue    # reported when the file itself is ranked
        files.append(RawFile("repository", p, data, "java"))
        fold[p] = fold_of(data, config.folds)
    with cli.temporary_folder(prefix="unnatural-learn-") as tmp:
        try:
            models, _ = held_out_models(files, ("repository",), general.scheme, config.order, config.folds, tmp,
                                        workers, progress)
        except EmptyCorpus:   # no file with a token: nothing to learn, the general model alone ranks
            return {}, fold
        scorers = {f: Scorer(general, LanguageModel(m), config.weight, edits) for f, m in models.items()}
    return scorers, fold
