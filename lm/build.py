"""Build KenLM models: files -> corpus text (lm.corpus) -> lmplz -> build_binary -> signature beside the model.

The one pipeline every model goes through: `bin/build-lm` (`build`, from SOURCE paths) and the CodRep 2018
line ranker's training (`build_folds`, from its tasks' files, with one model per held-out fold).
"""
from __future__ import annotations

import json
import shutil
import stat
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import chain
from pathlib import Path
from typing import Iterable

from tqdm import tqdm

from formats.sources import RawFile, iter_entries
from parsing.languages import get_language
from parsing.schemes import DEFAULT_SCHEME, get_scheme
from unnatural import ROOT, cli
from unnatural.signature import versions

from .corpus import CorpusStats, write_corpus
from .kenlm_tools import PROBING, LmplzPipe, build_binary, check_memory, lmplz, memory_for
from .model import MAX_ORDER, ceilings_path, signature_path

# JDK modules held out of the default model, so that `make demo` and the detection development sets
# (evaluation/devsets.py) test on files it never saw.
HELD_OUT = ("java.net.http/", "java.sql/", "jdk.httpserver/", "java.logging/", "java.management/")


class EmptyCorpus(ValueError):
    pass


@dataclass(frozen=True)
class BuildConfig:
    sources: tuple[str, ...]
    order: int = 6
    scheme: str = DEFAULT_SCHEME
    output: Path = ROOT / ".models" / f"default-{DEFAULT_SCHEME}-o6.bin"
    exclude: tuple[str, ...] = ()
    workers: int | None = None
    keep_arpa: bool = False
    memory: str | None = None    # lmplz's -S (default: from the sources' size, kenlm_tools.memory_for)
    cluster: str | None = None        # a Dask scheduler address or local:N (lm.cluster), else forked workers
    work_dir: str | None = None       # with cluster: where the token shards go (default: beside the model)
    allow_missing: bool = False       # with cluster: train without the files of shards that failed twice
    max_bytes: int | None = None      # files larger than this are skipped (with a warning)

    def __post_init__(self):
        check_order(self.order)
        if self.memory is not None:
            check_memory(self.memory)


def check_order(order: int) -> None:
    if not 1 <= order <= MAX_ORDER:
        raise ValueError(f"order {order} is outside 1..{MAX_ORDER}")


def estimate(corpora: list[Path], output: Path, order: int, tmp: Path, keep_arpa: bool = False,
             memory: str | None = None, commit: bool = True) -> dict:
    """lmplz on the concatenation of `corpora` (with `memory`, default from their size), then build_binary
    into `output`, replaced atomically (an interrupted build never leaves a half-written model); without
    `commit`, the model is left at made["partial"] for `commit_model`. Returns what the signature records."""
    t0 = time.time()
    if len(corpora) == 1:
        corpus = corpora[0]
    else:
        corpus = tmp / f"{output.name}.corpus.txt"
        with open(corpus, "wb") as dst:
            for c in corpora:
                with open(c, "rb") as src:
                    shutil.copyfileobj(src, dst)
    arpa = tmp / f"{output.name}.arpa"
    args = lmplz(corpus, arpa, order, tmp, memory or memory_for(sum(c.stat().st_size for c in corpora)))
    t_lmplz = time.time()
    if corpus not in corpora:
        corpus.unlink()
    return binarize(arpa, output, tmp, keep_arpa, {"lmplz": args, "seconds": {"lmplz": round(t_lmplz - t0, 1)}},
                    commit)


def binary_model(arpa: Path, binary: Path, model_format: list[str] = PROBING) -> list[str]:
    """build_binary of lmplz's `arpa` at `binary` in `model_format`, with its word ceilings beside it (the ranker's
    bounds: lm/native.cpp's write_ceilings, about 0.2 s for the default model; without them every bound is
    looser and more repairs are rescored); the build_binary arguments (for the signature)."""
    from ._native import write_ceilings  # compiled; only building needs it here
    args = build_binary(arpa, binary, model_format)
    write_ceilings(str(arpa), str(ceilings_path(binary)), str(binary))
    return args


