"""Byte offsets (tree-sitter) to character offsets (everything else): the one place they are converted."""
from __future__ import annotations

import numpy as np


def byte_to_char(data: bytes, text: str):
    """Return a function mapping a UTF-8 byte offset of `data` to the 0-based character offset in `text`.

    For pure ASCII files (the vast majority) bytes and characters coincide and the identity is returned,
    so the hot path pays nothing.
    """
    if len(data) == len(text):
        return ASCII
    raw = np.frombuffer(data, dtype=np.uint8)
    # A byte starts a character unless it is a UTF-8 continuation byte (10xxxxxx).
    starts = (raw & 0xC0) != 0x80
    # char_at[b] = number of characters that start strictly before byte b (length n+1, so offset n maps to len(text)).
    char_at = np.zeros(len(raw) + 1, dtype=np.int64)
    np.cumsum(starts, out=char_at[1:])
    table = char_at.tolist()
    return table.__getitem__


def _identity(offset: int) -> int:
    return offset


ASCII = _identity   # what byte_to_char returns when bytes and characters coincide
