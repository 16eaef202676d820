"""`bin/build-lm --cluster`: the corpus tokenized on a Dask cluster and streamed into lmplz on the client.

1. The client lists the SOURCE files without reading them (formats.sources.iter_entries: archive members,
   folder files, CodRep task bodies) and cuts the list into shards of consecutive files, balanced by bytes.
2. Workers read their shards and send back each file's content hash (or why it cannot be read). In file
   order, the client keeps the first file of each content, exactly as the local build does, so
   deduplication is exact across shards.
3. As soon as a shard's hashes are in, workers tokenize its kept files (lm.corpus.encode, the local
   build's function) into a gzip file under the work folder: a local path or a fsspec URL that every worker
   and the client can reach. Each attempt writes its own file, so a worker that dies mid-shard leaves
   only a file nobody reads; Dask gives the shard to another worker.
4. The client feeds the shard files, in shard order, into lmplz's standard input: the token stream of
   the local build, so the same model file.

A shard that fails twice (its task raised twice, or its worker died twice) stops the build with its files
named, unless --allow-missing, which trains without them and lists them in the signature (`missing`).
Ctrl-C cancels the cluster's work; the work folder is removed either way.
"""
from __future__ import annotations

import contextlib
import gzip
import sys
import uuid
from collections import deque
from dataclasses import dataclass
from itertools import chain
from typing import BinaryIO, Sequence

from tqdm import tqdm

from formats.sources import SourceEntry, iter_entries, read_entries
from parsing.languages import get_language
from parsing.schemes import get_scheme
from unnatural.cluster import ClusterError, cancel, connect, describe, workers

from .corpus import CorpusStats, Distinct, digest, encode

SHARD_BYTES = 64 * 2**20   # the largest shard: a worker's memory holds it, a retry repeats little
SHARDS_PER_WORKER = 4      # at least, on smaller corpora: the work stays balanced to the end
GZIP_LEVEL = 1             # token files compress about tenfold even so; higher levels cost the workers CPU
COPY_BYTES = 1 << 20


class ShardFailed(ClusterError):
    """A shard failed twice: the build stops (without --allow-missing)."""


@dataclass(frozen=True)
class Shard:
    index: int
    entries: tuple[SourceEntry, ...]    # consecutive files of the listing

    @property
    def bytes(self) -> int:
        return sum(e.size for e in self.entries)


