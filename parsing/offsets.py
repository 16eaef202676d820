"""Offsets: byte offsets (tree-sitter) to character offsets (everything else), and character offsets to the
lines and columns an editor shows; the one place positions are converted.

Lines and columns as editors count them: a line ends at LF, CRLF or a lone CR (each one line break, as the
Java language has it), columns count characters from 1, and a UTF-8 byte order mark is not a column of
line 1 (while a character offset, the CodRep convention, counts it as character 1).
"""
from __future__ import annotations

import bisect
import re
from itertools import accumulate

# 1 for a byte that starts a UTF-8 character, 0 for a continuation byte (10xxxxxx)
_STARTS = bytes(0 if 0x80 <= b < 0xC0 else 1 for b in range(256))

LINE_BREAK = re.compile(r"\r\n|\r|\n")
BOM = "\ufeff"


def byte_to_char(data: bytes, text: str):
    """Return a function mapping a UTF-8 byte offset of `data` to the 0-based character offset in `text`.

    For pure ASCII files (the vast majority) bytes and characters coincide and the identity is returned,
    so the hot path pays nothing.
    """
    if len(data) == len(text):
        return ASCII
    # char_at[b] = number of characters that start strictly before byte b (length n+1, so offset n maps to len(text)).
    char_at = list(accumulate(data.translate(_STARTS), initial=0))
    return char_at.__getitem__


def _identity(offset: int) -> int:
    return offset


ASCII = _identity   # what byte_to_char returns when bytes and characters coincide


class Lines:
    """A text's lines as editors count them (LF, CRLF and CR each end one): the 1-based line and column of a
    0-based character index (a BOM is no column), and a line's text."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0, *(m.end() for m in LINE_BREAK.finditer(text))]
        self._bom = text.startswith(BOM)

    def position(self, index: int) -> tuple[int, int]:
        """(line, column), both 1-based, of the character at 0-based `index` (len(text): just past the end)."""
        i = bisect.bisect_right(self.starts, index) - 1
        column = index - self.starts[i] + 1
        if i == 0 and self._bom and index > 0:
            column -= 1
        return i + 1, column

    def line(self, number: int) -> str:
        """Line `number` (1-based) without its line ending."""
        start = self.starts[number - 1]
        end = self.starts[number] if number < len(self.starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of the 1-based character offset `offset` of `text`."""
    return Lines(text).position(offset - 1)


def has_line_break(text: str) -> bool:
    return "\n" in text or "\r" in text


def last_line(text: str) -> str:
    """What follows the last line break of `text` (all of it when it has none)."""
    return text[max(text.rfind("\n"), text.rfind("\r")) + 1:]


def split_last_line(text: str) -> tuple[str, str]:
    """`text` up to and with its last line break ('' when it has none), and what follows it (last_line): a
    gap's line breaks and the indentation they end on."""
    at = max(text.rfind("\n"), text.rfind("\r")) + 1
    return text[:at], text[at:]


def as_lf(text: str) -> str:
    """`text` with every line break (CRLF, a lone CR) written as LF."""
    return LINE_BREAK.sub("\n", text) if "\r" in text else text
