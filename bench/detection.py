"""bin/detection-bench (`make detection-bench`): the ranker as a repository uses it, on the detection
development sets (`make devsets`): per project and per indentation style, each file alone (`--adapt file`)
and each project's tasks and clean files ranked as one folder (`--adapt folder`):

- MRR of the task files' answers (`bin/rank` output, the CodRep 2019 measure);
- file-level AUC (`bin/rank --explain --json`: a file's top finding score, task files against clean ones).

Every number comes from running `bin/rank` as a user would; the table goes to stdout and, with --docs, into
docs/detection.md (which the README links).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

from evaluation import detection
from evaluation.codrep2019 import parse_predictions, score_rankings
from formats.codrep2019 import read_answers
from lm.model import read_signature
from unnatural import ROOT, cli
from unnatural.signature import signature

COMMAND = "detection-bench"
MODES = ("file", "folder")


@dataclass(frozen=True)
class Row:
    name: str
    style: str
    held_out: bool
    tasks: int
    clean: int
    mrr: dict[str, float]
    auc: dict[str, float]


def rank(args: list[str]) -> str:
    proc = subprocess.run([str(ROOT / "bin" / "rank"), *args], capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise cli.CommandError(f"bin/rank failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode}")
    return proc.stdout


def measure(folder: Path, model: str | None, workers: int) -> Row:
    meta = json.loads((folder / "devset.json").read_text())
    answers = read_answers(str(folder))
    tasks, clean = detection.read_sets([str(folder)])
    base = (["--model", model] if model else []) + ["--workers", str(workers)]
    mrr, auc = {}, {}
    for mode in MODES:
        paths = [str(folder), str(folder / "clean")]
        ranking = parse_predictions(rank([*base, "--adapt", mode, *paths]).splitlines(), "bin/rank")
        mrr[mode] = score_rankings(answers, {p: r for p, r in ranking.items() if p in answers}).mrr
        findings = detection.parse_findings(rank([*base, "--adapt", mode, "--explain", "--json", "--top", "3", *paths])
                                            .splitlines(), "bin/rank --explain")
        auc[mode] = detection.detection_scores(findings, tasks, clean).auc
    return Row(folder.name, meta.get("indentation", "?"), meta["config"].get("held_out", False), len(tasks),
               len(clean), mrr, auc)


def table(rows: list[Row]) -> list[str]:
    out = ["| set | style | held out | tasks | clean | MRR, file | MRR, folder | AUC, file | AUC, folder |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r.name} | {r.style} | {'yes' if r.held_out else ''} | {r.tasks} | {r.clean} | "
                   f"{r.mrr['file']:.4f} | {r.mrr['folder']:.4f} | {r.auc['file']:.4f} | {r.auc['folder']:.4f} |")

    def summary(label: str, group: list[Row]) -> None:
        if group:
            out.append(f"| **{label}** ({len(group)} sets) | | | {sum(r.tasks for r in group)} | "
                       f"{sum(r.clean for r in group)} | " + " | ".join(
                           f"{mean(getattr(r, m)[mode] for r in group):.4f}" for m in ("mrr", "auc") for mode in MODES) + " |")
    summary("development sets, mean", [r for r in rows if not r.held_out])
    summary("held-out sets, mean", [r for r in rows if r.held_out])
    for style in sorted({r.style for r in rows}):
        summary(f"{style}, mean", [r for r in rows if r.style == style])
    summary("all sets, mean", rows)
    return out


@cli.command(COMMAND)
def main(argv=None) -> int:
    p = cli.parser(COMMAND, __doc__.strip().splitlines()[0])
    p.add_argument("--devsets", type=Path, default=ROOT / ".data" / "devsets", help="default: .data/devsets")
    cli.add_model(p, None, "KenLM model (default: bin/rank's)")
    cli.add_workers(p, default=os.cpu_count())
    p.add_argument("--only", action="append", metavar="SET", help="measure only this set; repeatable")
    p.add_argument("--docs", type=Path, help="also write the table into this Markdown file")
    args = p.parse_args(argv)
    folders = sorted(f for f in args.devsets.iterdir() if (f / "devset.json").exists()) if args.devsets.is_dir() else []
    if args.only:
        folders = [f for f in folders if f.name in args.only]
    if not folders:
        raise cli.CommandError(f"{args.devsets}: no development sets (run 'make devsets')")
    rows = []
    for folder in folders:
        rows.append(measure(folder, str(args.model) if args.model else None, args.workers))
        print(f"{COMMAND}: {folder.name}: MRR {rows[-1].mrr['file']:.4f} / {rows[-1].mrr['folder']:.4f}, "
              f"AUC {rows[-1].auc['file']:.4f} / {rows[-1].auc['folder']:.4f}", file=sys.stderr)
    model = Path(args.model) if args.model else ROOT / ".models" / "default-kind-units-o6.bin"
    sig = read_signature(model)
    line = signature("detection-bench", [("model", model.name), ("scheme", sig.get("scheme", "?")),
                                         ("order", sig.get("order", "?")), ("sets", len(rows)), ("workers", args.workers)])
    lines = table(rows) + ["", line]
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
