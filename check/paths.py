"""Paths as tools apply them: a file named relative to the root of its git work tree, however the user named
it (relative, absolute, from a sub-folder or from outside the tree), so that `git apply` at the repository
root takes bin/check's --diff and code scanning finds SARIF's files in the repository."""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from .git import work_tree


@lru_cache(maxsize=4096)
def work_tree_top(folder: str) -> str | None:
    """The real path of the top of the git work tree `folder` is in (None: in none), asked of git once per folder."""
    top = work_tree(folder)
    return os.path.realpath(top) if top is not None else None


def tree_relative(path: str) -> str | None:
    """`path` relative to the top of the git work tree it is in ('/' separators; its folder's links resolved,
    not the file's own), or None outside a work tree."""
    full = os.path.abspath(path)
    folder = os.path.realpath(os.path.dirname(full))
    if not os.path.isdir(folder):
        return None
    top = work_tree_top(folder)
    if top is None:
        return None
    rel = os.path.relpath(os.path.join(folder, os.path.basename(full)), top)
    return None if rel.startswith("..") else Path(rel).as_posix()


def patch_path(path: str) -> str:
    """The name a patch gives file `path`: relative to its work tree's top; outside a work tree, relative to
    the current folder when under it, else its absolute path without the leading '/' (for `patch -p1` at /)."""
    rel = tree_relative(path)
    if rel is not None:
        return rel
    full = os.path.abspath(path)
    here = os.path.abspath(os.curdir)
    if full.startswith(here.rstrip(os.sep) + os.sep):
        return Path(os.path.relpath(full, here)).as_posix()
    return Path(full).as_posix().lstrip("/")


def common_top(paths) -> Path | None:
    """The top of the one git work tree every path of `paths` is in, or None."""
    tops = set()
    for p in paths:
        full = os.path.abspath(p)
        folder = full if os.path.isdir(full) else os.path.dirname(full)
        tops.add(work_tree_top(os.path.realpath(folder)) if os.path.isdir(folder) else None)
    top = tops.pop() if len(tops) == 1 else None
    return Path(top) if top is not None else None
