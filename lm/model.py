"""The one entry point to KenLM: load a model (with the signature `bin/build-lm` wrote beside it), query it
(log10 scores of symbol sequences) and mix it with a project model for the ranker's compiled rescoring.

Every stage goes through `LanguageModel`: the ranker (`mixture`, scoring in lm/native.cpp), the line
ranker's features (`score`), the benchmarks (`score`, `load`) and the tests' plain Python reference.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import re
import sys
from functools import cached_property
from pathlib import Path

TYPE_CHECKING = False   # typing.TYPE_CHECKING without importing typing (start-up time: tests/test_ranker.py)
if TYPE_CHECKING:   # for the annotations only: the ranker scores through `mixture` and never loads the module
    import kenlm

# The highest n-gram order: lmplz, build_binary, the kenlm module and lm/native.cpp are compiled for it (the
# Makefile reads this line).
MAX_ORDER = 10
LOG2_10 = math.log2(10)


def log10_to_bits(logprob10: float) -> float:
    """Surprisal in bits of a KenLM log10 probability."""
    return -logprob10 * LOG2_10


class ModelError(ValueError):
    """A model file (or its signature) that cannot be used; one line naming the file."""


BINARY_MAGIC = b"mmap lm http://kheafield.com/code"   # how every KenLM binary file starts
ARPA_HEAD = b"\\data\\"
# Symbols only one token scheme writes (parsing.schemes, parsing.python_scheme): what tells a model's scheme
# when its signature is missing. kind and text write the same gaps; text keeps identifiers, so it has no ID.
_RUNS = ("·n1+s4", "·n1-s4", "·n1+t1", "·n1-t1", "·n1+s2", "·n1-s2")
_SCHEME_EVIDENCE = {
    "kind-units": lambda has: has("·n1+1") or has("·n1-1"),
    "kind": lambda has: any(map(has, _RUNS)) and has("ID"),
    "text": lambda has: any(map(has, _RUNS)) and not has("ID"),
    "python": lambda has: has("·n1>"),
}


def check_model_file(path: Path) -> None:
    """ModelError unless `path` looks like a KenLM model: a binary one (its magic bytes) or an ARPA file."""
    if path.is_dir():
        raise ModelError(f"{path}: is a folder, not a KenLM model")
    try:
        with open(path, "rb") as f:
            head = f.read(len(BINARY_MAGIC))
            if not head.startswith(BINARY_MAGIC):
                head = (head + f.read(4096)).lstrip()
    except OSError as e:
        raise ModelError(f"{path}: cannot read the model ({e.strerror})") from None
    if not (head.startswith(BINARY_MAGIC) or head.startswith(ARPA_HEAD)):
        raise ModelError(f"{path}: not a KenLM model (neither a binary model from build_binary nor an ARPA file)")


@contextlib.contextmanager
def quiet_stderr():
    """KenLM's own lines while it loads an ARPA file ('Loading the LM will be faster...', a progress bar)
    go nowhere: a command's stderr is its own lines (a failure is an exception, reported by the caller)."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def load_error(path: Path, error: Exception) -> ModelError:
    """KenLM's exception on loading `path` as one line: what it says is wrong, without where in its code."""
    text = " ".join(str(error).split()) or type(error).__name__
    why = re.split(r"threw \w+(?: because `[^']*'\.)?\s*", text)[-1].strip(" ().") or text
    return ModelError(f"{path}: not a readable KenLM model ({why})")


class LanguageModel:
    """A KenLM model plus its signature. The kenlm module loads the model on first use only: the ranker
    scores through `mixture`, which loads it in C++ itself. A model without its signature is read when
    its vocabulary tells its token scheme (`scheme_inferred`), else it is a ModelError."""

    def __init__(self, path: str | Path):
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such model")
        check_model_file(path)
        self.path = path
        self.signature = read_signature(path)
        self.scheme_inferred = "scheme" not in self.signature
        self.scheme = self.signature["scheme"] if "scheme" in self.signature else self._scheme_from_vocabulary()

    def _scheme_from_vocabulary(self) -> str:
        has = self.model.__contains__
        schemes = [name for name, evidence in _SCHEME_EVIDENCE.items() if evidence(has)]
        if len(schemes) != 1:
            raise ModelError(f"{self.path}: no signature beside it ({signature_path(self.path).name}), and its "
                             "token scheme cannot be told from its vocabulary; copy the signature with the model "
                             "or rebuild it with bin/build-lm")
        return schemes[0]

    @cached_property
    def model(self) -> "kenlm.Model":
        import kenlm  # the ranker scores through `mixture` and never needs the module
        try:
            with quiet_stderr():
                return kenlm.Model(str(self.path))
        except (RuntimeError, OSError, IOError) as e:
            raise load_error(self.path, e) from None

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
        from ._native import Mixture  # built by make setup; only the ranker needs it
        if project is not None and project.scheme != self.scheme:
            raise ValueError(f"project model scheme '{project.scheme}' differs from '{self.scheme}'")
        mixed = project is not None and weight > 0
        # each word's highest score after any two words, which tightens the ranker's bounds (bin/build-lm writes
        # them beside the model; without them every ceiling is log10 1 = 0: the same answers, more lookups)
        ceilings = [str(ceilings_path(m.path)) if ceilings_path(m.path).exists() else ""
                    for m in ([self, project] if mixed else [self])]
        try:
            with quiet_stderr():
                return Mixture(str(self.path), str(project.path) if mixed else "", weight, ceilings)
        except (RuntimeError, OSError) as e:
            text = str(e)
            bad = project.path if mixed and str(project.path) in text and str(self.path) not in text else self.path
            raise load_error(bad, e) from None

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


def ceilings_path(model_path: Path) -> Path:
    """Where `bin/build-lm` writes a model's word ceilings (lm/native.cpp's write_ceilings)."""
    return Path(str(model_path) + ".ceilings")


def read_signature(model_path: Path) -> dict:
    """The signature `bin/build-lm` wrote beside a model ({} when there is none); ModelError when it is not
    a JSON object."""
    p = signature_path(model_path)
    if not p.exists():
        return {}
    try:
        signature = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ModelError(f"{p}: not a model signature ({getattr(e, 'strerror', None) or e})") from None
    if not isinstance(signature, dict) or not isinstance(signature.get("scheme", ""), str):
        raise ModelError(f"{p}: not a model signature (a JSON object from bin/build-lm expected)")
    return signature
