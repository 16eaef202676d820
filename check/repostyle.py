"""The whole work tree's style, whatever files bin/check is given: a pre-commit hook, `--since` or `--staged`
name a few files, and those are judged with the habits of every Java file of their git work tree, exactly as a
run on the whole tree judges them (the same folder counts, so the same scores and confidences).

What is learned of a file (ranker/counts.py's learn_text, as ranker/folder.py learns it: its wide-context gap
counts, its narrow ones, its whitespace habits) is cached per file, keyed by its bytes and the learning's
signature, and the tree's sum of them is cached per work tree with the list of what it holds; a run re-learns
only the files whose bytes changed and updates the sum by their difference. Every cache file is written to a
temporary file and renamed into place, so concurrent runs never read half a file; a file's counts and a pack are
named by their content's key and never change once there, a tree's listing and sum are replaced whole; what no
listing refers to is pruned. A cold cache writes one pack of every file's counts (one file instead of
thousands), a warm run one file per content it learned. Where the cache lives: `<git common dir>/unnatural/` (a
repository's worktrees share it), else the user's cache folder; neither writable, it is all learned in memory.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from formats.files import InputError, decode
from parsing.schemes import Scheme
from ranker.cache import REACHES
from ranker.counts import Counts, learn_text
from ranker.counts import total as summed
from ranker.habits import PRIORS, HabitCounts
from ranker.rank import Style
from unnatural import __version__

from .git import GitError, git

FORMAT = 3                       # of the cached arrays; any change to what is learned must change it
_LEVELS = len(REACHES)
_HABITS = sum(len(p) for p in PRIORS)
_HEAD = 2 + _LEVELS + 1 + _HABITS   # FORMAT, levels, per level its length, the narrow length, the habits
_RACY_NS = 2_000_000_000        # a file changed this close to when its status was noted is read again
_UNUSED_SECONDS = 30 * 86400   # a tree's listing not written for this long is pruned with what it alone uses
_KEEP_SECONDS = 3600             # an entry no listing refers to is pruned once it is this old


def _to_array(counts: Counts) -> np.ndarray:
    """Counts as one cached array: FORMAT, the levels, each level's length and the narrow length, the habits,
    then each level's keys and counts and the narrow keys and counts."""
    habits = [int(x) for c in counts.habits.counts for x in c]
    head = [FORMAT, _LEVELS, *(len(k) for k, _ in counts.wide), len(counts.narrow[0]), *habits]
    return np.concatenate([np.asarray(head, np.int64), *(a for pair in counts.wide for a in pair), *counts.narrow])


def _from_array(a: np.ndarray) -> Counts:
    if a.dtype != np.int64 or a.ndim != 1 or len(a) < _HEAD or a[0] != FORMAT or a[1] != _LEVELS:
        raise ValueError("not a cached count array")
    sizes = [int(x) for x in a[2:2 + _LEVELS + 1]]
    flat = [float(x) for x in a[2 + _LEVELS + 1:_HEAD]]
    habits, at = [], 0
    for prior in PRIORS:
        habits.append(tuple(flat[at:at + len(prior)]))
        at += len(prior)
    pairs, at = [], _HEAD
    for n in sizes:
        pairs.append((a[at:at + n], a[at + n:at + 2 * n]))
        at += 2 * n
    if at != len(a):
        raise ValueError("truncated cached count array")
    return Counts(tuple(pairs[:-1]), pairs[-1], HabitCounts(tuple(habits)))


def learn_bytes(scheme: Scheme, data: bytes, name: str, max_bytes: int | None = None) -> Counts:
    """What ranker/folder.py learns of one file's bytes (nothing when they are not a readable source: the
    folder's pass skips such a file too)."""
    return _learned(scheme, data, name, max_bytes)[0]


def _learned(scheme: Scheme, data: bytes, name: str, max_bytes: int | None,
             keep: bool = False) -> tuple[Counts, bytes | None]:
    """learn_bytes, and with `keep` the file's leaves as the walk parsed them (ranking the file then does not
    parse it again: Style.parsed)."""
    if max_bytes is not None and len(data) > max_bytes:
        return Counts.empty(), None
    try:
        text = decode(data, name)
    except InputError:
        return Counts.empty(), None
    return learn_text(scheme, text, keep)


