"""The floor of `make bench`: read each file, decode it, parse it with tree-sitter-java and walk every leaf,
nothing else. The parse and the walk are the ranker's own (parsing/native.cpp, in C), so the ratio of the
ranker's time to this floor is the cost of everything the ranker does beyond tokenizing.

    python -m bench.floor FILE_OR_TASKDIR...      prints '<files> <characters> <seconds> <CPU seconds>' (the loop only)
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from formats.files import InputError
from formats.sources import files_to_rank
from parsing.java import leaf_arrays


def files_of(paths: list[str]) -> list[Path]:
    """The files `bin/rank` would rank for these paths."""
    return [f for p in paths for f in files_to_rank(Path(p))]


def walk(data: bytes) -> int:
    """Parse and walk in C; the number of leaves."""
    return len(leaf_arrays(data)[0])


def floor(files: list[Path]) -> tuple[int, int, float, float]:
    """(files, characters, seconds, CPU seconds) of reading, parsing and walking every file."""
    walk(b"class A {}")   # load the grammar and the walker outside the timed loop
    chars = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for f in files:
        text = f.read_bytes().decode("utf-8", errors="replace")
        chars += len(text)
        walk(text.encode("utf-8"))
    return len(files), chars, time.perf_counter() - t0, time.process_time() - c0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m bench.floor FILE_OR_TASKDIR...", file=sys.stderr)
        return 2
    try:
        files = files_of(argv)
    except InputError as e:
        print(f"floor: error: {e}", file=sys.stderr)
        return 2
    n, chars, seconds, cpu = floor(files)
    print(f"{n} {chars} {seconds:.6f} {cpu:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
