"""Java corpus sources, recognised by the shape of a SOURCE path, and the files a PATH names for ranking.

    x.zip / x.jar                   an archive: every *.java member
    folder with Tasks/, Solutions/  a CodRep 2018 data set: each task's file body (after new line + blank line)
    folder with out.txt and 0.txt   a CodRep 2019 task folder: each base file, voted from its copies
    any other folder                searched recursively for *.java; each entry is recognised by these rules
    x.java                          itself
"""
from __future__ import annotations

import fnmatch
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from . import codrep2018, codrep2019
from .files import InputError, normalize_path, sort_key


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
    raise SourceError(f"{path}: no such file or folder")


def iter_raw(source: str | Path, exclude: tuple[str, ...] = (), origin: str | None = None,
             suffixes: tuple[str, ...] = (".java",)) -> Iterator[RawFile]:
    """Every file a SOURCE holds, as raw bytes (decoding and dedup happen downstream); `origin`: the SOURCE
    argument a folder entry was found under; `suffixes`: the source files searched for in folders and
    archives (`.java`; `.py` for Python)."""
    path = Path(source)
    shape = shape_of(path)
    src = origin or str(source)
    if shape == "java":
        try:
            yield RawFile(src, str(path), path.read_bytes(), "java")
        except OSError as e:
            yield RawFile(src, str(path), b"", "java", f"cannot read ({e.strerror})")
    elif shape == "archive":
        yield from _archive(path, src, exclude, suffixes)
    elif shape == "codrep2018":
        for task in sorted((path / codrep2018.TASKS).glob("*.txt"), key=sort_key):
            yield RawFile(src, str(task), codrep2018.task_body(task.read_bytes()), "codrep2018")
    elif shape == "codrep2019":
        for name, data in codrep2019.clean_task_files(path):   # the injected errors stay out of the corpus
            yield RawFile(src, name, data, "codrep2019")
    else:
        # a plain folder: each entry is recognised by the same shape rules (so a CodRep set or a zip
        # dropped anywhere under corpora/ is read as what it is)
        for entry in sorted(path.iterdir()):
            if entry.name.startswith(".") or entry.name == "README.md":
                continue
            if entry.is_dir() or entry.suffix in (".zip", ".jar") + suffixes:
                if entry.suffix in suffixes and _excluded(str(entry), exclude):
                    continue
                try:
                    yield from iter_raw(entry, exclude, src, suffixes)
                except SourceError as e:   # one broken entry (a dangling link, a bad zip) is skipped
                    yield RawFile(src, str(entry), b"", "java", str(e).removeprefix(f"{entry}: "))


def _archive(path: Path, src: str, exclude, suffixes=(".java",)) -> Iterator[RawFile]:
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as e:
        raise SourceError(f"{path}: not a readable zip or jar ({e})") from None
    with zf:
        for info in zf.infolist():
            if info.is_dir() or not info.filename.endswith(suffixes) or _excluded(info.filename, exclude):
                continue
            yield RawFile(src, f"{path}!{info.filename}", zf.read(info), "archive")


def _excluded(name: str, patterns) -> bool:
    return any(fnmatch.fnmatch(name, p) or p in name for p in patterns)


def files_to_rank(path: Path) -> list[Path]:
    """The files a PATH names for ranking, absolute, in task order: a task folder's task files, else a
    folder's *.java files (recursively), or the file itself."""
    if path.is_dir():
        files = codrep2019.task_files(path) or list(path.rglob("*.java"))
        return sorted((Path(normalize_path(p)) for p in files), key=sort_key)
    if path.exists():
        return [Path(normalize_path(path))]
    raise InputError(f"{path}: no such file or folder")
