"""Fixes: the findings' repairs applied to a file's text (`apply`), shown as a unified diff (`unified_diff`, what
`--diff` prints) or written in place (`write_fixed`, only with an explicit `--fix`).

A repair only ever changes whitespace between tokens: one whose gap no longer holds its `observed` text, whose
texts are not whitespace, that overlaps a repair already taken, or that would make the text tokenize
differently (join, split or change a token, a comment, a string) is dropped.
"""
from __future__ import annotations

import bisect
import contextlib
import os
import re
import stat
from difflib import SequenceMatcher
from pathlib import Path
from typing import Iterable, Sequence

from parsing.java import tokenize
from unnatural.cli import atomic_output

from .findings import Finding

# What a repair may write: Java's white space (JLS 3.6: space, tab, form feed, line terminators).
JAVA_SPACE = frozenset(" \t\f\r\n")
CONTEXT = 3   # lines of context in a diff, as diff -u and git diff


def repairs_to_apply(text: str, findings: Iterable[Finding]) -> list[Finding]:
    """The findings whose repairs `apply` makes, in the given order (best first: of two overlapping repairs
    the later one is dropped)."""
    taken: list[Finding] = []
    spans: list[tuple[int, int]] = []   # sorted (start, end) of the repairs taken
    for f in findings:
        if not _applies(text, f):
            continue
        i = bisect.bisect_left(spans, (f.start, f.end))
        # spans touching at an end overlap too: two repairs of one gap, or an insertion at a gap's edge
        if (i > 0 and spans[i - 1][1] >= f.start) or (i < len(spans) and spans[i][0] <= f.end):
            continue
        spans.insert(i, (f.start, f.end))
        taken.append(f)
    if not taken:
        return []
    tokens = _token_texts(text)
    if _token_texts(rebuild(text, taken)) == tokens:   # the usual case: one tokenization
        return taken
    kept: list[Finding] = []
    for f in taken:   # some repair changes the tokens (or two do together): keep those that do not, in order
        if _token_texts(rebuild(text, [*kept, f])) == tokens:
            kept.append(f)
    return kept


def apply(text: str, findings: Iterable[Finding]) -> str:
    """`text` with the findings' repairs made (those `repairs_to_apply` keeps)."""
    return rebuild(text, repairs_to_apply(text, findings))


def rebuild(text: str, repairs: Sequence[Finding]) -> str:
    """`text` with each repair's gap replaced (the repairs apply to `text` and do not overlap)."""
    parts, at = [], 0
    for f in sorted(repairs, key=lambda f: f.start):
        parts += (text[at:f.start], f.repaired)
        at = f.end
    parts.append(text[at:])
    return "".join(parts)


def _applies(text: str, f: Finding) -> bool:
    return (0 <= f.start <= len(text) and text.startswith(f.observed, f.start) and f.observed != f.repaired
            and JAVA_SPACE.issuperset(f.observed) and JAVA_SPACE.issuperset(f.repaired))


def _token_texts(text: str) -> list[str]:
    return tokenize(text).token_texts()


# --- unified diffs -------------------------------------------------------------------------------------------

