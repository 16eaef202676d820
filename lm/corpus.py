"""Sources -> a KenLM training text: one line per distinct file, its symbols separated by spaces."""
from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path

from tqdm import tqdm

from parsing.java import tokenize
from parsing.schemes import get_scheme

from .sources import iter_raw


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

    @property
    def files(self) -> int:
        return sum(s.files for s in self.sources)

    @property
    def tokens(self) -> int:
        return sum(s.tokens for s in self.sources)

    @property
    def skipped(self) -> int:
        return sum(s.skipped for s in self.sources)


def decode(data: bytes) -> str:
    """Strict UTF-8 with newlines untouched (the offsets of everything downstream depend on it)."""
    if b"\0" in data:
        raise UnicodeDecodeError("utf-8", data, data.index(b"\0"), data.index(b"\0") + 1, "NUL byte (binary file)")
    return data.decode("utf-8")


def _encode(job):
    """Worker: raw bytes -> (corpus line, token count) or (None, reason)."""
    index, data, scheme_name = job
    try:
        text = decode(data)
    except UnicodeDecodeError as e:
        return index, None, f"not UTF-8 ({e.reason} at byte {e.start})"
    stream = tokenize(text)
    if not len(stream):
        return index, None, "no tokens"
    return index, " ".join(get_scheme(scheme_name).symbols(stream)), len(stream)


def write_corpus(sources: list[str], scheme: str, out: Path, workers: int | None = None,
                 exclude: tuple[str, ...] = (), progress: bool = True) -> CorpusStats:
    get_scheme(scheme)  # fail before reading anything
    stats = CorpusStats(scheme)
    seen: set[bytes] = set()
    jobs, owner = [], []
    for src in sources:
        st = SourceStats(str(src))
        stats.sources.append(st)
        for raw in iter_raw(src, exclude):
            if raw.error:
                st.skipped += 1
                tqdm.write(f"warning: {raw.name}: {raw.error}; skipped", file=sys.stderr)
                continue
            digest = hashlib.sha1(raw.data).digest()
            if digest in seen:
                st.duplicates += 1
                continue
            seen.add(digest)
            jobs.append((len(jobs), raw.data, scheme))
            owner.append((st, raw.name))
    workers = workers or os.cpu_count() or 1
    bar = tqdm(total=len(jobs), unit="file", desc="tokenizing", disable=not progress, file=sys.stderr)
    with open(out, "w", encoding="utf-8") as fh, Pool(workers) as pool:
        # imap keeps file order, so the corpus (and the model) is the same for any worker count
        for index, line, count in pool.imap(_encode, jobs, chunksize=16):
            st, name = owner[index]
            bar.update()
            if line is None:
                if count != "no tokens":
                    st.skipped += 1
                    tqdm.write(f"warning: {name}: {count}; skipped", file=sys.stderr)
                continue
            fh.write(line)
            fh.write("\n")
            st.files += 1
            st.tokens += count
    bar.close()
    return stats
