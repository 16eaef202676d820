"""bin/check's configuration file and --exclude: what a repository says about how it is checked.

The file is `.unnatural.toml` at the root of the repository (the git work tree of the PATHs; outside one, the
current folder), or, when there is none, the `[tool.unnatural]` table of its `pyproject.toml`:

    exclude = ["src/test/resources/**", "*Generated.java"]   # globs, as --exclude
    sensitivity = "low"                                      # as --sensitivity (low, medium, high)
    learn = "folder"                                         # as --learn (file, folder, project, folder+project)
    select = ["tab", "indent"]                               # as --select: only these rules
    ignore = ["blank-lines"]                                 # as --ignore: not these rules
    [per-file-ignores]                                       # not these rules in the files a glob matches
    "src/test/**" = ["indent"]

A pull request controls this file, so it can say nothing that makes the checker load a model, a cache or
code from a path, or write anywhere: those are options only. An unknown key, an unknown rule, or a value of
the wrong kind, is an error naming it (exit 2). Options on the command line win (--select over `select`);
excludes and ignores add up.

A glob (`fnmatch`, `*` crossing folders; a trailing `/**` or a plain folder name takes everything under it)
excludes a file when it matches the file's path relative to the root, one of its folders there, or, for a glob
without '/', the file's name or a folder's name. Excluded files are neither checked nor learned from.
`per-file-ignores` matches its globs the same way.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from .calibration import SENSITIVITIES
from .rules import RULES

FILE = ".unnatural.toml"
PYPROJECT = "pyproject.toml"
# How bin/check learns the repository's style (--learn, `learn`): ranker/learn.py's methods of these names.
# file: each file's own style alone; folder: the other files' counts beneath it; project: a model of the
# repository's other files; folder+project: both.
LEARN_METHODS = ("file", "folder", "project", "folder+project")
DEFAULT_LEARN = "folder"   # chosen by bin/check-bench (docs/check.md, "Learning the repository's style")
OLD_LEARN_NAMES = {"none": "file"}   # accepted as before: what `file` was called
MAX_BYTES = 1 << 20   # a configuration file larger than this is not one


class ConfigError(Exception):
    """The configuration file is wrong; the message is one line naming the file (and the key)."""


@dataclass(frozen=True)
class Config:
    exclude: tuple[str, ...] = ()
    sensitivity: str | None = None
    learn: str | None = None
    select: tuple[str, ...] | None = None   # rule ids; None: every rule checked by default
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()   # (glob, rule ids)
    source: str | None = None    # the file it was read from


def learn_method(name: str) -> str:
    """A --learn name as ranker/learn.py calls it (the old name `none` is `file`)."""
    return OLD_LEARN_NAMES.get(name, name)


def rule_ids(names, where: str) -> tuple[str, ...]:
    """`names` (rule ids; a string may list several, comma-separated) checked against check/rules.py: an unknown
    one is a ValueError naming it, `where` and every rule."""
    out = []
    for name in names:
        for rule in str(name).split(","):
            rule = rule.strip()
            if rule not in RULES:
                raise ValueError(f"{where}: unknown rule {rule!r} (known: {', '.join(RULES)})")
            if rule not in out:
                out.append(rule)
    return tuple(out)


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
    known = {"exclude", "sensitivity", "learn", "select", "ignore", "per-file-ignores"}
    for key in table:
        if key not in known:
            raise ConfigError(f"{source}: unknown key {key!r} (known: {', '.join(sorted(known))})")
    exclude = _strings(table, "exclude", source, "a glob or a list of globs")
    learn = table.get("learn")
    for key, choices, value in (("sensitivity", SENSITIVITIES, table.get("sensitivity")),
                                ("learn", LEARN_METHODS, learn_method(learn) if isinstance(learn, str) else learn)):
        if key in table and value not in choices:
            raise ConfigError(f"{source}: {key!r} must be one of {', '.join(choices)}, not {table[key]!r}")
    rules = {}
    for key in ("select", "ignore"):
        if key in table:
            rules[key] = _rules(_strings(table, key, source, "a rule or a list of rules"), f"{source}: {key!r}")
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{source}: 'per-file-ignores' must be a table of globs and rules")
    ignores = []
    for glob, names in per_file.items():
        what = f"{source}: 'per-file-ignores' {glob!r}"
        if not glob or not (isinstance(names, str)
                            or isinstance(names, list) and all(isinstance(n, str) for n in names)):
            raise ConfigError(f"{what} must be a rule or a list of rules")
        ignores.append((glob, _rules([names] if isinstance(names, str) else names, what)))
    return Config(tuple(exclude), table.get("sensitivity"), learn_method(learn) if learn else None,
                  rules.get("select"), rules.get("ignore", ()), tuple(ignores), source)


def _strings(table: dict, key: str, source: str, what: str) -> list[str]:
    """The key's string or list of non-empty strings, as a list."""
    value = table.get(key, [])
    value = [value] if isinstance(value, str) else value
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"{source}: {key!r} must be {what}")
    return value


def _rules(names: list[str], where: str) -> tuple[str, ...]:
    try:
        return rule_ids(names, where)
    except ValueError as e:
        raise ConfigError(str(e)) from None


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
