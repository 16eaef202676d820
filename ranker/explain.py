"""Findings as a linter reports them: path:line:col: <observed gap> -> <suggested repair> (score)."""
from __future__ import annotations

import json

from parsing.offsets import line_col   # (here too: check/engine.py imports it from here)

from .rank import Finding

_SHOW = {" ": "␣", "\t": "⇥", "\n": "↵", "\r": "␍", "\x0c": "␌"}


def show_gap(gap: str) -> str:
    """A gap made visible: '␣' space, '⇥' tab, '↵' newline; '∅' for the empty gap."""
    return "".join(_SHOW.get(c, c) for c in gap) or "∅"


def explain_lines(path: str, text: str, findings: list[Finding]) -> list[str]:
    out = []
    for f in findings:
        line, col = line_col(text, f.offset)
        out.append(f"{path}:{line}:{col}: '{show_gap(f.repair.observed)}' -> '{show_gap(f.repair.repaired)}' "
                   f"({f.score:.2f})")
    return out


def explain_json(path: str, text: str, findings: list[Finding]) -> list[str]:
    out = []
    for f in findings:
        line, col = line_col(text, f.offset)
        out.append(json.dumps({"path": path, "offset": f.offset, "line": line, "col": col, "gap": f.repair.gap,
                               "observed": f.repair.observed, "repaired": f.repair.repaired,
                               "score": round(f.score, 4)}))
    return out
