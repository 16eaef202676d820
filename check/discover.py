"""The files bin/check checks, from the PATHs a user names.

    a file              itself when it is a *.java file (another one is skipped with a warning)
    a folder in a git   the tracked and the untracked-but-not-ignored *.java files under it (`git ls-files`);
    work tree           a folder git ignores entirely is walked as named

In a git work tree, a link (listed by git, or named) to a file of the same tree is checked once, under its
target's path; a link out of the tree is not followed (a warning says so).
    any other folder    its *.java files, hidden folders and build output skipped (formats.sources.walk_files)

Each file once (also when named twice or reached through a link), in the one order of source files, named as
the user would type it. What cannot be checked is one line each: a PATH that is missing or is neither a
file nor a folder (a broken link, a fifo, a device) is an error (bin/check exits 2); a file found in a
folder that is not a regular file, a file larger than the size limit, a folder that cannot be listed or that
holds no .java file is skipped with a warning.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Literal

from formats.files import sort_key, unfit_source, user_path
from formats.sources import walk_files
from unnatural.cli import MAX_BYTES

from .git import GitError, git, split_z, work_tree

SUFFIX = ".java"


@dataclass(frozen=True)
class Problem:
    """Why a path is not checked, in one line naming it; `str()` is the line."""
    message: str
    severity: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        return self.message


def files_to_check(paths: Iterable[str | Path], max_bytes: int = MAX_BYTES,
                   cwd: str | Path | None = None) -> tuple[list[str], list[Problem]]:
    """The files to check under `paths` (as the user would type them, relative to `cwd`, the working folder
    by default), and one Problem per path that is not checked."""
    cwd = os.path.abspath(cwd if cwd is not None else os.getcwd())
    found: list[tuple[str, bool]] = []   # (path, named explicitly)
    problems: list[Problem] = []
    for arg in paths:
        arg = str(arg)
        where = os.path.join(cwd, arg)
        if os.path.isdir(where) and _in_tree(arg, cwd)[1]:   # a linked folder out of its work tree
            problems.append(Problem(f"{user_path(arg, cwd)}: {_in_tree(arg, cwd)[1]}; skipped", "warning"))
        elif os.path.isdir(where):
            listed, unlisted = _folder_files(where)
            if not listed and not unlisted:   # a typo of a folder, or the wrong one: say so (as bin/rank does)
                problems.append(Problem(f"{user_path(arg, cwd)}: no {SUFFIX} file in the folder; skipped", "warning"))
            for name in listed:
                name, outside = _in_tree(os.path.join(arg, name), cwd)
                if outside:
                    problems.append(Problem(f"{user_path(name, cwd)}: {outside}; skipped", "warning"))
                else:
                    found.append((name, False))
            problems.extend(Problem(f"{user_path(os.path.join(arg, name), cwd)}: cannot list ({why}); skipped",
                                    "warning") for name, why in unlisted)
        elif not arg.endswith(SUFFIX) and os.path.isfile(where):   # (a device or a fifo: an error below)
            problems.append(Problem(f"{user_path(arg, cwd)}: not a {SUFFIX} file; skipped", "warning"))
        elif os.path.lexists(where):   # a file, or anything else that is named (a broken link is reported below)
            name, outside = _in_tree(arg, cwd)
            if outside:
                problems.append(Problem(f"{user_path(arg, cwd)}: {outside}; skipped", "warning"))
            else:
                found.append((name, True))
        else:
            problems.append(Problem(f"{user_path(arg, cwd)}: no such file or folder"))
    files: dict[tuple[int, int], str] = {}
    named = sorted(((user_path(arg, cwd), arg, explicit) for arg, explicit in found), key=lambda f: sort_key(f[0]))
    for name, arg, explicit in named:
        severity = "error" if explicit else "warning"
        try:
            st = os.stat(os.path.join(cwd, arg))
        except OSError as e:
            if os.path.islink(os.path.join(cwd, arg)):
                problems.append(Problem(f"{name}: broken link; skipped", severity))
            elif os.path.lexists(os.path.join(cwd, arg)):
                problems.append(Problem(f"{name}: cannot read ({e.strerror}); skipped", severity))
            continue   # tracked by git but deleted: nothing to check
        unfit = unfit_source(name, st, max_bytes)
        if unfit:   # a special file named is an error; one found in a folder, or a big file, a warning
            problems.append(Problem(unfit, severity if not stat.S_ISREG(st.st_mode) else "warning"))
        else:
            # the same file named twice, or linked: once, by its first name
            files.setdefault((st.st_dev, st.st_ino), name)
    once: dict[str, Problem] = {}
    for p in problems:   # a file under two PATHs is reported once, as an error if it was named
        if p.message not in once or p.severity == "error":
            once[p.message] = p
    return sorted(files.values(), key=sort_key), sorted(once.values(), key=lambda p: p.message)


def _in_tree(name: str, cwd: str) -> tuple[str, str | None]:
    """A link in a git work tree, by its target: (the target's path, as `name` is written: relative to `cwd`
    or absolute, None) when the target is in the same tree, (name, why not) when it leads out of it;
    (name, None) for anything else (not a link, not in a work tree: checked as named)."""
    where = os.path.join(cwd, name)
    if not os.path.islink(where):
        return name, None
    folder = os.path.dirname(os.path.abspath(where))
    top = work_tree(folder)
    if top is None:
        return name, None
    real, top = os.path.realpath(where), os.path.realpath(top)
    if not real.startswith(top.rstrip(os.sep) + os.sep):
        return name, "a link out of the work tree, not followed"
    if os.path.isabs(name):
        return real, None
    # the target under the name the user would use: the link's folder as named, then the way to the target
    return os.path.normpath(os.path.join(os.path.dirname(name),
                                         os.path.relpath(real, os.path.realpath(os.path.dirname(where))))), None


def _folder_files(folder: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The *.java files to check under `folder`, relative to it; and the folders that could not be listed,
    relative to it, with why."""
    if work_tree(folder) is not None:
        try:
            if not _ignored(folder):
                out = git(["--literal-pathspecs", "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                           "--", "."], folder)
                return [p for p in split_z(out) if p.endswith(SUFFIX)], []
        except GitError:
            pass   # git cannot list it (an unsafe owner, a broken index): walked like any other folder
    unlisted: list[tuple[str, str]] = []
    files = [os.path.relpath(p, folder) for p in walk_files(
        folder, (SUFFIX,), lambda e: unlisted.append((os.path.relpath(e.filename, folder), e.strerror)))]
    return files, unlisted


def _ignored(folder: str) -> bool:
    """Whether git ignores `folder` (a user who names an ignored folder still wants it checked)."""
    try:
        git(["check-ignore", "-q", "."], folder)
    except GitError:
        return False   # exit 1: not ignored
    return True

