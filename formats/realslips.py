"""The real-slip sets (`../shared/data/unpack DEST realslips`): whitespace slips that developers made and later
fixed in whitespace-only commits, mined from git histories. A set is a folder with one folder per project
(`b<N>.java`: a file before its fix; `c<N>.java`: a clean file of the same project), `truth.jsonl` (one
change per line: the before file's changed gaps and the developer's `after` text) and `clean.jsonl` (one
clean file per line). The set's README.md tells how it was mined.

Here: the records as frozen dataclasses (`read_set`), the kinds of a changed gap and their two groups, and
the set's gaps of a text (`gap_texts`: what `--fix` scoring compares). A gap's `offset` is the 1-based
character offset of its first character in the before file (the CodRep convention, as bin/check's
`gap_offset`); `line` .. `end_line` are the lines it touches.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from parsing.java import GRAMMAR, tokenize
from parsing.tokens import TokenStream

from .files import InputError, read_records

TRUTH_FILE = "truth.jsonl"
ASCII_SPACE = " \t\n\r\x0b\x0c"   # what the mining took for whitespace (Python's bytes.isspace)
CLEAN_FILE = "clean.jsonl"

# The primary kinds of a changed gap, in the set's order (the first of a gap's `kinds`).
KINDS = ("line break added", "line break removed", "blank line added", "blank line removed", "indentation change",
         "tab<->space", "trailing whitespace removed", "trailing whitespace added", "space added", "space removed",
         "space amount changed", "line ending", "end of file: line break added", "end of file: line break removed",
         "end of file: blank line added", "end of file: blank line removed", "other")
END_OF_FILE = "end of file: "
# The kinds that are slips whatever the taste of the repository: a checker that knows the repository's
# habits can tell them (the rest, line breaks and blank lines, are often a developer's preference).
WHATEVER_THE_TASTE = frozenset({"indentation change", "tab<->space", "trailing whitespace removed",
                                "trailing whitespace added", "space added", "space removed", "space amount changed"})


def whatever_the_taste(kind: str) -> bool:
    """Whether a gap of primary kind `kind` is a slip whatever the taste (the end of the file included)."""
    return kind in WHATEVER_THE_TASTE or kind.startswith(END_OF_FILE)


@dataclass(frozen=True)
class Gap:
    """One changed gap of a before file."""
    index: int          # the gap's index in the file (0: before the first token)
    offset: int         # 1-based character offset of its first character in the before file
    line: int           # the line it starts on, and its column (1-based)
    col: int
    end_line: int       # the line and column just past it
    end_col: int
    old: str            # the whitespace before the fix, and after it
    new: str
    kind: str           # the primary kind (KINDS)
    kinds: tuple[str, ...]
    prev_token: str = ""
    next_token: str = ""

    @property
    def lines(self) -> range:
        """The lines the gap touches."""
        return range(self.line, self.end_line + 1)


@dataclass(frozen=True)
class Change:
    """One file of one commit: the before file (with the slips) and the developer's fix."""
    project: str
    file: str           # the before file's name in the project folder (b<N>.java)
    lines: int          # lines of the before file
    gaps: tuple[Gap, ...]
    before: str
    after: str
    repo: str = ""
    commit: str = ""
    parent: str = ""
    path: str = ""      # the file's path in the repository
    time: int = 0       # the commit's author time (Unix seconds)
    subject: str = ""


@dataclass(frozen=True)
class CleanFile:
    project: str
    file: str           # c<N>.java
    lines: int
    repo: str = ""
    commit: str = ""
    path: str = ""
    blob: str = ""


@dataclass(frozen=True)
class SlipSet:
    root: Path
    changes: tuple[Change, ...]
    clean: tuple[CleanFile, ...]
    problems: tuple[str, ...] = ()   # one line for each record that could not be read (left out)

    @property
    def projects(self) -> tuple[str, ...]:
        return tuple(sorted({c.project for c in self.changes} | {c.project for c in self.clean}))

    def folder(self, project: str) -> Path:
        return self.root / project


def _gap(record: dict) -> Gap:
    return Gap(index=int(record["gap"]), offset=int(record["offset"]), line=int(record["line"]),
               col=int(record["col"]), end_line=int(record["end_line"]), end_col=int(record["end_col"]),
               old=str(record["old"]), new=str(record["new"]), kind=str(record["kind"]),
               kinds=tuple(record.get("kinds") or (record["kind"],)), prev_token=str(record.get("prev_token", "")),
               next_token=str(record.get("next_token", "")))


def change_of(record: dict) -> Change:
    """A truth.jsonl record as a Change (KeyError, TypeError or ValueError when a field is missing or wrong)."""
    return Change(project=str(record["project"]), file=str(record["file"]), lines=int(record["lines"]),
                  gaps=tuple(_gap(g) for g in record["gaps"]), before=str(record["before"]),
                  after=str(record["after"]), repo=str(record.get("repo", "")), commit=str(record.get("commit", "")),
                  parent=str(record.get("parent", "")), path=str(record.get("path", "")),
                  time=int(record.get("time", 0)), subject=str(record.get("subject", "")))


def clean_of(record: dict) -> CleanFile:
    """A clean.jsonl record as a CleanFile."""
    return CleanFile(project=str(record["project"]), file=str(record["file"]), lines=int(record["lines"]),
                     repo=str(record.get("repo", "")), commit=str(record.get("commit", "")),
                     path=str(record.get("path", "")), blob=str(record.get("blob", "")))


