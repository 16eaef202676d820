"""Java corpus sources, recognised by the shape of a SOURCE path, and the files a PATH names for ranking.

    x.zip / x.jar                   an archive: every *.java member
    folder with Tasks/, Solutions/  a CodRep 2018 data set: each task's file body (after new line + blank line)
    CodRep 2019 task folder         N.txt files and out.txt answering each (codrep2019.is_task_folder): each
                                    base file, voted from its copies
    any other folder                searched recursively for *.java; each entry is recognised by these rules
    x.java                          itself (another file named as a SOURCE is skipped with a warning)

Links are followed, each real folder and file once: a link back to a folder being read (a loop) is one
warning; files above --max-bytes, and what is not a regular file, are skipped with a warning.
"""
from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from . import codrep2018, codrep2019
from .files import InputError, normalize_path, sort_key, too_large


class SourceError(InputError):
    """A SOURCE argument that cannot be read at all (missing path, broken zip, ...)."""


@dataclass(frozen=True)
class RawFile:
    source: str      # the SOURCE argument it came from
    name: str        # path (or archive member) for messages
    data: bytes
    shape: str       # 'java', 'archive', 'codrep2018', 'codrep2019'
    error: str | None = None   # why the file could not be read (it is then skipped with a warning)


def shape_of(path: Path) -> str:
    if path.is_file():
        if path.suffix in (".zip", ".jar"):
            return "archive"
        return "java"
    if path.is_dir():
        if codrep2018.is_dataset(path):
            return "codrep2018"
        if codrep2019.is_task_folder(path):
            return "codrep2019"
        return "folder"
    raise SourceError(f"{path}: {missing_reason(path)}")


def missing_reason(path: Path) -> str:
    """Why `path` is neither a file nor a folder, in a few words."""
    if path.is_symlink():
        try:
            path.resolve(strict=True)
        except RuntimeError:
            return "symbolic link loop"
        except OSError as e:
            if e.errno == 40:   # ELOOP
                return "symbolic link loop"
            return "broken symbolic link"
    if os.path.lexists(path):
        return "not a regular file or folder"
    return "no such file or folder"


@dataclass(frozen=True)
class SourceEntry:
    """A file a SOURCE holds, listed but not read: what `bin/build-lm --cluster` cuts into shards (its
    `size` balances them) and what any process that sees the same paths can read (`read_entries`)."""
    source: str                # the SOURCE argument it came from
    name: str                  # path (or archive member) for messages
    shape: str                 # as RawFile.shape
    path: str                  # the file, or the archive, on disk
    size: int = 0              # bytes (uncompressed), as listed
    member: str | None = None  # the archive member
    data: bytes | None = None  # content already known when listed (CodRep 2019 base files are voted then)
    error: str | None = None   # why it cannot be read


def iter_raw(source: str | Path, exclude: tuple[str, ...] = (), origin: str | None = None,
             suffixes: tuple[str, ...] = (".java",), max_bytes: int | None = None) -> Iterator[RawFile]:
    """Every file a SOURCE holds, as raw bytes (decoding and dedup happen downstream); `origin`: the SOURCE
    argument a folder entry was found under; `suffixes`: the source files searched for in folders and
    archives (`.java`; `.py` for Python); files larger than `max_bytes` are skipped (RawFile.error)."""
    return read_entries(iter_entries(source, exclude, origin, suffixes, max_bytes=max_bytes))


@dataclass
class _Walk:
    """What a walk over folders has seen: real folders and files (device, inode), so that each is read once
    whatever links lead to it."""
    folders: set
    files: set


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


