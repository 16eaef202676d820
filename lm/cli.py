"""bin/build-lm: train a KenLM n-gram model on Java corpora."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from parsing.schemes import SCHEMES, UnknownScheme, get_scheme

from .build import DEMO_HELDOUT, MAX_ORDER, BuildConfig, EmptyCorpus, build, default_output
from .kenlm_tools import KenlmError
from .signature import model_signature
from .sources import SourceError, shape_of

ROOT = Path(__file__).resolve().parent.parent


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="build-lm", description=__doc__.strip() + (
        " A SOURCE is recognised by its shape: a .zip/.jar archive, a CodRep 2018 data set (Tasks/ and "
        "Solutions/), a CodRep 2019 task folder (out.txt beside 0.txt), any other folder (searched for "
        "*.java, each entry recognised by these rules) or a .java file. Identical files are read once."))
    p.add_argument("sources", nargs="*", metavar="SOURCE", help="corpus sources (default: corpora/)")
    p.add_argument("--order", type=int, default=6, help=f"n-gram order, 1..{MAX_ORDER} (default 6)")
    p.add_argument("--scheme", default="kind", help=f"token scheme: {', '.join(SCHEMES)} (default kind)")
    p.add_argument("--output", type=Path, help="model path (default .models/<sources>-<scheme>-o<order>.bin)")
    p.add_argument("--exclude", action="append", default=[], metavar="PATTERN",
                   help="skip files whose path or archive member matches (glob or substring); repeatable")
    p.add_argument("--no-holdout", action="store_true",
                   help="when training on corpora/, keep the JDK packages `make demo` tests on ("
                        + " ".join(DEMO_HELDOUT) + "); they are left out by default")
    p.add_argument("--workers", type=int, default=None, help="tokenizer processes (default: all cores)")
    p.add_argument("--keep-arpa", action="store_true", help="also keep the ARPA file beside the model")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    sources = args.sources or [str(ROOT / "corpora") if not Path("corpora").exists() else "corpora"]
    try:
        if not 1 <= args.order <= MAX_ORDER:
            raise ValueError(f"--order {args.order} is outside 1..{MAX_ORDER}")
        get_scheme(args.scheme)
        for s in sources:
            shape_of(Path(s))
        default_corpus = [Path(x).resolve() for x in sources] == [(ROOT / "corpora").resolve()]
        exclude = tuple(args.exclude) + (DEMO_HELDOUT if default_corpus and not args.no_holdout else ())
        output = args.output or default_output(sources, args.order, args.scheme)
        cfg = BuildConfig(tuple(sources), args.order, args.scheme, output, exclude, args.workers, args.keep_arpa)
        sig = build(cfg, progress=not args.quiet)
    except (ValueError, UnknownScheme, SourceError, EmptyCorpus, KenlmError, OSError) as e:
        print(f"build-lm: error: {e}", file=sys.stderr)
        return 2
    print(f"signature: {model_signature(sig)}", file=sys.stderr)
    print(f"built in {sig['seconds']['total']} s: {sig['files']:,} files, {sig['tokens']:,} tokens, "
          f"{sig['skipped']} skipped, model {sig['binary_bytes'] / 2**20:.1f} MiB", file=sys.stderr)
    print(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
