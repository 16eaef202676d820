"""bin/check-bench (`make check-bench`): bin/check as a repository uses it, on the detection sets
(`make devsets`). Each set becomes a repository: its task files (one injected error each) and its clean
files, as `tasks/N.java` and `clean/N.java` in a fresh copy.

- `--calibrate`: bin/check at a low score (`--min-score`) on the development sets only; each finding is
  labelled (right: in a task file, at the injected error's offset); check/calibration.json is fitted from
  them (bench/calibration_fit.py, on each finding's `evidence` in bin/check's JSON) and saved, the habit
  breaks' belief kept (`--calibrate-hand-slips` fits it).
- then, for each sensitivity, `bin/check --fix --format json` on a fresh copy of every set (development and
  held out): precision of the findings, recall (task files whose error was found), false findings per 1000
  lines of clean code, task files the fix gave back byte for byte, clean files left unchanged.
- then the real-slip set, whitespace slips developers fixed (bench/realslips.py; `--realslips`: only it).
- `--speed N` instead: bin/check against bin/rank on the JDK's first N files, `--runs` times each, taking
  turns (`make bench`).
- `--hand-slips` instead: twelve kinds of hand-made slip in formatter-enforced repositories, where what is
  right is certain (bench/hand_slips.py; `--calibrate-hand-slips` fits the habit belief on them first).
- `--commits` instead: the commit-time set, real commits that made whitespace slips, each checked with
  `bin/check --since HEAD~1` as a pre-commit hook or CI would (bench/commits.py).
- `--realslips-ceiling` instead: how much of the real-slip set a checker deciding by a gap's pattern can find
  within a budget of false findings (evaluation/slip_ceiling.py), without running bin/check.

Every number comes from running bin/check as a user would; the table goes to stdout and, with --docs,
into docs/results/check-bench.md (make check-bench).
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from bench import commits, hand_slips, realslips
from bench.calibration_fit import (
    ALL_BREAKS,
    BUDGETS,
    FILE_BUDGETS,
    INJECTED,
    SLIP_BUDGETS,
    SLIP_FILE_BUDGETS,
    Family,
    Labelled,
    fit,
    habit_break,
)
from check.calibration import CALIBRATION, SENSITIVITIES, Calibration
from check.config import DEFAULT_LEARN, LEARN_METHODS, learn_method
from evaluation.realslips import labels as realslips_labels
from formats.codrep2019 import DEVSET_FILE, original_texts, read_devset, read_jsonl
from formats.files import read_source
from ranker.cli import DEFAULT_MODEL
from unnatural import ROOT, cli
from unnatural.signature import signature

COMMAND = "check-bench"
DEVSETS = ROOT / ".data" / "devsets"
SLIPSETS = ROOT / ".data" / "slipsets"   # the same sets with the real slips' mix of edits (make devsets)
WORK = ROOT / ".cache" / "check-bench"
SPEED_RUNS = 3        # --speed: the runs of bin/rank and bin/check, taking turns
MIN_SCORE = 2.0       # the calibration run's floor: below every sensitivity's least score
CAL_FINDINGS = 5      # findings per file in the calibration run
# The real-slip set's calibration run goes lower: a real slip scores less than an injected one (the repository's
# habits, not the model, tell most of them)
SLIP_MIN_SCORE = 1.0
SLIP_CAL_FINDINGS = 10   # and its files' slips come 1 to 5 a file, among their other oddities
# The false findings per 1000 clean lines the habit breaks may add at each sensitivity in the detection sets'
# clean files (--calibrate-hand-slips), where the ranking's findings have the budgets of
# bench/calibration_fit.py (BUDGETS): a small share of them (their clean files hold real projects' anomalies,
# which the detection sets count as false)
HABIT_INJECTED_BUDGETS = {"low": 0.005, "medium": 0.05, "high": 0.2}
REAL_SLIPS = "real slips"


@dataclass(frozen=True)
class Repo:
    """A detection set laid out as a repository: where each file is, and what is right about it."""
    name: str
    root: Path
    answers: dict[str, int]      # task file (absolute) -> the injected error's offset
    originals: dict[str, str]    # task file -> its text before the error
    clean: dict[str, str]        # clean file -> its text
    clean_lines: int
    held_out: bool
    answer_field: str = "offset"   # the finding's field the answer is: its offset, or its gap's (a slip set's)


def make_repo(folder: Path, dest: Path) -> Repo:
    """A fresh copy of set `folder` at `dest` (tasks/N.java, clean/N.java)."""
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "tasks").mkdir(parents=True)
    (dest / "clean").mkdir()
    originals = original_texts(folder)
    answers, texts = {}, {}
    for t in read_jsonl(folder / "truth.jsonl"):
        target = dest / "tasks" / (Path(t["task"]).stem + ".java")
        shutil.copyfile(folder / t["task"], target)
        answers[str(target)] = t["answer"]
        texts[str(target)] = originals[str((folder / t["task"]).absolute())]
    clean = {}
    for c in read_jsonl(folder / "clean.jsonl"):
        target = dest / "clean" / Path(c["file"]).name
        shutil.copyfile(folder / c["file"], target)
        clean[str(target)] = read_source(target)
    meta = read_devset(folder)
    lines = sum(t.count("\n") + 1 for t in clean.values())
    return Repo(folder.name, dest, answers, texts, clean, lines, bool(meta["config"].get("held_out", False)),
                "gap_offset" if meta["config"].get("mix") == "real" else "offset")


def run_check(repo: Repo, args: list[str], workers: int, learn: str | None = None) -> list[dict]:
    """bin/check's JSON findings on `repo` (`learn`: its --learn; None: its default)."""
    proc = subprocess.run([str(ROOT / "bin" / "check"), "--format", "json", "--quiet", "--workers", str(workers),
                           *_learning(learn), *args, str(repo.root)], capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        tail = proc.stderr.strip().splitlines()
        raise cli.CommandError(f"bin/check failed on {repo.name}: {tail[-1] if tail else proc.returncode}")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def _learning(learn: str | None) -> list[str]:
    return ["--learn", learn] if learn else []


def _right(repo: Repo, f: dict, found: set[str]) -> bool:
    """Whether finding `f` is the injected error of its task file (the first such finding counts)."""
    path = str(Path(f["path"]).absolute())
    if repo.answers.get(path) == f[repo.answer_field] and path not in found:
        found.add(path)
        return True
    return False


def _slip_runs(slips, projects: list[str], args: list[str], match: str, keep, what: str, workers: int,
               learn: str | None):
    """bin/check --format json ARGS on each of the real-slip set's `projects`, checked as one folder: each
    finding it `keep`s, labelled (finding, right (evaluation/realslips.py's `match`), in a clean file, file),
    and the clean files' lines and count."""
    out, lines, clean_files = [], 0, 0
    for p in projects:
        changes = [c for c in slips.changes if c.project == p]
        clean = [c for c in slips.clean if c.project == p]
        findings = [json.loads(line) for line in realslips.run_check(
            slips.folder(p), ["--format", "json", *args], workers, learn).splitlines() if line.strip()]
        labelled = [x for x in realslips_labels(changes, clean, findings, match) if keep(x[0])]
        out += [(f, right, in_clean, f"{p}/{f['path']}") for f, right, in_clean in labelled]
        lines += sum(c.lines for c in clean)
        clean_files += len(clean)
        print(f"calibration: realslips {p}: {sum(r for _, r, _ in labelled)} {what} "
              f"{sum(len(c.gaps) for c in changes)} changed gaps", file=sys.stderr)
    return out, lines, clean_files


def slip_findings(slips, projects: list[str], workers: int, learn: str | None = None):
    """The calibration run on the real-slip set's `projects`, each checked as one folder: each finding of the
    ranking, labelled (right: at a changed gap, its repair toward the developer's; family REAL_SLIPS), and the
    clean files' lines and count."""
    found, lines, clean_files = _slip_runs(
        slips, projects, ["--min-score", str(SLIP_MIN_SCORE), "--max-findings", str(SLIP_CAL_FINDINGS)], "toward",
        lambda f: not habit_break(f), "right findings of", workers, learn)
    return ([Labelled.of_finding(f, right, in_clean, file, REAL_SLIPS) for f, right, in_clean, file in found],
            lines, clean_files)


def injected_breaks(repos: list[Repo], workers: int, learn: str | None = None):
    """The habit breaks bin/check finds in the detection sets `repos` that are not their injected errors,
    labelled wrong (family INJECTED): the anomalies of real projects' code. (A break at an injected error is
    left out: the ranking finds those, a habit finding would add nothing there.)"""
    out = []
    WORK.mkdir(parents=True, exist_ok=True)
    with open(WORK / "injected-breaks.jsonl", "w") as keep:   # for a look at what was labelled how
        for repo in repos:
            found: set[str] = set()
            for f in run_check(repo, ALL_BREAKS, workers, learn):
                path = str(Path(f["path"]).absolute())
                if not _right(repo, f, found):
                    out.append(Labelled.of_finding(f, False, path in repo.clean, path, INJECTED))
                    keep.write(json.dumps({**f, "set": repo.name, "clean": out[-1].clean}) + "\n")
            print(f"calibration: {repo.name}: {len(out)} habit breaks elsewhere so far", file=sys.stderr)
    return out


def calibrate(repos: list[Repo], workers: int, model_name: str, learn: str | None = None, slips=None,
              slip_projects: list[str] = ()) -> None:
    labelled, lines, clean_files = [], 0, 0
    with open(WORK / "calibration-findings.jsonl", "w") as keep:   # for a look at what was labelled how
        for repo in repos:
            found: set[str] = set()
            for f in run_check(repo, ["--min-score", str(MIN_SCORE), "--max-findings", str(CAL_FINDINGS)], workers,
                                 learn):
                if habit_break(f):   # the habit breaks have a belief of their own
                    continue
                path = str(Path(f["path"]).absolute())
                labelled.append(Labelled.of_finding(f, _right(repo, f, found), path in repo.clean, path, INJECTED))
                keep.write(json.dumps({**f, "set": repo.name, "right": labelled[-1].right,
                                       "clean": labelled[-1].clean}) + "\n")
            lines += repo.clean_lines
            clean_files += len(repo.clean)
            print(f"calibration: {repo.name}: {len(found)} of {len(repo.answers)} errors among the findings",
                  file=sys.stderr)
    families = {INJECTED: Family(lines, clean_files, BUDGETS, FILE_BUDGETS)}
    if slip_projects:
        found, slip_lines, slip_files = slip_findings(slips, slip_projects, workers, learn)
        families[REAL_SLIPS] = Family(slip_lines, slip_files, SLIP_BUDGETS, SLIP_FILE_BUDGETS)
        labelled += found
    cal = fit(labelled, families, model=model_name,
              measured={"sets": [r.name for r in repos], "realslips": list(slip_projects),
                        "findings": len(labelled), "clean_lines": lines, "clean_files": clean_files,
                        "min_score": min(MIN_SCORE, SLIP_MIN_SCORE) if slip_projects else MIN_SCORE,
                        "findings_per_file": CAL_FINDINGS, "budgets": BUDGETS, "file_budgets": FILE_BUDGETS,
                        "slip_budgets": SLIP_BUDGETS, "slip_file_budgets": SLIP_FILE_BUDGETS,
                        "learn": learn or DEFAULT_LEARN})
    cal = replace(cal, habits=Calibration.load(CALIBRATION).habits)   # the habit belief is fitted apart
    cal.save(CALIBRATION)
    print(f"calibration: {CALIBRATION.relative_to(ROOT)}: cut-offs {cal.cutoffs}", file=sys.stderr)


@dataclass(frozen=True)
class Outcome:
    name: str
    held_out: bool
    sensitivity: str
    findings: int
    right: int
    tasks: int
    false_clean: int
    clean_lines: int
    restored: int
    clean_files: int
    clean_unchanged: int

    @property
    def precision(self) -> float:
        return self.right / self.findings if self.findings else 1.0

    @property
    def recall(self) -> float:
        return self.right / self.tasks

    @property
    def false_per_kloc(self) -> float:
        return 1000 * self.false_clean / self.clean_lines


def evaluate(repo: Repo, sensitivity: str, workers: int, learn: str | None = None) -> Outcome:
    findings = run_check(repo, ["--sensitivity", sensitivity, "--fix"], workers, learn)
    found: set[str] = set()
    right = sum(_right(repo, f, found) for f in findings)
    false_clean = sum(1 for f in findings if str(Path(f["path"]).absolute()) in repo.clean)
    restored = sum(read_source(Path(p)) == text for p, text in repo.originals.items())
    unchanged = sum(read_source(Path(p)) == text for p, text in repo.clean.items())
    return Outcome(repo.name, repo.held_out, sensitivity, len(findings), right, len(repo.answers), false_clean,
                   repo.clean_lines, restored, len(repo.clean), unchanged)


def table(rows: list[Outcome]) -> list[str]:
    out = ["| set | held out | sensitivity | findings | precision | recall | false / KLOC | fix restores | clean "
           "unchanged |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r.name} | {'yes' if r.held_out else ''} | {r.sensitivity} | {r.findings} | {r.precision:.3f} | "
                   f"{r.recall:.3f} | {r.false_per_kloc:.3f} | {r.restored / r.tasks:.3f} | "
                   f"{r.clean_unchanged / r.clean_files:.3f} |")
    for label, group in (("development sets", [r for r in rows if not r.held_out]),
                         ("held-out sets", [r for r in rows if r.held_out]), ("all sets", rows)):
        for s in SENSITIVITIES:
            g = [r for r in group if r.sensitivity == s]
            if not g:
                continue
            n, right, tasks = sum(r.findings for r in g), sum(r.right for r in g), sum(r.tasks for r in g)
            fc, lines = sum(r.false_clean for r in g), sum(r.clean_lines for r in g)
            out.append(f"| **{label}** ({len(g)}) | | {s} | {n} | {right / n if n else 1:.3f} | {right / tasks:.3f} | "
                       f"{1000 * fc / lines:.3f} | {sum(r.restored for r in g) / tasks:.3f} | "
                       f"{sum(r.clean_unchanged for r in g) / sum(r.clean_files for r in g):.3f} |")
    return out


def write_docs(path: Path, lines: list[str], marker: str = "check-bench") -> None:
    """Put `lines` between the marker comments of `path` (appended when it has none)."""
    start, end = f"<!-- {marker} -->", f"<!-- /{marker} -->"
    text = path.read_text() if path.exists() else f"{start}\n{end}\n"
    head, rest = text.split(start, 1) if start in text else (text + "\n", end + "\n")
    tail = rest.split(end, 1)[1] if end in rest else "\n"
    path.write_text(head + start + "\n" + "\n".join(lines) + "\n" + end + tail)


SPEED_SOURCE = ROOT / "corpora" / "jdk17-src.zip"


def speed(count: int, workers: int, learn: str | None = None, runs: int = SPEED_RUNS) -> list[str]:
    """bin/check (with its default settings: a learning pass when it learns) against bin/rank on the first
    `count` Java files of the JDK's sources, laid out as a repository: seconds and cost per character of each,
    and their ratio. The two take turns `runs` times (a shared machine's speed moves from minute to minute):
    the median of each one's seconds, and the median of the runs' ratios."""
    import statistics
    import time
    import zipfile
    folder = WORK / f"jdk-{count}"
    if not folder.exists():
        tmp = folder.with_name(folder.name + ".partial")
        shutil.rmtree(tmp, ignore_errors=True)
        with zipfile.ZipFile(SPEED_SOURCE) as z:
            names = sorted(n for n in z.namelist() if n.endswith(".java"))[:count]
            for n in names:
                (tmp / n).parent.mkdir(parents=True, exist_ok=True)
                (tmp / n).write_bytes(z.read(n))
        tmp.rename(folder)
    chars = sum(len(read_source(p)) for p in folder.rglob("*.java"))
    files = sum(1 for _ in folder.rglob("*.java"))
    commands = (("bin/rank", ["rank", "--workers", str(workers)]),
                ("bin/check", ["check", "--quiet", "--format", "json", "--workers", str(workers), *_learning(learn)]))
    seconds: dict[str, list[float]] = {name: [] for name, _ in commands}
    for run in range(runs):
        for name, argv in commands:
            t0 = time.perf_counter()
            proc = subprocess.run([str(ROOT / "bin" / argv[0]), *argv[1:], str(folder)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
            seconds[name].append(time.perf_counter() - t0)
            if proc.returncode not in (0, 1):
                raise cli.CommandError(f"{name} failed: {proc.stderr.strip().splitlines()[-1:]}")
        print(f"speed: run {run + 1} of {runs}: " + ", ".join(f"{n} {s[-1]:.1f} s" for n, s in seconds.items()),
              file=sys.stderr)
    base = seconds["bin/rank"]
    out = ["| command | files | characters | seconds (median) | µs per character | against bin/rank (median) |",
           "|---|---:|---:|---:|---:|---:|"]
    for name, _ in commands:
        median = statistics.median(seconds[name])
        ratio = statistics.median(s / b for s, b in zip(seconds[name], base))
        out.append(f"| {name} | {files} | {chars:,} | {median:.1f} | {1e6 * median / chars:.2f} | {ratio:.2f}x |")
    return out + ["", f"Runs: {runs}, the two taking turns; bin/check against bin/rank in each: "
                  + ", ".join(f"{s / b:.2f}x" for s, b in zip(seconds["bin/check"], base)) + "."]


def parser() -> cli.ArgumentParser:
    p = cli.parser(COMMAND, __doc__.strip().splitlines()[0])
    p.add_argument("sets", nargs="*", help="set names under .data/devsets (default: all)")
    p.add_argument("--calibrate", action="store_true",
                   help="fit check/calibration.json on the development sets first")
    p.add_argument("--sensitivity", choices=SENSITIVITIES, action="append",
                   help="the sensitivities to measure (default: all)")
    p.add_argument("--speed", type=cli.positive_int, metavar="N", default=None,
                   help="instead: time bin/check against bin/rank on N files of the JDK's sources")
    p.add_argument("--runs", type=cli.positive_int, default=SPEED_RUNS,
                   help=f"with --speed: the runs of each, taking turns (default: {SPEED_RUNS}; the medians count)")
    p.add_argument("--docs", type=Path, default=None,
                   help=f"write the table into this Markdown file (the real slips' into {realslips.DOCS} beside it)")
    p.add_argument("--learn", type=learn_method, choices=LEARN_METHODS, default=None,
                   help=f"bin/check's --learn in every run (default: bin/check's own, {DEFAULT_LEARN})")
    realslips.add_arguments(p)
    commits.add_arguments(p)
    hand_slips.add_arguments(p)
    cli.add_workers(p)
    return p


def run_page(args, bench, learns: bool = True) -> None:
    """A benchmark of a page of its own (bench/realslips.py, bench/commits.py, bench/hand_slips.py: its `run`,
    DOCS and MARKER): its tables to stdout and, with --docs, into its page beside the detection sets' (a page
    stays short). `learns`: whether its runs learn as --learn says (the hand-made slips learn the work tree)."""
    args.sensitivity = args.sensitivity or SENSITIVITIES
    learn = [("learn", args.learn or DEFAULT_LEARN)] if learns else []
    lines = bench.run(args, lambda fields: signature(COMMAND, [*fields, ("workers", args.workers), *learn,
                                                               ("calibration", CALIBRATION.name)]))
    print("\n".join(lines))
    if args.docs:
        write_docs(args.docs.with_name(bench.DOCS), lines, bench.MARKER)


def _devset_folders(args, where: Path = DEVSETS) -> list[Path]:
    folders = sorted(p for p in where.iterdir() if (p / DEVSET_FILE).exists()) if where.exists() else []
    if args.sets:
        folders = [f for f in folders if f.name in args.sets]
    if not folders:
        raise cli.CommandError(f"no detection sets under {where}: run 'make devsets'")
    return folders


def _mix(folder: Path) -> str:
    """The mix of edits of a detection set (evaluation/devsets.py)."""
    return read_devset(folder)["config"].get("mix", "codrep2019")


def _work(where: Path, folder: Path) -> Path:
    """Where set `folder` of `where` (DEVSETS or SLIPSETS) is copied to be checked."""
    return WORK / folder.name if where == DEVSETS else WORK / where.name / folder.name


def _repos(args, where: Path = DEVSETS) -> list[Repo]:
    """The sets of `where`, each a fresh repository."""
    return [make_repo(f, _work(where, f)) for f in _devset_folders(args, where)]


@cli.command(COMMAND)
def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if args.speed:
        lines = speed(args.speed, args.workers, args.learn, args.runs) + ["", signature(COMMAND, [
            ("speed", args.speed), ("runs", args.runs), ("workers", args.workers),
            ("learn", args.learn or DEFAULT_LEARN)])]
        print("\n".join(lines))
        if args.docs:
            write_docs(args.docs, lines, "check-speed")
        return cli.EXIT_OK
    if args.calibrate_commits or args.commits:
        if args.calibrate_commits:
            print("\n".join(commits.calibrate(args)))
        if args.commits:
            run_page(args, commits)
        return cli.EXIT_OK
    if args.calibrate_hand_slips:
        # the development detection sets' breaks, away from their injected errors, are anomalies of real
        # projects that the detection sets count as false: negatives within their own budgets
        repos = [r for r in _repos(args) if not r.held_out]
        elsewhere = injected_breaks(repos, args.workers, args.learn)
        hand_slips.calibrate(args.workers, others=elsewhere, families={
            INJECTED: Family(sum(r.clean_lines for r in repos), sum(len(r.clean) for r in repos),
                             HABIT_INJECTED_BUDGETS, {})})
    if args.hand_slips:
        run_page(args, hand_slips, learns=False)
        return cli.EXIT_OK
    if args.realslips_ceiling:
        lines = realslips.ceiling(args, lambda fields: signature(COMMAND, fields))
        print("\n".join(lines))
        if args.docs:
            write_docs(args.docs.with_name(realslips.CEILING_DOCS), lines, realslips.CEILING_MARKER)
        return cli.EXIT_OK
    if args.realslips:
        run_page(args, realslips)
        return cli.EXIT_OK
    if args.calibrate:
        repos = _repos(args)
        slips = realslips.read_set(args.realslips_set) if realslips.available(args.realslips_set) else None
        held_out = realslips.held_out_projects(args.held_out, slips) if slips else ()
        calibrate([r for r in repos if not r.held_out], args.workers, Path(DEFAULT_MODEL).name, args.learn, slips,
                  [p for p in slips.projects if p not in held_out] if slips else [])
    for where, marker in ((DEVSETS, "check-bench"), (SLIPSETS, "check-bench-slipsets")):
        if where == SLIPSETS and not where.exists():
            print(f"{COMMAND}: warning: no slip sets under {where}: run 'make devsets'", file=sys.stderr)
            continue
        folders = _devset_folders(args, where)
        rows = []
        for s in args.sensitivity or SENSITIVITIES:
            for f in folders:
                rows.append(evaluate(make_repo(f, _work(where, f)), s, args.workers, args.learn))
                print(f"{where.name} {f.name} {s}: precision {rows[-1].precision:.3f} recall {rows[-1].recall:.3f}",
                      file=sys.stderr)
        lines = table(rows) + ["", signature(COMMAND, [("sets", len(folders)), ("edits", _mix(folders[0])),
                                                       ("workers", args.workers),
                                                       ("learn", args.learn or DEFAULT_LEARN),
                                                       ("calibration", CALIBRATION.name)])]
        print("\n".join(lines))
        if args.docs:
            write_docs(args.docs, lines, marker)
    if not args.sets and realslips.available(args.realslips_set):   # the whole benchmark: the real slips too
        run_page(args, realslips)
    if not args.sets and hand_slips.repositories():   # and the hand-made slips
        run_page(args, hand_slips, learns=False)
    return cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