def binarize(arpa: Path, output: Path, tmp: Path, keep_arpa: bool, made: dict, commit: bool = True) -> dict:
    """binary_model of lmplz's `arpa` into `output`, replaced atomically with its ceilings; without `commit`, the
    model is left at made["partial"] for `commit_model`. Returns `made` with the sizes added."""
    partial = tmp / f"{output.name}.partial"
    made = {**made, "build_binary": binary_model(arpa, partial)}
    ceilings_path(output).unlink(missing_ok=True)   # another model's: the new one may have none (a huge vocabulary)
    arpa_bytes = arpa.stat().st_size
    if keep_arpa:
        arpa.replace(output.with_suffix(".arpa"))
    else:
        arpa.unlink()
    made = {**made, "arpa_bytes": arpa_bytes, "binary_bytes": partial.stat().st_size}
    if commit:
        with cli.deferred_interrupts():
            put_ceilings(partial, output)
            partial.replace(output)
    else:
        made["partial"] = partial
    return made


def commit_model(partial: Path, output: Path, signature: dict) -> None:
    """Put a model and its signature in place together (Ctrl-C waits for both): never a new model beside
    an old signature."""
    sig = signature_path(output)
    tmp = sig.with_name(sig.name + ".partial")
    tmp.write_text(json.dumps(signature, indent=2) + "\n")
    with cli.deferred_interrupts():
        put_ceilings(partial, output)
        partial.replace(output)
        tmp.replace(sig)


def put_ceilings(partial: Path, output: Path) -> None:
    """The ceilings binary_model wrote beside the partial model, beside the model (before the model moves)."""
    if ceilings_path(partial).exists():
        ceilings_path(partial).replace(ceilings_path(output))


def _sign(output: Path, order: int, stats: CorpusStats, exclude, made: dict, t0: float, t_tok: float,
          missing: list[str] = ()) -> dict:
    """Put the model (made["partial"]) in place with its signature beside it (what `LanguageModel.signature`
    reads); return the signature."""
    signature = {
        "order": order, "scheme": stats.scheme,
        "sources": [vars(s) for s in stats.sources],
        "files": stats.files, "tokens": stats.tokens, "skipped": stats.skipped,
        "exclude": list(exclude),
        **({"missing": list(missing)} if missing else {}),
        "lmplz": made["lmplz"], "build_binary": made["build_binary"], "arpa_bytes": made["arpa_bytes"],
        "binary_bytes": made["binary_bytes"],
        "versions": _versions(stats.scheme),
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seconds": {"tokenize": round(t_tok - t0, 1), "lmplz": made["seconds"]["lmplz"],
                    "total": round(time.time() - t0, 1)},
    }
    commit_model(made["partial"], output, signature)
    return signature


