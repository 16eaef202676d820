"""Signature lines, sacrebleu style (`head|key:value|...`): what a model or a number was made with. One
format for every command; the tool versions are looked up here, once."""
from __future__ import annotations

from collections.abc import Iterable

from . import __version__


def versions(*extra: str) -> dict[str, str]:
    """Versions of the project and of the tools its numbers depend on (plus the `extra` distributions)."""
    import platform  # (both here, not at the top: bin/rank's start-up does not look versions up)
    from importlib import metadata  # here, not at the top: importing it is a sixth of bin/rank's start-up

    def v(dist):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "absent"
    out = {"unnatural": __version__, "kenlm": v("kenlm"), "tree-sitter": v("tree-sitter"),
           "tree-sitter-java": v("tree-sitter-java"), "python": platform.python_version()}
    out.update((dist, v(dist)) for dist in extra)
    return out


def signature(head: str, fields: Iterable[tuple[str, object]]) -> str:
    """`head|key:value|key:value...`"""
    return "|".join([head, *(f"{key}:{value}" for key, value in fields)])
