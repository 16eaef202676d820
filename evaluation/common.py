"""What every metric family shares: the input error, reading a file, the version, and the signature line."""
from __future__ import annotations

import functools
import importlib.metadata
import pathlib
import re
from typing import Iterable


class InputError(ValueError):
    """Bad input (file, line or value); its message is one line that names where the problem is."""


def read_text(path: str, what: str = "", newline: str | None = None) -> str:
    """A UTF-8 file's text, or an InputError naming it: `cannot read[ what] (why)` or `not UTF-8`."""
    try:
        with open(path, encoding="utf-8", newline=newline) as f:
            return f.read()
    except OSError as error:
        raise InputError(f"{path}: cannot read{' ' + what if what else ''} ({error.strerror})") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 ({error.reason} at byte {error.start})") from None


@functools.cache
def version() -> str:
    """The project's version: installed metadata, else pyproject.toml (the checkout is often not installed)."""
    try:
        return importlib.metadata.version("unnatural")
    except importlib.metadata.PackageNotFoundError:
        pass
    pyproject = pathlib.Path(__file__).resolve().parent.parent / "pyproject.toml"
    try:
        text = pyproject.read_text(encoding="utf-8")
    except OSError:
        return "unknown"
    # A regex, not tomllib: the project supports Python 3.10, which has no tomllib.
    match = re.search(r'^\[project\][^\[]*?^version\s*=\s*"([^"]+)"', text, re.MULTILINE | re.DOTALL)
    return match.group(1) if match else "unknown"


def signature(task: str, options: Iterable[tuple[str, object]]) -> str:
    """sacrebleu-style signature: `evaluate:TASK|key:value|...|version:V`, so a number can be reproduced."""
    fields = [f"evaluate:{task}"] + [f"{key}:{value}" for key, value in options]
    fields.append(f"version:{version()}")
    return "|".join(fields)


def safe_ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator, 0.0 when the denominator is 0 (the convention of the reference evaluators)."""
    return numerator / denominator if denominator else 0.0
