"""`--since REV`: the lines a change added or modified since a git revision, so that CI on old code reports
only what the change touched. The working tree is compared with the merge base of REV and HEAD (REV itself
when it is an ancestor of HEAD, such as HEAD~1; where a branch left `origin/main` when REV is that: what a pull
request changes, whatever was merged into main since), as `git diff -U0 $(git merge-base REV HEAD)` does:
commits since, staged and unstaged changes alike; files added since and untracked files (not ignored) are new
as a whole. A line that was only deleted leaves no line changed: the lines around it are not the change's.

Lines are counted as editors count them (LF, CRLF and a lone CR each end one, as a Finding's line): git ends
lines at LF only, so in a file with lone CRs one line of git's can be several of ours.
"""
from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path
from typing import Iterable

from .git import GitError, git, split_z, work_tree

Changes = dict[Path, set[int] | None]
# More paths than this are not passed to git (a command line has a limit): the whole work tree is compared.
MAX_PATHSPECS = 1000


class SinceError(Exception):
    """--since cannot be answered (not in a git work tree, an unknown revision); the message is one line."""


EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"   # what a repository without a commit is compared with


def changed_lines(paths: Iterable[str | Path], rev: str | None, staged: bool = False) -> Changes:
    """The files under `paths` that the change since `rev` (from its merge base with HEAD) added lines to or
    modified lines of, by their real absolute path (links resolved): the numbers of those lines (1-based), or
    None for a file that is new as a whole. A file not in the dict has no line added or modified (unchanged,
    deleted, or only lines deleted). SinceError when a path is not inside a git work tree, or `rev` is not a
    revision of its repository or shares no history with HEAD. With `staged`, what the index changes since
    `rev` (None: HEAD, or nothing before the first commit): the lines a commit would add."""
    by_top: dict[Path, list[str]] = defaultdict(list)
    tops: dict[str, Path | None] = {}   # one git process per folder (a pre-commit hook names many files)
    for p in paths:
        real = os.path.realpath(p)
        folder = real if os.path.isdir(real) else os.path.dirname(real)
        if not os.path.isdir(folder):
            continue   # a missing path: the checker reports it
        if folder not in tops:
            tops[folder] = work_tree(folder)
        top = tops[folder]
        if top is None:
            option = "--staged" if staged and rev is None else "--since"
            raise SinceError(f"{option}: {p} is not inside a git work tree")
        by_top[top].append(os.path.relpath(real, top))
    changes: Changes = {}
    for top, specs in by_top.items():
        try:
            commit = git(["rev-parse", "--verify", "--quiet", "--end-of-options",
                          f"{'HEAD' if rev is None else rev}^{{commit}}"], top)
        except GitError:
            if rev is not None:
                raise SinceError(f"--since: unknown revision {rev!r} in {top}") from None
            commit = EMPTY_TREE.encode()   # --staged before the first commit: everything staged is new
        if rev is not None:
            commit = _merge_base(commit, rev, top)
        if len(specs) > MAX_PATHSPECS:
            specs = []
        try:
            diff = git(["--literal-pathspecs", "-c", "core.quotePath=false", "diff", *(["--cached"] if staged else []),
                        "-U0", "--no-color",
                        "--no-ext-diff", "--no-textconv", "--no-renames", "--ignore-submodules", "--src-prefix=a/",
                        "--dst-prefix=b/", commit.decode().strip(), "--", *specs], top)
            untracked = b"" if staged else git(["--literal-pathspecs", "ls-files", "-z", "--others",
                                                "--exclude-standard", "--", *specs], top)
        except GitError as e:
            raise SinceError(f"--since {rev}: {e}") from None
        for name, lines in parse_diff(diff).items():
            if lines is None or lines:   # (a file with lines deleted only: none of its lines is the change's)
                changes[top / name] = lines if lines is None else _editor_lines(top / name, lines)
        changes.update((top / name, None) for name in split_z(untracked))
    return changes


def _merge_base(commit: bytes, rev: str, top: Path) -> bytes:
    """Where HEAD's history left `rev`'s (the commit itself when it is HEAD's ancestor): what a pull request
    onto branch `rev` changes. Before the first commit, `commit` itself."""
    try:
        head = git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], top)
    except GitError:
        return commit   # no HEAD yet: the work tree against `rev`
    try:
        return git(["merge-base", commit.decode().strip(), head.decode().strip()], top)
    except GitError:
        raise SinceError(f"--since: {rev!r} and HEAD have no commit in common in {top}") from None


def is_changed(changes: Changes, path: str | Path, line: int) -> bool:
    """Whether line `line` of file `path` (as the user named it) changed, by `changed_lines`' answer."""
    real = Path(os.path.realpath(path))
    if real not in changes:
        return False
    lines = changes[real]
    return lines is None or line in lines


_HUNK = re.compile(rb"@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def parse_diff(diff: bytes) -> dict[str, set[int] | None]:
    """The files of a `git diff -U0` (b/ side, relative to the top of the work tree) and the numbers of their
    lines added or modified (git's lines, ended by LF; a hunk that only deletes adds none); None for an added
    file, nothing for a deleted one."""
    out: dict[str, set[int] | None] = {}
    new_file, name = False, None
    for line in diff.split(b"\n"):
        if line.startswith(b"diff --git "):
            new_file, name = False, None
        elif line.startswith(b"new file mode "):
            new_file = True
        elif line.startswith(b"+++ "):
            target = line[4:]
            name = None if target == b"/dev/null" else _unquoted(target).removeprefix("b/")
            if name is not None:
                out[name] = None if new_file else set()
        elif line.startswith(b"@@ ") and name is not None and out[name] is not None:
            m = _HUNK.match(line)
            if m:
                start, count = int(m.group(1)), int(m.group(2) or 1)
                out[name].update(range(start, start + count))   # (a deletion: count 0)
    return out


_ESCAPE = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13, b'"': 34, b"\\": 92}


def _unquoted(name: bytes) -> str:
    """A path as git writes it in a diff header: C-quoted ("...") when it holds special characters."""
    name = name.rstrip(b"\t")
    if name.startswith(b'"') and name.endswith(b'"') and len(name) >= 2:
        out, i, body = bytearray(), 0, name[1:-1]
        while i < len(body):
            if body[i:i + 1] == b"\\" and i + 1 < len(body):
                nxt = body[i + 1:i + 2]
                if nxt in _ESCAPE:
                    out.append(_ESCAPE[nxt])
                    i += 2
                    continue
                if body[i + 1:i + 4].isdigit():
                    out.append(int(body[i + 1:i + 4], 8))
                    i += 4
                    continue
            out.append(body[i])
            i += 1
        name = bytes(out)
    return os.fsdecode(name)


def _editor_lines(path: Path, lines: set[int]) -> set[int]:
    """git's changed line numbers as editors count lines, in a file with lone CRs (unchanged otherwise)."""
    try:
        data = path.read_bytes()
    except OSError:
        return lines
    if b"\r" not in data.replace(b"\r\n", b""):
        return lines
    out: set[int] = set()
    first = 1   # our number of the first line of git's line k
    pieces = data.split(b"\n")
    for k, git_line in enumerate(pieces, start=1):
        # the lone CRs in git's line end lines of ours (a CR just before its LF is a CRLF's)
        inner = git_line.count(b"\r") - (k < len(pieces) and git_line.endswith(b"\r"))
        if k in lines:
            out.update(range(first, first + inner + 1))
        first += inner + 1
    return out