@dataclass(frozen=True)
class TreeStyle:
    """A work tree's learned style: the sum over its files (`shared`), and each file's own part (by its path
    relative to the tree's top) to take off when that file is checked."""
    top: Path
    total: Counts                # shared()
    own: dict[str, Counts]
    seconds: dict[str, float]
    relearned: int               # files learned in this run (the others came from the cache)
    parsed: dict[str, bytes] = field(default_factory=dict)   # path -> its leaves, when learned in this run

    def styles(self, paths=None):
        """A function path -> Style, as ranker/folder.py's folder_style gives, for the files of this tree.
        With `paths`, their own counts are looked up now and the function holds only what they need (it
        travels to cluster workers); another path is then not taken for one of the tree's files."""
        folder = self.total
        top = os.path.realpath(self.top)
        empty = Counts.empty()
        habits = self.total.habits

        def rel(path: str) -> str:
            return os.path.relpath(os.path.realpath(path), top)
        if paths is not None:
            own = {p: self.own.get(rel(p)) for p in paths}
            own = {p: c.habits for p, c in own.items() if c is not None}
            parsed = {p: self.parsed[rel(p)] for p in own if self.parsed.get(rel(p)) is not None}

            def style_of(path: str) -> Style:
                if path not in own:   # not one of the tree's files: nothing of it to take off
                    return Style(folder, empty, habits)
                return Style(folder, None, habits - own[path], parsed.get(path))
            return style_of

        def style(path: str) -> Style:
            counts = self.own.get(rel(path))
            if counts is None:
                return Style(folder, empty, habits)
            return Style(folder, None, habits - counts.habits)
        return style


def signature_key(scheme: Scheme, max_bytes: int | None) -> str:
    """What the cached counts depend on besides a file's bytes."""
    return f"unnatural:{__version__}|format:{FORMAT}|scheme:{scheme.name}|reaches:{REACHES}|max-bytes:{max_bytes}"


def cache_folder(top: Path) -> Path | None:
    """Where a work tree's counts are cached: `<git common dir>/unnatural`, else `$XDG_CACHE_HOME/unnatural`
    (~/.cache); None when neither can be written."""
    candidates = []
    try:
        common = git(["rev-parse", "--git-common-dir"], top).decode("utf-8", "surrogateescape").strip()
        candidates.append(Path(top, common) / "unnatural")
    except GitError:
        pass
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    candidates.append(Path(base) / "unnatural" / "repostyle")
    for folder in candidates:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if os.access(folder, os.W_OK):
                return folder
        except OSError:
            continue
    return None


