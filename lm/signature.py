"""Signatures: what every model and every reported number was made with, so it can be reproduced."""
from __future__ import annotations

import platform
from pathlib import Path

UNNATURAL_VERSION = "0.1.0"
KENLM_VERSION = "0.3.0"  # the PyPI source package lmplz/build_binary and the module are built from


def versions() -> dict[str, str]:
    from importlib import metadata   # here, not at the top: importing it is a sixth of bin/rank's start-up

    def v(dist):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "absent"
    return {"unnatural": UNNATURAL_VERSION, "kenlm": KENLM_VERSION, "tree-sitter": v("tree-sitter"),
            "tree-sitter-java": v("tree-sitter-java"), "python": platform.python_version()}


def corpus_label(signature: dict) -> str:
    names = [Path(s["source"].rstrip("/")).name for s in signature.get("sources", [])]
    files = signature.get("files", "?")
    return f"{'+'.join(names) or '?'}({files}files)"


def model_signature(signature: dict) -> str:
    """One line, sacrebleu style: order:7|scheme:kind|corpus:Dataset1+...(N files)|versions."""
    ver = signature.get("versions") or versions()
    return (f"order:{signature.get('order', '?')}|scheme:{signature.get('scheme', '?')}"
            f"|corpus:{corpus_label(signature)}|tokens:{signature.get('tokens', '?')}"
            f"|kenlm:{ver.get('kenlm')}|tree-sitter-java:{ver.get('tree-sitter-java')}"
            f"|unnatural:{ver.get('unnatural')}")