def iter_entries(source: str | Path, exclude: tuple[str, ...] = (), origin: str | None = None,
                 suffixes: tuple[str, ...] = (".java",), walk: _Walk | None = None,
                 ancestors: frozenset = frozenset(), max_bytes: int | None = None) -> Iterator[SourceEntry]:
    """Every file a SOURCE holds, in `iter_raw`'s order, listed without reading it (but CodRep 2019 task
    folders, whose base files are voted from all their copies). `walk` and `ancestors`: what the walk
    this SOURCE is part of has seen, and the real folders it is inside of."""
    path = Path(source)
    shape = shape_of(path)
    src = origin or str(source)
    walk = walk or _Walk(set(), set())
    if shape in ("java", "archive"):
        ident = _identity(path)
        if ident in walk.files:   # the same real file through another link: read once
            return
        walk.files.add(ident)
    if shape == "java":
        if path.suffix not in suffixes:
            yield SourceEntry(src, str(path), "java", str(path),
                              error=f"not a {'/'.join(suffixes)} file (nor .zip, .jar or a folder)")
            return
        yield _file_entry(src, path, "java", max_bytes)
    elif shape == "archive":
        yield from _archive(path, src, exclude, suffixes, max_bytes)
    elif shape == "codrep2018":
        for task in sorted((path / codrep2018.TASKS).glob("*.txt"), key=sort_key):
            yield _file_entry(src, task, "codrep2018")
    elif shape == "codrep2019":
        for name, data in codrep2019.clean_task_files(path):   # the injected errors stay out of the corpus
            yield SourceEntry(src, name, "codrep2019", str(path), len(data), data=data)
    else:
        # a plain folder: each entry is recognised by the same shape rules (so a CodRep set or a zip
        # dropped anywhere under corpora/ is read as what it is)
        ident = _identity(path)
        if ident in ancestors:   # a link back to a folder being read
            yield SourceEntry(src, str(path), "java", str(path),
                              error=f"symbolic link loop (back to {os.path.realpath(path)})")
            return
        if ident in walk.folders:   # the same real folder through another link: read once
            return
        walk.folders.add(ident)
        try:
            entries = sorted(path.iterdir())
        except OSError as e:
            yield SourceEntry(src, str(path), "java", str(path), error=f"cannot list the folder ({e.strerror})")
            return
        for entry in entries:
            if entry.name.startswith(".") or entry.name == "README.md":
                continue
            if entry.suffix in (".zip", ".jar") + suffixes or entry.is_dir() or entry.is_symlink():
                if entry.suffix in suffixes and _excluded(str(entry), exclude):
                    continue
                if entry.is_symlink() and not entry.exists() and entry.suffix not in (".zip", ".jar") + suffixes:
                    if missing_reason(entry) == "symbolic link loop":
                        yield SourceEntry(src, str(entry), "java", str(entry), error="symbolic link loop")
                    continue   # a dangling link to something else than a source: nothing to read
                if not entry.is_dir() and entry.suffix not in (".zip", ".jar") + suffixes:
                    continue
                try:
                    yield from iter_entries(entry, exclude, src, suffixes, walk, ancestors | {ident}, max_bytes)
                except SourceError as e:   # one broken entry (a dangling link, a bad zip) is skipped
                    yield SourceEntry(src, str(entry), "java", str(entry), error=str(e).removeprefix(f"{entry}: "))


def _file_entry(src: str, path: Path, shape: str, max_bytes: int | None = None) -> SourceEntry:
    try:
        st = path.stat()
    except OSError as e:
        return SourceEntry(src, str(path), shape, str(path), error=f"cannot read ({e.strerror})")
    if not stat.S_ISREG(st.st_mode):
        return SourceEntry(src, str(path), shape, str(path), error="not a regular file")
    if max_bytes is not None and st.st_size > max_bytes:
        return SourceEntry(src, str(path), shape, str(path), st.st_size, error=too_large(st.st_size, max_bytes))
    return SourceEntry(src, str(path), shape, str(path), st.st_size)


def _archive(path: Path, src: str, exclude, suffixes=(".java",), max_bytes: int | None = None
             ) -> Iterator[SourceEntry]:
    import zipfile  # here: bin/rank imports this module, and never reads an archive
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as e:
        raise SourceError(f"{path}: not a readable zip or jar ({e})") from None
    with zf:
        for info in zf.infolist():
            if info.is_dir() or not info.filename.endswith(suffixes) or _excluded(info.filename, exclude):
                continue
            if max_bytes is not None and info.file_size > max_bytes:
                yield SourceEntry(src, f"{path}!{info.filename}", "archive", str(path), info.file_size,
                                  info.filename, error=too_large(info.file_size, max_bytes))
                continue
            yield SourceEntry(src, f"{path}!{info.filename}", "archive", str(path), info.file_size, info.filename)


