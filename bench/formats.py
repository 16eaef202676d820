"""KenLM's binary formats for the ranker: one n-gram model as a probing hash table (the default)
or a trie, with and without quantization, timed and scored on CodRep 2019 tasks.

    python -m bench.formats [--runs N] [--output DIR] MODEL.bin [MODEL.bin ...]

Each MODEL must have its ARPA file beside it (`bin/build-lm --keep-arpa` leaves MODEL.arpa). From it
`build_binary` makes the variants KenLM offers: probing as bin/build-lm makes it (-p 2), with KenLM's
default table (-p 1.5) and a sparser one (-p 3), trie, trie with 8-bit probabilities and backoffs
(-q 8 -b 8), and the same with compressed pointers (-a 22), into --output, each with its word ceilings. For
every variant, in a new process each time (the variants take turns, so that the machine's load hits them
alike): CPU seconds of ranking every task of --tasks in one process (bin/rank's
code, full rankings; the median of --runs), KenLM lookups per file, MRR, and whether the rankings are
byte-identical to the same model's probing ones. Prints a Markdown table and writes it to DIR/formats.md.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from lm.kenlm_tools import PROBING, PROBING_MULTIPLIER
from unnatural import ROOT, cli

from . import report

PROG = "bench-formats"
VARIANTS = (   # (label, build_binary arguments)
    (f"probing -p {PROBING_MULTIPLIER}", PROBING),   # as bin/build-lm makes it
    ("probing -p 1.5", ["-p", "1.5", "probing"]),   # KenLM's default
    ("probing -p 3", ["-p", "3", "probing"]),
    ("trie", ["trie"]),
    ("trie -q 8 -b 8", ["-q", "8", "-b", "8", "trie"]),
    ("trie -q 8 -b 8 -a 22", ["-q", "8", "-b", "8", "-a", "22", "trie"]),
)


@dataclass
class Row:
    model: str
    order: int
    format: str
    mib: float
    cpu_s: float            # median CPU seconds of the ranking loop
    lookups: float          # KenLM lookups per file
    mrr: float
    same: str               # rankings byte-identical to the first variant's


def measure(model: Path, tasks: Path) -> dict:
    """Rank every task of `tasks` with `model` in this process: CPU seconds of the loop, lookups per file,
    MRR, and a digest of the output lines."""
    from evaluation.codrep2019 import reciprocal_rank
    from formats.codrep2019 import read_answers, task_files
    from formats.files import normalize_path
    from lm.model import LanguageModel
    from parsing.schemes import get_scheme
    from ranker.rank import rank_text
    from ranker.score import Scorer
    lm = LanguageModel(model)
    scorer = Scorer(lm)
    scheme = get_scheme(lm.scheme)
    files = [(normalize_path(str(p)), p.read_text(encoding="utf-8")) for p in task_files(tasks)]
    answers = read_answers(str(tasks))
    steps = scorer.native.steps
    digest = hashlib.sha256()
    rr = []
    t0 = time.process_time()
    for path, text in files:
        ranked = rank_text(scorer, scheme, text, path)
        line = ranked.line()
        digest.update(line.encode())
        rr.append((path, ranked))
    seconds = time.process_time() - t0
    lookups = (scorer.native.steps - steps) / max(1, len(files))
    mrr = sum(reciprocal_rank(r.offsets(), answers[p]) for p, r in rr) / max(1, len(rr))
    return {"cpu_s": seconds, "lookups": lookups, "mrr": mrr, "digest": digest.hexdigest()}


def variants(model: Path, out: Path) -> list[tuple[str, Path]]:
    """build_binary of MODEL's ARPA into each format (made once), with its word ceilings beside it as bin/build-lm
    writes them (without them every bound is looser and more repairs are rescored); (label, path) of each."""
    from lm.build import binary_model
    from lm.kenlm_tools import KenlmError
    from lm.model import ceilings_path
    arpa = model.with_suffix(".arpa")
    if not arpa.is_file():
        raise cli.CommandError(f"{arpa}: no ARPA file beside {model} (build it with bin/build-lm --keep-arpa)")
    made = []
    for label, args in VARIANTS:
        path = out / f"{model.stem}-{label.replace(' ', '').replace('-', '_')}.bin"
        if not (path.is_file() and ceilings_path(path).is_file()):
            try:
                binary_model(arpa, path, args)
            except KenlmError as e:
                raise cli.CommandError(f"{' '.join(args)}: {e}") from None
        shutil.copyfile(str(model) + ".json", str(path) + ".json")   # the scheme and order it was made with
        made.append((label, path))
    return made


def parser() -> argparse.ArgumentParser:
    p = cli.parser(PROG, __doc__.strip(), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("models", nargs="+", type=Path, metavar="MODEL", help="models with their ARPA beside them")
    p.add_argument("--tasks", type=Path, default=ROOT / ".data" / "codrep2019" / "validation",
                   help="CodRep 2019 task folder (default .data/codrep2019/validation)")
    p.add_argument("--runs", type=int, default=3, help="timed runs of each variant (default 3)")
    cli.add_output(p, "where the variants and formats.md go", default=".bench/formats")
    p.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)   # one measurement, as JSON
    return p


@cli.command(PROG)
def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if args.measure:
        print(json.dumps(measure(args.models[0], args.tasks)))
        return 0
    args.output.mkdir(parents=True, exist_ok=True)
    models = [(m, *v) for m in args.models for v in variants(m, args.output)]
    load_before = os.getloadavg()[0]
    runs: dict[Path, list[dict]] = {path: [] for _, _, path in models}
    for _ in range(args.runs):
        for _, _, path in models:
            proc = subprocess.run([sys.executable, "-m", "bench.formats", "--measure", "--tasks", str(args.tasks),
                                   str(path)], capture_output=True, text=True, cwd=ROOT,
                                  env={**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"})
            if proc.returncode != 0:
                raise cli.CommandError(f"{path.name}: {(proc.stderr.strip().splitlines() or ['failed'])[-1]}")
            runs[path].append(json.loads(proc.stdout))
    rows = []
    first: dict[Path, str] = {}
    for model, label, path in models:
        r = runs[path]
        sig = json.loads(Path(str(path) + ".json").read_text())
        digest = r[0]["digest"]
        first.setdefault(model, digest)
        rows.append(Row(model.name, sig.get("order", 0), label, path.stat().st_size / 2**20,
                        statistics.median(x["cpu_s"] for x in r), r[0]["lookups"], r[0]["mrr"],
                        "yes" if digest == first[model] else "no"))
    columns = [("model", "model", "{}"), ("order", "order", "{}"), ("format", "format", "{}"),
               ("mib", "MiB", "{:.1f}"), ("cpu_s", f"CPU s ({len(runs[models[0][2]])} runs, median)", "{:.2f}"),
               ("lookups", "lookups/file", "{:.0f}"), ("mrr", "MRR", "{:.5f}"), ("same", "same rankings", "{}")]
    page = (report.markdown_table(rows, columns) + "\n\n"
            + f"Ranking every task of {args.tasks.name} in one process (full rankings, the default style "
            "adaptation); CPU seconds of the loop. "
            + report.load_note(load_before, os.getloadavg()[0]) + "\n")
    (args.output / "formats.md").write_text(page)
    print(page, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
