"""Make CodRep-2019-style task sets from clean Java files (`bin/make-tasks`): one injected whitespace edit per
task (evaluation/injection.py), kept only when Checkstyle reports a new violation for it when a
configuration is given (evaluation/checkstyle.py), and clean files beside the tasks. The folder itself is
written by formats.codrep2019.write_task_folder.

One task per distinct base file (files equal but for whitespace count once); the clean files are other
base files of the same sources, never one with a task. The edit kinds follow the chosen mix exactly
(largest-remainder quotas over the task count): each file takes the next kind still owed, and a file none of
whose edits of that kind Checkstyle flags (at most SPOTS spots tried) gives the kind back to the next file.
"""
from __future__ import annotations

import functools
import hashlib
import random
import re
import tempfile
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from formats.codrep2019 import InjectedEdit, MadeTask, write_task_folder
from parsing.java import tokenize
from parsing.languages import get_language

from .checkstyle import Checkstyle, new_violations
from .injection import CODREP2019_MIX, MIXES, any_edit, candidates, quotas
from .real_edits import REAL_MIX, real_candidates

FIRST_ROUND = 2        # edits of a file's kind checked in the first Checkstyle batch
SPOTS = 10             # at most this many spots of that kind are tried per file
FILES_PER_BATCH = 200  # files whose edits go to Checkstyle together
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class TaskConfig:
    count: int | None = None          # tasks (default: every file not kept clean)
    clean: int = 0                    # clean files beside the tasks
    seed: int = 0
    mix: str = "codrep2019"           # evaluation.injection.MIXES
    project: str | None = None        # recorded in truth.jsonl and clean.jsonl
    checkstyle: Checkstyle | None = None
    language: str = "java"            # parsing.languages: how the files tokenize

    def __post_init__(self):
        if self.mix not in MIXES:
            raise ValueError(f"unknown mix of edits {self.mix!r} (known: {', '.join(MIXES)})")
        if self.language != "java" and (self.mix == "real" or self.checkstyle is not None):
            raise ValueError(f"{self.language}: only the codrep2019 and any mixes, without Checkstyle")


@dataclass
class TaskSummary:
    tasks: int = 0
    clean: int = 0
    files: int = 0                                # distinct base files offered
    kinds: Counter = field(default_factory=Counter)
    unparsed: int = 0                             # files Checkstyle could not parse (skipped)
    unflagged: int = 0                            # files none of whose edits Checkstyle flagged


