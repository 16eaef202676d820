"""bin/make-tasks: write a CodRep-2019-style task folder (0.txt ... and out.txt) from clean Java files,
one random whitespace edit injected per task, so that anyone can make test sets from their own code."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from formats.codrep2019 import TaskFolderError, make_tasks
from formats.files import InputError, decode
from formats.sources import SourceError, iter_raw


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="make-tasks", description=__doc__.strip())
    p.add_argument("sources", nargs="+", metavar="SOURCE", help="clean Java: folders, .java files, zips "
                   "(recognised as by bin/build-lm)")
    p.add_argument("outdir", metavar="OUTDIR", type=Path)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=None, help="tasks to write (default: one per file)")
    p.add_argument("--include", action="append", default=[], metavar="PATTERN",
                   help="only files whose path or archive member contains PATTERN; repeatable")
    p.add_argument("--min-chars", type=int, default=0, help="skip files shorter than this")
    p.add_argument("--max-chars", type=int, default=None, help="skip files longer than this")
    p.add_argument("--force", action="store_true", help="write into a non-empty OUTDIR")
    args = p.parse_args(argv)
    texts = []
    try:
        for src in args.sources:
            for raw in iter_raw(src):
                if args.include and not any(pat in raw.name for pat in args.include):
                    continue
                try:
                    text = decode(raw.data, raw.name)
                except InputError as e:
                    print(f"make-tasks: warning: {e}", file=sys.stderr)
                    continue
                if len(text) >= args.min_chars and (args.max_chars is None or len(text) <= args.max_chars):
                    texts.append((raw.name, text))
        if not texts:
            raise TaskFolderError("no usable Java file in " + ", ".join(args.sources))
        n = make_tasks(sorted(texts), args.outdir, args.count, args.seed, args.force)
    except (SourceError, TaskFolderError, OSError) as e:
        print(f"make-tasks: error: {e}", file=sys.stderr)
        return 2
    print(f"make-tasks: {n} tasks from {len(texts)} files in {args.outdir} (seed {args.seed})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
