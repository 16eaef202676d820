"""Corpus sources: where Java text for training comes from, recognised by the shape of a SOURCE path.

    x.zip / x.jar                 an archive: every *.java member
    folder with Tasks/, Solutions/  a CodRep 2018 data set: each task's file body (after new line + blank line)
    folder with out.txt and 0.txt   a CodRep 2019 task folder: each task file (see `codrep2019_clean`)
    any other folder               searched recursively for *.java; each entry is recognised by these rules
    x.java                         itself
"""
from __future__ import annotations

import fnmatch
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator


class SourceError(ValueError):
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
        if (path / "Tasks").is_dir() and (path / "Solutions").is_dir():
            return "codrep2018"
        if (path / "out.txt").is_file() and (path / "0.txt").is_file():
            return "codrep2019"
        return "folder"
    raise SourceError(f"{path}: no such file or folder")


def iter_raw(source: str | Path, exclude: tuple[str, ...] = ()) -> Iterator[RawFile]:
    """Every file a SOURCE holds, as raw bytes (decoding and dedup happen downstream)."""
    path = Path(source)
    shape = shape_of(path)
    src = str(source)
    if shape == "java":
        try:
            yield RawFile(src, str(path), path.read_bytes(), "java")
        except OSError as e:
            yield RawFile(src, str(path), b"", "java", f"cannot read ({e.strerror})")
    elif shape == "archive":
        yield from _archive(path, src, exclude)
    elif shape == "codrep2018":
        for task in sorted((path / "Tasks").glob("*.txt"), key=_task_number):
            yield RawFile(src, str(task), codrep2018_body(task.read_bytes()), "codrep2018")
    elif shape == "codrep2019":
        from .codrep2019_clean import clean_task_files  # keeps the injected errors out of the corpus
        for name, data in clean_task_files(path):
            yield RawFile(src, name, data, "codrep2019")
    else:
        # a plain folder: each entry is recognised by the same shape rules (so a CodRep set or a zip
        # dropped anywhere under corpora/ is read as what it is)
        for entry in sorted(path.iterdir()):
            if entry.name.startswith(".") or entry.name == "README.md":
                continue
            if entry.is_dir() or entry.suffix in (".zip", ".jar", ".java"):
                if entry.suffix == ".java" and _excluded(str(entry), exclude):
                    continue
                try:
                    yield from iter_raw(entry, exclude)
                except SourceError as e:   # one broken entry (a dangling link, a bad zip) is skipped
                    yield RawFile(src, str(entry), b"", "java", str(e).removeprefix(f"{entry}: "))


def _archive(path: Path, src: str, exclude) -> Iterator[RawFile]:
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as e:
        raise SourceError(f"{path}: not a readable zip or jar ({e})") from None
    with zf:
        for info in zf.infolist():
            if info.is_dir() or not info.filename.endswith(".java") or _excluded(info.filename, exclude):
                continue
            yield RawFile(src, f"{path}!{info.filename}", zf.read(info), "archive")


def _excluded(name: str, patterns) -> bool:
    return any(fnmatch.fnmatch(name, p) or p in name for p in patterns)


def _task_number(p: Path):
    return (int(p.stem) if p.stem.isdigit() else 1 << 60, p.name)


def codrep2018_body(task: bytes) -> bytes:
    """A CodRep 2018 task is: the new line, a blank line, then the Java file. Return the file."""
    nl = task.find(b"\n")
    if nl < 0:
        return b""
    rest = task[nl + 1:]
    # the separator line is blank (possibly '\r')
    nl2 = rest.find(b"\n")
    return rest[nl2 + 1:] if nl2 >= 0 else b""
