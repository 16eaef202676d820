"""Build a KenLM model from corpus sources: tokenize -> corpus text -> lmplz -> build_binary -> signature."""
from __future__ import annotations

import json
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .corpus import write_corpus
from .kenlm_tools import build_binary, lmplz
from .model import signature_path
from .signature import versions

MAX_ORDER = 10  # the kenlm module is compiled with MAX_ORDER=10
# JDK packages held out of the default model so that `make demo` can test on files it never saw.
DEMO_HELDOUT = ("java.net.http/", "java.sql/", "jdk.httpserver/", "java.logging/")


class EmptyCorpus(ValueError):
    pass


@dataclass(frozen=True)
class BuildConfig:
    sources: tuple[str, ...]
    order: int = 6
    scheme: str = "kind"
    output: Path = Path(".models/default-kind-o6.bin")
    exclude: tuple[str, ...] = ()
    workers: int | None = None
    keep_arpa: bool = False

    def __post_init__(self):
        if not 1 <= self.order <= MAX_ORDER:
            raise ValueError(f"order {self.order} outside 1..{MAX_ORDER}")


def build(cfg: BuildConfig, progress: bool = True) -> dict:
    """Build the model at cfg.output and its signature beside it; return the signature."""
    t0 = time.time()
    out = Path(cfg.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="unnatural-lm-", dir=out.parent) as tmp:
        tmp = Path(tmp)
        corpus = tmp / "corpus.txt"
        stats = write_corpus(list(cfg.sources), cfg.scheme, corpus, cfg.workers, cfg.exclude, progress)
        if stats.files == 0:
            raise EmptyCorpus("empty corpus: no Java file could be read from " + ", ".join(cfg.sources))
        t_tok = time.time()
        if progress:
            print(f"lmplz: order {cfg.order} on {stats.tokens:,} tokens from {stats.files:,} files",
                  file=sys.stderr)
        arpa = tmp / "model.arpa"
        lmplz_args = lmplz(corpus, arpa, cfg.order, tmp)
        t_lmplz = time.time()
        partial = tmp / "model.bin"
        build_binary(arpa, partial)
        arpa_bytes = arpa.stat().st_size
        if cfg.keep_arpa:
            arpa.replace(out.with_suffix(".arpa"))
        partial.replace(out)   # atomic: an interrupted build never leaves a half-written model
    signature = {
        "order": cfg.order, "scheme": cfg.scheme,
        "sources": [vars(s) for s in stats.sources],
        "files": stats.files, "tokens": stats.tokens, "skipped": stats.skipped,
        "exclude": list(cfg.exclude),
        "lmplz": lmplz_args, "arpa_bytes": arpa_bytes, "binary_bytes": out.stat().st_size,
        "versions": versions(),
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seconds": {"tokenize": round(t_tok - t0, 1), "lmplz": round(t_lmplz - t_tok, 1),
                    "total": round(time.time() - t0, 1)},
    }
    signature_path(out).write_text(json.dumps(signature, indent=2) + "\n")
    return signature


def default_output(sources, order: int, scheme: str) -> Path:
    names = [Path(s.rstrip("/")).name for s in sources]
    name = "default" if names == ["corpora"] else "+".join(names)[:60] or "model"
    return Path(".models") / f"{name}-{scheme}-o{order}.bin"