class Archives:
    """The archive read last, kept open until another is asked for or close(): `read_entries` keeps one while its
    members follow one another, and a process that reads runs of the same archive's members keeps one across the
    runs (opening the JDK's src.zip reads its directory of 14,000 members: 77 ms)."""

    def __init__(self):
        self._path: str | None = None
        self._open = None   # zipfile.ZipFile

    def get(self, path: str):
        import zipfile
        if path != self._path:
            self.close()
            self._open, self._path = zipfile.ZipFile(path), path
        return self._open

    def close(self) -> None:
        if self._open is not None:
            self._open.close()
        self._open = self._path = None


def read_entries(entries: Iterable[SourceEntry | RawFile], archives: Archives | None = None) -> Iterator[RawFile]:
    """The listed files read, in order (a RawFile, read already, as it is); an archive stays open while its
    members follow one another, and after, in `archives` when given (the caller closes it)."""
    import zipfile
    own = archives is None
    archives = Archives() if own else archives
    try:
        for e in entries:
            if isinstance(e, RawFile):
                yield e
            elif e.error is not None:
                yield RawFile(e.source, e.name, b"", e.shape, e.error)
            elif e.data is not None:
                yield RawFile(e.source, e.name, e.data, e.shape)
            elif e.member is not None:
                try:
                    data = archives.get(e.path).read(e.member)
                except (zipfile.BadZipFile, OSError, KeyError) as err:
                    yield RawFile(e.source, e.name, b"", e.shape, f"cannot read ({err})")
                    continue
                yield RawFile(e.source, e.name, data, e.shape)
            else:
                try:
                    data = Path(e.path).read_bytes()
                except OSError as err:
                    yield RawFile(e.source, e.name, b"", e.shape, f"cannot read ({err.strerror})")
                    continue
                yield RawFile(e.source, e.name, codrep2018.task_body(data) if e.shape == "codrep2018" else data,
                              e.shape)
    finally:
        if own:
            archives.close()


def _excluded(name: str, patterns) -> bool:
    return any(fnmatch.fnmatch(name, p) or p in name for p in patterns)


# Folders a walk skips besides hidden ones: build output, whose sources are generated or copies.
BUILD_FOLDERS = frozenset({"target", "build", "out"})


def walk_files(folder: str | Path, suffixes: tuple[str, ...] = (".java",),
               on_error: Callable[[OSError], None] | None = None) -> Iterator[Path]:
    """The files under `folder` ending in one of `suffixes` (recursively, in no particular order): hidden
    files and folders and build output (BUILD_FOLDERS) skipped, linked folders followed, each real folder
    walked once (a link loop ends). A folder that cannot be listed is skipped (`on_error` is told why)."""
    seen: set[tuple[int, int]] = set()
    for top, dirs, files in os.walk(folder, onerror=on_error, followlinks=True):
        try:
            st = os.stat(top)
        except OSError as e:   # gone since it was listed
            if on_error is not None:
                on_error(e)
            dirs.clear()
            continue
        if (st.st_dev, st.st_ino) in seen:   # reached again through a link
            dirs.clear()
            continue
        seen.add((st.st_dev, st.st_ino))
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in BUILD_FOLDERS]
        for name in files:
            if name.endswith(suffixes) and not name.startswith("."):
                yield Path(top, name)


def files_to_rank(path: Path, suffixes: tuple[str, ...] = (".java",)) -> list[Path]:
    """The files a PATH names for ranking, absolute, in task order: a CodRep 2019 task folder's task files,
    else a folder's files of `suffixes` (*.java; `walk_files`), or the file itself. A folder with none is an InputError
    saying so (and why it is not a task folder, when it looks like one)."""
    if path.is_dir():
        problem = codrep2019.task_folder_problem(path)
        if problem is None:   # one folder's files in task order, listed from its absolute path: sorted already
            files = codrep2019.task_files(Path(normalize_path(path)))
            if files:
                return files
        else:
            files = list(walk_files(path, suffixes))
        if not files:
            looks_like_tasks = problem is not None and codrep2019.task_files(path)
            raise InputError(f"{path}: no {'/'.join(suffixes) if len(suffixes) < 3 else 'source'} file" + (
                f"; its N.txt files are not a CodRep task folder ({problem}): name them to rank them"
                if looks_like_tasks else " in the folder") + "; skipped")
        return sorted((Path(normalize_path(p)) for p in files), key=sort_key)
    if os.path.exists(path):
        return [Path(normalize_path(path))]
    raise InputError(f"{path}: {missing_reason(path)}; skipped")