class Cache:
    """Cached count arrays under a folder, each written once under a name of its content and never changed:
    `files/<key>.npy`, one file's counts (learned by an incremental run); `packs/<name>.npy` with
    `packs/<name>.json`, many files' counts in one array and where each is (written by a run that learned the
    whole tree: one file instead of thousands); `trees/<tree>.json`, a work tree's listing (path -> key, the
    packs it uses, the files' statuses), and `trees/<tree>-<sum>.npy` (and `.shared.npy`, as Counts.shared
    keeps it), the sum of the files' counts it lists."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self._packs: dict[str, tuple[np.ndarray, dict]] = {}

    def use_packs(self, names) -> None:
        """Look entries up in these packs too (mapped, not read: a run needs a few of their entries)."""
        for name in names:
            if self.folder is None or name in self._packs or not isinstance(name, str):
                continue
            try:
                index = json.loads((self.folder / "packs" / f"{name}.json").read_text("utf-8"))
                array = np.load(self.folder / "packs" / f"{name}.npy", mmap_mode="r", allow_pickle=False)
            except (OSError, ValueError):
                continue   # pruned or half-written by a killed run: its entries are learned again
            if isinstance(index, dict) and array.dtype == np.int64 and array.ndim == 1:
                self._packs[name] = (array, index)

    def entry(self, key: str) -> Counts | None:
        """A file's cached counts, or None."""
        if self.folder is None:
            return None
        for array, index in self._packs.values():
            where = index.get(key)
            if where is not None:
                try:
                    return _from_array(np.array(array[where[0]:where[0] + where[1]]))
                except (ValueError, TypeError, IndexError):
                    return None
        return self.load(f"files/{key}.npy")

    def load(self, name: str) -> Counts | None:
        if self.folder is None:
            return None
        try:
            return _from_array(np.load(self.folder / name, allow_pickle=False))
        except (OSError, ValueError, EOFError):
            return None   # missing, pruned or foreign: learned again

    def save(self, name: str, counts: Counts) -> None:
        self._write(name, lambda f: np.save(f, _to_array(counts), allow_pickle=False))

    def save_pack(self, entries: dict[str, np.ndarray]) -> str | None:
        """Write these entries (key -> counts array) as one pack; its name, or None when not written."""
        if self.folder is None or not entries:
            return None
        keys = sorted(entries)
        name = hashlib.blake2b("\n".join(keys).encode(), digest_size=16).hexdigest()
        index, at = {}, 0
        for k in keys:
            index[k] = [at, len(entries[k])]
            at += len(entries[k])
        # the array first: an index names a pack only once the array is in place
        if not self._write(f"packs/{name}.npy",
                           lambda f: np.save(f, np.concatenate([entries[k] for k in keys]), allow_pickle=False)):
            return None
        return name if self._write(f"packs/{name}.json", lambda f: f.write(json.dumps(index).encode())) else None

    def load_json(self, name: str) -> dict | None:
        if self.folder is None:
            return None
        try:
            data = json.loads((self.folder / name).read_text("utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def save_json(self, name: str, data: dict) -> None:
        self._write(name, lambda f: f.write(json.dumps(data).encode("utf-8")))

    def _write(self, name: str, write) -> bool:
        """Write through a temporary file renamed into place: a concurrent reader sees the old file or the
        new one, never a part. A cache that cannot be written is only slower next time (False)."""
        if self.folder is None:
            return False
        target = self.folder / name
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=target.suffix)
            try:
                with os.fdopen(fd, "wb") as f:
                    write(f)
                os.replace(tmp, target)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            return False
        return True

    def prune(self) -> None:
        """Remove what no work tree's listing refers to (file entries, packs, the sums and listings of trees
        that are gone or were not used for a month), once it is an hour old (a concurrent run may have just
        written what it is about to list), and the temporary files a killed run left."""
        if self.folder is None:
            return
        keys, packs, trees = set(), set(), set()
        for e in _scan(self.folder / "trees"):
            if not e.name.endswith(".json") or e.name.startswith(".tmp-"):
                continue
            data = self.load_json(f"trees/{e.name}") or {}
            if not os.path.isdir(data.get("top", "")) or _age(e) > _UNUSED_SECONDS:
                _unlink_old(e)
                continue
            trees.add(e.name.split(".")[0])
            trees.add(f"{e.name.split('.')[0]}-{data.get('sum')}")
            files = data.get("files")
            keys.update(files.values() if isinstance(files, dict) else ())
            packs.update(p for p in data.get("packs", ()) if isinstance(p, str))
        for folder, kept in (("files", keys), ("packs", packs), ("trees", trees)):
            for e in _scan(self.folder / folder):
                if e.name.split(".")[0] not in kept:
                    _unlink_old(e)


def _scan(folder: Path) -> list:
    try:
        return list(os.scandir(folder))
    except OSError:
        return []


def _age(e) -> float:
    try:
        return time.time() - e.stat().st_mtime
    except OSError:
        return 0.0


def _unlink_old(e) -> None:
    try:
        if _age(e) > _KEEP_SECONDS:
            os.unlink(e.path)
    except OSError:
        pass


def tree_style(top: Path, files: list[str], scheme: Scheme, max_bytes: int | None = None, workers: int = 1,
               cache_dir: Path | None | bool = True) -> TreeStyle:
    """The learned style of work tree `top` whose Java files are `files` (relative to `top`): from the cache,
    re-learning only what changed (`workers` processes learn), and the cache updated. `cache_dir`: True for
    `cache_folder(top)`, a folder, or None for no cache."""
    t0 = time.time()
    cache = Cache(cache_folder(top) if cache_dir is True else cache_dir)
    sig = signature_key(scheme, max_bytes)
    salt = hashlib.blake2b(sig.encode("utf-8"), digest_size=16).digest()
    tree = hashlib.blake2b(os.fsencode(os.path.realpath(top)) + salt, digest_size=16).hexdigest()
    listing = cache.load_json(f"trees/{tree}.json") or {}
    known = listing.get("stat") if isinstance(listing.get("stat"), dict) else {}
    listed = listing.get("files") if isinstance(listing.get("files"), dict) else {}
    # as git's index: a file whose size, time and inode are what they were is not read again, unless its
    # time is too close to when they were noted (it may have changed again within the clock's resolution)
    settled = int(listing.get("noted", 0)) - _RACY_NS
    data: dict[str, bytes] = {}
    keys: dict[str, str] = {}
    stats: dict[str, list[int]] = {}
    noted = time.time_ns()
    for rel in files:
        try:
            st = os.stat(top / rel)
            stats[rel] = [st.st_size, st.st_mtime_ns, st.st_ino]
        except OSError:
            pass
        if rel in stats and known.get(rel) == stats[rel] and stats[rel][1] < settled and rel in listed:
            keys[rel] = listed[rel]
            continue
        data[rel] = _read(top / rel)
        keys[rel] = hashlib.blake2b(data[rel], digest_size=20, key=salt).hexdigest()

    def content(rel: str) -> bytes:
        if rel not in data:
            data[rel] = _read(top / rel)
        return data[rel]
    seconds = {"read": time.time() - t0}
    t1 = time.time()
    old = Counter(listed.values()) if listing else None
    packs = [p for p in listing.get("packs", ()) if isinstance(p, str)]
    cache.use_packs(packs)
    new = Counter(keys.values())
    path_of = {k: r for r, k in keys.items()}
    learned = 0
    parsed: dict[str, bytes | None] = {}

    def entry(key: str) -> Counts:
        """A file's counts, from the cache or learned now (and cached, alone)."""
        nonlocal learned
        got = cache.entry(key)
        if got is None:
            got = learn_bytes(scheme, content(path_of[key]), path_of[key], max_bytes)
            cache.save(f"files/{key}.npy", got)
            learned += 1
        return got

    same = old is not None and listing.get("sum") == _digest(old)
    # a sum is named by the files it sums: a listing and the sum it names are replaced one after the other,
    # and a run that reads one with the other finds no such sum (and sums again) instead of a wrong one
    pruned = cache.load(f"trees/{tree}-{_digest(old)}.shared.npy") if same and old == new else None
    if pruned is None:
        total = _total(cache, tree, same, old, new, entry)
        if total is None:   # a cold cache: every file learned (in `workers` processes) into one new pack
            fresh, parsed = _learn_all([(k, path_of[k]) for k in new if cache.entry(k) is None], scheme, content,
                                       max_bytes, workers)
            learned += len(fresh)
            pack = cache.save_pack({k: _to_array(c) for k, c in fresh.items()})
            packs = [pack] if pack is not None and len(fresh) == len(new) else packs + [pack] * (pack is not None)
            total = _weighted([fresh.get(k) or cache.entry(k) or entry(k) for k in new], list(new.values()))
            cache.use_packs(packs)
        pruned = total.shared()
        cache.save(f"trees/{tree}-{_digest(new)}.npy", total)
        cache.save(f"trees/{tree}-{_digest(new)}.shared.npy", pruned)
    if old != new or listing.get("top") != str(top) or data:
        cache.save_json(f"trees/{tree}.json", {"top": str(top), "files": keys, "sum": _digest(new), "packs": packs,
                                               "stat": stats, "noted": noted})
        if old != new:
            cache.prune()
    elif cache.folder is not None:   # used, unchanged: kept from the month's pruning
        listing_path = cache.folder / "trees" / f"{tree}.json"
        try:
            if time.time() - listing_path.stat().st_mtime > 86400:
                os.utime(listing_path)
        except OSError:
            pass
    seconds["sum"] = time.time() - t1
    own = _OwnCounts(keys, entry)
    leaves = {rel: parsed[key] for rel, key in keys.items() if parsed.get(key) is not None}
    return TreeStyle(top, pruned, own, {k: round(v, 3) for k, v in seconds.items()}, learned, leaves)


def _total(cache: Cache, tree: str, same: bool, old: Counter | None, new: Counter, entry) -> Counts | None:
    """The tree's full sum from the cached one and the files that changed (their counts from `entry`), or
    None when it must be summed again."""
    total = cache.load(f"trees/{tree}-{_digest(old)}.npy") if same else None
    if total is None:
        return None
    added, removed = new - old, old - new
    parts, times = [], []
    for key, n in removed.items():
        got = cache.entry(key)
        if got is None:   # pruned: summed again from the files
            return None
        parts.append(got)
        times.append(-n)
    if not (added or removed):
        return total
    parts.extend(entry(key) for key in added)
    times.extend(added.values())
    return total.merged(_weighted(parts, times))


def _read(path: Path) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b"\0"   # unreadable: learned as nothing (the check reports it)


def _weighted(parts: list[Counts], times: list[int]) -> Counts:
    """sum(times[i] * parts[i]) (a negative `times` takes away)."""
    expanded, signs = [], []
    for p, n in zip(parts, times):
        expanded.extend([p] * abs(n))
        signs.extend([1 if n > 0 else -1] * abs(n))
    return summed(expanded, signs)


def _digest(keys: Counter) -> str:
    """A listing's multiset of file keys, as one string (the tree's sum is of exactly these)."""
    return hashlib.blake2b("\n".join(sorted(f"{k} {n}" for k, n in keys.items())).encode(), digest_size=16).hexdigest()


class _OwnCounts(dict):
    """Path -> its own counts, loaded (or learned) when first asked for: a run checks a few of the tree's files."""

    def __init__(self, keys: dict[str, str], entry):
        super().__init__()
        self._keys, self._entry = keys, entry

    def get(self, rel, default=None):
        if rel not in self._keys:
            return default
        if rel not in self:
            self[rel] = self._entry(self._keys[rel])
        return self[rel]


def _learn_one(scheme: Scheme, max_bytes: int | None, item: tuple[str, bytes]) -> tuple[np.ndarray, bytes | None]:
    rel, data = item
    counts, parsed = _learned(scheme, data, rel, max_bytes, keep=True)
    return _to_array(counts), parsed


def _learn_all(wanted: list[tuple[str, str]], scheme: Scheme, content, max_bytes: int | None,
               workers: int) -> tuple[dict[str, Counts], dict[str, bytes | None]]:
    """The counts of the files (key, path) `wanted`, learned by `workers` processes, and their leaves (the
    files checked in this run are not parsed again, as with ranker/folder.py)."""
    items = [(rel, content(rel)) for _, rel in wanted]
    if workers > 1 and len(items) > 1:
        from unnatural.parallel import ordered_map
        results = ordered_map(partial(_learn_one, scheme, max_bytes), items, workers, parent=True)
    else:
        results = map(partial(_learn_one, scheme, max_bytes), items)
    counts, parsed = {}, {}
    try:
        for (key, _), (array, leaves) in zip(wanted, results):
            counts[key], parsed[key] = _from_array(array), leaves
    finally:
        if hasattr(results, "close"):
            results.close()
    return counts, parsed


def learning_tree(paths: list[str]) -> Path | None:
    """The git work tree whose whole style checks `paths`: the one top they are all inside, none of them
    ignored by git (a user who names an ignored folder, or files of two trees, gets their own style). One git
    process per folder and one for the ignore rules (a pre-commit hook names many files)."""
    from .paths import work_tree_top
    tops: dict[str, list[str]] = {}
    for p in paths:
        real = os.path.realpath(p)
        folder = real if os.path.isdir(real) else os.path.dirname(real)
        if not os.path.isdir(folder):
            continue
        top = work_tree_top(folder)
        if top is None:
            return None
        tops.setdefault(top, [])
        if top != real:
            tops[top].append(os.path.relpath(real, top))
    if len(tops) != 1:
        return None
    top, rels = tops.popitem()
    if rels:
        try:
            git(["check-ignore", "-q", "--", *rels], top)
            return None   # exit 0: one of them is ignored
        except GitError:
            pass   # exit 1: none is
    return Path(top)
