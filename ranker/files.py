"""Which files a PATH names, and reading them as the ranker needs (strict UTF-8, newlines untouched)."""
from __future__ import annotations

import os
from pathlib import Path


class InputError(ValueError):
    """A file that cannot be ranked; the message names it."""


def natural_key(p: Path):
    return (str(p.parent), int(p.stem) if p.stem.isdigit() else -1, p.name)


def absolute(p: Path) -> Path:
    """Absolute without resolving links: the same key the evaluator uses for a task."""
    return Path(os.path.abspath(p))


def expand(path: Path) -> list[Path]:
    """A task folder's *.txt files (out.txt excluded), else a folder's *.java files, or the file itself."""
    if path.is_dir():
        tasks = [p for p in path.glob("*.txt") if p.name != "out.txt"]
        files = tasks or list(path.rglob("*.java"))
        return sorted((absolute(p) for p in files), key=natural_key)
    if path.exists():
        return [absolute(path)]
    raise InputError(f"{path}: no such file or folder")


def read_source(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from None
    if b"\0" in data:
        raise InputError(f"{path}: binary file (NUL byte at {data.index(bytes(1))}); skipped")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 (byte 0x{data[e.start]:02x} at {e.start}); skipped") from None
