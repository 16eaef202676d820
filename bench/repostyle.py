"""bin/repostyle-bench (`make bench`): bin/check on one file of a 1,000-file git repository, as a pre-commit hook
runs it, with the whole work tree's style cached (check/repostyle.py).

The repository is the first N Java files of the JDK's sources (corpora/jdk17-src.zip), committed in a fresh
git repository under .cache. Each row is wall-clock seconds of a `bin/check` process, from outside (interpreter
start, imports, model loading and the tree's style included), and its CPU seconds (user + system, workers
included: on a loaded machine the wall clock measures the load as much as the checker):

- the whole repository checked with no cache (`--no-cache .`: what a check of the whole repository costs
  without one, every file learned and checked);
- one file, cold: the cache removed first (every file learned, the cache written);
- one file, warm, nothing changed;
- one file, warm, that file changed since the last run and staged, checked as the pre-commit hook checks it
  (`--staged FILE`: a line added each time, only it learned again and judged).

Then whether the file's findings (at --min-score 1, so that there are some) are those a run on the whole
repository reports for it, and where the time of a warm run on a changed file goes, measured in one process
(`--profile`, phase by phase). The table goes to stdout and, with --docs, between markers in that Markdown file.
"""
from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from unnatural import ROOT, cli
from unnatural.signature import signature

COMMAND = "repostyle-bench"
SOURCE = ROOT / "corpora" / "jdk17-src.zip"
WORK = ROOT / ".cache" / "repostyle-bench"
TARGET_SECONDS = 1.0
MARKER = "repostyle-bench"
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com", "GIT_COMMITTER_NAME": "bench",
           "GIT_COMMITTER_EMAIL": "bench@example.com"}


