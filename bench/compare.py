"""bin/compare-orders: compare n-gram orders and token schemes on CodRep 2019 tasks.

For each scheme the training sources are tokenized once into a cached corpus (.cache/corpora/<key>.txt);
for each order lmplz and build_binary run on it, and the model is kept under .models/compare/, keyed by
its signature (corpus key, scheme, order) and reused on the next run. Each model is then measured on the
eval tasks: MRR and Recall@1 of `bin/rank`, mean per-symbol cross-entropy (bits) of the eval files'
symbol streams, lmplz time and peak memory, ARPA and binary size, load time, and end-to-end ranking
throughput (files/s of a `bin/rank` subprocess, model loading included).
Writes compare.csv, compare.md and compare.png into --output.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import multiprocessing
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, fields
from pathlib import Path

from tqdm import tqdm

from evaluation.codrep2019 import parse_predictions, score_rankings
from formats.codrep2019 import ANSWERS_FILE, read_answers
from formats.files import InputError
from formats.sources import SourceError, iter_entries, shape_of
from lm.build import binary_model, put_ceilings
from lm.corpus import write_corpus
from lm.kenlm_tools import KenlmError, lmplz
from lm.model import LOG2_10, MAX_ORDER, LanguageModel, read_signature, signature_path
from parsing.schemes import SCHEMES, UnknownScheme, get_scheme
from unnatural import ROOT, cli
from unnatural.signature import signature, versions

from . import report
from .rankcmd import RankCommand, RankerError, python, rank_command

PROG = "compare-orders"
CACHE_FORMAT = 1   # bump when the corpus or model layout changes


class UsageError(ValueError):
    """Bad arguments: one line, exit 2."""


# ---------------------------------------------------------------------------------------------- arguments

def parse_orders(spec: str) -> list[int]:
    """'2-10' -> [2..10]; '3,5,7' -> [3, 5, 7]; '7' -> [7]. Each order must lie in 1..MAX_ORDER."""
    orders: list[int] = []
    try:
        for part in spec.split(","):
            part = part.strip()
            if "-" in part:
                lo, hi = part.split("-", 1)
                lo, hi = int(lo), int(hi)
                if lo > hi:
                    raise UsageError(f"--orders {spec}: empty range {part}")
                orders.extend(range(lo, hi + 1))
            else:
                orders.append(int(part))
    except ValueError:
        raise UsageError(f"--orders {spec}: expected a range like 2-10 or a list like 3,5,7") from None
    bad = [o for o in orders if not 1 <= o <= MAX_ORDER]
    if bad:
        raise UsageError(f"--orders {spec}: order {bad[0]} is outside 1..{MAX_ORDER} "
                         f"(the kenlm module is compiled with MAX_ORDER={MAX_ORDER})")
    return sorted(set(orders))


def parse_schemes(spec: str) -> list[str]:
    names = [s.strip() for s in spec.split(",") if s.strip()]
    if not names:
        raise UsageError("--schemes: no scheme named")
    for n in names:
        if n not in SCHEMES:
            raise UsageError(f"--schemes: unknown scheme {n!r} (known: {', '.join(SCHEMES)})")
    return list(dict.fromkeys(names))


def parser() -> cli.ArgumentParser:
    p = cli.parser(PROG, __doc__.strip(), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--orders", default="2-10", help="orders: a range (2-10) or a list (3,5,7); default 2-10")
    p.add_argument("--schemes", default=",".join(SCHEMES), help=f"token schemes (default {','.join(SCHEMES)})")
    p.add_argument("--train", nargs="+", required=True, metavar="SOURCE",
                   help="training sources, as for bin/build-lm")
    p.add_argument("--eval", required=True, type=Path, metavar="TASKDIR",
                   help="a CodRep 2019 task folder (N.txt files and out.txt)")
    p.add_argument("--eval-limit", type=int, default=None, metavar="N",
                   help="evaluate on the first N tasks by number only")
    cli.add_output(p, "report folder", default=".bench/compare")
    p.add_argument("--models", type=Path, default=ROOT / ".models" / "compare",
                   help="model cache (default .models/compare)")
    p.add_argument("--cache", type=Path, default=ROOT / ".cache" / "corpora",
                   help="corpus cache (default .cache/corpora)")
    p.add_argument("--exclude", action="append", default=[], metavar="PATTERN",
                   help="skip training files matching (as bin/build-lm); repeatable")
    cli.add_workers(p, "tokenizer and bin/rank processes")
    p.add_argument("--ranker", default=None, metavar="REV",
                   help="rank with the code of git revision REV (a snapshot under .cache/snapshots/) instead "
                        "of the working tree")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


# ----------------------------------------------------------------------------------------------- corpora

def corpus_key(sources: list[str], scheme: str, exclude: tuple[str, ...]) -> str:
    """Key of a tokenized corpus: the sources (absolute path, size and mtime), scheme, exclusions, versions."""
    srcs = []
    for s in sources:
        p = Path(s).resolve()
        st = p.stat()
        srcs.append([str(p), st.st_size if p.is_file() else None, st.st_mtime_ns])
    blob = json.dumps({"format": CACHE_FORMAT, "sources": srcs, "scheme": scheme, "exclude": list(exclude),
                       "versions": {k: v for k, v in versions().items() if k != "python"}}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def ensure_corpus(sources: list[str], scheme: str, exclude: tuple[str, ...], cache: Path, workers: int,
                  progress: bool) -> tuple[Path, dict]:
    """The cached corpus text of (sources, scheme, exclude) and its stats; tokenized only when missing."""
    key = corpus_key(sources, scheme, exclude)
    cache.mkdir(parents=True, exist_ok=True)
    text, meta_path = cache / f"{key}.txt", cache / f"{key}.json"
    if text.exists() and meta_path.exists():
        meta = json.loads(meta_path.read_text())
        meta["reused"] = True
        return text, meta
    t0 = time.time()
    partial = cache / f"{key}.txt.partial"
    files = (entry for s in sources for entry in iter_entries(s, exclude))   # listed: the workers read them
    stats = write_corpus(files, scheme, partial, workers, progress, sources=sources)
    if stats.files == 0:
        partial.unlink(missing_ok=True)
        raise UsageError("empty corpus: no Java file could be read from " + ", ".join(sources))
    partial.replace(text)
    meta = {"key": key, "scheme": scheme, "sources": [vars(s) for s in stats.sources], "files": stats.files,
            "tokens": stats.tokens, "skipped": stats.skipped, "exclude": list(exclude),
            "versions": versions(), "seconds": round(time.time() - t0, 1)}
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    meta["reused"] = False
    return text, meta


# ------------------------------------------------------------------------------------------------ models

def _lmplz_child(corpus: str, arpa: str, binary: str, order: int, tmp: str, conn) -> None:
    """Runs in a fresh process, so RUSAGE_CHILDREN is lmplz's own peak RSS (then build_binary's)."""
    try:
        t0 = time.time()
        args = lmplz(Path(corpus), Path(arpa), order, Path(tmp))
        t1 = time.time()
        lmplz_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss   # KiB on Linux
        binary_model(Path(arpa), Path(binary))   # with its word ceilings, as bin/build-lm makes it
        conn.send({"lmplz": args, "lmplz_seconds": round(t1 - t0, 2),
                   "build_binary_seconds": round(time.time() - t1, 2),   # and its ceilings
                   "lmplz_peak_kib": lmplz_rss})
    except Exception as e:   # noqa: BLE001 - reported in the parent
        conn.send({"error": f"{type(e).__name__}: {e}"})
    finally:
        conn.close()


def model_path(models: Path, key: str, scheme: str, order: int) -> Path:
    return models / f"{key}-{scheme}-o{order}.bin"


def ensure_model(corpus: Path, meta: dict, order: int, models: Path) -> tuple[Path, dict, bool]:
    """The model of (corpus, order) and its signature; built when absent or when its signature differs."""
    scheme, key = meta["scheme"], meta["key"]
    out = model_path(models, key, scheme, order)
    if out.exists():
        sig = read_signature(out)
        if (sig.get("corpus_key") == key and sig.get("order") == order and sig.get("scheme") == scheme
                and sig.get("ceilings")):   # (built before its ceilings were: built again)
            return out, sig, True
    models.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="compare-", dir=models) as tmp:
        arpa, partial = Path(tmp) / "model.arpa", Path(tmp) / "model.bin"
        parent, child = multiprocessing.get_context("fork").Pipe(duplex=False)
        proc = multiprocessing.get_context("fork").Process(
            target=_lmplz_child, args=(str(corpus), str(arpa), str(partial), order, tmp, child))
        proc.start()
        child.close()
        try:
            result = parent.recv()
        except EOFError:
            result = {"error": "the lmplz process died"}
        proc.join()
        if "error" in result:
            raise KenlmError(f"order {order}, scheme {scheme}: {result['error']}")
        arpa_bytes = arpa.stat().st_size
        put_ceilings(partial, out)
        partial.replace(out)
    sig = {"order": order, "scheme": scheme, "corpus_key": key, "sources": meta["sources"],
           "files": meta["files"], "tokens": meta["tokens"], "skipped": meta["skipped"],
           "exclude": meta["exclude"], "lmplz": result["lmplz"], "ceilings": True, "arpa_bytes": arpa_bytes,
           "binary_bytes": out.stat().st_size, "lmplz_peak_kib": result["lmplz_peak_kib"],
           "versions": versions(), "built_at": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
           "seconds": {"lmplz": result["lmplz_seconds"], "build_binary": result["build_binary_seconds"]}}
    signature_path(out).write_text(json.dumps(sig, indent=2) + "\n")
    return out, sig, False


# ------------------------------------------------------------------------------------------------- eval

@dataclass
class EvalSet:
    folder: Path
    files: list[Path]              # the task files, by task number
    answers: dict[str, int]        # absolute path -> answer, for those files only
    total: int                     # tasks in the folder
    texts: list[str]


def load_eval(folder: Path, limit: int | None) -> EvalSet:
    if not folder.is_dir():
        raise UsageError(f"--eval {folder}: no such folder")
    if not (folder / ANSWERS_FILE).is_file():
        raise UsageError(f"--eval {folder}: no {ANSWERS_FILE} in it (not a CodRep 2019 task folder)")
    try:
        answers = read_answers(str(folder))
    except InputError as e:
        raise UsageError(f"--eval: {e}") from None
    if not answers:
        raise UsageError(f"--eval {folder}: no N.txt task files")
    def number(p: str) -> int:
        return int(Path(p).stem)
    paths = sorted(answers, key=number)
    if limit is not None:
        if limit < 1:
            raise UsageError(f"--eval-limit {limit}: must be at least 1")
        paths = paths[:limit]
    texts = []
    for p in paths:
        try:
            texts.append(Path(p).read_bytes().decode("utf-8"))
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"--eval: {p}: cannot read as UTF-8 ({e})") from None
    return EvalSet(folder, [Path(p) for p in paths], {p: answers[p] for p in paths}, len(answers), texts)


def eval_symbols(ev: EvalSet, scheme: str) -> list[list[str]]:
    """Each eval file's symbol stream (one KenLM sentence each)."""
    from parsing.java import tokenize
    sch = get_scheme(scheme)
    return [sch.symbols(tokenize(t)) for t in ev.texts]


