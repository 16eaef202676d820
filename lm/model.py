"""The one entry point to KenLM: load a model (with the signature `bin/build-lm` wrote beside it), query it
(log10 scores of symbol sequences) and mix it with a project model for the ranker's compiled rescoring.

Every stage goes through `LanguageModel`: the ranker (`mixture`, scoring in lm/native.cpp), the line
ranker's features (`score`), the benchmarks (`score`, `load`) and the tests' plain Python reference.
"""
from __future__ import annotations

import json
import math
from functools import cached_property
from pathlib import Path

# The highest n-gram order: lmplz, build_binary, the kenlm module and lm/native.cpp are compiled for it (the
# Makefile reads this line).
MAX_ORDER = 10
LOG2_10 = math.log2(10)


def log10_to_bits(logprob10: float) -> float:
    """Surprisal in bits of a KenLM log10 probability."""
    return -logprob10 * LOG2_10


class LanguageModel:
    """A KenLM model plus its signature. The kenlm module loads the model on first use only: the ranker
    scores through `mixture`, which loads it in C++ itself."""

    def __init__(self, path: str | Path):
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such model")
        self.path = path
        self.signature = read_signature(path)
        self.scheme = self.signature.get("scheme", "kind")

    @cached_property
    def model(self) -> "kenlm.Model":
        import kenlm   # the ranker scores through `mixture` and never needs the module
        return kenlm.Model(str(self.path))

    def load(self) -> "LanguageModel":
        """Load the model now (it is otherwise loaded on first use)."""
        self.model
        return self

    @property
    def order(self) -> int:
        return self.model.order

    # State by state, for callers that extend many histories (fill-in-the-middle's candidates and beam):
    # log10 P(symbol | state), the state after it written into `out`.
    @staticmethod
    def new_state() -> "kenlm.State":
        import kenlm
        return kenlm.State()

    def start_state(self, sentence: bool = True) -> "kenlm.State":
        """The state at the start of a sentence (after <s>), or with no context at all."""
        state = self.new_state()
        (self.model.BeginSentenceWrite if sentence else self.model.NullContextWrite)(state)
        return state

    def advance(self, state: "kenlm.State", symbol: str, out: "kenlm.State") -> float:
        return self.model.BaseScore(state, symbol, out)

    def symbol_scores(self, symbols: list[str], eos: bool = True) -> list[float]:
        """log10 P(symbol | history) of each symbol (plus </s> when eos), <s> implied."""
        base = self.model.BaseScore
        state = self.start_state()
        scores = []
        for sym in symbols + (["</s>"] if eos else []):
            out = self.new_state()
            scores.append(base(state, sym, out))
            state = out
        return scores

    def score(self, symbols: list[str], bos: bool = True, eos: bool = True) -> float:
        """Total log10 probability of a symbol sequence (with <s> and </s> unless told otherwise)."""
        return self.model.score(" ".join(symbols), bos=bos, eos=eos)

    def mixture(self, project: "LanguageModel | None" = None, weight: float = 0.0):
        """This model, or (1 - weight) P_this + weight P_project, loaded for batched rescoring in C++
        (lm/native.cpp: each model keeps its own state; scores are log10)."""
        from ._native import Mixture   # built by make setup; only the ranker needs it
        if project is not None and project.scheme != self.scheme:
            raise ValueError(f"project model scheme '{project.scheme}' differs from '{self.scheme}'")
        mixed = project is not None and weight > 0
        return Mixture(str(self.path), str(project.path) if mixed else "", weight)

    def describe(self) -> list[tuple[str, object]]:
        """Signature fields of the model (`model:<path>` when it has no signature file)."""
        return model_fields(self.signature) if self.signature else [("model", self.path)]


def model_fields(signature: dict) -> list[tuple[str, object]]:
    """What a model was made with, as signature fields: order, scheme, corpus, tokens, tool versions."""
    ver = signature.get("versions") or {}
    names = [Path(s["source"].rstrip("/")).name for s in signature.get("sources", [])]
    corpus = f"{'+'.join(names) or '?'}({signature.get('files', '?')}files)"
    grammar = "tree-sitter-python" if signature.get("scheme") == "python" else "tree-sitter-java"
    return [("order", signature.get("order", "?")), ("scheme", signature.get("scheme", "?")), ("corpus", corpus),
            ("tokens", signature.get("tokens", "?")), ("kenlm", ver.get("kenlm")),
            (grammar, ver.get(grammar)), ("unnatural", ver.get("unnatural"))]


def signature_path(model_path: Path) -> Path:
    return Path(str(model_path) + ".json")


def read_signature(model_path: Path) -> dict:
    p = signature_path(model_path)
    if p.exists():
        return json.loads(p.read_text())
    return {}
