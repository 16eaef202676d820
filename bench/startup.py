"""What a user waits for before any ranking: start-up, one small file end to end, the first ranked
file of a folder, and building the default model from corpora/.

Each is a subprocess timed from outside (wall clock), best of several runs and their median, since the
fixed costs are small and the machine is shared: the interpreter alone; `bin/rank` on no file (interpreter,
imports, the model mapped); `bin/rank` on one small file with the default model; `bin/rank --workers 2` on
a task folder until its first output line; `bin/build-lm --order 6 corpora/` (HELD_OUT left out, as
`make demo` builds it) into a temporary folder, whose model is compared byte for byte with the one in
.models/.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from formats.codrep2019 import task_files
from unnatural import ROOT

from .rankcmd import RankCommand, python

TARGET_ONE_FILE_S = 0.1    # one small file, default model, end to end
TARGET_BUILD_S = 20.0      # the default model from corpora/ on the 2 cores
SMALL_CHARS = 1000         # the small file: the task closest to this size


@dataclass
class Timing:
    what: str
    runs: list[float]

    @property
    def best(self) -> float:
        return min(self.runs)

    @property
    def median(self) -> float:
        return statistics.median(self.runs)


def _wall(args: list[str], env: dict | None = None) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    seconds = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        last = (proc.stderr.decode(errors="replace").strip().splitlines() or ["?"])[-1]
        raise RuntimeError(f"{' '.join(args[:3])} ... exited {proc.returncode}: {last}")
    return seconds


def first_line_seconds(args: list[str], env: dict | None = None) -> float:
    """Wall time until the command's first line of output (it then runs to its end)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    proc.stdout.readline()
    seconds = time.perf_counter() - t0
    while proc.stdout.read(1 << 16):
        pass
    if proc.wait() not in (0, 1):
        raise RuntimeError(f"{' '.join(args[:3])} ... exited {proc.returncode}")
    return seconds


def small_file(folder: Path, chars: int = SMALL_CHARS) -> Path:
    """The task of `folder` closest to `chars` characters (the first of equals, in task order)."""
    files = task_files(folder)
    if not files:
        raise RuntimeError(f"{folder}: no task files")
    return min(files, key=lambda p: abs(len(p.read_text(encoding="utf-8")) - chars))


def measure_startup(ranker: RankCommand, model: Path, folder: Path, runs: int = 10) -> tuple[list[Timing], Path]:
    """The start-up timings, and the small file they rank."""
    small = small_file(folder)
    out = []
    with tempfile.TemporaryDirectory() as empty:
        plans = [
            ("interpreter alone (`python -c pass`)", [python(), "-c", "pass"]),
            ("`bin/rank` on no file (interpreter, imports, model mapped)", ranker.args("--model", str(model), empty)),
            (f"`bin/rank` on one small file ({small.name}, {len(small.read_text(encoding='utf-8'))} chars)",
             ranker.args("--model", str(model), str(small))),
        ]
        for what, args in plans:
            out.append(Timing(what, [_wall(args, ranker.env) for _ in range(runs)]))
    first = ranker.args("--model", str(model), "--workers", "2", str(folder))
    out.append(Timing(f"`bin/rank --workers 2` on {folder.name}: its first ranked file",
                      [first_line_seconds(first, ranker.env) for _ in range(max(1, runs // 3))]))
    return out, small


def measure_build(corpus: Path, reference: Path, runs: int = 1) -> tuple[Timing, bool]:
    """`bin/build-lm --order 6 CORPUS` (HELD_OUT left out when it is corpora/), `runs` times; whether the
    model is byte-identical to `reference`."""
    times, same = [], True
    with tempfile.TemporaryDirectory(dir=ROOT / ".models" if (ROOT / ".models").is_dir() else None) as tmp:
        out = Path(tmp) / "bench-build.bin"
        for _ in range(runs):
            times.append(_wall([str(ROOT / "bin" / "build-lm"), "--order", "6", "--quiet", "--output", str(out),
                                str(corpus)]))
            same = same and reference.is_file() and out.read_bytes() == reference.read_bytes()
    return Timing(f"`bin/build-lm --order 6 {corpus.name}/` (the default model)", times), same


def markdown(timings: list[Timing]) -> str:
    rows = ["| what | runs | best s | median s |", "|---|---:|---:|---:|"]
    rows += [f"| {t.what} | {len(t.runs)} | {t.best:.3f} | {t.median:.3f} |" for t in timings]
    return "\n".join(rows)


def targets(one_file: Timing | None, build: Timing | None) -> list[tuple[str, str, str]]:
    out = []
    if one_file is not None:
        out.append((f"one small file, default model, end to end <= {TARGET_ONE_FILE_S} s "
                    f"(best of {len(one_file.runs)})",
                    f"{one_file.best:.3f} s", "PASS" if one_file.best <= TARGET_ONE_FILE_S else "FAIL"))
    if build is not None:
        out.append((f"default model from corpora/ <= {TARGET_BUILD_S:.0f} s on {os.cpu_count()} cores",
                    f"{build.best:.1f} s", "PASS" if build.best <= TARGET_BUILD_S else "FAIL"))
    return out
