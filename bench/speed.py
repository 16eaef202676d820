"""bin/bench (`make bench`): how fast `bin/rank` is, against the floor, on real and synthetic tasks.

In one run, for CodRep 2019 validation and for synthetic task folders made by `bin/make-tasks` from JDK
files of about 1, 4, 16 and 64 KB (cached under --output): end-to-end wall time of a `bin/rank` subprocess
(interpreter start and model loading included; the ranker's Python bytecode written first, as a user's first
run writes it: rankcmd.compile_bytecode) with 1 and 2 workers, files/s; the floor for the same files
(`python -m bench.floor`: read, parse with tree-sitter-java and walk every leaf in C, as the ranker's tokenizer
does; its loop time), the floor and the rankings taken in turn --repeats times (medians reported); the ratio
end-to-end/floor; peak memory of the rank process tree (sum of VmRSS over the tree, polled from /proc,
and the largest single process from wait4); time per 1000 characters, net of the fixed start-up cost
(a `bin/rank` run on no file); and, before and after the runs, how long a random memory read takes over a
table the model's size (bench/latency.py: what the L3 cache left to the ranker, which moves its ratio to the
floor). Prints a Markdown table with its targets (PASS/FAIL; docs/speed.md) and writes bench.md and
bench.csv into --output. No number here is asserted by a test.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from formats.codrep2019 import read_answers, task_files, task_folder_problem
from lm.model import model_fields, read_signature
from unnatural import ROOT, cli
from unnatural.signature import signature, versions

from . import latency, report, startup
from .rankcmd import RankCommand, RankerError, compile_bytecode, rank_command

DEFAULT_MODEL = ".models/default-kind-units-o6.bin"   # ranker.cli.DEFAULT_MODEL, without importing the ranker

PROG = "bench"
PYTHON = sys.executable

# targets: files/s; the ratio to the floor, cost per character and memory (docs/speed.md)
TARGET_FILES_PER_S = 250.0
TARGET_FLOOR_RATIO = 3.0
TARGET_LINEARITY = 1.2
TARGET_MEMORY = 2**30


class UsageError(ValueError):
    pass


def parse_size(spec: str) -> int:
    """'4K' or '4k' -> 4096 characters; '2M' -> 2097152; '300' -> 300."""
    s = spec.strip().lower()
    try:
        if s.endswith("m"):
            return int(float(s[:-1]) * 1024 * 1024)
        return int(float(s[:-1]) * 1024) if s.endswith("k") else int(s)
    except ValueError:
        raise UsageError(f"--sizes: {spec!r} is not a size like 4K or 300") from None


def tasks_per_size(size: int, chars: int) -> int:
    """Tasks for a size class holding about `chars` characters, 50 to 1000: a class of 50 small files was
    a fraction of a second net of start-up, too little to time."""
    return min(1000, max(50, round(chars / size)))


def size_label(chars: int) -> str:
    return f"{chars // 1024}K" if chars % 1024 == 0 else str(chars)


def parser() -> cli.ArgumentParser:
    p = cli.parser(PROG, __doc__.strip(), formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_model(p, DEFAULT_MODEL, "model to rank with")
    cli.add_output(p, "report and task cache folder", default=".bench")
    p.add_argument("--validation", type=Path, default=ROOT / ".data" / "codrep2019" / "validation",
                   help="CodRep 2019 task folder (default .data/codrep2019/validation)")
    p.add_argument("--jdk", type=Path, default=ROOT / "corpora" / "jdk17-src.zip",
                   help="clean Java for the synthetic size classes (default corpora/jdk17-src.zip)")
    p.add_argument("--sizes", default="1K,4K,16K,64K",
                   help="synthetic size classes, files within +-25%% of each (default 1K,4K,16K,64K)")
    p.add_argument("--chars-per-size", default="2M",
                   help="characters per size class, so that every class is timed on as much text (default 2M: "
                        "1000 tasks of 1K (the most there are), 512 of 4K, 128 of 16K, 50 of 64K (the fewest))")
    p.add_argument("--per-size", type=int, default=None, help="tasks per size class instead (for quick runs)")
    p.add_argument("--workers", default="1,2", help="worker counts to time (default 1,2)")
    p.add_argument("--repeats", type=int, default=3,
                   help="runs of the floor and of each ranking per set, taken in turn; the table has their medians "
                        "(default 3)")
    p.add_argument("--seed", type=int, default=0, help="bin/make-tasks seed (default 0)")
    p.add_argument("--ranker", default=None, metavar="REV",
                   help="time the code of git revision REV (a snapshot under .cache/snapshots/) instead of the "
                        "working tree")
    p.add_argument("--startup-model", type=Path, default=ROOT / DEFAULT_MODEL,
                   help=f"model of the start-up and one-small-file timings (default {DEFAULT_MODEL})")
    p.add_argument("--startup-runs", type=int, default=10,
                   help="runs of each start-up timing, best and median reported (default 10; 0 skips them)")
    p.add_argument("--corpus", type=Path, default=ROOT / "corpora",
                   help="corpus of the model-building timing (default corpora/, HELD_OUT left out)")
    p.add_argument("--build-runs", type=int, default=1,
                   help="times `bin/build-lm --order 6 CORPUS` is run (default 1; 0 skips it)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


# ------------------------------------------------------------------------------------------- task folders

def synthetic_folder(jdk: Path, size: int, count: int, seed: int, cache: Path) -> Path:
    """A cached `bin/make-tasks` folder of `count` tasks from files of size +-25% (fewer when there are
    fewer such files: make-tasks makes one task per file)."""
    lo, hi = int(size * 0.75), int(size * 1.25)
    folder = cache / f"{jdk.stem}-{size_label(size)}-n{count}-s{seed}"
    done = folder / ".made"   # written once make-tasks has made what it could
    if done.is_file() and task_folder_problem(folder) is None:
        return folder
    proc = subprocess.run([str(ROOT / "bin" / "make-tasks"), "--seed", str(seed), "--count", str(count),
                           "--min-chars", str(lo), "--max-chars", str(hi), "--force", "--output",
                           str(folder), str(jdk)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    made = len(read_answers(str(folder))) if task_folder_problem(folder) is None else 0
    if proc.returncode not in (0, 1) or not made:   # 1: fewer tasks than asked for, with a warning
        raise UsageError(f"bin/make-tasks failed for size {size_label(size)}: "
                         + (proc.stderr.strip().splitlines() or ["?"])[-1])
    done.write_text(f"{made}\n")
    return folder


# -------------------------------------------------------------------------------------------- measuring

def _tree(pid: int) -> list[int]:
    """pid and all its descendants (via /proc/<pid>/task/<tid>/children)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as fh:
                    todo.extend(int(c) for c in fh.read().split())
        except OSError:
            continue
    return out


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


