"""`--format text`: what a person reads, one line per finding

    path:line:col: <rule> <message> (confidence 0.93)

and, in a terminal (or --color always), the source lines the gap touches, its whitespace made visible
('·' space, '→' tab, '↵' line end) and a caret under the spot:

     13 |         int n = 0·;
        |                  ^
"""
from __future__ import annotations

import unicodedata

from parsing.offsets import Lines

from .findings import CheckedFile, Finding
from .report import Reporter, printable

TAB_WIDTH = 4          # tabs are expanded here (to this width) so that the caret lines up whatever the terminal does
WIDTH = 160            # a longer line is shown as a window around the spot
MAX_LINES = 4          # a gap over more lines (blank lines) shows its first two, '…' and its last
_VISIBLE = {" ": "·", "\t": "→", "\x0c": "␌", "\x0b": "␋"}
_BOLD, _DIM, _RED, _GREEN, _MAGENTA, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[31m", "\x1b[32m", "\x1b[35m", "\x1b[0m"


class TextReporter(Reporter):
    def report(self, checked: CheckedFile) -> None:
        lines = Lines(checked.text) if self.options.source and checked.findings else None
        for f in checked.findings:
            self.out.write(self.headline(f) + "\n")
            if lines is not None:
                for row in excerpt(lines, f, self.options.color):
                    self.out.write(row + "\n")

    def headline(self, f: Finding) -> str:
        where = f"{printable(f.path)}:{f.line}:{f.column}:"
        confidence = f"(confidence {f.confidence:.2f})"
        if self.options.color:
            return f"{_BOLD}{where}{_RESET} {_MAGENTA}{f.rule}{_RESET} {f.message} {_DIM}{confidence}{_RESET}"
        return f"{where} {f.rule} {f.message} {confidence}"


def excerpt(lines: Lines, f: Finding, color: bool) -> list[str]:
    """The source lines from the spot to the end of the gap, each with a line under it marking the gap ('~')
    and the spot ('^')."""
    spot = f.offset - 1
    first = lines.position(min(spot, f.start))[0]
    last = lines.position(max(spot, f.end - 1))[0]   # a gap that ends a line does not show the next one
    numbers = list(range(first, last + 1))
    if len(numbers) > MAX_LINES:
        numbers = [*numbers[:2], None, numbers[-1]]
    margin = len(str(last))
    rows = []
    for number in numbers:
        if number is None:
            rows.append(f" {'…':>{margin}} |")
            continue
        start = lines.starts[number - 1]
        text = lines.line(number)
        # the gap's characters on this line, its line ending included
        ending = f.start <= start + len(text) < f.end
        shown, marks = render(text, f.start - start, f.end - start, spot - start, ending, color)
        rows.append(f" {number:>{margin}} | {shown}")
        if marks.strip():
            rows.append(f" {'':>{margin}} | {_GREEN + _BOLD + marks + _RESET if color else marks}")
    return rows


def render(text: str, gap_start: int, gap_end: int, spot: int, ending: bool, color: bool) -> tuple[str, str]:
    """A line as shown (tabs expanded, the gap's whitespace visible, control characters as symbols) and the
    marks under it, column for column. Indexes are relative to the line's start (they may lie outside it)."""
    lo, hi = 0, len(text)
    if hi > WIDTH:   # a window around the spot
        lo = min(max(0, spot - WIDTH // 2), hi - WIDTH)
        hi = lo + WIDTH
    shown, marks, column = ["…"] if lo else [], [" "] if lo else [], 1 if lo else 0
    for i in range(lo, hi):
        ch = text[i]
        in_gap = gap_start <= i < gap_end
        if ch == "\t":
            width = TAB_WIDTH - column % TAB_WIDTH
            glyph = ("→" if in_gap else " ") + " " * (width - 1)
        elif in_gap and ch in _VISIBLE:
            glyph, width = _VISIBLE[ch], 1
        elif unicodedata.category(ch) == "Cc":   # never send a file's control characters to the terminal
            glyph, width = chr(0x2400 + ord(ch)) if ord(ch) < 32 else "\ufffd", 1
        else:
            glyph, width = ch, _cells(ch)
        if in_gap and color:
            glyph = _RED + glyph + _RESET
        shown.append(glyph)
        marks.append(("^" if i == spot else "~" if in_gap else " ") + (("~" if in_gap else " ") * (width - 1))
                     if width else "")
        column += width
    if hi < len(text):
        shown.append("…")
    elif ending:
        shown.append(_RED + "↵" + _RESET if color else "↵")
        marks.append("^" if spot == len(text) else "~")
    elif spot == len(text):   # an empty gap at the end of the line
        marks.append("^")
    return "".join(shown), "".join(marks).rstrip()


def _cells(ch: str) -> int:
    """Terminal cells a character takes: 2 for wide East Asian ones, 0 for combining marks."""
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
