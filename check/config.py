"""bin/check's configuration file and --exclude: what a repository says about how it is checked.

The file is `.unnatural.toml` at the root of the repository (the git work tree of the PATHs; outside one, the
current folder), or, when there is none, the `[tool.unnatural]` table of its `pyproject.toml`:

    exclude = ["src/test/resources/**", "*Generated.java"]   # globs, as --exclude
    sensitivity = "low"                                      # as --sensitivity (low, medium, high)
    learn = "folder"                                         # as --learn (none, folder, project, folder+project)

A pull request controls this file, so it can say nothing that makes the checker load a model, a cache or
code from a path, or write anywhere: those are options only. An unknown key, or a value of the wrong kind, is
an error naming it (exit 2). Options on the command line win; excludes add up.

A glob (`fnmatch`, `*` crossing folders; a trailing `/**` or a plain folder name takes everything under it)
excludes a file when it matches the file's path relative to the root, one of its folders there, or, for a glob
without '/', the file's name or a folder's name. Excluded files are neither checked nor learned from.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

FILE = ".unnatural.toml"
PYPROJECT = "pyproject.toml"
SENSITIVITIES = ("low", "medium", "high")
LEARN = ("none", "folder", "project", "folder+project")
MAX_BYTES = 1 << 20   # a configuration file larger than this is not one


class ConfigError(Exception):
    """The configuration file is wrong; the message is one line naming the file (and the key)."""


@dataclass(frozen=True)
class Config:
    exclude: tuple[str, ...] = ()
    sensitivity: str | None = None
    learn: str | None = None
    source: str | None = None    # the file it was read from


def load(root: Path) -> Config:
    """The configuration at `root`: `.unnatural.toml`, else pyproject.toml's [tool.unnatural], else none."""
    path = root / FILE
    if path.is_file():
        return _validated(_toml(path), str(path))
    path = root / PYPROJECT
    if path.is_file():
        tool = _toml(path).get("tool", {})
        if isinstance(tool, dict) and "unnatural" in tool:
            if not isinstance(tool["unnatural"], dict):
                raise ConfigError(f"{path}: [tool.unnatural] must be a table")
            return _validated(tool["unnatural"], f"{path} [tool.unnatural]")
    return Config()


def _toml(path: Path) -> dict:
    import tomllib
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read ({e.strerror})") from None
    if len(data) > MAX_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_BYTES:,} bytes")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: not TOML ({e})") from None


def _validated(table: dict, source: str) -> Config:
    known = {"exclude", "sensitivity", "learn"}
    for key in table:
        if key not in known:
            raise ConfigError(f"{source}: unknown key {key!r} (known: {', '.join(sorted(known))})")
    exclude = table.get("exclude", [])
    if isinstance(exclude, str):
        exclude = [exclude]
    if not isinstance(exclude, list) or not all(isinstance(g, str) and g for g in exclude):
        raise ConfigError(f"{source}: 'exclude' must be a glob or a list of globs")
    for key, choices in (("sensitivity", SENSITIVITIES), ("learn", LEARN)):
        if key in table and table[key] not in choices:
            raise ConfigError(f"{source}: {key!r} must be one of {', '.join(choices)}, not {table[key]!r}")
    return Config(tuple(exclude), table.get("sensitivity"), table.get("learn"), source)


def excluded(rel: str, globs) -> bool:
    """Whether the file at `rel` ('/'-separated, relative to the root) is excluded by one of `globs`."""
    if not globs:
        return False
    parts = rel.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    for glob in globs:
        g = glob.strip("/").removeprefix("./")
        g = g[:-3] if g.endswith("/**") else g
        if "/" in g:
            if any(fnmatchcase(p, g) for p in prefixes):
                return True
        elif any(fnmatchcase(part, g) for part in parts):
            return True
    return False


def relative_to(path: str, root: Path) -> str:
    """`path` relative to `root` with '/' (its folder's links resolved, as the work tree's listing)."""
    full = os.path.abspath(path)
    folder = os.path.realpath(os.path.dirname(full))
    return Path(os.path.relpath(os.path.join(folder, os.path.basename(full)), os.path.realpath(root))).as_posix()
