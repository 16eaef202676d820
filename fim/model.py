"""The models fill-in-the-middle predicts with: a KenLM model whose scheme keeps identifiers (`text` for
Java, `python` for Python) and the corpus line index beside it (`fim.index`), and the default ones built
on first use.

Default models (order 6; `make fim-bench` compares orders 3-8):
- Java: the JDK sources in corpora/, less the packages the demo and the benchmark test on (the ranker's
  hold-out, `lm.build.HELD_OUT`): `.models/default-text-o6.bin`.
- Python: the standard library of the machine's Python, the newest `/usr/lib/python3.N/` (Debian's, so
  every Debian machine has it), less the modules the benchmark tests on (PYTHON_HELDOUT) and generated or
  installed code (PYTHON_EXCLUDE): `.models/stdlib-python-o6.bin`.
"""
from __future__ import annotations

import contextlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from formats.files import InputError
from lm.build import HELD_OUT, BuildConfig, build
from lm.model import LanguageModel, model_fields
from parsing.languages import Language, get_language
from parsing.schemes import Scheme, UnknownScheme, get_scheme
from unnatural import ROOT

from .index import LineIndex, build_index, index_path

DEFAULT_ORDER = 6
FIM_SCHEMES = {"java": "text", "python": "python"}   # the scheme each language's FIM model must have
JAVA_HELDOUT = HELD_OUT
PYTHON_HELDOUT = ("/asyncio/", "/email/", "/json/", "/logging/")
PYTHON_EXCLUDE = ("/encodings/", "/site-packages/", "/dist-packages/", "/lib2to3/tests/data/")


class ModelError(InputError):
    """A model that cannot serve fill-in-the-middle (missing, wrong scheme or language)."""


def python_stdlib() -> Path | None:
    """The newest /usr/lib/python3.N/ holding a standard library (os.py)."""
    found = []
    for p in Path("/usr/lib").glob("python3.*"):
        m = re.fullmatch(r"python3\.(\d+)", p.name)
        if m and (p / "os.py").is_file():
            found.append((int(m.group(1)), p))
    return max(found)[1] if found else None


@dataclass(frozen=True)
class DefaultModel:
    language: str
    order: int
    path: Path
    sources: tuple[str, ...]
    exclude: tuple[str, ...]

    def config(self, workers: int | None = None) -> BuildConfig:
        return BuildConfig(self.sources, self.order, FIM_SCHEMES[self.language], self.path, self.exclude, workers)


def default_model(language: str, order: int = DEFAULT_ORDER) -> DefaultModel:
    if language == "java":
        return DefaultModel("java", order, ROOT / ".models" / f"default-text-o{order}.bin", (str(ROOT / "corpora"),),
                            JAVA_HELDOUT)
    if language == "python":
        stdlib = python_stdlib()
        if stdlib is None:
            raise ModelError("no Python standard library under /usr/lib/python3.N/ to build the default Python "
                             "model from; build one with bin/build-lm --scheme python SOURCE and give --model")
        return DefaultModel("python", order, ROOT / ".models" / f"stdlib-python-o{order}.bin", (str(stdlib),),
                            PYTHON_EXCLUDE + PYTHON_HELDOUT)
    raise ModelError(f"no default fill-in-the-middle model for {language}")


def drop_if_stale(spec: DefaultModel, prog: str) -> None:
    """Remove a default model (and its index) built with other exclusions than the default's now."""
    if spec.path.exists() and tuple(LanguageModel(spec.path).signature.get("exclude", ())) != spec.exclude:
        print(f"{prog}: {spec.path.relative_to(ROOT)} leaves out other files than the default now does; "
              "rebuilding it", file=sys.stderr)
        index_path(spec.path).unlink(missing_ok=True)
        spec.path.unlink()


def ensure_default(spec: DefaultModel, prog: str, progress: bool = True, workers: int | None = None) -> Path:
    """Build the default model (and its line index) once, and again when what it leaves out has changed."""
    drop_if_stale(spec, prog)
    if not spec.path.exists():
        print(f"{prog}: no default {spec.language} model yet; building {spec.path.relative_to(ROOT)} from "
              f"{', '.join(spec.sources)} (once, a few minutes)", file=sys.stderr)
        with contextlib.redirect_stdout(sys.stderr):
            build(spec.config(workers), progress=progress)
    ensure_index(spec.path, prog, progress)
    return spec.path


class FimModel:
    """A loaded FIM model: KenLM, its scheme and language, its line index (None when it has none)."""

    def __init__(self, path: Path, prog: str = "fim", progress: bool = True):
        try:
            self.lm = LanguageModel(path)
        except FileNotFoundError:
            raise ModelError(f"{path}: no such model") from None
        try:
            self.scheme: Scheme = get_scheme(self.lm.scheme)
        except UnknownScheme as e:
            raise ModelError(f"{path}: {e}") from None
        if self.scheme.name not in FIM_SCHEMES.values():
            raise ModelError(f"{path}: a '{self.scheme.name}' model; fill-in-the-middle needs identifiers kept "
                             f"(build one with bin/build-lm --scheme text for Java, --scheme python for Python)")
        self.language: Language = get_language(self.scheme.language)
        self.path = Path(path)
        self.index = ensure_index(self.path, prog, progress)

    @property
    def signature(self) -> dict:
        return self.lm.signature

    def describe(self) -> list[tuple[str, object]]:
        """Signature fields: order, scheme, corpus, tokens, versions."""
        return model_fields(self.signature)


def ensure_index(model: Path, prog: str, progress: bool = True) -> LineIndex | None:
    """The model's line index, built from the sources its signature names on first use; None (with a
    warning) when they are not there."""
    path = index_path(model)
    if not path.exists():
        sig = LanguageModel(model).signature
        sources = []
        for s in (x["source"] for x in sig.get("sources", [])):
            for candidate in (Path(s), ROOT / s):
                if candidate.exists():
                    sources.append(str(candidate))
                    break
            else:
                print(f"{prog}: warning: {s}: the model's corpus is not here; no corpus lines will be proposed",
                      file=sys.stderr)
                return None
        if not sources:
            return None
        language = get_language(get_scheme(sig.get("scheme", "text")).language)
        build_index(sources, tuple(sig.get("exclude", ())), language, path, progress)
    return LineIndex(path)
