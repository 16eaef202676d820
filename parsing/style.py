"""A file's indentation unit (one tab, or k spaces), read off its token stream.

Only line starts that lie in gaps count (never the inside of a comment, string or text block): a
Javadoc's ' * ' lines are alignment, not indentation. A file is tab-indented when more of its indented
code lines start with a tab than with a space; otherwise its unit is the most common step by which the
indentation of one code line exceeds the previous one's (block bodies outnumber continuation lines, so a
4-space file steps by 4 more often than by 8, a 2-space file by 2 more often than by 4).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .tokens import TokenStream

SPACE_UNITS = (2, 3, 4, 8)   # the widths a space unit may have; other steps are alignment
DEFAULT_SPACES = 4           # a file with too little indentation to tell: the Java convention


@dataclass(frozen=True)
class Indentation:
    unit: str            # "\t", or k spaces
    lines: int = 0       # indented code lines the guess rests on

    @property
    def name(self) -> str:
        return "tab" if self.unit == "\t" else f"{len(self.unit)}sp"

    @property
    def width(self) -> int:
        """Columns of one unit (a tab counted as 4, the Checkstyle property used for tab projects)."""
        return 4 if self.unit == "\t" else len(self.unit)


TAB = Indentation("\t")
SPACES = {k: Indentation(" " * k) for k in SPACE_UNITS}


def line_indents(stream: TokenStream) -> list[str]:
    """The leading whitespace of every code line that starts in a gap, in order."""
    return [gap[gap.rfind("\n") + 1:] for gap in stream.gap_texts if "\n" in gap]


def detect_indentation(stream: TokenStream) -> Indentation:
    return indentation_of(line_indents(stream))


def indentation_of(indents: list[str]) -> Indentation:
    tabs = sum(1 for i in indents if i[:1] == "\t")
    spaces = sum(1 for i in indents if i[:1] == " ")
    if tabs and tabs >= spaces:
        return Indentation("\t", tabs)
    steps: Counter[int] = Counter()
    prev = 0
    for indent in indents:
        width = len(indent) - len(indent.lstrip(" "))
        if width > prev and width - prev in SPACE_UNITS:
            steps[width - prev] += 1
        prev = width
    if not steps:
        return Indentation(" " * DEFAULT_SPACES, spaces)
    # most common step; ties go to the smaller unit (a 2-space file has its +4 continuations too)
    unit = min(steps, key=lambda k: (-steps[k], k))
    return Indentation(" " * unit, spaces)


def majority_indentation(indentations: list[Indentation]) -> Indentation:
    """A project's unit: the one most of its files' indented lines use."""
    weight: Counter[str] = Counter()
    for ind in indentations:
        weight[ind.unit] += max(ind.lines, 1)
    if not weight:
        return SPACES[DEFAULT_SPACES]
    unit = min(weight, key=lambda u: (-weight[u], u))
    return Indentation(unit, sum(ind.lines for ind in indentations if ind.unit == unit))


def reindent(stream: TokenStream, source: Indentation, target: Indentation) -> str:
    """The file re-indented from `source`'s unit to `target`'s: every line's leading run of spaces (or
    tabs) is read as whole units plus a remainder of spaces, and written back as as many `target` units
    plus the same remainder. Lines that begin inside a string or text block are left alone (their
    whitespace is content); comment lines are re-indented, so a Javadoc's ' * ' lines follow its '/**'."""
    src = stream.source
    frozen = [(s, e) for k, s, e in zip(stream.kinds, stream.starts, stream.ends)
              if k in ("string_literal", "text_block") and "\n" in src[s:e]]
    out, prev, f = [], 0, 0
    for nl in _line_starts(src):
        while f < len(frozen) and frozen[f][1] <= nl:
            f += 1
        if f < len(frozen) and frozen[f][0] < nl:
            continue
        end = nl
        while end < len(src) and src[end] in " \t":
            end += 1
        out.append(src[prev:nl])
        out.append(_convert(src[nl:end], source, target))
        prev = end
    out.append(src[prev:])
    return "".join(out)


def _line_starts(text: str):
    yield 0
    at = text.find("\n")
    while at >= 0:
        yield at + 1
        at = text.find("\n", at + 1)


def _convert(indent: str, source: Indentation, target: Indentation) -> str:
    if source.unit == "\t":
        levels = len(indent) - len(indent.lstrip("\t"))
        rest = indent[levels:]
    else:
        spaces = len(indent) - len(indent.lstrip(" "))
        levels, extra = divmod(spaces, len(source.unit))
        rest = " " * extra + indent[spaces:]
    return target.unit * levels + rest