def cross_entropy(model: LanguageModel, sentences: list[list[str]]) -> float:
    """Mean bits per symbol (</s> counted) over all the sentences."""
    total10, count = 0.0, 0
    for s in sentences:
        total10 += model.score(s)
        count += len(s) + 1   # symbols + </s>
    return -total10 * LOG2_10 / max(count, 1)


def rank_files(ranker: RankCommand, model: Path, ev: EvalSet, workers: int) -> tuple[dict, float]:
    """Run `bin/rank` on the eval files; predictions and wall seconds (model loading included)."""
    with tempfile.NamedTemporaryFile("w+", suffix=".txt") as out:
        t0 = time.perf_counter()
        proc = subprocess.run(ranker.args("--model", str(model), "--workers", str(workers), *map(str, ev.files)),
                              stdout=out, stderr=subprocess.PIPE, text=True, env=ranker.env)
        seconds = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(f"bin/rank failed on {model}: {proc.stderr.strip().splitlines()[-1:]}")
        out.seek(0)
        return parse_predictions(out, source=f"bin/rank --model {model}"), seconds


@dataclass
class Row:
    scheme: str
    order: int
    mrr: float
    recall1: float
    bits_per_symbol: float
    lmplz_s: float
    lmplz_peak_mib: float
    arpa_mib: float
    binary_mib: float
    load_s: float
    files_per_s: float
    model: str
    reused: bool