def distinct(texts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """One file per whitespace-free content, the first in name order."""
    seen: set[bytes] = set()
    out = []
    for name, text in sorted(texts):
        key = hashlib.sha1(_WS.sub("", text).encode("utf-8")).digest()
        if key not in seen:
            seen.add(key)
            out.append((name, text))
    return out


def make_tasks(texts: list[tuple[str, str]], out: Path, cfg: TaskConfig = TaskConfig(), force: bool = False,
               progress: Callable[[int], None] | None = None) -> TaskSummary:
    """Write a task folder into `out` from (name, text) clean files; `progress` is told of files done."""
    files = distinct(texts)
    rng = random.Random(cfg.seed)
    rng.shuffle(files)
    keep_clean = min(cfg.clean, len(files))
    pool, clean = files[:len(files) - keep_clean], files[len(files) - keep_clean:]
    count = len(pool) if cfg.count is None else cfg.count
    summary = TaskSummary(files=len(files))
    if cfg.mix == "any":
        tasks = _any_tasks(pool, count, rng, progress, cfg.language)
    else:
        tasks = _mixed_tasks(pool, count, rng, cfg.checkstyle, summary, progress, cfg.mix, cfg.language)
    write_task_folder(out, tasks, clean, cfg.project, force)
    summary.tasks, summary.clean = len(tasks), len(clean)
    summary.kinds = Counter(t.edit.kind for t in tasks)
    return summary


def _any_tasks(pool, count, rng, progress, language: str = "java") -> list[MadeTask]:
    tasks = []
    for name, text in pool:
        if len(tasks) >= count:
            break
        made = any_edit(_tokenizer(language)(text), rng, language=language)
        if progress:
            progress(1)
        if made is not None:
            tasks.append(MadeTask(made[0], made[1], name))
    return tasks


# a mix of kinds of edit: its weights, and every token-preserving edit of a kind in a file
_MIXES = {"codrep2019": (CODREP2019_MIX, candidates), "real": (REAL_MIX, real_candidates)}


def _mixed_tasks(pool, count, rng, checkstyle: Checkstyle | None, summary: TaskSummary,
                 progress, mix: str = "codrep2019", language: str = "java") -> list[MadeTask]:
    """Tasks whose kinds follow the mix (CodRep 2019's, or the real slips'): each file takes the next kind
    still owed; without Checkstyle its first token-preserving edit of that kind is kept, with Checkstyle the
    first flagged. In the real mix, whose kinds need what not every file has (a blank line at the end, tabs),
    a file without the kind owed takes the next kind owed that it has, which is then paid instead."""
    weights, spots_of = _MIXES[mix]
    if language != "java":
        spots_of = functools.partial(spots_of, language=language)
    owed = [kind for kind, n in quotas(count, weights).items() for _ in range(n)]
    rng.shuffle(owed)
    queue = deque(owed)
    if mix == "real":
        def spots_of(stream, kind, rng, one=spots_of):
            for k in dict.fromkeys((kind, *queue)):
                yield from one(stream, k, rng)
    tasks: list[MadeTask] = []
    files = iter(pool)
    while queue:
        batch = []
        for name, text in files:
            batch.append((name, text, queue.popleft()))
            if not queue or len(batch) >= FILES_PER_BATCH:
                break
        if not batch:
            break
        for (_, _, kind), task in zip(batch, _verify(batch, rng, checkstyle, summary, spots_of, language)):
            if task is not None and task.edit.kind != kind:
                if task.edit.kind in queue:
                    queue.remove(task.edit.kind)
                else:
                    task = None       # another file of the batch paid that kind
            if task is None or task.edit.kind != kind:
                queue.appendleft(kind)    # the next file takes this kind
            if task is not None:
                tasks.append(task)
        if progress:
            progress(len(batch))
    return tasks


def _verify(batch, rng, checkstyle: Checkstyle | None, summary: TaskSummary,
            spots_of=candidates, language: str = "java") -> list[MadeTask | None]:
    """For each (name, text, kind) of the batch: the task kept, or None."""
    tokenize_ = _tokenizer(language)
    spots = [spots_of(tokenize_(text), kind, rng) for _, text, kind in batch]
    if checkstyle is None:
        firsts = [next(it, None) for it in spots]
        return [MadeTask(made[0], made[1], name) if made else None for made, (name, _, _) in zip(firsts, batch)]
    result: list[MadeTask | None] = [None] * len(batch)
    with tempfile.TemporaryDirectory(prefix="unnatural-tasks-") as tmp:
        folders = [Path(tmp) / str(i) for i in range(len(batch))]
        originals = []
        for folder, (_, text, _) in zip(folders, batch):
            folder.mkdir()
            originals.append(folder / "Original.java")
            originals[-1].write_text(text, encoding="utf-8", newline="")
        base = checkstyle.check(originals)
        open_ = [i for i, p in enumerate(originals) if base[p] is not None]
        summary.unparsed += len(batch) - len(open_)
        tried = [0] * len(batch)
        for round_size in (FIRST_ROUND, SPOTS - FIRST_ROUND):
            pending: list[tuple[int, Path, str, InjectedEdit]] = []
            for i in open_:
                for made in _take(spots[i], round_size):
                    path = folders[i] / f"Edit{tried[i]}.java"
                    tried[i] += 1
                    path.write_text(made[0], encoding="utf-8", newline="")
                    pending.append((i, path, *made))
            if not pending:
                break
            found = checkstyle.check([path for _, path, _, _ in pending])
            for i, path, text, edit in pending:
                if result[i] is not None or found[path] is None:
                    continue
                new = new_violations(base[originals[i]], found[path], edit.line, edit.lines_added)
                if new:
                    nearest = min(new, key=lambda v: abs(v.line - edit.line))
                    result[i] = MadeTask(text, edit, batch[i][0], nearest.describe())
            open_ = [i for i in open_ if result[i] is None]
            if not open_:
                break
        summary.unflagged += len(open_)
    return result


def _tokenizer(language: str):
    return tokenize if language == "java" else get_language(language).tokenize


def _take(iterator, n: int) -> list:
    out = []
    for item in iterator:
        out.append(item)
        if len(out) >= n:
            break
    return out