def unified_diff(path: str, old: str, new: str, context: int = CONTEXT) -> str:
    """A unified diff from `old` to `new` for file `path` ('--- a/path', '+++ b/path'; '' when they are
    equal) that `git apply` and `patch -p1` apply from the folder `path` is relative to (git apply refuses a
    path that leaves it, `../x`, or is absolute). Lines are what git calls lines (ended by LF): a CRLF's CR
    and a lone CR stay in the line, kept exactly; a last line without LF is marked
    '\\ No newline at end of file'."""
    if old == new:
        return ""
    a, b = _lines(old), _lines(new)
    out = [f"--- {_quoted('a/' + path)}\n", f"+++ {_quoted('b/' + path)}\n"]
    for group in _grouped_opcodes(a, b, context):
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        out.append(f"@@ -{_range(i1, i2 - i1)} +{_range(j1, j2 - j1)} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += (_diff_line(" ", line) for line in a[i1:i2])
                continue
            out += (_diff_line("-", line) for line in a[i1:i2])
            out += (_diff_line("+", line) for line in b[j1:j2])
    return "".join(out)


def _lines(text: str) -> list[str]:
    """The lines of `text` split after each LF only (each keeps its ending; the last may have none)."""
    lines = text.split("\n")
    last = lines.pop()
    return [line + "\n" for line in lines] + ([last] if last else [])


def _diff_line(prefix: str, line: str) -> str:
    return prefix + line if line.endswith("\n") else f"{prefix}{line}\n\\ No newline at end of file\n"


def _range(start: int, length: int) -> str:
    """A hunk's range as diff -u writes it: 1-based first line, length omitted when 1; an empty range
    names the line before it."""
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _grouped_opcodes(a: list[str], b: list[str], context: int) -> list[list[tuple]]:
    """The hunks from a to b: SequenceMatcher's opcodes grouped as diff -u does (changes closer than two
    contexts share a hunk). The lines both start and end with are set aside before matching, and lines
    repeated more than 1% of the time do not start a match (difflib's `autojunk`, as difflib.unified_diff):
    without it a 10,000-line file takes 0.7 s, with it 0.01 s, and any alignment gives a correct diff."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    matcher = SequenceMatcher(None, a[head:len(a) - tail], b[head:len(b) - tail])
    ops = [("equal", 0, head, 0, head)] if head else []
    ops += [(tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in matcher.get_opcodes()]
    if tail:
        ops.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    groups, group = [], []
    for k, op in enumerate(ops):
        tag, i1, i2, j1, j2 = op
        if tag != "equal":
            group.append(op)
            continue
        first, last = k == 0, k == len(ops) - 1
        if not first and not last and i2 - i1 <= 2 * context:
            group.append(op)   # short: the changes around it share one hunk
            continue
        n = min(context, i2 - i1)
        if not first:   # the context after a hunk's last change ends it
            if n:
                group.append((tag, i1, i1 + n, j1, j1 + n))
            groups.append(group)
            group = []
        if not last and n:   # the context before the next hunk's first change
            group = [(tag, i2 - n, i2, j2 - n, j2)]
    if group:
        groups.append(group)
    return groups


_SPECIAL = re.compile(r'["\\\x00-\x1f\x7f]')
_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r",
            '"': '\\"', "\\": "\\\\"}


def _quoted(name: str) -> str:
    """A file name in a diff header as git writes it: C-quoted when it holds a quote, a backslash or a
    control character; a name with a space gets a tab after it (where a date would go), so that
    `patch` reads the whole name."""
    if _SPECIAL.search(name):
        return '"' + "".join(_ESCAPES.get(c, f"\\{ord(c):03o}" if c < " " or c == "\x7f" else c)
                             for c in name) + '"'
    return name + "\t" if " " in name else name


# --- writing a fixed file in place -----------------------------------------------------------------------------

def write_fixed(path: str | Path, read_bytes: bytes, new_text: str) -> str | None:
    """Write `new_text` (UTF-8) to `path`, which held `read_bytes` when it was read: atomically (a temporary
    file in the same folder with the file's mode and owner, flushed to disk, renamed over it), through a
    link to the file it names. None when written (or nothing to write); else one line naming the file and
    why it was left as it was: it changed since it was read, is read-only, the change is not whitespace
    only, or the write failed (a read-only folder or file system, a full disk)."""
    name = str(path)
    data = new_text.encode("utf-8")
    if data == read_bytes:
        return None
    if _non_space(data) != _non_space(read_bytes):   # the guide's promise, kept here whatever the caller did
        return f"{name}: not fixed: the fix would change more than whitespace"
    target = os.path.realpath(path)
    try:
        st = os.stat(target)
        if not stat.S_ISREG(st.st_mode):
            return f"{name}: not fixed: not a regular file"
        if not st.st_mode & 0o222 or not os.access(target, os.W_OK):
            return f"{name}: not fixed: the file is read-only"
        with open(target, "rb") as f:
            now = f.read()
    except OSError as e:
        return f"{name}: not fixed: cannot read it again ({e.strerror})"
    if now != read_bytes:
        return f"{name}: not fixed: it changed since it was checked"
    try:
        with atomic_output(target, "wb", like=st) as f:
            f.write(data)
        _sync_folder(os.path.dirname(target))
    except OSError as e:
        return f"{name}: not fixed: cannot write it ({e.strerror}); left as it was"
    return None


def _non_space(data: bytes) -> bytes:
    return re.sub(rb"\s+", b"", data)


def _sync_folder(folder: str) -> None:
    """Flush the rename to disk (best effort: not every file system can sync a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
