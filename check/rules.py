"""A repair of one gap, told as a linter tells it: a rule id for the kind of edit and a message a person acts
on ("unexpected space before ';'", "expected 8 spaces of indentation, found 6").

The ranker knows only gap texts; the rule follows from how the line breaks, the indentation after the last
one and the spaces between two tokens change.
"""
from __future__ import annotations

import re

# rule id -> what it checks (SARIF's rule descriptions, --help, docs/check.md)
RULES = {
    "space-before": "no whitespace before this token",
    "space-after": "no whitespace after this token",
    "missing-space": "a space between these two tokens",
    "whitespace": "the amount or kind of whitespace between two tokens on a line",
    "tab": "tabs where the file uses spaces (or the reverse)",
    "indent": "the indentation of a line",
    "blank-lines": "the number of blank lines between two tokens",
    "line-break": "whether two tokens are on one line or on two",
    "trailing-space": "whitespace at the end of a line or on a blank line",
    "line-ending": "line endings (LF, CRLF or CR) as the rest of the file has them",
    "final-newline": "the line break that ends the file, and no blank lines or whitespace after it",
}

# Tokens that take no space before them in Java's usual style, and tokens after which none follows.
_TIGHT_BEFORE = {";", ",", ".", ")", "]", "++", "--", "::", "...", ">"}
_TIGHT_AFTER = {"(", "[", ".", "@", "!", "~", "::", "<"}
_BREAK = re.compile(r"\r\n|\r|\n")


def line_breaks(gap: str) -> int:
    """Line breaks in a gap, as editors count them (CRLF is one)."""
    return len(_BREAK.findall(gap))


def show_token(text: str) -> str:
    """A token quoted for a message: its first line, at most 24 characters."""
    first = _BREAK.split(text, 1)[0]
    return "'" + (first if len(first) <= 24 else first[:21] + "...") + "'"


def amount(ws: str) -> str:
    """'8 spaces', '1 tab', '2 tabs and 1 space', 'none'."""
    tabs, spaces = ws.count("\t"), ws.count(" ")
    parts = [f"{n} {word}{'s' if n != 1 else ''}" for n, word in ((tabs, "tab"), (spaces, "space")) if n]
    return " and ".join(parts) or "none"


def _tail(gap: str) -> str:
    """The whitespace after a gap's last line break (the next line's indentation)."""
    parts = _BREAK.split(gap)
    return parts[-1]


def _head(gap: str) -> str:
    """The whitespace before a gap's first line break (trailing whitespace of the line before)."""
    return _BREAK.split(gap, 1)[0]


def _ending(gap: str) -> str:
    """The name of the first line ending in `gap`."""
    m = _BREAK.search(gap)
    return {"\r\n": "CRLF", "\r": "CR"}.get(m.group(0), "LF") if m else "no"


def _file_end(nb_o: int, nb_r: int) -> str:
    """The message of a repair of the file's last gap, from its line breaks before and after."""
    if not nb_o and nb_r:
        return "no line break at the end of the file"
    if nb_o > nb_r and nb_r:
        return f"{_blank_lines(nb_o - nb_r)} at the end of the file"
    if nb_o and not nb_r:
        return "line break at the end of the file"
    if nb_o < nb_r:
        return f"expected {_blank_lines(nb_r - 1)} at the end of the file"
    return "whitespace at the end of the file"


def _mixed(ws: str) -> bool:
    return "\t" in ws and " " in ws


def _blank_lines(n: int) -> str:
    return "no blank line" if n == 0 else "1 blank line" if n == 1 else f"{n} blank lines"


def describe(original: str, replacement: str, before: str, after: str, by: str = "") -> tuple[str, str]:
    """(rule, message) of replacing gap text `original` by `replacement` between tokens `before` and
    `after` ('' at the start or end of the file). `by`: who writes the replacement in this place, for the
    message ('the repository'; '': nobody said)."""
    if original != replacement and _BREAK.sub("\n", original) == _BREAK.sub("\n", replacement):
        return "line-ending", f"{_ending(original)} line ending where the file uses {_ending(replacement)}"
    nb_o, nb_r = line_breaks(original), line_breaks(replacement)
    prev, nxt = show_token(before) if before else "the start of the file", show_token(after) if after else "the end of the file"
    if before and not after:
        return "final-newline", _file_end(nb_o, nb_r)
    if nb_o and nb_o == nb_r:
        if _head(original) != _head(replacement):
            return "trailing-space", f"trailing whitespace after {prev}"
        o, r = _tail(original), _tail(replacement)
        if o != r:
            if _mixed(o) and not _mixed(r):
                return "tab", f"indentation mixes tabs and spaces: expected {amount(r)}, found {amount(o)}"
            if "\t" in o and "\t" not in r:
                return "tab", f"tab in a space-indented file: expected {amount(r)} of indentation, found {amount(o)}"
            if "\t" in r and "\t" not in o:
                return "tab", f"spaces in a tab-indented file: expected {amount(r)} of indentation, found {amount(o)}"
            return "indent", f"expected {amount(r)} of indentation before {nxt}, found {amount(o)}"
        return "trailing-space", f"whitespace on a blank line before {nxt}"
    if nb_o and nb_r:
        found, expected = _blank_lines(nb_o - 1), str(nb_r - 1) if nb_r > 1 else "none"
        told = f"{by} uses {expected} here" if by else f"expected {expected}"
        return "blank-lines", f"{found} before {nxt}, {told}"
    if nb_o:
        return "line-break", f"unexpected line break between {prev} and {nxt}"
    if nb_r:
        return "line-break", f"expected a line break before {nxt}"
    if not original:
        return "missing-space", f"missing space between {prev} and {nxt}"
    if not replacement:
        what = "tab" if "\t" in original else "space" if len(original) == 1 else "whitespace"
        if after in _TIGHT_BEFORE or before not in _TIGHT_AFTER:
            return ("tab" if "\t" in original else "space-before"), f"unexpected {what} before {nxt}"
        return ("tab" if "\t" in original else "space-after"), f"unexpected {what} after {prev}"
    if ("\t" in original) != ("\t" in replacement):
        return "tab", f"expected {amount(replacement)} between {prev} and {nxt}, found {amount(original)}"
    return "whitespace", f"expected {amount(replacement)} between {prev} and {nxt}, found {amount(original)}"
