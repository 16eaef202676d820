"""Which `bin/rank` the measuring tools run: the working tree's, or a snapshot of a git revision.

Several people edit `ranker/` while measurements run; `--ranker REV` pins the ranker (and everything it
imports) to a committed revision, extracted once with `git archive` into .cache/snapshots/<sha>/, so that
every row of a report is made with the same code. The label goes into the report's signature.

The compiled modules are not in git: the snapshot gets the working tree's, which is right only when REV's
native sources are the same as the working tree's (checked; otherwise check REV out and `make setup`). The
snapshot runs with PYTHONSAFEPATH, so that `python -m` does not import the working folder's packages instead.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from unnatural import ROOT

CODE_PATHS = ("unnatural", "parsing", "formats", "lm", "ranker", "bin")   # what a dirty label looks at
NATIVE = ("parsing", "lm", "ranker")   # the compiled modules bin/rank needs: <package>/native.cpp -> _native*.so
NATIVE_SHARED = ("unnatural/buffers.hh",)   # what they include besides


class RankerError(ValueError):
    pass


@dataclass(frozen=True)
class RankCommand:
    argv: tuple[str, ...]       # prefix: append the bin/rank arguments
    env: dict | None            # None: inherit
    label: str                  # for signatures: worktree(<sha>[+dirty]) or commit(<sha>)
    root: Path | None = None    # the checkout whose code it runs

    def args(self, *rest: str) -> list[str]:
        return [*self.argv, *rest]


def _git(*args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"})
    if proc.returncode != 0:
        raise RankerError(f"git {' '.join(args)}: {(proc.stderr.strip().splitlines() or ['failed'])[-1]}")
    return proc.stdout.strip()


def python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def worktree() -> RankCommand:
    try:
        head = _git("rev-parse", "--short=12", "HEAD")
        dirty = bool(_git("status", "--porcelain", "--untracked-files=no", "--", *CODE_PATHS))
        label = f"worktree({head}{'+dirty' if dirty else ''})"
    except (RankerError, OSError):
        label = "worktree(no-git)"
    return RankCommand((str(ROOT / "bin" / "rank"),), None, label, ROOT)


def compiled_modules(sha: str) -> list[Path]:
    """The working tree's compiled modules, when they were built from the native sources `sha` has."""
    for shared in NATIVE_SHARED:
        try:
            at_rev = _git("rev-parse", "--verify", "--quiet", f"{sha}:{shared}")
        except RankerError:
            continue
        if _git("hash-object", shared) != at_rev:
            raise RankerError(f"--ranker {sha[:12]}: its {shared} is not the working tree's, which the compiled "
                              "modules include; check that revision out and run 'make setup' to measure it")
    out = []
    for package in NATIVE:
        source = f"{package}/native.cpp"
        try:
            at_rev = _git("rev-parse", "--verify", "--quiet", f"{sha}:{source}")
        except RankerError:
            continue   # that revision has no compiled module here
        built = sorted((ROOT / package).glob("_native*.so"))
        if _git("hash-object", source) != at_rev or not built or \
                built[0].stat().st_mtime < (ROOT / source).stat().st_mtime:
            raise RankerError(f"--ranker {sha[:12]}: its {source} is not the one the working tree's compiled "
                              "module was built from; check that revision out and run 'make setup' to measure it")
        out.append(built[0])
    return out


def snapshot(rev: str, cache: Path | None = None) -> RankCommand:
    """bin/rank of revision `rev`, run from a `git archive` copy of it."""
    try:
        sha = _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except RankerError:
        raise RankerError(f"--ranker {rev}: not a commit of this repository") from None
    cache = cache or ROOT / ".cache" / "snapshots"
    snap = cache / sha[:12]
    if not (snap / ".complete").exists():
        modules = compiled_modules(sha)
        partial = cache / f"{sha[:12]}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", "--format=tar", sha], cwd=ROOT, capture_output=True)
        if archive.returncode != 0:
            raise RankerError(f"git archive {sha[:12]}: {archive.stderr.decode(errors='replace').strip()}")
        subprocess.run(["tar", "-x", "-C", str(partial)], input=archive.stdout, check=True)
        for module in modules:
            shutil.copy2(module, partial / module.relative_to(ROOT))
        (partial / ".complete").write_text(sha + "\n")
        shutil.rmtree(snap, ignore_errors=True)
        partial.rename(snap)
    env = {**os.environ, "PYTHONPATH": str(snap), "PYTHONSAFEPATH": "1"}
    return RankCommand((python(), "-m", "ranker.cli"), env, f"commit({sha[:12]})", snap)


def compile_bytecode(cmd: RankCommand) -> None:
    """Write the bytecode of the ranker's packages beside them, as its first run does: where
    PYTHONDONTWRITEBYTECODE is set (this machine's agents and CI) no run writes it, and every start-up would
    compile each module from source, 20-odd ms of bin/rank's 85 (docs/speed-profile.md), which a user's second run
    does not pay."""
    if cmd.root is None:
        return
    packages = [str(cmd.root / p) for p in CODE_PATHS if (cmd.root / p / "__init__.py").exists()]
    subprocess.run([python(), "-m", "compileall", "-q", *packages], stdout=subprocess.DEVNULL, check=False)


def rank_command(rev: str | None) -> RankCommand:
    return worktree() if rev is None else snapshot(rev)
