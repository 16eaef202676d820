"""Corpus files -> KenLM training text: one line per distinct file, its symbols separated by spaces.

Identical files go in once (the first, in file order). With several outputs (folds), each distinct file goes to
the fold its content hash picks (`fold_of`), so a file and its copies are always in the same fold.
"""
from __future__ import annotations

import hashlib
import os
import sys
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterable, Iterator, Sequence

from tqdm import tqdm

from formats.files import InputError, decode
from formats.sources import Archives, RawFile, SourceEntry, read_entries
from parsing.schemes import Scheme, get_scheme
from parsing.units import covers, interned, walk_units
from unnatural import cli
from unnatural.parallel import ordered_map


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
    return _fold(digest(data), folds)


def _fold(digest: bytes, folds: int) -> int:
    return digest[0] % folds


def _warn(message: str) -> None:
    tqdm.write(f"{cli.running_command()}: warning: {message}", file=sys.stderr)


def encode(data: bytes, name: str, scheme: Scheme) -> tuple[bytes | None, int | str]:
    """A file's corpus line (UTF-8, newline included) and its token count, or (None, why it has none)."""
    try:
        text = decode(data, name)
    except InputError as e:
        return None, str(e)
    walked = walk_units(text) if covers(scheme) else None
    if walked is not None:   # the default scheme's walk in C++ (parsing/units.py)
        tokens = len(walked.symbols) // 2
        return (None, NO_TOKENS) if not tokens else ((interned().sentence(walked) + "\n").encode("utf-8"), tokens)
    stream = scheme.tokenize(text)
    if not len(stream):
        return None, NO_TOKENS
    return (" ".join(scheme.symbols(stream)) + "\n").encode("utf-8"), len(stream)


NO_TOKENS = "no tokens"   # a file without tokens (empty, or only whitespace) is left out without a warning


@dataclass
class Distinct:
    """The files that go into a corpus, each once, in order, with where each one is counted."""
    stats: CorpusStats
    files: list = field(default_factory=list)                             # what was offered and kept
    owners: list[tuple[SourceStats, int]] = field(default_factory=list)   # (its source's stats, its fold)
    seen: set[bytes] = field(default_factory=set)                         # content hashes kept
    by_source: dict[str, SourceStats] = field(default_factory=dict)

    @classmethod
    def of(cls, scheme: str, folds: int = 1, sources: Sequence[str] = ()) -> "Distinct":
        """None kept yet. `sources`: the SOURCE arguments, so that one holding no file is reported too."""
        out = cls(CorpusStats(scheme, fold_files=[0] * folds, fold_tokens=[0] * folds))
        for source in sources:
            out.source(str(source))
        return out

    def source(self, name: str) -> SourceStats:
        st = self.by_source.get(name)
        if st is None:
            st = self.by_source[name] = SourceStats(name)
            self.stats.sources.append(st)
        return st

    def offer(self, item, source: str, name: str, error: str | None, sha1: bytes | None) -> bool:
        """Keep `item` unless it could not be read (`error`: warned about, counted as skipped) or its
        content (`sha1`, its `digest`) was kept already (counted as a duplicate)."""
        st = self.source(source)
        if error:
            st.skipped += 1
            _warn(f"{name}: {error}; skipped")
            return False
        if sha1 in self.seen:
            st.duplicates += 1
            return False
        self.seen.add(sha1)
        self.files.append(item)
        self.owners.append((st, _fold(sha1, len(self.stats.fold_files))))
        return True

    def add(self, index: int, result: tuple[bytes | None, int | str]) -> bytes | None:
        """Count kept file `index`'s encoding; its line, or None (warned about when it could not be read)."""
        line, count = result
        st, fold = self.owners[index]
        if line is None:
            if count != NO_TOKENS:
                st.skipped += 1
                _warn(count)
            return None
        st.files += 1
        st.tokens += count
        self.stats.fold_files[fold] += 1
        self.stats.fold_tokens[fold] += count
        return line


