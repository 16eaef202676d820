"""Check that tokenization is lossless and its spans index the right characters, over whole data sets.

    python -m formats.lossless FOLDER...   (make lossless; CodRep 2019 task folders, CodRep 2018 sets,
                                             Java folders)
"""
from __future__ import annotations

import os
import sys
from multiprocessing import Pool
from pathlib import Path

from tqdm import tqdm

from parsing.java import tokenize
from parsing.lossless import check_stream
from unnatural import cli

from . import codrep2018, codrep2019
from .sources import shape_of

COMMAND = "lossless"


def _check(item):
    name, data = item
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return name, "undecodable"
    return name, check_stream(tokenize(text))


def _files(folder: Path):
    shape = shape_of(folder)
    if shape == "codrep2018":
        for p in codrep2018.task_paths(folder):
            yield p, codrep2018.task_body(Path(p).read_bytes())
    elif shape == "codrep2019":
        for p in codrep2019.task_files(folder):
            yield str(p), p.read_bytes()
    else:
        for p in sorted(folder.rglob("*.java")):
            yield str(p), p.read_bytes()


@cli.command(COMMAND)
def main(argv=None) -> int:
    ap = cli.parser(COMMAND, __doc__.strip().splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path, metavar="FOLDER")
    args = ap.parse_args(argv)
    passed = failed = undecodable = 0
    with Pool(os.cpu_count()) as pool:
        for folder in args.folders:
            if not folder.exists():
                cli.error(COMMAND, f"{folder}: no such folder")
                failed += 1
                continue
            items = list(_files(folder))
            ok = 0
            for name, problem in tqdm(pool.imap_unordered(_check, items, chunksize=32), total=len(items),
                                      desc=folder.name, file=sys.stderr):
                if problem is None:
                    ok += 1
                elif problem == "undecodable":
                    undecodable += 1
                else:
                    failed += 1
                    cli.error(COMMAND, f"{name}: {problem}")
            passed += ok
            print(f"{folder}: {ok}/{len(items)} files lossless")
    print(f"{COMMAND}: {passed} passed, {failed} failed, {undecodable} not UTF-8 (not checked)")
    return cli.EXIT_FINDINGS if failed else cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
