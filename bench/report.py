"""What bin/bench and bin/compare-orders write: a Markdown table, a CSV of the rows, the machine-load note."""
from __future__ import annotations

import csv
import os
from dataclasses import fields
from pathlib import Path

Column = tuple[str, str, str]   # (Row field, heading, format)


def markdown_table(rows: list, columns: list[Column]) -> str:
    """The first column left-aligned (names), the rest right-aligned (numbers)."""
    head = "| " + " | ".join(h for _, h, _ in columns) + " |"
    rule = "|" + "|".join("---" if i == 0 else "---:" for i in range(len(columns))) + "|"
    body = ["| " + " | ".join(fmt.format(getattr(r, f)) for f, _, fmt in columns) + " |" for r in rows]
    return "\n".join([head, rule, *body])


def write_csv(rows: list, row_type: type, path: Path) -> None:
    """Every field of `row_type`, floats to 6 decimals."""
    names = [f.name for f in fields(row_type)]
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        for r in rows:
            w.writerow([round(v, 6) if isinstance(v, float) else v for v in (getattr(r, n) for n in names)])


def load_note(before: float, after: float) -> str:
    cores = os.cpu_count() or 1
    busy = ("above the core count: other work shared the CPU, and every time here is inflated by it"
            if max(before, after) > cores else "below the core count: nothing else held a core for long")
    return (f"Machine load (1-minute load average) {before:.1f} at the start and {after:.1f} at the end, "
            f"on {cores} cores: {busy}.")
