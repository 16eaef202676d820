"""Check that tokenization is lossless and its spans index the right characters, over whole data sets.

    python -m parsing.lossless FOLDER...     (CodRep 2019 task folders, CodRep 2018 sets, Java folders)
"""
from __future__ import annotations

import argparse
import os
import sys
from multiprocessing import Pool
from pathlib import Path

from tqdm import tqdm

from .java import tokenize
from .tokens import TokenStream


def check_stream(stream: TokenStream) -> str | None:
    """None when the stream reassembles the source and every gap is whitespace; else what is wrong."""
    src = stream.source
    if stream.reassemble() != src:
        return "reassembled text differs from the source"
    for i, tok in enumerate(stream.tokens):
        if src[tok.start - 1:tok.end - 1] != tok.text:
            return f"token {i} span {tok.start}..{tok.end} does not index its text"
    for gap in stream.gaps:
        if gap.text and not gap.text.isspace():
            return f"gap at {gap.start} is not whitespace: {gap.text!r}"
    return None


def _check(item):
    name, data = item
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return name, "undecodable"
    return name, check_stream(tokenize(text))


def _files(folder: Path):
    from lm.sources import codrep2018_body, shape_of
    shape = shape_of(folder)
    if shape == "codrep2018":
        for p in sorted((folder / "Tasks").glob("*.txt")):
            yield str(p), codrep2018_body(p.read_bytes())
    elif shape == "codrep2019":
        for p in sorted(folder.glob("*.txt")):
            if p.name != "out.txt":
                yield str(p), p.read_bytes()
    else:
        for p in sorted(folder.rglob("*.java")):
            yield str(p), p.read_bytes()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m parsing.lossless", description=__doc__.strip().splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path)
    args = ap.parse_args(argv)
    passed = failed = undecodable = 0
    with Pool(os.cpu_count()) as pool:
        for folder in args.folders:
            if not folder.exists():
                print(f"lossless: error: {folder}: no such folder", file=sys.stderr)
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
                    print(f"FAIL {name}: {problem}", file=sys.stderr)
            passed += ok
            print(f"{folder}: {ok}/{len(items)} files lossless")
    print(f"lossless: {passed} passed, {failed} failed, {undecodable} not UTF-8 (not checked)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
