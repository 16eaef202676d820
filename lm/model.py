"""Load a KenLM model and score symbol sequences (log10), with the state API for cheap rescoring."""
from __future__ import annotations

import json
import math
from functools import cached_property
from pathlib import Path

import kenlm

LOG2_10 = math.log2(10)


def log10_to_bits(logprob10: float) -> float:
    """Surprisal in bits of a KenLM log10 probability."""
    return -logprob10 * LOG2_10


class LanguageModel:
    """A KenLM model plus the signature written beside it by `bin/build-lm`. The kenlm module loads the
    model on first use only: the ranker scores through lm._native, which loads it itself."""

    def __init__(self, path: str | Path):
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such model")
        self.path = path
        self.signature = read_signature(path)
        self.scheme = self.signature.get("scheme", "kind")

    @cached_property
    def model(self) -> kenlm.Model:
        return kenlm.Model(str(self.path))

    @property
    def order(self) -> int:
        return self.model.order

    @property
    def _base(self):
        return self.model.BaseScore

    def begin(self) -> kenlm.State:
        state = kenlm.State()
        self.model.BeginSentenceWrite(state)
        return state

    def advance(self, state: kenlm.State, symbol: str) -> tuple[float, kenlm.State]:
        out = kenlm.State()
        return self._base(state, symbol, out), out

    def symbol_scores(self, symbols: list[str], eos: bool = True) -> tuple[list[float], list[kenlm.State]]:
        """log10 P(symbol | history) for each symbol (plus </s> when eos), and the state *before* each
        symbol (states[i] is the context symbol i was scored in; one more state at the end)."""
        base = self._base
        state = self.begin()
        states = [state]
        scores = []
        for sym in symbols + (["</s>"] if eos else []):
            out = kenlm.State()
            scores.append(base(state, sym, out))
            state = out
            states.append(state)
        return scores, states

    def score(self, symbols: list[str], eos: bool = True) -> float:
        """Total log10 probability of a sentence (<s> implied)."""
        return self.model.score(" ".join(symbols), bos=True, eos=eos)


def signature_path(model_path: Path) -> Path:
    return Path(str(model_path) + ".json")


def read_signature(model_path: Path) -> dict:
    p = signature_path(model_path)
    if p.exists():
        return json.loads(p.read_text())
    return {}