_LOAD = ("import sys, time; from lm.model import LanguageModel; t = time.perf_counter(); "
         "LanguageModel(sys.argv[1]).load(); print(time.perf_counter() - t)")


def load_seconds(model_file: Path) -> float:
    """Loading the model in a fresh process (what `bin/rank` pays; the interpreter start is not counted)."""
    proc = subprocess.run([python(), "-c", _LOAD, str(model_file)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode != 0:
        raise RuntimeError(f"cannot load {model_file}: {(proc.stderr.strip().splitlines() or ['?'])[-1]}")
    return float(proc.stdout)


def measure(ranker: RankCommand, model_file: Path, sig: dict, ev: EvalSet, sentences: list[str], workers: int,
            reused: bool) -> Row:
    load_s = load_seconds(model_file)
    model = LanguageModel(model_file)
    bits = cross_entropy(model, sentences)
    del model
    predictions, seconds = rank_files(ranker, model_file, ev, workers)
    scores = score_rankings(ev.answers, predictions, ks=(1,))
    return Row(sig["scheme"], sig["order"], scores.mrr, scores.recall_at(1), bits,
               sig["seconds"]["lmplz"], sig["lmplz_peak_kib"] / 1024, sig["arpa_bytes"] / 2**20,
               sig["binary_bytes"] / 2**20, load_s, len(ev.files) / seconds, os.path.relpath(model_file),
               reused)


# ---------------------------------------------------------------------------------------------- reports

COLUMNS = [("scheme", "scheme", "{}"), ("order", "order", "{}"), ("mrr", "MRR", "{:.4f}"),
           ("recall1", "R@1", "{:.4f}"), ("bits_per_symbol", "bits/symbol", "{:.4f}"),
           ("lmplz_s", "lmplz s", "{:.1f}"), ("lmplz_peak_mib", "lmplz peak MiB", "{:.0f}"),
           ("arpa_mib", "ARPA MiB", "{:.1f}"), ("binary_mib", "binary MiB", "{:.1f}"),
           ("load_s", "load s", "{:.3f}"), ("files_per_s", "files/s", "{:.1f}")]


def markdown_table(rows: list[Row]) -> str:
    return report.markdown_table(rows, COLUMNS)


def write_csv(rows: list[Row], path: Path) -> None:
    report.write_csv(rows, Row, path)


def plot(rows: list[Row], path: Path, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for scheme in dict.fromkeys(r.scheme for r in rows):
        rs = sorted((r for r in rows if r.scheme == scheme), key=lambda r: r.order)
        xs = [r.order for r in rs]
        ax1.plot(xs, [r.mrr for r in rs], marker="o", label=scheme)
        ax2.plot(xs, [r.bits_per_symbol for r in rs], marker="o", label=scheme)
    ax1.set(xlabel="n-gram order", ylabel="MRR", title="MRR (higher is better)")
    ax2.set(xlabel="n-gram order", ylabel="bits per symbol", title="cross-entropy (lower is better)")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.legend(title="scheme")
        ax.xaxis.get_major_locator().set_params(integer=True)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def signature_line(metas: list[dict], ev: EvalSet, orders: list[int], schemes: list[str], workers: int,
                   ranker: str = "worktree") -> str:
    meta = metas[0]
    names = "+".join(Path(s["source"].rstrip("/")).name for s in meta["sources"])
    evaluated = f"{len(ev.files)}of{ev.total}" if len(ev.files) != ev.total else f"{ev.total}"
    ver = versions()
    order_spec = f"{orders[0]}-{orders[-1]}" if orders == list(range(orders[0], orders[-1] + 1)) else \
        ",".join(map(str, orders))
    return signature(PROG, [("train", f"{names}({meta['files']}files,{meta['tokens']}tokens)"),
                            ("eval", f"{ev.folder.name}({evaluated}tasks)"), ("orders", order_spec),
                            ("schemes", ",".join(schemes)), ("workers", workers), ("cores", os.cpu_count()),
                            ("ranker", ranker),
                            *((tool, ver[tool]) for tool in ("kenlm", "tree-sitter-java", "unnatural"))])


# ------------------------------------------------------------------------------------------------- main

@cli.command(PROG)
def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        orders = parse_orders(args.orders)
        schemes = parse_schemes(args.schemes)
        for s in args.train:
            shape_of(Path(s))
        ev = load_eval(args.eval, args.eval_limit)
        ranker = rank_command(args.ranker)
    except (UsageError, SourceError, UnknownScheme, RankerError) as e:
        raise cli.CommandError(e) from None
    progress = not args.quiet
    load_before = os.getloadavg()[0]
    rows: list[Row] = []
    metas: list[dict] = []
    try:
        args.output.mkdir(parents=True, exist_ok=True)
        bar = tqdm(total=len(orders) * len(schemes), unit="model", desc="models", disable=not progress,
                   file=sys.stderr)
        for scheme in schemes:
            corpus, meta = ensure_corpus(args.train, scheme, tuple(args.exclude), args.cache, args.workers,
                                         progress)
            metas.append(meta)
            sentences = eval_symbols(ev, scheme)
            for order in orders:
                bar.set_postfix_str(f"{scheme} o{order}")
                path, sig, reused = ensure_model(corpus, meta, order, args.models)
                row = measure(ranker, path, sig, ev, sentences, args.workers, reused)
                rows.append(row)
                bar.update()
                tqdm.write(f"{scheme} o{order}: MRR {row.mrr:.4f}, {row.bits_per_symbol:.3f} bits/symbol, "
                           f"{row.files_per_s:.0f} files/s{' (model reused)' if reused else ''}", file=sys.stderr)
        bar.close()
    except (UsageError, SourceError, KenlmError, RuntimeError, InputError, OSError) as e:
        raise cli.CommandError(e) from None
    sig = signature_line(metas, ev, orders, schemes, args.workers, ranker.label)
    note = (f"Evaluated on the first {len(ev.files)} of {ev.total} tasks of {ev.folder} (--eval-limit).\n"
            if len(ev.files) != ev.total else "")
    note += report.load_note(load_before, os.getloadavg()[0]) + "\n"
    table = write_reports(rows, args.output, sig, note)
    print(table)
    print("\n" + note.strip())
    print(f"\n{sig}")
    print(f"wrote {args.output / 'compare.csv'}, {args.output / 'compare.md'}, {args.output / 'compare.png'}",
          file=sys.stderr)
    return 0


NOTES = ("MRR and R@1: `bin/rank` on the eval tasks. bits/symbol: mean cross-entropy of the eval files' symbol "
         "streams (</s> counted; each task file holds its injected error; kind and text have different symbol "
         "sets, so compare orders within a scheme). lmplz s and peak MiB: lmplz alone (peak RSS of its process; "
         "it runs with `-S {memory}`, which bounds its sort buffers), as recorded in the model's signature when it "
         "was built (a reused model reports its original build). load s: kenlm.Model on the binary in a "
         "fresh process (page cache warm). files/s: end-to-end `bin/rank --workers {workers}` subprocess, start-up and "
         "model "
         "loading included.")


def write_reports(rows: list[Row], out: Path, sig: str, note: str = "") -> str:
    """compare.csv, compare.md (table, notes, signature) and compare.png; returns the Markdown table."""
    table = markdown_table(rows)
    memory = next(_lmplz_memory(rows), "?")
    workers = next((p.split(":", 1)[1] for p in sig.split("|") if p.startswith("workers:")), "?")
    write_csv(rows, out / "compare.csv")
    (out / "compare.md").write_text(f"{table}\n\n{note}{NOTES.format(memory=memory, workers=workers)}\n\n{sig}\n")
    parts = sig.split("|")
    plot(rows, out / "compare.png", " | ".join(parts[1:3]) + "\n" + " | ".join(parts[3:]))
    return table


def _lmplz_memory(rows: list[Row]):
    for r in rows:
        args = read_signature(Path(r.model)).get("lmplz", [])
        if "-S" in args:
            yield args[args.index("-S") + 1]


def rows_from_csv(path: Path) -> list[Row]:
    """Rows back from compare.csv (to redraw the reports without measuring again)."""
    types = {f.name: f.type for f in fields(Row)}
    conv = {"int": int, "float": float, "str": str, "bool": lambda v: v == "True"}
    with open(path, newline="") as fh:
        return [Row(**{k: conv[types[k]](v) for k, v in r.items()}) for r in csv.DictReader(fh)]


if __name__ == "__main__":
    sys.exit(main())
