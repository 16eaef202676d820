"""bin/rank-lines: CodRep 2018. For each task (a new Java line, a blank line, a Java file), list every line of
the file, the most likely to be the one the new line replaced first.

Output: '<absolute task path> <line> <line> ...' per task, ordered by folder and task number; a signature
line (model, features, versions) and timing go to stderr.
"""
from __future__ import annotations

import sys
import time

from unnatural import cli

from .batch import rank_paths
from .model import LineRanker, ModelError

COMMAND = "rank-lines"
DEFAULT_MODEL = ".models/lines"


def parser() -> cli.ArgumentParser:
    p = cli.parser(COMMAND, __doc__.strip())
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="a CodRep 2018 data set folder (its Tasks/ are ranked), a folder of task files, or task files")
    cli.add_model(p, DEFAULT_MODEL, "model directory from bin/train-line-ranker")
    cli.add_workers(p, "ranking processes")
    p.add_argument("--baseline", action="store_true",
                   help="rank by the model's best single feature only (the baseline the ranker is compared with)")
    return p


@cli.command(COMMAND)
def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        ranker = LineRanker(args.model)
    except (ModelError, OSError) as e:
        raise cli.CommandError(e) from None
    sig = ranker.signature_line() + ("|ranking:baseline(" + ranker.baseline[0] + ")" if args.baseline else "")
    print(f"signature: {sig}", file=sys.stderr)
    t = time.time()
    ranked, failed = rank_paths(args.paths, args.model, args.workers, args.baseline,
                                error=lambda message: cli.warning(COMMAND, message if message.endswith("skipped")
                                                                  else f"{message}; skipped"))
    sys.stdout.flush()
    dt = time.time() - t
    print(f"ranked {ranked} tasks in {dt:.1f} s ({ranked / dt if dt else 0:.1f} tasks/s, {args.workers} workers)"
          + (f", {failed} failed" if failed else ""), file=sys.stderr)
    print(f"signature: {sig}", file=sys.stderr)
    return cli.EXIT_FINDINGS if failed else cli.EXIT_OK   # tasks skipped: each named above


if __name__ == "__main__":
    sys.exit(main())