def digest(data: bytes) -> bytes:
    """The content hash that tells copies apart (and picks a file's fold)."""
    return hashlib.sha1(data).digest()


BATCH = 32        # files a worker reads and encodes per message
_job: dict = {}   # what the forked workers encode: set before forking, so the listing is shared
DUPLICATE = "duplicate"   # a file the worker that read it had read already (not encoded again)


def _read_batch(span: tuple[int, int]) -> list[tuple[bytes | None, str | None, bytes | None, int | str]]:
    """Per listed file of the span, read here: (its content hash, or None with why it cannot be read; its line
    and token count, as `encode`: or (None, DUPLICATE) when this process read the same content before)."""
    files, scheme, seen, archives = _job["files"], _job["scheme"], _job["seen"], _job["archives"]
    out = []
    for raw in read_entries(files[span[0]:span[1]], archives):
        if raw.error:
            out.append((None, raw.error, None, 0))
            continue
        sha1 = digest(raw.data)
        if sha1 in seen:   # a process takes its files in order: an earlier copy, which Distinct keeps instead
            out.append((sha1, None, None, DUPLICATE))
            continue
        seen.add(sha1)
        out.append((sha1, None, *encode(raw.data, raw.name, scheme)))
    return out


def read_and_encoded(files: Sequence[SourceEntry | RawFile], scheme: str, workers: int | None = None
                     ) -> Iterator[tuple[bytes | None, str | None, bytes | None, int | str]]:
    """`_read_batch` of every file, in order, by `workers` forked processes, each reading the files it takes
    (batches of BATCH, taken in turn): the reading, the archives' decompression included, is spread over the
    cores and overlaps the tokenizing, instead of the whole corpus read before any file is tokenized (the
    JDK's src.zip: 1.4 s). Identical files are all read, and encoded unless a process read one before."""
    _job.update(files=files, scheme=get_scheme(scheme), seen=set(), archives=Archives())
    try:
        spans = [(i, min(i + BATCH, len(files))) for i in range(0, len(files), BATCH)]
        workers = min(workers or os.cpu_count() or 1, len(spans))
        batches = map(_read_batch, spans) if workers <= 1 else ordered_map(_read_batch, spans, workers)
        for batch in batches:
            yield from batch
    finally:
        _job["archives"].close()
        _job.clear()


def write_corpus(files: Iterable[SourceEntry | RawFile], scheme: str, outs: Path | BinaryIO | Sequence[Path],
                 workers: int | None = None, progress: bool = True, sources: Sequence[str] = ()) -> CorpusStats:
    """Tokenize the distinct `files` (listed, as formats.sources.iter_entries lists them, or read already) in
    parallel, in order, into `outs`: one path or binary stream (such as lmplz's standard input), or one path per
    fold. `sources`: the SOURCE arguments, so that one holding no file is reported too."""
    get_scheme(scheme)  # fail before reading anything
    outs = [outs] if isinstance(outs, (str, Path)) or hasattr(outs, "write") else list(outs)
    listed = list(files)
    kept = Distinct.of(scheme, len(outs), sources)
    bar = tqdm(total=len(listed), unit="file", desc="tokenizing", disable=not progress, file=sys.stderr)
    with ExitStack() as stack:
        stack.callback(bar.close)
        stack.push(_clear_on_failure(bar))
        sinks = [out if hasattr(out, "write") else stack.enter_context(open(out, "wb")) for out in outs]
        # in file order, so the corpus (and the model) is the same for any worker count
        for file, (sha1, error, line, count) in zip(listed, read_and_encoded(listed, scheme, workers)):
            bar.update()
            if kept.offer(file, file.source, file.name, error, sha1):
                line = kept.add(len(kept.files) - 1, (line, count))
                if line is not None:
                    sinks[kept.owners[-1][1]].write(line)
    return kept.stats


def _clear_on_failure(bar: tqdm):
    """An exit callback: an interrupted or failed run clears its progress bar (the one line saying why is
    all that remains)."""
    def clear(kind, value, tb) -> bool:
        if kind is not None:
            bar.leave = False
        return False
    return clear