@dataclass
class Run:
    seconds: float
    cpu_seconds: float     # user + system time of the process and its workers (wait4)
    tree_peak_kib: int     # peak of the sum of VmRSS over the process tree (shared pages counted per process)
    proc_peak_kib: int     # largest single process (wait4 ru_maxrss: the process and its reaped children)
    stdout_bytes: int


def timed_run(args: list[str], poll: float = 0.05, env: dict | None = None) -> Run:
    """Run a command with stdout to a temporary file; wall time and peak memory of its process tree."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.PIPE, env=env)
        peak = [0]
        stop = threading.Event()

        def watch():
            while not stop.is_set():
                peak[0] = max(peak[0], sum(_rss_kib(p) for p in _tree(proc.pid)))
                stop.wait(poll)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        stop.set()
        watcher.join()
        proc.stderr.close()
        if proc.returncode not in (0, 1):   # 1: an input skipped (with its warning), the rest ranked
            last = err.decode(errors="replace").strip().splitlines()[-1:] or ["?"]
            raise RuntimeError(f"{' '.join(args[:3])} ... exited {proc.returncode}: {last[0]}")
        size = out.seek(0, os.SEEK_END)
    return Run(seconds, usage.ru_utime + usage.ru_stime, peak[0], usage.ru_maxrss, size)


def floor_seconds(folder: Path) -> tuple[int, int, float, float]:
    """(files, characters, seconds, CPU seconds) of the floor's loop."""
    proc = subprocess.run([PYTHON, "-m", "bench.floor", str(folder)], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode != 0:
        raise RuntimeError(f"bench.floor failed on {folder}: {proc.stderr.strip()}")
    n, chars, seconds, cpu = proc.stdout.split()
    return int(n), int(chars), float(seconds), float(cpu)


def rank_args(ranker: RankCommand, model: Path, workers: int, *paths: Path) -> list[str]:
    return ranker.args("--model", str(model), "--workers", str(workers), *map(str, paths))


@dataclass
class Row:
    set: str
    files: int
    chars: int
    workers: int
    seconds: float
    files_per_s: float
    floor_s: float
    floor_ratio: float
    cpu_s: float           # CPU seconds of the rank process tree
    cpu_floor_ratio: float # ... over the floor's CPU seconds: what load changes least
    net_ms_per_1000_chars: float
    tree_peak_mib: float
    proc_peak_mib: float


def measure(ranker: RankCommand, model: Path, sets: list[tuple[str, Path]], workers: list[int], progress: bool,
            repeats: int = 1) -> tuple[list[Row], dict[int, float]]:
    """Every (set, workers) measurement (medians of `repeats` runs), and the start-up cost (rank on no file)
    per worker count."""
    bar = tqdm(total=len(workers) + repeats * len(sets) * (len(workers) + 1), unit="run", desc="bench",
               disable=not progress, file=sys.stderr)
    startup: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as empty:
        for w in workers:
            bar.set_postfix_str(f"start-up, {w} workers")
            # best of 3: the fixed cost (interpreter, imports, model load) is small and noisy
            startup[w] = min(timed_run(rank_args(ranker, model, w, Path(empty)), env=ranker.env).seconds
                             for _ in range(3))
            bar.update()
    # every set's floor and rankings taken in turn, round after round, `repeats` rounds: each figure is the median
    # of its runs. A moment of load on the shared machine moves one run, and a ratio of two single runs twice; and
    # the sets compared with each other (64 KB files against 4 KB ones) are timed through the same minutes (one set
    # after the other, the machine's speed had moved by up to 30% between them: 64K/4K 1.04x in one bench, 1.36x
    # in the next)
    floors = {name: [] for name, _ in sets}
    runs = {name: {w: [] for w in workers} for name, _ in sets}
    counts = {}
    for i in range(repeats):
        for name, folder in sets:
            bar.set_postfix_str(f"floor {name} ({i + 1}/{repeats})")
            n, chars, floor_s, floor_cpu = floor_seconds(folder)
            counts[name] = n, chars
            floors[name].append((floor_s, floor_cpu))
            bar.update()
            for w in workers:
                bar.set_postfix_str(f"{name}, {w} workers ({i + 1}/{repeats})")
                runs[name][w].append(timed_run(rank_args(ranker, model, w, folder), env=ranker.env))
                bar.update()
    rows = []
    for name, _ in sets:
        n, chars = counts[name]
        floor_s = statistics.median(f for f, _ in floors[name])
        floor_cpu = statistics.median(c for _, c in floors[name])
        for w in workers:
            mine = runs[name][w]
            seconds = statistics.median(r.seconds for r in mine)
            cpu = statistics.median(r.cpu_seconds for r in mine)
            net = max(seconds - startup[w], 0.0)
            rows.append(Row(name, n, chars, w, seconds, n / seconds, floor_s, seconds / floor_s, cpu,
                            cpu / max(floor_cpu, 1e-9), 1000 * 1000 * net / max(chars, 1),
                            max(r.tree_peak_kib for r in mine) / 1024,
                            max(r.proc_peak_kib for r in mine) / 1024))
    bar.close()
    return rows, startup


# --------------------------------------------------------------------------------------------- reports

COLUMNS = [("set", "set", "{}"), ("files", "files", "{}"), ("chars", "chars", "{:,}"), ("workers", "workers", "{}"),
           ("seconds", "wall s", "{:.2f}"), ("files_per_s", "files/s", "{:.1f}"), ("floor_s", "floor s", "{:.4f}"),
           ("floor_ratio", "x floor", "{:.1f}"), ("cpu_s", "CPU s", "{:.2f}"),
           ("cpu_floor_ratio", "CPU x floor CPU", "{:.1f}"), ("net_ms_per_1000_chars", "ms/1000 chars (net)", "{:.2f}"),
           ("tree_peak_mib", "tree RSS MiB", "{:.0f}"), ("proc_peak_mib", "max proc RSS MiB", "{:.0f}")]


def markdown_table(rows: list[Row]) -> str:
    return report.markdown_table(rows, COLUMNS)


def targets(rows: list[Row], validation: str) -> list[tuple[str, str, str]]:
    """(target, measured, PASS/FAIL/n/a) for each target."""
    def find(name, w):
        return next((r for r in rows if r.set == name and r.workers == w), None)
    out = []
    v2 = find(validation, 2)
    out.append((f">= {TARGET_FILES_PER_S:.0f} files/s, 2 workers, {validation}",
                f"{v2.files_per_s:.1f} files/s" if v2 else "not measured",
                ("PASS" if v2.files_per_s >= TARGET_FILES_PER_S else "FAIL") if v2 else "n/a"))
    out.append((f"<= {TARGET_FLOOR_RATIO:.0f}x floor, 2 workers, {validation}",
                f"{v2.floor_ratio:.1f}x" if v2 else "not measured",
                ("PASS" if v2.floor_ratio <= TARGET_FLOOR_RATIO else "FAIL") if v2 else "n/a"))
    w = min((r.workers for r in rows), default=1)   # one process: no pool imbalance on 50 big files
    big, small = find("jdk-64K", w), find("jdk-4K", w)
    if big and small and small.net_ms_per_1000_chars > 0:
        ratio = big.net_ms_per_1000_chars / small.net_ms_per_1000_chars
        # the floor's own (tree-sitter parses a 64 KB file at a higher cost per character), for comparison
        floor = (big.floor_s / big.chars) / (small.floor_s / small.chars)
        out.append((f"64K ms/1000 chars <= {TARGET_LINEARITY}x 4K ({w} workers, net of start-up)",
                    f"{ratio:.2f}x (the floor's: {floor:.2f}x)", "PASS" if ratio <= TARGET_LINEARITY else "FAIL"))
    else:
        out.append((f"64K ms/1000 chars <= {TARGET_LINEARITY}x 4K", "not measured", "n/a"))
    peak = max((r.tree_peak_mib for r in rows if r.workers <= 2), default=0.0)
    out.append((f"peak memory <= {TARGET_MEMORY / 2**30:.0f} GiB, 2 workers (sum of RSS over the rank process tree)",
                f"{peak:.0f} MiB", ("PASS" if peak * 2**20 <= TARGET_MEMORY else "FAIL") if rows else "n/a"))
    return out


def signature_line(model: Path, sets: list[tuple[str, Path]], seed: int,
                   ranker: str = "worktree") -> str:
    sig = read_signature(model)
    ver = versions()
    names = ",".join(f"{n}({len(task_files(f))})" for n, f in sets)
    return signature(PROG, [*(model_fields(sig) if sig else [("model", model)]), ("ranker", ranker), ("sets", names),
                            ("make-tasks-seed", seed), ("cores", os.cpu_count()),
                            ("tree-sitter", ver["tree-sitter"]), ("python", ver["python"])])


def write_csv(rows: list[Row], path: Path) -> None:
    report.write_csv(rows, Row, path)


@cli.command(PROG)
def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
        try:
            workers = sorted({int(w) for w in args.workers.split(",")})
        except ValueError:
            raise UsageError(f"--workers {args.workers}: expected a list like 1,2") from None
        if not workers or workers[0] < 1:
            raise UsageError(f"--workers {args.workers}: worker counts must be at least 1")
        if args.per_size is not None and args.per_size < 1:
            raise UsageError(f"--per-size {args.per_size}: must be at least 1")
        if args.repeats < 1:
            raise UsageError(f"--repeats {args.repeats}: must be at least 1")
        if args.startup_runs < 0 or args.build_runs < 0:
            raise UsageError("--startup-runs and --build-runs: must be at least 0")
        chars_per_size = parse_size(args.chars_per_size)
        if not args.model.is_file():
            raise UsageError(f"--model {args.model}: no such model")
        problem = task_folder_problem(args.validation)
        if problem:
            raise UsageError(f"--validation {args.validation}: not a CodRep 2019 task folder ({problem})")
        if args.startup_runs and not args.startup_model.is_file():
            raise UsageError(f"--startup-model {args.startup_model}: no such model (--startup-runs 0 skips it)")
        if sizes and not args.jdk.is_file():
            raise UsageError(f"--jdk {args.jdk}: no such file")
        ranker = rank_command(args.ranker)
        compile_bytecode(ranker)
        args.output.mkdir(parents=True, exist_ok=True)
        validation = args.validation.name
        sets = [(validation, args.validation)]
        for size in sizes:
            sets.append((f"jdk-{size_label(size)}",
                         synthetic_folder(args.jdk, size, args.per_size or tasks_per_size(size, chars_per_size),
                                          args.seed, args.output / "tasks")))
    except (UsageError, RankerError, OSError) as e:
        raise cli.CommandError(e) from None
    load_before = os.getloadavg()[0]
    model_bytes = args.model.stat().st_size
    reads_before = latency.measure(args.output, model_bytes)
    if load_before > (os.cpu_count() or 1):
        print(f"{PROG}: warning: load average {load_before:.1f} on {os.cpu_count()} cores: other work is running "
              "and the timings will be slower than the ranker is", file=sys.stderr)
    try:
        rows, fixed = measure(ranker, args.model, sets, workers, not args.quiet, args.repeats)
        waits, one_file, build, same = [], None, None, False
        if args.startup_runs:
            waits, _ = startup.measure_startup(ranker, args.startup_model, args.validation, args.startup_runs)
            one_file = waits[2]
        if args.build_runs:
            build, same = startup.measure_build(args.corpus, ROOT / DEFAULT_MODEL, args.build_runs)
            waits.append(build)
    except (RuntimeError, OSError) as e:
        raise cli.CommandError(e) from None
    table = markdown_table(rows)
    goal = "\n".join(["| target | measured | status |", "|---|---:|---|"]
                     + [f"| {t} | {m} | {s} |" for t, m, s in
                        targets(rows, validation) + startup.targets(one_file, build)])
    start = ", ".join(f"{w} workers {s:.2f} s" for w, s in fixed.items())
    notes = (f"The floor and each ranking of every set run {args.repeats} times, all taking turns, round after round; "
             "each figure is the median of its runs (peak memory: the largest).\n"
             f"Start-up (bin/rank on no file, best of 3; subtracted for the net ms/1000 chars): {start}; the "
             "ranker's Python bytecode written before any run, as a user's first run writes it.\n"
             "Floor: `python -m bench.floor` loop time (read, tree-sitter parse and leaf walk in C, the ranker's "
             "own), one process. CPU s: user and system time of `bin/rank` and its workers, start-up included; "
             "CPU x floor CPU: over the floor loop's CPU time (on a loaded machine the wall-clock columns "
             "measure the load as much as the ranker).\n"
             + report.load_note(load_before, os.getloadavg()[0]))
    reads = latency.note(reads_before, latency.measure(args.output, model_bytes), model_bytes)
    if reads:
        notes += "\n" + reads
    if waits:
        notes += (f"\n\nStart-up and building, with {args.startup_model.name} (wall clock from outside, each a new "
                  "process):\n\n" + startup.markdown(waits))
        if build is not None and args.corpus.resolve() == (ROOT / "corpora").resolve():
            notes += (f"\n\nThe model built is {'' if same else 'not '}byte-identical to {DEFAULT_MODEL}.")
    sig = signature_line(args.model, sets, args.seed, ranker.label)
    page = f"{table}\n\n{goal}\n\n{notes}\n\n{sig}\n"
    (args.output / "bench.md").write_text(page)
    write_csv(rows, args.output / "bench.csv")
    print(page, end="")
    print(f"wrote {args.output / 'bench.md'}, {args.output / 'bench.csv'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
