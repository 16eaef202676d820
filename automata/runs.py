"""Learning and scoring a folder of problems (the `grid` and `bench` commands' work; the CLI only prints)."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Iterable

from tqdm import tqdm

from .bcr import SOLVED_BCR, bcr
from .bench import BenchRow, aalpy_edsm, load_split
from .grid import Cell, cell_of_problem, format_grid
from .learn import learn
from .samples import ContradictionError, FormatError, read_sample, read_training, split_distinct


@dataclasses.dataclass(frozen=True)
class ProblemScore:
    problem: int
    cell: Cell
    bcr: float
    seconds: float
    states: int
    protocol: str  # "test set" or "held-out 20%"


def problem_numbers(folder: Path) -> list[int]:
    nums = []
    for p in Path(folder).glob("*_training.txt"):
        m = re.fullmatch(r"(\d+)_training\.txt", p.name)
        if m:
            nums.append(int(m.group(1)))
    return sorted(nums)


def score_problem(folder: Path, number: int, algo: str, time_limit: float) -> ProblemScore:
    """Score on N_test.txt when it carries labels (+/-), else on a held-out 20% of the distinct training strings."""
    folder = Path(folder)
    train = read_training(folder / f"{number}_training.txt")
    test_path = folder / f"{number}_test.txt"
    test = read_sample(test_path, alphabet=train.alphabet) if test_path.exists() else None
    if test is not None and len(test) and all(lab is not None for lab in test.labels):
        held = list(zip(test.words, test.labels))
        protocol = "test set"
    else:
        train, held = split_distinct(train, seed=0, train_fraction=0.8)
        protocol = "held-out 20%"
    res = learn(train, algo=algo, time_limit=time_limit)
    pred = res.dfa.classify([w for w, _ in held])
    return ProblemScore(number, cell_of_problem(number), bcr([lab for _, lab in held], pred), res.seconds,
                        res.dfa.n_states, protocol)


def run_grid(folder: Path, numbers: Iterable[int], algo: str, time_limit: float
             ) -> tuple[list[ProblemScore], list[str]]:
    """Scores of the problems that could be read, and one message per problem that could not (the run goes on)."""
    numbers = list(numbers)
    out, errors = [], []
    for n in tqdm(numbers, desc=f"learning ({algo})", unit="problem"):
        try:
            out.append(score_problem(folder, n, algo, time_limit))
        except (FormatError, ContradictionError) as e:
            errors.append(str(e))
    return out, errors


def grid_report(scores: list[ProblemScore], title: str) -> str:
    cells: dict[Cell, list[float]] = {}
    for s in scores:
        cells.setdefault(s.cell, []).append(s.bcr)
    mean = sum(s.bcr for s in scores) / len(scores)
    slowest = max(scores, key=lambda s: s.seconds)
    lines = [format_grid(cells, title),
             f"mean BCR {mean:.3f} over {len(scores)} problems ({scores[0].protocol}); "
             f"solved {sum(s.bcr >= SOLVED_BCR for s in scores)}; slowest problem {slowest.problem}: "
             f"{slowest.seconds:.1f} s"]
    return "\n".join(lines)


def run_bench(folder: Path, numbers: Iterable[int], algo: str, time_limit: float, aalpy_timeout: float,
              use_cache: bool = True) -> tuple[list[ProblemScore], list[BenchRow]]:
    """Ours and AALpy's EDSM on the same 80/20 splits, one problem at a time (one core)."""
    numbers = list(numbers)
    ours, theirs = [], []
    for n in tqdm(numbers, desc="bench", unit="problem"):
        train, held = load_split(folder, n)
        res = learn(train, algo=algo, time_limit=time_limit)
        pred = res.dfa.classify([w for w, _ in held])
        ours.append(ProblemScore(n, cell_of_problem(n), bcr([lab for _, lab in held], pred), res.seconds,
                                 res.dfa.n_states, "held-out 20%"))
        theirs.append(aalpy_edsm(n, train, held, aalpy_timeout, use_cache=use_cache))
    return ours, theirs


def bench_report(ours: list[ProblemScore], theirs: list[BenchRow], aalpy_timeout: float) -> str:
    lines = [f"{'problem':>7} {'alphabet':>8} {'sparsity':>8} | {'ours BCR':>8} {'states':>6} {'secs':>6} | "
             f"{'AALpy EDSM':>10} {'states':>6} {'secs':>6}"]
    for o, t in zip(ours, theirs):
        tb = f"{t.bcr:10.3f}" if t.bcr is not None else f"{'timeout':>10}"
        lines.append(f"{o.problem:>7} {o.cell.alphabet:>8} {o.cell.sparsity:>7g}% | {o.bcr:8.3f} {o.states:>6} "
                     f"{o.seconds:6.1f} | {tb} {t.states:>6} {t.seconds:6.1f}")
    cells_o: dict[Cell, list[float]] = {}
    cells_t: dict[Cell, list[float]] = {}
    for o, t in zip(ours, theirs):
        cells_o.setdefault(o.cell, []).append(o.bcr)
        cells_t.setdefault(t.cell, []).append(t.bcr if t.bcr is not None else 0.0)
    mo = sum(o.bcr for o in ours) / len(ours)
    mt = sum(t.bcr or 0.0 for t in theirs) / len(theirs)
    wins = sum(o.bcr > (t.bcr or 0.0) for o, t in zip(ours, theirs))
    done = [(o, t) for o, t in zip(ours, theirs) if t.bcr is not None]
    lines += ["", format_grid(cells_o, "ours: BCR per cell (held-out 20%)"), "",
              format_grid(cells_t, f"AALpy EDSM: BCR per cell (timeout {aalpy_timeout:g} s counts as 0)"), "",
              f"mean BCR: ours {mo:.3f}, AALpy EDSM {mt:.3f} "
              f"({sum(t.bcr is None for t in theirs)} AALpy timeouts); ours higher in {wins}/{len(ours)} problems",
              f"on the {len(done)} problems AALpy finished: ours "
              f"{sum(o.bcr for o, _ in done) / max(len(done), 1):.3f}, "
              f"AALpy {sum(t.bcr for _, t in done) / max(len(done), 1):.3f}",
              f"slowest of ours: {max(o.seconds for o in ours):.1f} s"]
    return "\n".join(lines)