def build(cfg: BuildConfig, progress: bool = True) -> dict:
    """Build the model at cfg.output from cfg.sources and its signature beside it; return the signature."""
    t0 = time.time()
    out = Path(cfg.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    memory = cfg.memory or memory_for(sources_bytes(cfg.sources))
    with cli.temporary_folder(prefix="unnatural-lm-", dir=out.parent) as tmp:
        arpa = tmp / f"{out.name}.arpa"
        missing: list[str] = []
        with LmplzPipe(arpa, cfg.order, tmp, memory) as lmplz_in:
            if cfg.cluster:
                from .cluster import write_corpus_on_cluster  # Dask is imported only with --cluster
                stats, missing = write_corpus_on_cluster(cfg.sources, cfg.exclude, cfg.scheme, lmplz_in, cfg.cluster,
                                                         cfg.work_dir or str(tmp), cfg.allow_missing, progress,
                                                         max_bytes=cfg.max_bytes)
            else:
                suffixes = get_language(get_scheme(cfg.scheme).language).suffixes   # .java, or .py for `python`
                files = chain.from_iterable(iter_entries(s, cfg.exclude, suffixes=suffixes, max_bytes=cfg.max_bytes)
                                            for s in cfg.sources)   # listed: the workers read them
                stats = write_corpus(files, cfg.scheme, lmplz_in, cfg.workers, progress, sources=cfg.sources)
            if stats.files == 0:
                raise EmptyCorpus("empty corpus: no source file could be read from " + ", ".join(cfg.sources))
            t_tok = time.time()
            if progress:
                print(f"lmplz: order {cfg.order} on {stats.tokens:,} tokens from {stats.files:,} files",
                      file=sys.stderr)
            args = lmplz_in.close()
        made = binarize(arpa, out, tmp, cfg.keep_arpa,
                        {"lmplz": args, "seconds": {"lmplz": round(time.time() - t_tok, 1)}}, commit=False)
        return _sign(out, cfg.order, stats, cfg.exclude, made, t0, t_tok, missing)


def _versions(scheme: str) -> dict[str, str]:
    """The versions a model's signature names: the grammar of its scheme's language (Java's by default)."""
    language = get_language(get_scheme(scheme).language)
    return versions() if language.name == "java" else versions(language.grammar)


def sources_bytes(sources) -> int:
    """The size of the SOURCE paths on disk (a zip's compressed size times 4), which sizes lmplz's memory
    before the streamed corpus is known. Linked files count (corpora/ links the JDK's zip), each real file
    once."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for s in map(Path, sources):
        for p in ([s] if s.is_file() else s.rglob("*") if s.is_dir() else []):
            try:
                st = p.stat()
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            total += st.st_size * (4 if p.suffix in (".zip", ".jar") else 1)
    return total


def build_folds(files: Iterable[RawFile], sources: tuple[str, ...], scheme: str, order: int, folds: int,
                output: Path, tmp: Path, workers: int | None = None, progress: bool = True
                ) -> tuple[dict, dict[int, Path], CorpusStats]:
    """The model of all `files` at `output` (with its signature), and for each fold f whose complement
    holds a file, a model without fold f at tmp/lm-not<f>.bin (so that a file's features never come from a
    model that saw it). Returns (signature, {fold: model without it}, corpus statistics)."""
    check_order(order)
    t0 = time.time()
    corpora, stats = _fold_corpora(files, sources, scheme, folds, tmp, workers, progress)
    t_tok = time.time()
    with tqdm(total=folds + 1, desc="building LMs", unit="lm", disable=not progress, file=sys.stderr) as bar:
        held_out = _held_out(corpora, stats, order, tmp, bar)
        made = estimate([c for f, c in enumerate(corpora) if stats.fold_files[f]], output, order, tmp, commit=False)
        bar.update()
    return _sign(output, order, stats, (), made, t0, t_tok), held_out, stats


def held_out_models(files: Iterable[RawFile], sources: tuple[str, ...], scheme: str, order: int, folds: int,
                    tmp: Path, workers: int | None = None, progress: bool = True
                    ) -> tuple[dict[int, Path], CorpusStats]:
    """For each fold f (by content hash: `lm.corpus.fold_of`) whose complement holds a file, a model of
    the other folds' files at tmp/lm-not<f>.bin; no model of them all. Returns ({fold: model without it},
    corpus statistics)."""
    check_order(order)
    corpora, stats = _fold_corpora(files, sources, scheme, folds, tmp, workers, progress)
    with tqdm(total=folds, desc="building LMs", unit="lm", disable=not progress, file=sys.stderr) as bar:
        return _held_out(corpora, stats, order, tmp, bar), stats


def _fold_corpora(files, sources, scheme: str, folds: int, tmp: Path, workers: int | None, progress: bool
                  ) -> tuple[list[Path], CorpusStats]:
    """Each fold's corpus text at tmp/fold<f>.txt, and the statistics of them all."""
    corpora = [tmp / f"fold{f}.txt" for f in range(folds)]
    stats = write_corpus(files, scheme, corpora, workers, progress, sources=sources)
    if stats.files == 0:
        raise EmptyCorpus("empty corpus: no Java file could be read from " + ", ".join(sources))
    return corpora, stats


def _held_out(corpora: list[Path], stats: CorpusStats, order: int, tmp: Path, bar: tqdm) -> dict[int, Path]:
    """For each fold f whose complement holds a file, a model of the other folds at tmp/lm-not<f>.bin, with
    a signature beside it (its scheme and order: what LanguageModel reads)."""
    with_files = [f for f in range(len(corpora)) if stats.fold_files[f]]
    held_out: dict[int, Path] = {}
    for f in range(len(corpora)):
        others = [g for g in with_files if g != f]
        if others:
            held_out[f] = tmp / f"lm-not{f}.bin"
            made = estimate([corpora[g] for g in others], held_out[f], order, tmp)
            signature_path(held_out[f]).write_text(json.dumps({
                "order": order, "scheme": stats.scheme, "held_out_fold": f, "folds": len(corpora),
                "files": sum(stats.fold_files[g] for g in others), "tokens": sum(stats.fold_tokens[g] for g in others),
                "lmplz": made["lmplz"], "versions": versions()}, indent=2) + "\n")
        bar.update()
    return held_out


def default_output(sources, order: int, scheme: str) -> Path:
    names = [Path(s.rstrip("/")).name for s in sources]
    name = "default" if names == ["corpora"] else "+".join(names)[:60] or "model"
    return ROOT / ".models" / f"{name}-{scheme}-o{order}.bin"
