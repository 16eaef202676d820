"""bin/analyze-errors: group the CodRep 2019 tasks whose answer is not ranked first by kind of edit and by
surrounding tokens, with counts and MRR lost per group, so the next improvement is chosen by data.

    bin/rank --model M TASKDIR > pred.txt; bin/analyze-errors TASKDIR < pred.txt
"""
from __future__ import annotations

import sys
from pathlib import Path

from formats.codrep2019 import read_jsonl
from unnatural import cli

from .codrep2019 import parse_predictions
from .common import InputError
from .errors import by_context, by_kind, by_tokens, group_failures, outcomes, repair_exactness

COMMAND = "analyze-errors"


@cli.command(COMMAND)
def main(argv=None) -> int:
    p = cli.parser(COMMAND, " ".join(__doc__.strip().split("\n\n")[0].split()))
    p.add_argument("folder", type=Path, help="the CodRep 2019 task folder the predictions are for")
    p.add_argument("--predictions", type=Path, help="prediction file (default: stdin)")
    cli.add_top(p, "rows per table", default=15)
    p.add_argument("--explanations", type=Path, help="output of 'bin/rank --explain --json --top 1' for the "
                   "same folder: also report how often the top repair is exactly the injected edit undone")
    args = p.parse_args(argv)
    try:
        lines = (args.predictions.read_text() if args.predictions else sys.stdin.read()).splitlines()
        preds = parse_predictions(lines, str(args.predictions or "<stdin>"))
        results = outcomes(args.folder, preds)
        explanations = read_jsonl(args.explanations) if args.explanations else None
        if explanations is not None and not args.explanations.exists():
            raise InputError(f"{args.explanations}: no such file")
    except (InputError, OSError) as e:
        raise cli.CommandError(e) from None
    firsts = sum(1 for r in results if r.position == 1)
    mrr = sum(r.reciprocal_rank for r in results) / max(len(results), 1)
    print(f"tasks: {len(results)}  ranked first: {firsts}  not first: {len(results) - firsts}  MRR: {mrr:.4f}")
    if explanations is not None:
        ex = repair_exactness(args.folder, explanations)
        print(f"top-1 repair exact: {ex.exact} of {ex.checked} tasks ranked first with a known original "
              f"({ex.exact / max(ex.checked, 1):.4f}); {ex.first} ranked first")
    for title, key in (("by kind of edit", by_kind), ("by surrounding tokens", by_tokens),
                       ("by context and edit", by_context)):
        print(f"\n{title:<60} {'tasks':>6} {'MRR lost':>9}")
        for k, n, lost in group_failures(results, key)[:args.top]:
            print(f"{k:<60} {n:>6} {lost:>9.4f}")
    return cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
