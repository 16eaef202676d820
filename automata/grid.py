"""The StaMinA problem grid: 100 problems, 5 per cell, cells by alphabet (rows) and sparsity (columns)."""
from __future__ import annotations

import dataclasses

ALPHABETS = (2, 5, 10, 20, 50)
SPARSITIES = (100.0, 50.0, 25.0, 12.5)
PER_CELL = 5


@dataclasses.dataclass(frozen=True)
class Cell:
    alphabet: int
    sparsity: float

    @property
    def label(self) -> str:
        return f"{self.sparsity:g}%"


def cell_of_problem(number: int) -> Cell:
    """Competition numbering: problems 1-5 are alphabet 2 / 100%, 6-10 alphabet 2 / 50%, ..., 96-100
    alphabet 50 / 12.5%."""
    if not 1 <= number <= len(ALPHABETS) * len(SPARSITIES) * PER_CELL:
        raise ValueError(f"StaMinA problems are numbered 1..100, not {number}")
    c = (number - 1) // PER_CELL
    return Cell(ALPHABETS[c // len(SPARSITIES)], SPARSITIES[c % len(SPARSITIES)])


def format_grid(values: dict[Cell, list[float]], title: str, solved_at: float | None = 0.99) -> str:
    """A 5x4 table of mean values per cell; '*' marks a cell whose every problem reaches solved_at."""
    width = 9
    head = f"{'alphabet':>8} |" + "".join(f"{s:>{width}g}%" for s in SPARSITIES)
    out = [title, head, "-" * len(head)]
    for a in ALPHABETS:
        row = f"{a:>8} |"
        for s in SPARSITIES:
            vals = values.get(Cell(a, s))
            if not vals:
                row += f"{'-':>{width + 1}}"
                continue
            mean = sum(vals) / len(vals)
            mark = "*" if solved_at is not None and all(v >= solved_at for v in vals) else " "
            row += f"{mean:>{width}.3f}{mark}"
        out.append(row)
    if solved_at is not None:
        out.append(f"* = every problem in the cell solved (BCR >= {solved_at})")
    return "\n".join(out)
