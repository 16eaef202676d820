"""Running git for bin/check: which files a work tree holds (check/discover.py) and which lines changed since a
revision (check/since.py). The user's git configuration must not change what we parse, so the options that
shape the output are always given."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path


class GitError(Exception):
    """git failed, or is not installed; the message is one line."""


def git(args: list[str], cwd: str | Path) -> bytes:
    """`git ARGS` in folder `cwd`: its standard output, or a GitError with the first line git wrote on
    standard error. (Give `--literal-pathspecs` first to commands that take paths: a file name is not a glob.)"""
    # no optional index.lock taken (a check must not disturb the user's own git commands); messages in English
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    try:
        done = subprocess.run(["git", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    except OSError as e:
        raise GitError(f"cannot run git ({e.strerror})") from None
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(lines[0].removeprefix("fatal: ") if lines else f"git {' '.join(args[:2])} failed")
    return done.stdout


def work_tree(folder: str | Path) -> Path | None:
    """The top folder of the git work tree `folder` is in (links resolved), or None (not in one, inside a
    .git folder, or git missing)."""
    try:
        out = git(["rev-parse", "--show-toplevel"], folder)
    except GitError:
        return None
    top = out.decode("utf-8", "surrogateescape").rstrip("\n")
    return Path(top) if top else None


def split_z(out: bytes) -> list[str]:
    """Paths git printed with -z (NUL-terminated, never quoted), as str (undecodable bytes kept as
    surrogates, so that the path still opens)."""
    return [os.fsdecode(p) for p in out.split(b"\0") if p]
