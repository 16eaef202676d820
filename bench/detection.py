"""bin/detection-bench (`make detection-bench`): the ranker as a repository uses it, on the detection
development sets (`make devsets`): per project and per indentation style, for each way of learning the
project's style (`bin/rank --adapt METHOD`, each project's tasks and clean files given together as its
repository; ranker/learn.py):

- MRR of the task files' answers (`bin/rank` output, the CodRep 2019 measure);
- file-level AUC (`bin/rank --explain --json`: a file's top finding's score, its gain less half the file's
  background, task files against clean ones);
- the time of the ranking run relative to `--adapt file` (learning included).

Every number comes from running `bin/rank` as a user would; the tables go to stdout and, with --docs, into
docs/results/detection-bench.md (which docs/detection.md reads).
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

from evaluation import detection
from evaluation.codrep2019 import parse_predictions, score_rankings
from formats.codrep2019 import DEVSET_FILE, read_answers, read_devset
from lm.model import read_signature
from unnatural import ROOT, cli
from unnatural.signature import signature

COMMAND = "detection-bench"
METHODS = ("none", "file", "folder", "project", "folder+project")   # bin/rank --adapt; file is the reference


@dataclass(frozen=True)
class Row:
    name: str
    style: str
    held_out: bool
    tasks: int
    clean: int
    chars: int
    mrr: dict[str, float]       # per method
    auc: dict[str, float]
    seconds: dict[str, float]   # the ranking run's wall time


def rank(args: list[str]) -> tuple[str, float]:
    """bin/rank's standard output and wall time."""
    t0 = time.perf_counter()
    proc = subprocess.run([str(ROOT / "bin" / "rank"), *args], capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise cli.CommandError("bin/rank failed: "
                               f"{proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode}")
    return proc.stdout, time.perf_counter() - t0


def measure(folder: Path, model: str | None, workers: int, methods: tuple[str, ...]) -> Row:
    meta = read_devset(folder)
    answers = read_answers(str(folder))
    tasks, clean = detection.read_sets([str(folder)])
    base = (["--model", model] if model else []) + ["--workers", str(workers)]
    paths = [str(folder), str(folder / "clean")]
    mrr, auc, seconds = {}, {}, {}
    for method in methods:
        out, seconds[method] = rank([*base, "--adapt", method, *paths])
        ranking = parse_predictions(out.splitlines(), "bin/rank")
        mrr[method] = score_rankings(answers, {p: r for p, r in ranking.items() if p in answers}).mrr
        out, _ = rank([*base, "--adapt", method, "--explain", "--json", "--top", "3", *paths])
        findings = detection.parse_findings(out.splitlines(), "bin/rank --explain")
        auc[method] = detection.detection_scores(findings, tasks, clean).auc
    chars = sum(len(Path(p).read_text(encoding="utf-8")) for p in [t.path for t in tasks] + [c.path for c in clean])
    return Row(folder.name, meta.get("indentation", "?"), meta["config"].get("held_out", False), len(tasks),
               len(clean), chars, mrr, auc, seconds)


def table(rows: list[Row], metric: str, methods: tuple[str, ...]) -> list[str]:
    """One row per set and summary rows (means), one column per method, the best of each row in bold."""
    out = ["| set | style | held out | tasks | clean | " + " | ".join(methods) + " |",
           "|---|---|---|---:|---:|" + "---:|" * len(methods)]

    def cells(values: list[float]) -> str:
        best = max(round(v, 4) for v in values)
        return " | ".join(f"**{v:.4f}**" if round(v, 4) == best else f"{v:.4f}" for v in values)
    for r in rows:
        out.append(f"| {r.name} | {r.style} | {'yes' if r.held_out else ''} | {r.tasks} | {r.clean} | "
                   + cells([getattr(r, metric)[m] for m in methods]) + " |")

    def summary(label: str, group: list[Row]) -> None:
        if group:
            out.append(f"| **{label}** ({len(group)} sets) | | | {sum(r.tasks for r in group)} | "
                       f"{sum(r.clean for r in group)} | "
                       + cells([mean(getattr(r, metric)[m] for r in group) for m in methods]) + " |")
    summary("development sets, mean", [r for r in rows if not r.held_out])
    summary("held-out sets, mean", [r for r in rows if r.held_out])
    for style in sorted({r.style for r in rows}):
        summary(f"{style}, mean", [r for r in rows if r.style == style])
    summary("all sets, mean", rows)
    return out


def cost(rows: list[Row], methods: tuple[str, ...]) -> list[str]:
    """Each method's ranking runs, all sets together: seconds, microseconds per character, and relative
    to --adapt file."""
    chars = sum(r.chars for r in rows)
    total = {m: sum(r.seconds[m] for r in rows) for m in methods}
    out = ["| | " + " | ".join(methods) + " |", "|---|" + "---:|" * len(methods),
           "| seconds | " + " | ".join(f"{total[m]:.0f}" for m in methods) + " |",
           "| µs per character | " + " | ".join(f"{1e6 * total[m] / chars:.2f}" for m in methods) + " |"]
    if "file" in total and total["file"] > 0:
        out.append("| relative to file | " + " | ".join(f"{total[m] / total['file']:.2f}" for m in methods) + " |")
    return out


@cli.command(COMMAND)
def main(argv=None) -> int:
    p = cli.parser(COMMAND, __doc__.strip().splitlines()[0])
    p.add_argument("--devsets", type=Path, default=ROOT / ".data" / "devsets", help="default: .data/devsets")
    cli.add_model(p, None, "KenLM model (default: bin/rank's)")
    cli.add_workers(p, default=os.cpu_count())
    p.add_argument("--only", action="append", metavar="SET", help="measure only this set; repeatable")
    p.add_argument("--methods", default=",".join(METHODS),
                   help=f"comma-separated bin/rank --adapt methods to compare (default {','.join(METHODS)})")
    p.add_argument("--docs", type=Path, help="also write the tables into this Markdown file")
    args = p.parse_args(argv)
    methods = tuple(m for m in args.methods.split(",") if m)
    from ranker.learn import METHODS as KNOWN
    unknown = [m for m in methods if m not in KNOWN]
    if unknown or not methods:
        raise cli.CommandError(f"--methods: unknown method {unknown[0]!r}" if unknown else "--methods: none given")
    folders = sorted(f for f in args.devsets.iterdir() if (f / DEVSET_FILE).exists()) if args.devsets.is_dir() else []
    if args.only:
        folders = [f for f in folders if f.name in args.only]
    if not folders:
        raise cli.CommandError(f"{args.devsets}: no development sets (run 'make devsets')")
    rows = []
    for folder in folders:
        rows.append(measure(folder, str(args.model) if args.model else None, args.workers, methods))
        r = rows[-1]
        print(f"{COMMAND}: {folder.name}: " + ", ".join(f"{m} MRR {r.mrr[m]:.4f} AUC {r.auc[m]:.4f}" for m in methods),
              file=sys.stderr)
    model = Path(args.model) if args.model else ROOT / ".models" / "default-kind-units-o6.bin"
    sig = read_signature(model)
    line = signature("detection-bench", [("model", model.name), ("scheme", sig.get("scheme", "?")),
                                         ("order", sig.get("order", "?")), ("sets", len(rows)),
                                         ("methods", ",".join(methods)), ("workers", args.workers)])
    lines = (["MRR (the CodRep 2019 measure over the task files), by `--adapt` method:", ""]
             + table(rows, "mrr", methods)
             + ["", "File-level AUC (the top finding's score, its gain less half the file's background; task files "
                     "against clean files):", ""] + table(rows, "auc", methods)
             + ["", "Cost of the ranking runs (learning included), all sets:", ""] + cost(rows, methods) + ["", line])
    print("\n".join(lines))
    if args.docs:
        text = args.docs.read_text() if args.docs.exists() else ""
        start, end = "<!-- detection-bench -->", "<!-- /detection-bench -->"
        block = f"{start}\n" + "\n".join(lines) + f"\n{end}"
        if start in text and end in text:
            text = text[:text.index(start)] + block + text[text.index(end) + len(end):]
        else:
            text = text + ("\n" if text else "") + block + "\n"
        args.docs.write_text(text)
    return cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
