"""Corpus files -> KenLM training text: one line per distinct file, its symbols separated by spaces.

Identical files are read once. With several outputs (folds), each distinct file goes to the fold its content
hash picks (`fold_of`), so a file and its copies are always in the same fold.
"""
from __future__ import annotations

import hashlib
import os
import sys
from contextlib import ExitStack
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path
from typing import Iterable, Sequence

from tqdm import tqdm

from formats.files import InputError, decode
from formats.sources import RawFile
from parsing.schemes import get_scheme
from unnatural import cli


@dataclass
class SourceStats:
    source: str
    files: int = 0          # distinct files that went into the corpus
    tokens: int = 0         # Java tokens (symbols are 2 * tokens + 1 per file)
    skipped: int = 0        # failed to decode
    duplicates: int = 0     # identical to a file already read


@dataclass
class CorpusStats:
    scheme: str
    sources: list[SourceStats] = field(default_factory=list)
    fold_files: list[int] = field(default_factory=list)    # distinct files per output
    fold_tokens: list[int] = field(default_factory=list)   # their tokens

    @property
    def files(self) -> int:
        return sum(s.files for s in self.sources)

    @property
    def tokens(self) -> int:
        return sum(s.tokens for s in self.sources)

    @property
    def skipped(self) -> int:
        return sum(s.skipped for s in self.sources)


def fold_of(data: bytes, folds: int) -> int:
    """The fold of a file's content (the same for every copy of it)."""
    return _fold(hashlib.sha1(data).digest(), folds)


def _fold(digest: bytes, folds: int) -> int:
    return digest[0] % folds


def _warn(message: str) -> None:
    tqdm.write(f"warning: {message}", file=sys.stderr)


def _encode(job):
    """Worker: raw bytes -> (corpus line, token count) or (None, reason)."""
    index, name, data, scheme_name = job
    try:
        text = decode(data, name)
    except InputError as e:
        return index, None, str(e)
    scheme = get_scheme(scheme_name)
    stream = scheme.tokenize(text)
    if not len(stream):
        return index, None, "no tokens"
    return index, " ".join(scheme.symbols(stream)), len(stream)


def write_corpus(files: Iterable[RawFile], scheme: str, outs: Path | Sequence[Path], workers: int | None = None,
                 progress: bool = True, sources: Sequence[str] = ()) -> CorpusStats:
    """Tokenize the distinct `files` (in parallel, in order) into `outs` (one path, or one per fold).
    `sources`: the SOURCE arguments, so that one holding no file is reported too."""
    get_scheme(scheme)  # fail before reading anything
    outs = [outs] if isinstance(outs, (str, Path)) else list(outs)
    stats = CorpusStats(scheme, fold_files=[0] * len(outs), fold_tokens=[0] * len(outs))
    by_source: dict[str, SourceStats] = {}
    for source in sources:
        by_source[str(source)] = SourceStats(str(source))
        stats.sources.append(by_source[str(source)])
    seen: set[bytes] = set()
    jobs, owner = [], []
    for raw in files:
        st = by_source.get(raw.source)
        if st is None:
            st = by_source[raw.source] = SourceStats(raw.source)
            stats.sources.append(st)
        if raw.error:
            st.skipped += 1
            _warn(f"{raw.name}: {raw.error}; skipped")
            continue
        digest = hashlib.sha1(raw.data).digest()
        if digest in seen:
            st.duplicates += 1
            continue
        seen.add(digest)
        jobs.append((len(jobs), raw.name, raw.data, scheme))
        owner.append((st, raw.name, _fold(digest, len(outs))))
    workers = workers or os.cpu_count() or 1
    bar = tqdm(total=len(jobs), unit="file", desc="tokenizing", disable=not progress, file=sys.stderr)
    with ExitStack() as stack:
        stack.callback(bar.close)
        stack.push(_clear_on_failure(bar))
        handles = [stack.enter_context(open(out, "w", encoding="utf-8")) for out in outs]
        pool = stack.enter_context(Pool(workers, initializer=cli.ignore_interrupts))
        # imap keeps file order, so the corpus (and the model) is the same for any worker count
        for index, line, count in pool.imap(_encode, jobs, chunksize=16):
            st, name, fold = owner[index]
            bar.update()
            if line is None:
                if count != "no tokens":
                    st.skipped += 1
                    _warn(count)
                continue
            handles[fold].write(line)
            handles[fold].write("\n")
            st.files += 1
            st.tokens += count
            stats.fold_files[fold] += 1
            stats.fold_tokens[fold] += count
    return stats


def _clear_on_failure(bar: tqdm):
    """An exit callback: an interrupted or failed run clears its progress bar (the one line saying why is
    all that remains)."""
    def clear(kind, value, tb) -> bool:
        if kind is not None:
            bar.leave = False
        return False
    return clear
