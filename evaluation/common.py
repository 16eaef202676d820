"""What every metric family shares: the input error and reading a file (formats.files), the version,
and the signature line."""
from __future__ import annotations

from typing import Iterable

from formats.files import InputError, read_text
from unnatural import __version__
from unnatural.signature import signature as signature_line

__all__ = ["InputError", "read_text", "version", "signature", "safe_ratio"]


def version() -> str:
    return __version__


def signature(task: str, options: Iterable[tuple[str, object]]) -> str:
    """`evaluate:TASK|key:value|...|version:V`, so a number can be reproduced."""
    return signature_line(f"evaluate:{task}", [*options, ("version", version())])


def safe_ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator, 0.0 when the denominator is 0 (the convention of the reference evaluators)."""
    return numerator / denominator if denominator else 0.0
