"""Symbols interned to process-wide integers, for the style cache: a (context, symbol) pair packs into one
int64, context << SYMBOL_BITS | symbol, so a file's repairs are counted and looked up as integers (in C++,
ranker/native.cpp's StyleCache; a folder's counts in ranker/cache.py)."""
from __future__ import annotations

from array import array

SYMBOL_BITS = 21          # a (context, symbol) pair is packed into one int64: context << 21 | symbol
MAX_SYMBOLS = 1 << SYMBOL_BITS
MASK = MAX_SYMBOLS - 1
BOS, EOS, PAD = 0, 1, 2   # ranker/native.cpp has the same ids of <s> and </s>
_symbols: dict[str, int] = {"<s>": BOS, "</s>": EOS, "|": PAD}   # '|': no token there (wide contexts)


def intern(s: str) -> int:
    i = _symbols.get(s)
    if i is None:
        i = _symbols[s] = len(_symbols)
        if i >= MAX_SYMBOLS:
            raise OverflowError(f"more than {MAX_SYMBOLS:,} distinct symbols in one process")
    return i


def symbol_ids(symbols) -> array:
    """Process-wide integer ids of symbols (int64)."""
    try:   # straight into the array (a list of a large file's ids first took twice its memory)
        return array("q", map(_symbols.__getitem__, symbols))
    except KeyError:   # some not interned yet
        return array("q", map(intern, symbols))


def symbol_names() -> list[str]:
    """Every interned symbol, in id order."""
    return list(_symbols)


def symbol_count() -> int:
    """How many symbols are interned."""
    return len(_symbols)
