"""A file's indentation unit (one tab, or k spaces), read off its token stream.

Only line starts that lie in gaps count (never the inside of a comment, string or text block): a
Javadoc's ' * ' lines are alignment, not indentation. A file is tab-indented when more of its indented
code lines start with a tab than with a space; otherwise at least 80% of its space-indented lines must
be indented by a whole number of units (alignment lines are not): 2 spaces, or 3, else 4 by convention.
2 spaces become 4 when fewer than 10% of those lines sit at odd multiples of 2, or none at exactly 2, or
one while 80% sit at multiples of 4; 4 become 8 likewise (5%, at least 20 lines): a 4-space file has
its members at 4 and 12 columns, a 2-space one at 2 and 6, an 8-space one nothing at 4 but alignment.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .offsets import has_line_break, last_line
from .tokens import TokenStream

SPACE_UNITS = (2, 3, 4, 8)   # the widths a space unit may have
COVERAGE = 0.8               # the share of space-indented lines that must be whole levels
ODD_LEVELS = {2: 0.10, 4: 0.05}   # below this share of lines at odd levels, the unit is twice as wide
MIN_LINES_FOR_8 = 20         # an 8-space unit needs this many lines to tell it from 4
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
    return [indent for _, indent in stream.line_gaps]


def detect_indentation(stream: TokenStream) -> Indentation:
    return indentation_of(line_indents(stream))


def indentation_of(indents: list[str]) -> Indentation:
    tabs = sum(1 for i in indents if i[:1] == "\t")
    widths = [len(i) - len(i.lstrip(" ")) for i in indents if i[:1] == " "]
    if tabs and tabs >= len(widths):
        return Indentation("\t", tabs)

    def share(unit: int, of: list[int]) -> float:
        return sum(1 for w in of if w % unit == 0) / max(1, len(of))
    if share(2, widths) >= COVERAGE:
        unit = 2
    elif share(3, widths) >= COVERAGE:
        return Indentation("   ", len(widths))
    else:
        return Indentation(" " * DEFAULT_SPACES, len(widths))
    # double the unit while its odd multiples (the odd levels) are rare, or nothing sits at one unit, or
    # one line does and the doubled unit covers the others: then what sits there is alignment. (One line
    # at one unit and the rest off the doubled unit's levels is a small file's first level:
    # 'class A {\n  int x;\n}'.)
    at = Counter(widths)
    while unit < 8:
        whole = [w // unit for w in widths if w % unit == 0]
        odd = sum(1 for level in whole if level % 2) / max(1, len(whole))
        alignment = at[unit] == 0 or at[unit] == 1 and share(2 * unit, widths) >= COVERAGE
        if odd >= ODD_LEVELS[unit] and not alignment or (unit == 4 and len(whole) < MIN_LINES_FOR_8):
            break
        unit *= 2
    return Indentation(" " * unit, len(widths))


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


TAB_STOP = 4   # columns between tab stops, when indentation is measured in columns


def columns(indent: str, stop: int = TAB_STOP) -> int:
    """The width of a run of leading whitespace, a tab moving to the next multiple of `stop` columns."""
    col = 0
    for ch in indent:
        col = (col // stop + 1) * stop if ch == "\t" else col + 1
    return col


def mixed(indent: str, unit: str) -> bool:
    """Whether a line's indentation mixes characters against the file's unit: a tab in a space-indented
    file, or a space before a tab in a tab-indented one (spaces after the tabs are alignment)."""
    if unit == "\t":
        return " \t" in indent or (" " in indent and "\t" in indent.lstrip("\t").lstrip(" "))
    return "\t" in indent


# The tokens after which a new statement or member starts (symbols as the schemes write them: a comment is its
# kind's name), and those after which the next line is no continuation of the line's expression (the next
# element of a list, a label's statement)
STATEMENT_ENDS = frozenset({";", "{", "}", "LINECOMMENT", "BLOCKCOMMENT", "JAVADOC"})
LINE_ENDS = STATEMENT_ENDS | {",", ":"}
_NOT_STARTS = frozenset({"}", ")", "]", ".", "@"})   # a line starting so starts no statement


def first_continuations(tokens, gap_texts, starts: list[int] | None = None) -> list[tuple[int, int]]:
    """(gap, columns from the line before) of each line that first continues a statement: the line before
    it ends in no LINE_ENDS token and starts a statement itself (the line before that ends in a STATEMENT_ENDS
    token, or it is the file's first, and it does not start with a closing bracket, a '.' or an annotation:
    `@Override` above a method is no continuation). `tokens`: the token symbols (token i follows gap i);
    `gap_texts`: the gaps, one more; `starts`: line_starts, when the caller has them."""
    out = []
    line_start = 0   # the first token of the line the loop is on
    for g in line_starts(gap_texts, len(tokens)) if starts is None else starts:
        if tokens[g - 1] not in LINE_ENDS and (line_start == 0 or tokens[line_start - 1] in STATEMENT_ENDS) \
                and tokens[line_start] not in _NOT_STARTS and tokens[g] not in LINE_ENDS:
            out.append((g, _indent_columns(gap_texts[g]) - _indent_columns(gap_texts[line_start])))
        line_start = g
    return out


def line_starts(gap_texts, tokens: int) -> list[int]:
    """The tokens (1 .. tokens - 1) that start a line: the gap before them holds a line break."""
    return [g for g in range(1, tokens) if "\n" in gap_texts[g]]


_OPEN, _CLOSE = frozenset({"(", "["}), frozenset({")", "]"})
STRUCTURE = _OPEN | _CLOSE | {"{", "}", ";"}


def continuation_siblings(tokens, gap_texts, starts: list[int] | None = None, events: list[int] | None = None
                          ) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int, int]]]:
    """The lines that continue a statement inside a bracket (or none), each against the line before it there:
    (gap, previous sibling's gap, its columns minus the sibling's) of each line with an earlier line of the
    same statement in the same bracket (the next argument of a call broken one per line, the next `.call()`
    of a chain), and (gap, the gap of the line the bracket opened on, its columns minus that line's, the
    brackets that line leaves open, at most 3) of each first line in a bracket opened at the end of a line
    (`foo(` then the arguments). A formatter indents
    siblings alike, and a bracket's first line a fixed step deeper. Lines starting with a closing bracket and
    the statements of a block inside a statement (a lambda's) are left out. `starts` (line_starts) and `events`
    (those and the tokens of STRUCTURE, in order): when the caller has them."""
    siblings, firsts = [], []
    brackets: list[list[tuple[int, int]]] = [[]]   # per '{' frame, the open '(' / '[': (token, its line's gap)
    last: list[dict] = [{}]              # per frame, (statement start, innermost bracket) -> its last line's gap
    statement = [0]                      # per frame, the first token of its current statement
    line = 0                             # the gap of the line the loop is on
    starts = set(line_starts(gap_texts, len(tokens)) if starts is None else starts)
    # only the tokens that start a line or change the brackets or the statement (a file's few in ten)
    for g in sorted(starts.union(i for i, tok in enumerate(tokens) if tok in STRUCTURE)) if events is None else events:
        tok = tokens[g]
        if g in starts:
            if tok not in _CLOSE and tok != "}" and tokens[g - 1] not in STATEMENT_ENDS:
                inner = brackets[-1][-1] if brackets[-1] else (-1, -1)
                key = (statement[-1], inner[0])
                prev = last[-1].get(key)
                width = _indent_columns(gap_texts[g])
                if prev is not None:
                    siblings.append((g, prev, width - _indent_columns(gap_texts[prev])))
                elif inner[0] == g - 1:   # the bracket ends the line before
                    # formatters step once per bracket the opening line leaves open (`if (f(` : twice)
                    opened = min(sum(line_ == inner[1] for _, line_ in brackets[-1]), 3)
                    firsts.append((g, inner[1], width - _indent_columns(gap_texts[inner[1]]), opened))
                last[-1][key] = g
            line = g
        if tok in _OPEN:
            brackets[-1].append((g, line))
        elif tok in _CLOSE:
            if brackets[-1]:
                brackets[-1].pop()
        elif tok == "{":
            brackets.append([])
            last.append({})
            statement.append(g + 1)
        elif tok == "}":
            if len(brackets) > 1:
                brackets.pop()
                last.pop()
                statement.pop()
            statement[-1] = g + 1
        elif tok == ";" and not brackets[-1]:
            statement[-1] = g + 1
    return siblings, firsts


def _indent_columns(gap: str) -> int:
    return columns(last_line(gap)) if has_line_break(gap) else 0
