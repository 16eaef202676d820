"""The KenLM command-line tools (lmplz, build_binary) built by `make setup` into .tools/kenlm/bin."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from unnatural import ROOT

TOOLS = ROOT / ".tools" / "kenlm" / "bin"
# lmplz's sort memory: a quarter of this 24 GiB machine leaves room for the rest of the pipeline.
DEFAULT_MEMORY = os.environ.get("UNNATURAL_LMPLZ_MEMORY", "6G")


class KenlmError(RuntimeError):
    pass


def tool(name: str) -> str:
    for candidate in (TOOLS / name, shutil.which(name)):
        if candidate and Path(candidate).exists():
            return str(candidate)
    raise KenlmError(f"{name} not found in {TOOLS}; run 'make setup'")


def lmplz(corpus: Path, arpa: Path, order: int, tmpdir: Path, memory: str = DEFAULT_MEMORY) -> list[str]:
    """Estimate an ARPA model; retries with --discount_fallback when the corpus is too small for
    Kneser-Ney's discounts. Returns the argument list that succeeded (for the signature)."""
    base = [tool("lmplz"), "-o", str(order), "-S", memory, "-T", str(tmpdir), "--text", str(corpus),
            "--arpa", str(arpa)]
    for extra in ([], ["--discount_fallback"]):
        args = base + extra
        proc = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if proc.returncode == 0:
            return ["lmplz", "-o", str(order), "-S", memory] + extra
        if "discount_fallback" not in proc.stderr:
            break
    raise KenlmError("lmplz failed: " + _last_line(proc.stderr))


def build_binary(arpa: Path, binary: Path) -> None:
    proc = subprocess.run([tool("build_binary"), "-s", "probing", str(arpa), str(binary)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise KenlmError("build_binary failed: " + _last_line(proc.stderr))


def _last_line(text: str) -> str:
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1] if lines else "(no message)"
