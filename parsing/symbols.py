"""The symbols every token scheme writes for whitespace (parsing.schemes says how they read): a gap as
whitespace runs or in indentation levels, and the test of whether a token's text may stand as its own symbol.
Shared by the Java schemes (parsing.schemes) and Python's (parsing.python_scheme), which import it and not
each other."""
from __future__ import annotations

from functools import lru_cache

from .offsets import as_lf
from .style import TAB_STOP, columns

GAP_MARK = "·"
RESERVED = frozenset({"<s>", "</s>", "<unk>"})

_RUN_LETTER = {" ": "s", "\t": "t", "\f": "f", "\r": "r", "\v": "v"}


def run_code(ws: str) -> str:
    """Run-length code of a whitespace string: '  \\t' -> 's2t1' (other whitespace is 'u')."""
    out = []
    prev, count = None, 0
    for ch in ws:
        letter = _RUN_LETTER.get(ch, "u")
        if letter == prev:
            count += 1
        else:
            if prev is not None:
                out.append(f"{prev}{count}")
            prev, count = letter, 1
    if prev is not None:
        out.append(f"{prev}{count}")
    return "".join(out)


def newline_parts(gap: str) -> tuple[str, int, str, str]:
    """A gap holding a newline, in parts: (trailing whitespace runs and '|', or ''; newlines; the r/w
    flags; the last line, the indentation)."""
    lines = gap.split("\n")
    first, middle, last = lines[0], lines[1:-1], lines[-1]
    crlf = first.endswith("\r")
    if crlf:
        first = first[:-1]
    blank_ws = any(m[:-1] if m.endswith("\r") else m for m in middle)
    head = run_code(first) + "|" if first else ""
    return head, len(lines) - 1, ("r" if crlf else "") + ("w" if blank_ws else ""), last


@lru_cache(maxsize=1 << 16)
def gap_symbol(gap: str, indent: str, unit: str | None = None) -> str:
    """Symbol for whitespace `gap` that starts on a line indented by `indent`: in levels of `unit`, the
    file's indentation unit (a tab or k spaces), or as whitespace runs when `unit` is None."""
    gap = as_lf(gap)
    if "\n" not in gap:
        return GAP_MARK + run_code(gap)
    head, newlines, flags, last = newline_parts(gap)
    if unit is not None:
        width = TAB_STOP if unit == "\t" else len(unit)
        l1, r1 = divmod(columns(last), width)
        l0, r0 = divmod(columns(indent), width)
        same = (l1, r1) == (l0, r0)
        shape = "=" if same else f"{l1 - l0:+d}" + (f"r{r1}" if r1 else "") + (f"f{r0}" if r0 else "")
        # trailing whitespace and whitespace on blank lines ('w') are left out: ranker/habits.py
        return f"{GAP_MARK}n{newlines}{'r' if 'r' in flags else ''}{shape}"
    if last == indent:
        shape = "="
    elif last.startswith(indent):
        shape = "+" + run_code(last[len(indent):])
    elif indent.startswith(last):
        shape = "-" + run_code(indent[len(last):])
    else:
        shape = "@" + run_code(last)
    return f"{GAP_MARK}{head}n{newlines}{flags}{shape}"



def safe_symbol(text: str, fallback: str) -> str:
    """Use a token's text as its symbol only when KenLM can take it."""
    if not text or text in RESERVED or text.startswith(GAP_MARK) or any(c.isspace() for c in text):
        return fallback
    return text