def cut(entries: Sequence[SourceEntry], workers: int, most: int = SHARD_BYTES) -> list[Shard]:
    """Consecutive runs of `entries` of about equal bytes: at least SHARDS_PER_WORKER per worker, at most
    `most` bytes each (a larger file is a shard of its own)."""
    total = sum(e.size for e in entries)
    target = max(1, min(most, total // (SHARDS_PER_WORKER * workers)))
    shards, run, size = [], [], 0
    for e in entries:
        if run and size + e.size > target:
            shards.append(Shard(len(shards), tuple(run)))
            run, size = [], 0
        run.append(e)
        size += e.size
    if run:
        shards.append(Shard(len(shards), tuple(run)))
    return shards


# ------------------------------------------------------------------------------------------- worker side

def hash_shard(entries: Sequence[SourceEntry]) -> list[tuple[bytes | None, str | None]]:
    """(content hash, None) or (None, why it cannot be read) of each file."""
    return [(None, raw.error) if raw.error else (digest(raw.data), None) for raw in read_entries(entries)]


def tokenize_shard(entries: Sequence[SourceEntry], scheme: str, folder: str, index: int
                   ) -> tuple[str, list[tuple[bool, int | str]]]:
    """The corpus lines of `entries` written to a new gzip file in `folder` (a path or fsspec URL): its
    URL, and per file (True, tokens) or (False, why it has no line)."""
    import fsspec
    sch = get_scheme(scheme)
    url = f"{folder.rstrip('/')}/shard-{index:06d}-{uuid.uuid4().hex[:12]}.txt.gz"
    results = []
    with fsspec.open(url, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=GZIP_LEVEL, mtime=0) as out:
        for file in read_entries(entries):
            line, count = (None, f"{file.name}: {file.error}") if file.error else encode(file.data, file.name, sch)
            if line is not None:
                out.write(line)
            results.append((line is not None, count))
    return url, results


# ------------------------------------------------------------------------------------------- client side

def write_corpus_on_cluster(sources: Sequence[str], exclude: tuple[str, ...], scheme: str, sink: BinaryIO,
                            address: str, work_dir: str, allow_missing: bool = False, progress: bool = True,
                            shard_bytes: int = SHARD_BYTES, max_bytes: int | None = None
                            ) -> tuple[CorpusStats, list[str]]:
    """lm.corpus.write_corpus on the cluster at `address` (see the module's doc), into `sink`: the corpus
    statistics, and the files of the shards that failed (only with `allow_missing`; else ShardFailed)."""
    import fsspec
    suffixes = get_language(get_scheme(scheme).language).suffixes
    entries = list(chain.from_iterable(iter_entries(s, exclude, suffixes=suffixes, max_bytes=max_bytes)
                                       for s in sources))
    kept = Distinct.of(scheme, 1, sources)
    missing: list[str] = []
    run = f"{work_dir.rstrip('/')}/unnatural-shards-{uuid.uuid4().hex[:12]}"
    fs, root = fsspec.core.url_to_fs(run)
    with connect(address) as client:
        shards = cut(entries, workers(client), shard_bytes)
        if progress:
            print(f"build-lm: {len(entries):,} files ({sum(s.bytes for s in shards) / 2**20:,.1f} MiB) in "
                  f"{len(shards):,} shards on {workers(client)} Dask workers ({address})", file=sys.stderr)
        bar = tqdm(total=len(entries), unit="file", desc="tokenizing", disable=not progress, file=sys.stderr)
        hashes: list = []
        tokens: deque = deque()   # (shard, index of its first kept file, its kept files, future), in order
        try:
            fs.makedirs(root, exist_ok=True)
            hashes = [client.submit(hash_shard, s.entries, retries=1, pure=False, key=f"hash-{run[-12:]}-{s.index}")
                      for s in shards]
            for shard, future in zip(shards, hashes):
                try:
                    found = future.result()
                except Exception as e:   # noqa: BLE001 - failed twice, whatever the reason
                    _failed(shard, shard.entries, e, allow_missing, missing)
                    bar.update(len(shard.entries))
                    continue
                finally:
                    future.release()
                first = len(kept.files)
                mine = [e for e, (h, error) in zip(shard.entries, found) if kept.offer(e, e.source, e.name, error, h)]
                bar.update(len(shard.entries) - len(mine))
                if mine:
                    tokens.append((shard, first, mine, client.submit(
                        tokenize_shard, mine, scheme, run, shard.index, retries=1, pure=False,
                        key=f"tokenize-{run[-12:]}-{shard.index}")))
                while tokens and tokens[0][3].done():   # stream what is ready, in order
                    _stream(tokens.popleft(), kept, sink, allow_missing, missing, bar)
            while tokens:
                _stream(tokens.popleft(), kept, sink, allow_missing, missing, bar)
        except BaseException:
            cancel(client, hashes + [t[3] for t in tokens])
            raise
        finally:
            bar.close()
            try:
                fs.rm(root, recursive=True)
            except (OSError, FileNotFoundError):
                pass
    return kept.stats, missing


def _stream(job, kept: Distinct, sink: BinaryIO, allow_missing: bool, missing: list[str], bar) -> None:
    """A tokenized shard's lines into `sink`, its files counted (or, if it failed, reported)."""
    import fsspec
    shard, first, mine, future = job
    try:
        url, results = future.result()
    except Exception as e:   # noqa: BLE001
        _failed(shard, mine, e, allow_missing, missing)
        bar.update(len(mine))
        return
    finally:
        future.release()
    for k, (ok, count) in enumerate(results):
        kept.add(first + k, (b"" if ok else None, count))
    with fsspec.open(url, "rb", compression="gzip") as lines:
        while block := lines.read(COPY_BYTES):
            sink.write(block)
    with contextlib.suppress(OSError):   # read: the work folder need not hold the whole corpus
        fsspec.core.url_to_fs(url)[0].rm(url)
    bar.update(len(mine))


def _failed(shard: Shard, entries: Sequence[SourceEntry], error: BaseException, allow_missing: bool,
            missing: list[str]) -> None:
    names = [e.name for e in entries]
    head = f"shard {shard.index} ({len(names)} files, {names[0]} .. {names[-1]}) failed twice ({describe(error)})"
    if not allow_missing:
        shown = names[:20]
        for name in shown:
            tqdm.write(f"build-lm: warning: not tokenized: {name}", file=sys.stderr)
        if len(names) > len(shown):
            tqdm.write(f"build-lm: warning: ... and {len(names) - len(shown)} more files of shard {shard.index}",
                       file=sys.stderr)
        raise ShardFailed(f"{head}; no model was written (--allow-missing trains without these files)")
    tqdm.write(f"build-lm: warning: {head}; training without its files (listed in the signature)", file=sys.stderr)
    missing.extend(names)