def read_set(folder: str | Path) -> SlipSet:
    """The set in `folder` (its truth.jsonl and clean.jsonl). A missing or unreadable truth.jsonl is an
    InputError naming it; a missing clean.jsonl is a set without clean files."""
    root = Path(folder)
    if not (root / TRUTH_FILE).is_file():
        raise InputError(f"{root}: not a real-slip set (no {TRUTH_FILE})")
    problems: list[str] = []
    changes = read_records(root / TRUTH_FILE, change_of, problems)
    clean = read_records(root / CLEAN_FILE, clean_of, problems) if (root / CLEAN_FILE).is_file() else []
    return SlipSet(root, tuple(changes), tuple(clean), tuple(problems))


def taken_stream(text: str) -> TokenStream | None:
    """The token stream of `text` (parsing/java.py's tokenize) when the set takes the file, or None when the
    parse has an error or a gap is not ASCII whitespace: the mining's own test of a file."""
    parsed = text.replace("\r", "\n") if "\r" in text else text
    if GRAMMAR.parse(parsed).root_node.has_error:
        return None
    stream = tokenize(text)
    if any(k in ("error", "bom") for k in stream.kinds) or any(g.strip(ASCII_SPACE) for g in stream.gap_texts):
        return None
    return stream


def gap_texts(text: str) -> tuple[list[str], list[str]] | None:
    """(the gaps, the tokens) of `text` as the set defines them (tree-sitter-java's leaves, comments and
    literals whole, every CR parsed as LF; a gap before the first token, between tokens and after the last),
    or None when the set would not take the file (taken_stream)."""
    stream = taken_stream(text)
    return None if stream is None else (list(stream.gap_texts), list(stream.texts))


# the primary label first: the layout of lines before spacing details (the mining's order)
_LABEL_ORDER = ("line break added", "line break removed", "blank line added", "blank line removed",
                "indentation change", "tab<->space", "trailing whitespace removed", "trailing whitespace added",
                "space added", "space removed", "space amount changed", "line ending")


def classify(old: str, new: str) -> list[str]:
    """What the edit of a gap's whitespace from `old` to `new` is, as the set labels it (several labels can
    hold; the first is the primary kind). A file's trailing gap gets END_OF_FILE before each (`changed_gaps`)."""
    labels = []
    o_nl, n_nl = old.count("\n"), new.count("\n")
    if ("\t" in old) != ("\t" in new):
        labels.append("tab<->space")
    if o_nl == 0 and n_nl == 0:
        if not old:
            labels.append("space added")
        elif not new:
            labels.append("space removed")
        elif "tab<->space" not in labels:
            labels.append("space amount changed")
    elif o_nl == 0 or n_nl == 0:
        labels.append("line break added" if n_nl else "line break removed")
    else:
        o_lines, n_lines = old.split("\n"), new.split("\n")
        o_trail = sum(len(line.rstrip("\r")) for line in o_lines[:-1])
        n_trail = sum(len(line.rstrip("\r")) for line in n_lines[:-1])
        if o_trail != n_trail:
            labels.append("trailing whitespace removed" if o_trail > n_trail else "trailing whitespace added")
        if n_nl != o_nl:
            labels.append("blank line added" if n_nl > o_nl else "blank line removed")
        if o_lines[-1] != n_lines[-1] and "tab<->space" not in labels:
            labels.append("indentation change")
        if old.replace("\r\n", "\n") == new.replace("\r\n", "\n") and old != new:
            labels.append("line ending")
    return sorted(labels, key=_LABEL_ORDER.index) or ["other"]


def line_col(text: str, index: int) -> tuple[int, int]:
    """The 1-based line and column of 0-based character `index` (lines end at LF, as the set counts them)."""
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


def changed_gaps(before: str, after: str) -> tuple[Gap, ...] | None:
    """The gaps whose whitespace differs between `before` and `after`, as the set records them, or None when
    the token texts differ or either text fails the set's test (`gap_texts`)."""
    b, a = gap_texts(before), gap_texts(after)
    if b is None or a is None or b[1] != a[1]:
        return None
    (b_gaps, tokens), a_gaps = b, a[0]
    out, at = [], 0
    for i, (old, new) in enumerate(zip(b_gaps, a_gaps)):
        if old != new:
            kinds = classify(old, new)
            if i == len(tokens):   # the file's trailing whitespace
                kinds = [END_OF_FILE + k for k in kinds]
            (line, col), (end_line, end_col) = line_col(before, at), line_col(before, at + len(old))
            out.append(Gap(i, at + 1, line, col, end_line, end_col, old, new, kinds[0], tuple(kinds),
                           tokens[i - 1][:40] if i > 0 else "", tokens[i][:40] if i < len(tokens) else ""))
        at += len(old) + (len(tokens[i]) if i < len(tokens) else 0)
    return tuple(out)


def gap_record(gap: Gap) -> dict:
    """A changed gap as truth.jsonl writes it."""
    return {"gap": gap.index, "offset": gap.offset, "line": gap.line, "col": gap.col, "end_line": gap.end_line,
            "end_col": gap.end_col, "old": gap.old, "new": gap.new, "prev_token": gap.prev_token,
            "next_token": gap.next_token, "kind": gap.kind, "kinds": list(gap.kinds)}
