"""bin/fim-bench (make fim-bench): fill-in-the-middle on held-out code, the n-gram predictor at orders 3-8
against two baselines, for Java and Python. Prints a table and writes OUT/fim.md (docs/fim.md).

- Java: 500 tasks (seed 0) from the JDK packages every default model leaves out (fim.model.JAVA_HELDOUT).
- Python: 500 tasks (seed 0) from the standard-library modules the default Python model leaves out
  (fim.model.PYTHON_HELDOUT).
- n-gram oN: bin/fim's predictor with a model of order N (the default is order 6), the task set's other
  files as the project.
- baseline "most similar context": the file's line whose neighbours are most like the middle's (rapidfuzz
  ratio of the previous lines plus that of the next lines).
- baseline "model's best file line": the file's own line KenLM (order 6, no cache, no bonuses) finds most
  probable in the middle's place.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from rapidfuzz import fuzz
from tqdm import tqdm

from evaluation.fim import FimExample, mean_scores, score_example
from lm.build import build
from parsing.languages import LANGUAGES
from unnatural import ROOT, cli
from unnatural.signature import signature

from . import tasks_cli
from .index import index_path, is_comment_line
from .model import (
    DEFAULT_ORDER,
    JAVA_HELDOUT,
    PYTHON_HELDOUT,
    FimModel,
    default_model,
    drop_if_stale,
    ensure_index,
    python_stdlib,
)
from .ngram import NgramPredictor, PredictConfig
from .project import ProjectLines
from .tasks import LINE_BREAK, FimTask, SkipRules, sample_tasks

COUNT = 500
_worker: dict = {}


def held_out_tasks(language: str, count: int, seed: int) -> list[FimTask]:
    if language == "java":
        sources, include = [str(ROOT / "corpora" / "jdk17-src.zip")], list(JAVA_HELDOUT)
    else:
        stdlib = python_stdlib()
        sources, include = [str(stdlib / p.strip("/")) for p in PYTHON_HELDOUT], []
    files, _ = tasks_cli.collect(sources, SkipRules(), include)
    return sample_tasks(files, count, seed)


def model_for(language: str, order: int, progress: bool) -> Path:
    spec = default_model(language, order)
    drop_if_stale(spec, "fim-bench")
    if not spec.path.exists():
        print(f"building {spec.path.name}", file=sys.stderr)
        build(spec.config(2), progress)
    index = index_path(spec.path)
    default_index = index_path(default_model(language, DEFAULT_ORDER).path)
    if not index.exists() and default_index.exists():
        os.link(default_index, index)      # the same sources: one index for every order
    ensure_index(spec.path, "fim-bench", progress)
    return spec.path


def most_similar_context(task: FimTask, language: str) -> str:
    pre = [x for x in LINE_BREAK.split(task.prefix)[:-1]]
    suf = [x for x in LINE_BREAK.split(task.suffix)[1:]]
    prev = next((x.strip() for x in reversed(pre) if x.strip()), "")
    nxt = next((x.strip() for x in suf if x.strip()), "")
    best, best_score = "", -1.0
    for part in (pre, suf):
        lines = [x for x in part if x.strip()]
        for j, line in enumerate(lines):
            s = line.strip()
            if is_comment_line(s, language):
                continue
            score = (fuzz.ratio(lines[j - 1].strip(), prev) if j else 0) + \
                    (fuzz.ratio(lines[j + 1].strip(), nxt) if j + 1 < len(lines) else 0)
            if score > best_score:
                best, best_score = line, score
    return best


def _predict(i: int) -> str:
    task = _worker["tasks"][i]
    if _worker["system"] == "similar":
        return most_similar_context(task, _worker["language"])
    return _worker["predictor"].predict(task).fill


def run_system(system: str, tasks, language: str, predictor, workers: int, progress: bool):
    _worker.update(tasks=tasks, system=system, language=language, predictor=predictor)
    t0 = time.time()
    idx = range(len(tasks))
    if workers > 1:
        from unnatural.parallel import ordered_map
        results = ordered_map(_predict, idx, workers)
    else:
        results = map(_predict, idx)
    fills = list(tqdm(results, total=len(tasks), desc=system, unit="task", disable=not progress, file=sys.stderr))
    seconds = time.time() - t0
    means = mean_scores([score_example(FimExample(t.middle, f)) for t, f in zip(tasks, fills)])
    return means, seconds


@cli.command("fim-bench")
def main(argv=None) -> int:
    p = cli.parser("fim-bench", " ".join(__doc__.strip().split()))
    cli.add_output(p, "folder for fim.md", default=".bench/fim")
    p.add_argument("--docs", type=Path, help="also put the table into this Markdown file, between its "
                   "'<!-- fim-bench -->' and '<!-- /fim-bench -->' lines")
    p.add_argument("--languages", default="java,python", help="comma-separated (default java,python)")
    p.add_argument("--orders", default="3-8", help="n-gram orders, N or N-M (default 3-8)")
    p.add_argument("--count", type=cli.positive_int, default=COUNT, help=f"tasks per language (default {COUNT})")
    p.add_argument("--seed", type=int, default=0, help="task seed (default 0)")
    cli.add_workers(p, "prediction processes", default=2)
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    args = p.parse_args(argv)
    args.out = args.output
    for language in args.languages.split(","):
        if language not in LANGUAGES:
            p.error(f"--languages: unknown language '{language}' (known: {', '.join(sorted(LANGUAGES))})")
    lo, _, hi = args.orders.partition("-")
    if not (lo.isdigit() and (hi.isdigit() or not hi)) or not 1 <= int(lo) <= int(hi or lo):
        p.error(f"--orders: expected N or N-M, got {args.orders!r}")
    orders = list(range(int(lo), int(hi or lo) + 1))
    progress = not args.quiet
    rows = []
    header = "| language | system | tasks | exact match | chrF | BLEU | Levenshtein | similarity | s |"
    args.out.mkdir(parents=True, exist_ok=True)
    for language in args.languages.split(","):
        tasks = held_out_tasks(language, args.count, args.seed)
        print(f"{language}: {len(tasks)} held-out tasks", file=sys.stderr)
        project = ProjectLines(tasks, language)
        systems = [("similar", "baseline: most similar context (rapidfuzz)", None)]
        m6 = FimModel(model_for(language, DEFAULT_ORDER, progress), "fim-bench", progress)
        lm_only = PredictConfig(cache_weight=0.0, weights=(), corpus_lines=False, imports=False, beam=0)
        systems.append(("lm-file", f"baseline: model's best file line (o{DEFAULT_ORDER})",
                        NgramPredictor(m6.lm, m6.scheme, None, lm_only)))
        for order in orders:
            m = FimModel(model_for(language, order, progress), "fim-bench", progress)
            name = f"n-gram o{order}" + (" (default)" if order == DEFAULT_ORDER else "")
            systems.append((f"o{order}", name,
                            NgramPredictor(m.lm, m.scheme, m.index, PredictConfig(), project)))
        sig = signature("fim-bench", [("language", language), *m6.describe()])
        for key, name, predictor in systems:
            means, seconds = run_system(key, tasks, language, predictor, args.workers, progress)
            row = (f"| {language} | {name} | {len(tasks)} | {means.exact_match:.4f} | {means.chrf:.2f} | "
                   f"{means.bleu:.2f} | {means.levenshtein:.2f} | {means.similarity:.4f} | {seconds:.0f} |")
            rows.append(row)
            print(row, flush=True)
        rows.append(f"<!-- {sig}|predictor:{PredictConfig().signature()} -->")
    table = "\n".join([header, "|---|---|---:|---:|---:|---:|---:|---:|---:|"] + [r for r in rows if r.startswith("|")])
    notes = "\n".join(r for r in rows if r.startswith("<!--"))
    section = FIM_MD.format(table=table, notes=notes, workers=args.workers)
    (args.out / "fim.md").write_text(section)
    if args.docs is not None:
        put_section(args.docs, section)
    print(f"wrote {args.out / 'fim.md'}", file=sys.stderr)
    return cli.EXIT_OK


def put_section(path: Path, section: str) -> None:
    """Replace the lines between '<!-- fim-bench -->' and '<!-- /fim-bench -->' of `path` with `section`."""
    start, end = "<!-- fim-bench -->", "<!-- /fim-bench -->"
    text = path.read_text() if path.exists() else f"{start}\n{end}\n"
    if start not in text or end not in text:
        text += f"\n{start}\n{end}\n"
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    path.write_text(f"{head}{start}\n{section.strip()}\n{end}{tail}")


FIM_MD = """{table}

Exact match ignores whitespace at the ends; chrF, BLEU (sacrebleu, sentence level, 0-100) and the
Levenshtein distance and similarity (rapidfuzz) compare the lines as they are, indentation included. The
`s` column is wall time with {workers} workers on the shared 2-core machine (noisy).

{notes}
"""


if __name__ == "__main__":
    sys.exit(main())
