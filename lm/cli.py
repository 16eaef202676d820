"""bin/build-lm: train a KenLM n-gram model on Java corpora (on Python, C or C++ files with --language, or a
scheme of that language)."""
from __future__ import annotations

import sys
from pathlib import Path

from formats.sources import SourceError, shape_of
from parsing.languages import LANGUAGES, get_language
from parsing.schemes import DEFAULT_SCHEME, SCHEMES, UnknownScheme, get_scheme
from unnatural import cli
from unnatural.cluster import ClusterError, parse_address
from unnatural.signature import signature

from .build import HELD_OUT, BuildConfig, EmptyCorpus, build, check_order, default_output
from .kenlm_tools import DEFAULT_MEMORY, MEMORY_PER_BYTE, MIN_MEMORY, KenlmError
from .model import MAX_ORDER, model_fields

COMMAND = "build-lm"
DEFAULT_CORPUS = "corpora"


def parser() -> cli.ArgumentParser:
    p = cli.parser(COMMAND, __doc__.strip() + (
        " A SOURCE is recognised by its shape: a .zip/.jar archive, a CodRep 2018 data set (Tasks/ and "
        "Solutions/), a CodRep 2019 task folder (N.txt files and out.txt answering each), any other folder "
        "(searched for *.java, each entry recognised by these rules) or a .java file. Identical files are read "
        "once; links are followed, each real file once."))
    p.add_argument("sources", nargs="*", metavar="SOURCE", help=f"corpus sources (default: {DEFAULT_CORPUS}/)")
    p.add_argument("--order", type=int, default=6, help=f"n-gram order, 1..{MAX_ORDER} (default 6)")
    p.add_argument("--scheme", default=None,
                   help=f"token scheme: {', '.join(SCHEMES)} (default {DEFAULT_SCHEME}; with --language, that "
                        "language's default scheme)")
    p.add_argument("--language", choices=sorted(LANGUAGES), default=None,
                   help="the language of the corpus (its files' suffixes, its default scheme: "
                        + ", ".join(f"{n} {lang.scheme}" for n, lang in LANGUAGES.items()) + "; default: the "
                        "scheme's language)")
    cli.add_output(p, "model path (default .models/<sources>-<scheme>-o<order>.bin)")
    p.add_argument("--exclude", action="append", default=[], metavar="PATTERN",
                   help="skip files whose path or archive member matches (glob or substring); repeatable")
    p.add_argument("--no-holdout", action="store_true",
                   help=f"when training on {DEFAULT_CORPUS}/ (alone or with other sources), keep the JDK modules "
                        "`make demo` and the development sets test on ("
                        + " ".join(HELD_OUT) + "); they are left out by default")
    cli.add_workers(p, "tokenizer processes")
    cli.add_cluster(p, "tokenize on a Dask cluster: a scheduler address, or local:N for N local worker "
                    "processes; the same model as without it (docs/scale.md)")
    p.add_argument("--work-dir", metavar="DIR", default=None,
                   help="with --cluster: where workers write token shards, a folder or fsspec URL that every "
                        "worker and this machine can reach (default: a temporary folder beside the model)")
    p.add_argument("--allow-missing", action="store_true",
                   help="with --cluster: train without the files of a shard that failed twice (listed in the "
                        "signature) instead of stopping")
    p.add_argument("--keep-arpa", action="store_true", help="also keep the ARPA file beside the model")
    p.add_argument("--memory", metavar="SIZE",
                   help=f"lmplz's sort memory, e.g. 500M, 2G or 80%% (default: {MEMORY_PER_BYTE} times the corpus "
                        f"text, at least {MIN_MEMORY // 2**20}M, at most {DEFAULT_MEMORY}); what does not fit is "
                        "sorted on disk")
    cli.add_max_bytes(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def held_out(sources: list[str], default_corpus: Path, keep: bool = False) -> tuple[str, ...]:
    """The JDK modules to leave out: whenever corpora/ is trained on, alone or beside other sources (the
    detection sets and `make demo` test on them), unless `keep` (--no-holdout)."""
    trains_on_default = default_corpus.resolve() in [Path(x).resolve() for x in sources]
    return HELD_OUT if trains_on_default and not keep else ()


@cli.command(COMMAND)
def main(argv=None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if args.scheme is None:
        args.scheme = get_language(args.language).scheme if args.language else DEFAULT_SCHEME
    elif args.language and args.scheme in SCHEMES and get_scheme(args.scheme).language != args.language:
        p.error(f"--scheme {args.scheme} reads {get_scheme(args.scheme).language}, not {args.language}")
    default_corpus = cli.repo_path(DEFAULT_CORPUS)
    sources = args.sources or [str(default_corpus)]
    try:
        check_order(args.order)
        get_scheme(args.scheme)
        for s in sources:
            shape_of(Path(s))
        exclude = tuple(args.exclude) + held_out(sources, default_corpus, args.no_holdout)
        output = args.output or default_output(sources, args.order, args.scheme)
        if (args.work_dir or args.allow_missing) and not args.cluster:
            raise ValueError("--work-dir and --allow-missing go with --cluster")
        if args.cluster:
            parse_address(args.cluster)
        cfg = BuildConfig(tuple(sources), args.order, args.scheme, output, exclude, args.workers, args.keep_arpa,
                          memory=args.memory, cluster=args.cluster, work_dir=args.work_dir,
                          allow_missing=args.allow_missing, max_bytes=args.max_bytes)
        sig = build(cfg, progress=not args.quiet)
    except (ValueError, UnknownScheme, SourceError, EmptyCorpus, KenlmError, OSError, ClusterError) as e:
        raise cli.CommandError(e) from None
    print(f"signature: {signature(COMMAND, model_fields(sig))}", file=sys.stderr)
    print(f"built in {sig['seconds']['total']} s: {sig['files']:,} files, {sig['tokens']:,} tokens, "
          f"{sig['skipped']} skipped, " + (f"{len(sig['missing'])} missing, " if sig.get("missing") else "")
          + f"model {sig['binary_bytes'] / 2**20:.1f} MiB", file=sys.stderr)
    print(output)
    return cli.EXIT_FINDINGS if sig["skipped"] or sig.get("missing") else cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
