"""The corpus line index: which lines follow or precede a given line in the training corpus, and how often.

Fill-in-the-middle proposes, as candidate middles, lines that the corpus has in the same context: after
the same previous line, before the same next line, between the same two lines, after the same two lines.
Lines are compared with the spaces at their ends stripped; blank lines are skipped (a line's context is
the nearest non-blank line on each side). Comment lines are context, never candidates.

Stored as one .npz beside the model (`MODEL.lines.npz`): the candidate lines' text (UTF-8, one blob with
offsets) and, for each kind of context, a table of (64-bit hash of the context, candidate line, count)
sorted by hash then count, so a lookup is a binary search. It also keeps the corpus's most frequent words
(for the generator's vocabulary).
"""
from __future__ import annotations

import hashlib
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from tqdm import tqdm

from formats.files import InputError, decode
from formats.sources import iter_raw
from parsing.languages import Language

from .tasks import LINE_BREAK

CONTEXTS = ("prev", "next", "pair", "prev2")
INDEX_VERSION = 1
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TOP_WORDS = 300
COMMENT_STARTS = {"java": ("//", "/*", "*"), "python": ("#",)}


def is_comment_line(line: str, language: str) -> bool:
    """A stripped line that is (or continues) a comment, judged by its first characters."""
    return line.startswith(COMMENT_STARTS.get(language, ()))


def key(*lines: str) -> int:
    """The stable 64-bit hash of a context (one line, or two joined by a newline)."""
    return int.from_bytes(hashlib.blake2b("\n".join(lines).encode("utf-8"), digest_size=8).digest(), "little")


def index_path(model: Path) -> Path:
    return Path(str(model) + ".lines.npz")


class LineIndex:
    def __init__(self, path: Path):
        with np.load(path, allow_pickle=False) as z:
            if int(z["version"]) != INDEX_VERSION:
                raise ValueError(f"{path}: a line index of another version; delete it to rebuild it")
            self.blob = z["blob"].tobytes()
            self.offsets = z["offsets"]
            self.tables = {c: (z[f"{c}_keys"], z[f"{c}_ids"], z[f"{c}_counts"]) for c in CONTEXTS}
            self.words = [w for w in str(z["words"]).split("\n") if w]
            self.files = int(z["files"])
        self.path = path

    def line(self, i: int) -> str:
        return self.blob[self.offsets[i]:self.offsets[i + 1]].decode("utf-8")

    def line_counts(self) -> np.ndarray:
        """How often each line is in the corpus (each occurrence has one previous line)."""
        _, ids, counts = self.tables["prev"]
        return np.bincount(ids, weights=counts, minlength=len(self.offsets) - 1).astype(np.int64)

    def lines_starting(self, *heads: str) -> list[tuple[str, int]]:
        """(line, times in the corpus) of every line that starts with one of `heads`."""
        data = np.frombuffer(self.blob, dtype=np.uint8)
        starts, ends = self.offsets[:-1], self.offsets[1:]
        counts = self.line_counts()
        out = []
        for head in heads:
            raw = head.encode("utf-8")
            keep = (ends - starts) >= len(raw)
            for j, byte in enumerate(raw):
                keep &= data[np.minimum(starts + j, len(data) - 1)] == byte
            out.extend((self.line(int(i)), int(counts[i])) for i in np.flatnonzero(keep))
        return out

    def lookup(self, context: str, k: int, *lines: str) -> list[tuple[str, int]]:
        """The k lines seen most often in `context` ('prev', 'next', 'pair', 'prev2') of `lines`."""
        keys, ids, counts = self.tables[context]
        h = np.uint64(key(*lines))
        lo = int(np.searchsorted(keys, h, side="left"))
        hi = int(np.searchsorted(keys, h, side="right"))
        return [(self.line(int(ids[j])), int(counts[j])) for j in range(lo, min(hi, lo + k))]

    def total(self, context: str, *lines: str) -> int:
        """How many lines the corpus has in `context` of `lines` (the denominator of a lookup's counts)."""
        keys, _, counts = self.tables[context]
        h = np.uint64(key(*lines))
        lo = int(np.searchsorted(keys, h, side="left"))
        hi = int(np.searchsorted(keys, h, side="right"))
        return int(counts[lo:hi].sum())


def context_lines(lines: list[str], language: str):
    """(previous line, line, next line, the line before the previous) for each candidate line of a file's
    stripped non-blank lines ('' where there is none)."""
    n = len(lines)
    for i, line in enumerate(lines):
        if is_comment_line(line, language):
            continue
        yield (lines[i - 1] if i else "", line, lines[i + 1] if i + 1 < n else "", lines[i - 2] if i > 1 else "")


def build_index(sources: list[str], exclude: tuple[str, ...], language: Language, out: Path,
                progress: bool = True) -> dict:
    """Index every file of `sources` (as bin/build-lm reads them, identical files once) into `out`."""
    ids: dict[str, int] = {}
    rows = {c: ([], []) for c in CONTEXTS}
    words: Counter = Counter()
    seen: set[bytes] = set()
    files = 0
    bar = tqdm(desc="indexing lines", unit="file", disable=not progress, file=sys.stderr)
    for src in sources:
        for raw in iter_raw(src, exclude, suffixes=language.suffixes):
            if raw.error or raw.data in seen:
                continue
            seen.add(raw.data)
            try:
                text = decode(raw.data, raw.name)
            except InputError:
                continue
            files += 1
            bar.update()
            lines = [x.strip() for x in LINE_BREAK.split(text)]
            lines = [x for x in lines if x]
            for prev, line, nxt, prev2 in context_lines(lines, language.name):
                j = ids.setdefault(line, len(ids))
                for c, ctx in (("prev", (prev,)), ("next", (nxt,)), ("pair", (prev, nxt)), ("prev2", (prev2, prev))):
                    rows[c][0].append(key(*ctx))
                    rows[c][1].append(j)
                words.update(WORD.findall(line))
    bar.close()
    arrays = {}
    for c, (keys, cands) in rows.items():
        keys = np.array(keys, dtype=np.uint64)
        cands = np.array(cands, dtype=np.uint32)
        order = np.lexsort((cands, keys))
        keys, cands = keys[order], cands[order]
        new = np.ones(len(keys), dtype=bool)
        new[1:] = (keys[1:] != keys[:-1]) | (cands[1:] != cands[:-1])
        starts = np.flatnonzero(new)
        counts = np.diff(np.append(starts, len(keys))).astype(np.uint32)
        keys, cands = keys[starts], cands[starts]
        order = np.lexsort((-counts.astype(np.int64), keys))   # by key, then most frequent first
        arrays[f"{c}_keys"], arrays[f"{c}_ids"], arrays[f"{c}_counts"] = keys[order], cands[order], counts[order]
    texts = [t.encode("utf-8") for t in ids]
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum([len(t) for t in texts], out=offsets[1:])
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp.npz")
    np.savez(tmp, version=np.int64(INDEX_VERSION), blob=np.frombuffer(b"".join(texts), dtype=np.uint8),
             offsets=offsets, words="\n".join(w for w, _ in words.most_common(TOP_WORDS)),
             files=np.int64(files), **arrays)
    tmp.replace(out)
    return {"files": files, "lines": len(ids)}
