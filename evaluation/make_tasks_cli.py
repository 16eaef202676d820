"""bin/make-tasks: write a CodRep-2019-style task folder (0.txt ... and out.txt) from clean Java files,
one random whitespace edit injected per task, so that anyone can make test sets from their own code."""
from __future__ import annotations

import sys

from formats.codrep2019 import TaskFolderError, make_tasks
from formats.files import InputError, decode
from formats.sources import iter_raw
from unnatural import cli

COMMAND = "make-tasks"


@cli.command(COMMAND)
def main(argv=None) -> int:
    p = cli.parser(COMMAND, __doc__.strip())
    p.add_argument("sources", nargs="+", metavar="SOURCE", help="clean Java: folders, .java files, zips "
                   "(recognised as by bin/build-lm)")
    cli.add_output(p, "the task folder to write", required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=None, help="tasks to write (default: one per file)")
    p.add_argument("--include", action="append", default=[], metavar="PATTERN",
                   help="only files whose path or archive member contains PATTERN; repeatable")
    p.add_argument("--min-chars", type=int, default=0, help="skip files shorter than this")
    p.add_argument("--max-chars", type=int, default=None, help="skip files longer than this")
    p.add_argument("--force", action="store_true", help="write into a non-empty --output folder")
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
                    cli.warning(COMMAND, e)
                    continue
                if len(text) >= args.min_chars and (args.max_chars is None or len(text) <= args.max_chars):
                    texts.append((raw.name, text))
        if not texts:
            raise TaskFolderError("no usable Java file in " + ", ".join(args.sources))
        n = make_tasks(sorted(texts), args.output, args.count, args.seed, args.force)
    except (InputError, TaskFolderError, OSError) as e:
        raise cli.CommandError(e) from None
    print(f"{COMMAND}: {n} tasks from {len(texts)} files in {args.output} (seed {args.seed})", file=sys.stderr)
    return cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
