"""Findings as a linter reports them: path:line:col: <observed gap> -> <suggested repair> (score, gain).

The score is comparable across files: the repair's log10 gain less half the file's background of odd
spots (ranker.rank.Explained); the gain is the ranker's own, which orders the file's findings."""
from __future__ import annotations

import json

from parsing.offsets import line_col  # (here too: check/engine.py imports it from here)

from .rank import Explained

_SHOW = {" ": "␣", "\t": "⇥", "\n": "↵", "\r": "␍", "\x0c": "␌"}


def show_gap(gap: str) -> str:
    """A gap made visible: '␣' space, '⇥' tab, '↵' newline; '∅' for the empty gap."""
    return "".join(_SHOW.get(c, c) for c in gap) or "∅"


def explain_lines(path: str, text: str, explained: Explained) -> list[str]:
    out = []
    for c in explained.candidates:
        line, col = line_col(text, c.offset)
        out.append(f"{path}:{line}:{col}: '{show_gap(c.observed)}' -> '{show_gap(c.repaired)}' "
                   f"({explained.score(c):.2f}, gain {c.score:.2f})")
    return out


def explain_json(path: str, text: str, explained: Explained) -> list[str]:
    out = []
    for c in explained.candidates:
        line, col = line_col(text, c.offset)
        out.append(json.dumps({"path": path, "offset": c.offset, "line": line, "col": col, "gap": c.gap,
                               "observed": c.observed, "repaired": c.repaired,
                               "score": round(explained.score(c), 4), "gain": round(c.score, 4),
                               "background": round(explained.background, 4)}))
    return out
