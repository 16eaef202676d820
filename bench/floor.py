"""The floor of `make bench`: read each file, parse it with tree-sitter-java, visit every leaf with a tree
cursor, nothing else. No ranker that parses with tree-sitter can be faster than this.

    python -m bench.floor FILE_OR_TASKDIR...      prints '<files> <characters> <seconds>' (the loop only)

Deliberately bare: it imports tree-sitter and nothing of this project.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import tree_sitter
import tree_sitter_java


def files_of(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            tasks = [f for f in p.glob("*.txt") if f.name != "out.txt"]
            out.extend(sorted(tasks or p.rglob("*.java")))
        else:
            out.append(p)
    return out


def visit(tree) -> int:
    """Walk the whole tree with a cursor; the number of leaves."""
    cursor = tree.walk()
    leaves = 0
    while True:
        if not cursor.goto_first_child():
            leaves += 1
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    return leaves


def floor(files: list[Path]) -> tuple[int, int, float]:
    """(files, characters, seconds) of reading, parsing and walking every file."""
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_java.language()))
    chars = 0
    t0 = time.perf_counter()
    for f in files:
        text = f.read_bytes().decode("utf-8", errors="replace")
        chars += len(text)
        visit(parser.parse(text.encode("utf-8")))
    return len(files), chars, time.perf_counter() - t0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m bench.floor FILE_OR_TASKDIR...", file=sys.stderr)
        return 2
    files = files_of(argv)
    missing = [f for f in files if not f.is_file()]
    if missing:
        print(f"floor: error: {missing[0]}: no such file", file=sys.stderr)
        return 2
    n, chars, seconds = floor(files)
    print(f"{n} {chars} {seconds:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
