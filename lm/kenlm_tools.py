"""The KenLM command-line tools (lmplz, build_binary) built by `make setup` into .tools/kenlm/bin."""
from __future__ import annotations

import os
import re
from pathlib import Path

from unnatural import ROOT

TOOLS = ROOT / ".tools" / "kenlm" / "bin"
# lmplz's sort memory (its -S), at most: a quarter of this 24 GiB machine leaves room for the rest of the
# pipeline. Below it, memory_for() sizes it from the corpus: lmplz takes all of -S whatever the corpus (a
# one-file corpus took 1 GB), and sorts on disk (-T) what does not fit.
DEFAULT_MEMORY = os.environ.get("UNNATURAL_LMPLZ_MEMORY", "6G")
# -S per byte of the sources: the JDK (208 MB by sources_bytes) needs about 50 MB, and the same ARPA file comes
# out at -S 100M as at 6G (docs/scale.md). A larger -S is not free: lmplz sets up its counting table for all of it
# before it reads, and while the tokens streamed into it waited: the default model took 21.1 s at 6G, 17.0 at
# 2G and 1G (docs/speed-ranker.md, "Building the model"). 4 gives the JDK 794 MB, CodRep 2018's four data
# sets 1.9 GB.
MEMORY_PER_BYTE = 4
MIN_MEMORY = 64 * 2**20     # lmplz's vocabulary hash alone takes 24 MiB
_SIZE = re.compile(r"\d+(\.\d+)?[bkKMGT%]?")


def check_memory(memory: str) -> str:
    """An lmplz -S size (e.g. 500M, 2G, 80%: a number with lmplz's suffix, K by default), or ValueError."""
    if not _SIZE.fullmatch(memory):
        raise ValueError(f"memory {memory!r} is not a size such as 500M, 2G or 80%")
    return memory


def memory_for(corpus_bytes: int, cap: str = DEFAULT_MEMORY) -> str:
    """lmplz's -S for a corpus of `corpus_bytes`: MEMORY_PER_BYTE times it, at least MIN_MEMORY, at most `cap`."""
    mib = max(MIN_MEMORY, MEMORY_PER_BYTE * corpus_bytes) // 2**20
    match = re.fullmatch(r"(\d+)([MG])", cap)
    if match:   # the cap in MiB, when it says (a percentage of the machine's memory is left to lmplz)
        mib = min(mib, int(match.group(1)) * (1024 if match.group(2) == "G" else 1))
    elif cap:
        return cap
    return f"{mib}M"


class KenlmError(RuntimeError):
    pass


def tool(name: str) -> str:
    import shutil  # here: bin/rank, which imports this module for its errors, never runs the tools
    for candidate in (TOOLS / name, shutil.which(name)):
        if candidate and Path(candidate).exists():
            return str(candidate)
    raise KenlmError(f"{name} not found in {TOOLS}; run 'make setup'")


def lmplz(corpus: Path, arpa: Path, order: int, tmpdir: Path, memory: str = DEFAULT_MEMORY) -> list[str]:
    """Estimate an ARPA model; retries with --discount_fallback when the corpus is too small for
    Kneser-Ney's discounts. Returns the argument list that succeeded (for the signature)."""
    base = [tool("lmplz"), "-o", str(order), "-S", memory, "-T", str(tmpdir), "--text", str(corpus),
            "--arpa", str(arpa)]
    import subprocess  # (in each function, not at the top: bin/rank imports this module for KenlmError)
    for extra in ([], ["--discount_fallback"]):
        args = base + extra
        proc = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if proc.returncode == 0:
            return ["lmplz", "-o", str(order), "-S", memory] + extra
        if "discount_fallback" not in proc.stderr:
            break
    raise KenlmError("lmplz failed: " + _last_line(proc.stderr))


FALLBACK_USED = "Substituting fallback discounts"   # what lmplz prints when --discount_fallback took effect


class LmplzPipe:
    """lmplz estimating an ARPA model from what is written to its standard input while it is written, so that
    it counts n-grams while the corpus is still being tokenized. --discount_fallback is always given: it
    changes nothing unless Kneser-Ney's discounts fail (then lmplz says so, and `close` records it), which is
    what `lmplz` would retry with."""

    def __init__(self, arpa: Path, order: int, tmpdir: Path, memory: str = DEFAULT_MEMORY):
        import subprocess
        self.order, self.memory = order, memory
        self._log = open(Path(tmpdir) / f"{Path(arpa).name}.lmplz.log", "w+")
        self._proc = subprocess.Popen(
            [tool("lmplz"), "-o", str(order), "-S", memory, "-T", str(tmpdir), "--arpa", str(arpa),
             "--discount_fallback"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=self._log)

    def write(self, data: bytes) -> None:
        try:
            self._proc.stdin.write(data)
        except BrokenPipeError:   # lmplz stopped: close() reports why
            pass

    def close(self) -> list[str]:
        """Wait for the ARPA file; the arguments that made it (as `lmplz` returns them)."""
        try:
            self._proc.stdin.close()
        except BrokenPipeError:
            pass
        code = self._proc.wait()
        self._log.seek(0)
        log = self._log.read()
        self._log.close()
        if code != 0:
            raise KenlmError("lmplz failed: " + _last_line(log))
        return ["lmplz", "-o", str(self.order), "-S", self.memory] + (
            ["--discount_fallback"] if FALLBACK_USED in log else [])

    def kill(self) -> None:
        """Stop lmplz (an interrupted or failed build)."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._log.close()

    def __enter__(self) -> "LmplzPipe":
        return self

    def __exit__(self, kind, value, tb) -> None:
        if kind is not None:
            self.kill()


# The probing model's buckets per n-gram (build_binary -p; KenLM's default 1.5). A lookup stops at the first
# order whose n-gram is missing, and a linear probe for a missing key runs on until an empty bucket: about 5
# buckets at 1.5, 2.5 at 2. At 2 the default model is a third larger (15 MB) and ranks 3-11% faster; at 3,
# twice as large and no faster than at 2 in paired runs (docs/speed-profile.md, "KenLM's formats").
PROBING_MULTIPLIER = "2"
PROBING = ["-p", PROBING_MULTIPLIER, "probing"]   # the format bin/build-lm makes


def build_binary(arpa: Path, binary: Path, model_format: list[str] = PROBING) -> list[str]:
    """A binary model of lmplz's `arpa` at `binary`, in `model_format` (build_binary's arguments before the
    files; bench/formats.py asks for the others); the arguments it was made with (for the signature)."""
    import subprocess
    args = ["-s", *model_format]
    proc = subprocess.run([tool("build_binary"), *args, str(arpa), str(binary)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise KenlmError("build_binary failed: " + _last_line(proc.stderr))
    return args


def _last_line(text: str) -> str:
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1] if lines else "(no message)"
