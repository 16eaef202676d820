"""bin/train-line-ranker: train the CodRep 2018 line ranker from data sets (folders with Tasks/ and
Solutions/): a KenLM model over the identifier-keeping `text` scheme, a stage-1 LightGBM lambdarank over
string features and a stage-2 one over token, parse and LM features, plus a signature. With --dev, the model
is then scored on held-out data sets beside the best single feature."""
from __future__ import annotations

import io
import sys
import time
from pathlib import Path

from formats.files import InputError
from lm.kenlm_tools import KenlmError
from lm.model import MAX_ORDER
from unnatural import cli

from .batch import rank_paths
from .model import LineRanker, RankerConfig

COMMAND = "train-line-ranker"


def parser() -> cli.ArgumentParser:
    p = cli.parser(COMMAND, __doc__.strip())
    p.add_argument("sources", nargs="+", metavar="SOURCE", help="CodRep 2018 data set folders to train on")
    cli.add_output(p, "model directory to write (e.g. .models/lines)", required=True)
    p.add_argument("--dev", action="append", default=[], metavar="FOLDER",
                   help="data set to score after training (never trained on); repeatable")
    cli.add_workers(p, "processes for features and LightGBM")
    p.add_argument("--order", type=int, default=RankerConfig.lm_order,
                   help=f"LM n-gram order, 1..{MAX_ORDER} (default %(default)s)")
    cli.add_top(p, "lines re-ranked by stage 2", default=RankerConfig.top_k)
    p.add_argument("--rounds1", type=int, default=200, help="boosting rounds of stage 1 (default %(default)s)")
    p.add_argument("--rounds2", type=int, default=300, help="boosting rounds of stage 2 (default %(default)s)")
    p.add_argument("--limit", type=cli.positive_int, help="use only the first N tasks of each source (quick runs)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def score_dev(model: Path, folders: list[str], workers: int, baseline: bool):
    """(LineScores, tasks/s) of ranking the dev folders with the model (or its baseline)."""
    from evaluation.codrep2018 import parse_predictions, score_line_predictions
    from formats.codrep2018 import read_datasets
    buf = io.StringIO()
    t = time.time()
    rank_paths(folders, model, workers, baseline, out=buf, error=lambda message: cli.error(COMMAND, message))
    dt = time.time() - t
    preds = parse_predictions(buf.getvalue().splitlines(), "<ranking>")
    scores = score_line_predictions(read_datasets(folders), preds)
    return scores, scores.total_files / dt if dt else 0.0


@cli.command(COMMAND)
def main(argv=None) -> int:
    from .train import TrainConfig, train

    args = parser().parse_args(argv)
    if not 1 <= args.order <= MAX_ORDER:
        raise cli.CommandError(f"--order {args.order} is outside 1..{MAX_ORDER}")
    cfg = TrainConfig(sources=tuple(args.sources), output=args.output,
                      ranker=RankerConfig(top_k=args.top, lm_order=args.order), workers=args.workers,
                      rounds1=args.rounds1, rounds2=args.rounds2, limit=args.limit, progress=not args.quiet)
    try:
        sig = train(cfg)
    except (InputError, KenlmError, OSError, ValueError) as e:
        raise cli.CommandError(e) from None
    ranker = LineRanker(args.output)
    print(f"signature: {ranker.signature_line()}", file=sys.stderr)
    b = sig["baseline"]
    print(f"trained in {sig['seconds']['total']} s on {sig['tasks']:,} tasks; model {sig['model_bytes'] / 2**20:.1f} "
          "MiB "
          f"in {args.output}; best single feature on the training tasks: {b['feature']} (sign {b['sign']:+g}, "
          f"error {b['train_error']:.4f}, Recall@1 {b['train_recall_at_1']:.4f})", file=sys.stderr)
    if args.dev:
        try:
            learned, speed = score_dev(args.output, args.dev, args.workers, False)
            base, _ = score_dev(args.output, args.dev, args.workers, True)
        except InputError as e:
            raise cli.CommandError(f"dev scoring: {e}") from None
        names = "+".join(Path(d.rstrip("/")).name for d in args.dev)
        print(f"dev {names} ({learned.total_files} tasks): learned ranker: average line error "
              f"{learned.average_line_error:.4f}, Recall@1 {learned.recall_at_1:.4f} ({speed:.1f} tasks/s, "
              f"{args.workers} workers) | best single feature {b['feature']}: average line error "
              f"{base.average_line_error:.4f}, Recall@1 {base.recall_at_1:.4f}", file=sys.stderr)
    print(args.output)
    return cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
