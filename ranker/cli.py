"""bin/rank: rank every character offset of Java files by how unnatural its formatting is (CodRep 2019).

Output, one line per file, sorted by path: '<absolute path> <offset> <offset> ...', most suspicious first,
every offset 1..n of the file listed (the CodRep 2019 format).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
from multiprocessing import get_context
from pathlib import Path

from lm.cli import main as build_default_model_cli
from lm.model import LanguageModel
from lm.signature import model_signature
from parsing.schemes import UnknownScheme, get_scheme

from .files import InputError, expand, read_source
from .rank import rank_text

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODEL = ROOT / ".models" / "default-kind-o6.bin"

_worker = {}   # per process: the model and scheme, loaded once (inherited through fork)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rank", description=__doc__.strip())
    p.add_argument("paths", nargs="+", metavar="PATH", help="task folders (their *.txt but out.txt), "
                   "folders of *.java, or files")
    p.add_argument("--task", choices=["codrep2019", "codrep2018"], default="codrep2019",
                   help="codrep2019: rank offsets (default); codrep2018: rank replaced lines")
    p.add_argument("--model", type=Path, default=None,
                   help=f"KenLM model built by bin/build-lm (default {DEFAULT_MODEL.relative_to(ROOT)}, "
                        "built from corpora/ on first use)")
    p.add_argument("--top", type=int, default=None, metavar="K", help="print only the K best offsets")
    p.add_argument("--workers", type=int, default=os.cpu_count(), help="processes (default: all cores)")
    return p


def ensure_default_model() -> Path:
    if not DEFAULT_MODEL.exists():
        print(f"rank: no default model yet; building {DEFAULT_MODEL.relative_to(ROOT)} from corpora/ "
              "(once, a few minutes)", file=sys.stderr)
        build_default_model()
    return DEFAULT_MODEL


def build_default_model() -> None:
    with contextlib.redirect_stdout(sys.stderr):   # stdout carries rankings only
        code = build_default_model_cli(["--order", "6", "--output", str(DEFAULT_MODEL), str(ROOT / "corpora")])
    if code != 0:
        raise FileNotFoundError("could not build the default model (see the error above)")


def _init(model_path: str):
    if "lm" not in _worker:
        lm = LanguageModel(model_path)
        _worker.update(lm=lm, scheme=get_scheme(lm.scheme))


def _rank_one(job):
    path, top = job
    try:
        text = read_source(Path(path))
    except InputError as e:
        return path, None, str(e)
    note = f"{path}: starts with a UTF-8 BOM; offsets count it as character 1" if text.startswith("\ufeff") else None
    ranked = rank_text(_worker["lm"], _worker["scheme"], text, path)
    if top is not None and ranked.length:
        line = path + " " + " ".join(map(str, ranked.offsets()[:top].tolist()))
    else:
        line = ranked.line()
    return path, line, note


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if args.task == "codrep2018":
        from lines.cli import rank_main   # the CodRep 2018 line ranker
        return rank_main(argv_without_task(argv if argv is not None else sys.argv[1:]))
    status = 0
    files: list[Path] = []
    for p in args.paths:
        try:
            files.extend(expand(Path(p)))
        except InputError as e:
            print(f"rank: error: {e}", file=sys.stderr)
            status = 2
    try:
        model_path = args.model or ensure_default_model()
        _init(str(model_path))
    except (FileNotFoundError, UnknownScheme, OSError) as e:
        print(f"rank: error: {args.model}: {e}", file=sys.stderr)
        return 2
    lm = _worker["lm"]
    print(f"rank|{model_signature(lm.signature) if lm.signature else 'model:' + str(model_path)}"
          "|method:repair", file=sys.stderr)
    jobs = [(str(f), args.top) for f in files]
    out = sys.stdout
    if args.workers <= 1 or len(jobs) < 2:
        results = map(_rank_one, jobs)
        pool = None
    else:
        # fork after loading: workers share the model's pages instead of loading it again
        pool = get_context("fork").Pool(args.workers)
        results = pool.imap(_rank_one, jobs, chunksize=4)
    try:
        for path, line, note in results:
            if note:
                print(f"rank: {'warning' if line is not None else 'error'}: {note}", file=sys.stderr)
            if line is not None:
                out.write(line)
                out.write("\n")
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    out.flush()
    return status


def argv_without_task(argv: list[str]) -> list[str]:
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a == "--task":
            skip = True
            continue
        if a.startswith("--task="):
            continue
        out.append(a)
    return out


if __name__ == "__main__":
    sys.exit(main())