def make_repository(count: int) -> Path:
    """The first `count` Java files of the JDK's sources, committed in a git repository (made once)."""
    folder = WORK / f"jdk-{count}"
    if (folder / ".git").exists():   # as committed (an interrupted run may have staged a change)
        subprocess.run(["git", "reset", "-q"], cwd=folder, check=True)
        subprocess.run(["git", "checkout", "-q", "--", "."], cwd=folder, check=True)
        return folder
    tmp = folder.with_name(folder.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    with zipfile.ZipFile(SOURCE) as z:
        for name in sorted(n for n in z.namelist() if n.endswith(".java"))[:count]:
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp / name).write_bytes(z.read(name))
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "files"]):
        subprocess.run(["git", *args], cwd=tmp, check=True, env=env)
    shutil.rmtree(folder, ignore_errors=True)
    tmp.rename(folder)
    return folder


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one `bin/check` process (and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([str(ROOT / "bin" / "check"), *argv], cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise cli.CommandError(f"bin/check {' '.join(argv)} failed: {proc.stderr.strip().splitlines()[-1:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def same_findings(repo: Path, target: str, base: list[str]) -> tuple[bool, int]:
    """Whether bin/check on `target` alone reports, at a low score (so that there are findings to compare),
    what a run on the whole repository reports for it; and how many."""
    def findings(paths: list[str]) -> list[str]:
        proc = subprocess.run([str(ROOT / "bin" / "check"), *base, "--min-score", "1", "--format", "json", *paths],
                              cwd=repo, capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            raise cli.CommandError(f"bin/check failed: {proc.stderr.strip().splitlines()[-1:]}")
        return [line for line in proc.stdout.splitlines() if line.startswith(f'{{"path": "{target}"')]
    alone = findings([target])
    return alone == findings(["."]), len(alone)


def cache_of(repo: Path) -> Path:
    return repo / ".git" / "unnatural"


def run(count: int, runs: int, model: str | None) -> list[str]:
    repo = make_repository(count)
    files = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*.java"))
    target = files[len(files) // 2]
    base = ["--quiet", "--workers", "1", *(["--model", model] if model else [])]
    rows: list[tuple[str, list[tuple[float, float]]]] = []
    rows.append(("whole repository, no cache (`--no-cache .`)", [timed([*base, "--no-cache", "."], repo)]))
    cold = []
    for _ in range(max(1, runs // 3)):
        shutil.rmtree(cache_of(repo), ignore_errors=True)
        cold.append(timed([*base, target], repo))
    rows.append(("one file, cold cache (every file learned, cache written)", cold))
    time.sleep(2.1)   # past the cache's window for files changed as their status is noted
    rows.append(("one file, warm cache, nothing changed", [timed([*base, target], repo) for _ in range(runs)]))
    changed = []
    for i in range(runs):
        with open(repo / target, "a") as f:
            f.write(f"// changed {i}\n")
        subprocess.run(["git", "add", "--", target], cwd=repo, check=True)
        changed.append(timed([*base, "--staged", target], repo))
    rows.append(("one file, warm cache, that file changed and staged (`--staged FILE`, as the hook)", changed))
    subprocess.run(["git", "reset", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=repo, check=True)
    same, count = same_findings(repo, target, base)
    out = [f"bin/check on `{target}` of a {len(files):,}-file git repository (the JDK's first files), 1 worker; "
           "wall clock from outside, a new process each run:", "",
           "| run | runs | best s | median s | median CPU s |", "|---|---:|---:|---:|---:|"]
    for name, times in rows:
        walls = [w for w, _ in times]
        out.append(f"| {name} | {len(times)} | {min(walls):.2f} | {statistics.median(walls):.2f} | "
                   f"{statistics.median(c for _, c in times):.2f} |")
    warm = statistics.median(w for w, _ in changed)
    cpu = statistics.median(c for _, c in changed)
    status = "PASS" if warm <= TARGET_SECONDS else ("PASS (CPU)" if cpu <= TARGET_SECONDS else "FAIL")
    whole = rows[0][1][0][0]
    out += ["", "| target | measured | status |", "|---|---:|---|",
            f"| one changed file, warm cache, <= {TARGET_SECONDS} s end to end (median) | {warm:.2f} s wall, "
            f"{cpu:.2f} s CPU | {status} |",
            f"| cold run <= a whole-repository check | {statistics.median(w for w, _ in cold):.2f} s against "
            f"{whole:.2f} s | {'PASS' if statistics.median(w for w, _ in cold) <= whole else 'FAIL'} |",
            f"| the file's findings (`--min-score 1 --format json`) as a whole-repository run's | {count} findings, "
            f"{'the same' if same else 'different'} | {'PASS' if same else 'FAIL'} |", ""]
    out += profile(repo, target, model)
    load = os.getloadavg()[0]
    out += ["", f"Machine load (1-minute load average) {load:.1f} at the end, on {os.cpu_count()} cores."]
    return out


PROFILE = r"""
import sys, time
t = [time.perf_counter()]
marks = []
def mark(name):
    t.append(time.perf_counter()); marks.append((name, t[-1] - t[-2]))
from check import cli as check_cli
mark("imports (bin/check's modules)")
import numpy
from check import repostyle, discover
mark("imports (numpy, the tree's style)")
from ranker.cli import RankConfig, load
from parsing.schemes import get_scheme
scorer, lm = load(RankConfig(sys.argv[1], edits=check_cli.EDITS))[:2]
scheme = get_scheme(lm.scheme)
mark("model loaded (mapped)")
top = repostyle.learning_tree([sys.argv[2]])
files, _ = discover.files_to_check(["."], cwd=top)
mark("the tree's files listed (git ls-files, stat)")
from unnatural.cli import MAX_BYTES
tree = repostyle.tree_style(top, files, scheme, MAX_BYTES)   # as bin/check keys its cache
mark("the tree's style: statuses read, the changed file learned, the sum updated and saved")
style = tree.styles()(sys.argv[2])
mark("the file's style (the sum's tables, its own counts)")
from check.calibration import Calibration
from check.engine import CheckConfig, check_text
from formats.files import read_source
calibration = Calibration.load()
least = calibration.least_scores(calibration.cutoffs["medium"])
check_text(scorer, scheme, read_source(sys.argv[2]), sys.argv[2], CheckConfig(least), calibration, style)
mark("the file checked")
for name, s in marks:
    print(f"{name}\t{s:.3f}")
"""


def profile(repo: Path, target: str, model: str | None) -> list[str]:
    """Where a warm run on a changed file spends its time, phase by phase, in one process."""
    from ranker.cli import DEFAULT_MODEL
    with open(repo / target, "a") as f:
        f.write("// profiled\n")
    time.sleep(0.01)
    python = ROOT / ".venv" / "bin" / "python"
    t0 = time.perf_counter()
    proc = subprocess.run([str(python if python.exists() else sys.executable), "-c", PROFILE,
                           str(ROOT / (model or DEFAULT_MODEL)), target], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.perf_counter() - t0
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=repo, check=True)
    if proc.returncode != 0:
        return [f"(the profile failed: {proc.stderr.strip().splitlines()[-1:]})"]
    out = ["Where a warm run on a changed file spends its time (one process, phase by phase; the interpreter's own "
           "start is the rest of the total):", "", "| phase | s |", "|---|---:|"]
    for line in proc.stdout.splitlines():
        name, s = line.split("\t")
        out.append(f"| {name} | {float(s):.3f} |")
    out.append(f"| total, from outside | {wall:.3f} |")
    return out


def parser() -> cli.ArgumentParser:
    p = cli.parser(COMMAND, __doc__.strip().splitlines()[0])
    p.add_argument("--files", type=cli.positive_int, default=1000, help="files in the repository (default 1000)")
    p.add_argument("--runs", type=cli.positive_int, default=5, help="runs of each warm row (default 5)")
    p.add_argument("--model", default=None, help="bin/check's --model (default: its own)")
    p.add_argument("--docs", type=Path, default=None, help="write the table into this Markdown file")
    return p


@cli.command(COMMAND)
def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if not SOURCE.exists():
        raise cli.CommandError(f"{SOURCE} is missing: run 'make data'")
    lines = run(args.files, args.runs, args.model)
    lines += ["", signature(COMMAND, [("files", args.files), ("runs", args.runs)])]
    print("\n".join(lines))
    if args.docs:
        from .check import write_docs
        write_docs(args.docs, ["", "## bin/check on one file of a repository, with its style cached", "", *lines, ""],
                   MARKER)
    return cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
