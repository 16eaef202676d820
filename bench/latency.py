"""How fast this machine answers random memory reads, for bin/bench's notes: a pointer chase over a table the
size of the model and over one larger than any cache, in C (compiled on first use into the bench's folder).

The ranker's KenLM lookups are random reads into the model's hash tables. They cost a cache hit while the
model fits in the part of the L3 cache that the machine's other work leaves it, and a trip to memory when it
does not; tree-sitter's parse, the floor, barely reads memory at random. On this project's 2-vCPU VM, within one
day, reads over 8 MiB took 17 ns at one time and 56-121 ns at others, against 155-175 ns beyond the cache,
and the same `bin/rank --workers 1` on validation took 1.07 s one day and 1.48-1.69 s the next, while the floor
moved far less (docs/speed-profile.md, "The machine's memory"). A ratio to the floor is comparable only between
runs whose reads cost alike.

    python -m bench.latency [MiB ...]      prints 'MiB ns/read' lines
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

# A random cyclic permutation of the table's words, followed for `reads` steps: every read depends on the one
# before, so the time is the latency of a read that misses every cache the table does not fit in.
SOURCE = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
  if (argc != 3) return 2;
  const size_t n = strtoull(argv[1], 0, 10) / sizeof(size_t), reads = strtoull(argv[2], 0, 10);
  if (n < 2) return 2;
  size_t *next = malloc(n * sizeof *next), *order = malloc(n * sizeof *order);
  if (!next || !order) return 1;
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < n; ++i) order[i] = i;
  for (size_t i = n - 1; i > 0; --i) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    const size_t j = x % (i + 1), t = order[i];
    order[i] = order[j]; order[j] = t;
  }
  for (size_t i = 0; i < n; ++i) next[order[i]] = order[(i + 1) % n];
  size_t at = order[0];
  for (size_t i = 0; i < n; ++i) at = next[at];   /* once around: the table paged in */
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (size_t i = 0; i < reads; ++i) at = next[at];
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("%.2f %zu\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / reads, at & 1);
  return 0;
}
"""
READS = 2_000_000


def probe_binary(folder: Path) -> Path | None:
    """The chase, compiled into `folder` (once); None without a C compiler."""
    exe = folder / "latency-probe"
    if exe.is_file():
        return exe
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    src = folder / "latency-probe.c"
    src.write_text(SOURCE)
    proc = subprocess.run([cc, "-O2", "-o", str(exe), str(src)], capture_output=True, text=True)
    return exe if proc.returncode == 0 else None


def read_ns(exe: Path, size: int, reads: int = READS) -> float:
    """Nanoseconds a dependent random read over a table of `size` bytes takes."""
    proc = subprocess.run([str(exe), str(size), str(reads)], capture_output=True, text=True, check=True)
    return float(proc.stdout.split()[0])


FAR = 128 << 20   # larger than any cache


def measure(folder: Path, model_bytes: int) -> tuple[float, float] | None:
    """(ns a read over the model's size, ns a read over FAR), or None without a C compiler or when the probe
    fails (no memory for its table): the bench's note leaves the line out."""
    exe = probe_binary(folder)
    if exe is None:
        return None
    try:
        return read_ns(exe, model_bytes), read_ns(exe, FAR)
    except (subprocess.CalledProcessError, OSError, ValueError, IndexError):
        return None


def note(before: tuple[float, float] | None, after: tuple[float, float] | None, model_bytes: int) -> str:
    """bin/bench's line on random reads, measured before and after its runs (nothing without a compiler)."""
    if before is None or after is None:
        return ""
    return (f"Random reads (bench/latency.py, each depending on the last), before and after the runs: "
            f"{before[0]:.0f} and {after[0]:.0f} ns over {model_bytes / 2**20:.0f} MiB (the model's size), "
            f"{before[1]:.0f} and {after[1]:.0f} ns over {FAR >> 20} MiB. The model's lookups are such reads: the "
            "nearer the first figures are to the second, the less of the L3 cache the machine's other work left "
            "the ranker, and the slower it ranks against the floor.")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        sizes = [float(a) for a in argv] or [1, 8, 16, 64, 128]
    except ValueError:
        print(f"latency: error: sizes in MiB expected, not {' '.join(argv)}", file=sys.stderr)
        return 2
    exe = probe_binary(Path(".bench"))
    if exe is None:
        print("latency: error: no C compiler (cc) to build the probe", file=sys.stderr)
        return 2
    for mib in sizes:
        print(f"{mib:g} {read_ns(exe, int(mib * 2**20)):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
