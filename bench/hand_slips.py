"""Hand-made slips benchmark of bin/check (`bin/check-bench --hand-slips`): the twelve kinds of slip a
reviewer sees at a glance (evaluation/hand_slips.py), injected into repositories whose CI enforces a
formatter, one slip per slipped file, so that the truth is certain: a finding at a slip is right, any other
finding is a false alarm.

Each repository (a folder of `.data/enforced`, laid out as its README says) is copied to
`.cache/check-bench/hand-slips/<repository>`, made a git work tree with one commit of its files as they are,
then `PER_KIND` files per kind are slipped in the work tree, and `bin/check --fix --format json` runs once on
it, as a user would. Per kind and per repository: slips found (a finding on a gap the slip changed), precision
of all findings, slipped files `--fix` restored byte for byte, files without a slip that `--fix` changed, and
findings per 1000 lines of the files without a slip.
"""
from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from evaluation.hand_slips import KINDS, HandSlip, inject, seeded_order
from formats.files import InputError, read_source
from unnatural import ROOT, cli

ENFORCED = ROOT / ".data" / "enforced"
# More formatter-enforced repositories, made from public snapshots (docs/results/hand-slips.md names each
# repository and commit): a folder per repository, its `src/*/java` files
DEVREPOS = ROOT / ".data" / "devrepos"
WORK = ROOT / ".cache" / "check-bench" / "hand-slips"
PER_KIND = 3     # slipped files per kind and repository (the acceptance's sets: 134 slips in 4 repositories)
SEED = 49
# The repositories calibration may see; the others are held out (reported apart)
DEVELOPMENT = ("NullAway", "flink-cdc", "spring-boot", "tritium", "palantir-java-format")


def repositories(roots=(ENFORCED, DEVREPOS)) -> dict[str, Path]:
    """name -> folder of every repository under `roots` (those not there are left out)."""
    return {d.name: d for root in roots if root.is_dir() for d in sorted(root.iterdir()) if d.is_dir()}


@dataclass
class Tally:
    """What one run found, per kind (and in all)."""
    slips: dict = field(default_factory=lambda: defaultdict(int))
    found: dict = field(default_factory=lambda: defaultdict(int))
    restored: dict = field(default_factory=lambda: defaultdict(int))
    findings: int = 0
    right: int = 0
    clean_files: int = 0
    clean_lines: int = 0
    clean_findings: int = 0
    clean_changed: int = 0

    def add(self, other: "Tally") -> None:
        for name in ("slips", "found", "restored"):
            for k, v in getattr(other, name).items():
                getattr(self, name)[k] += v
        for name in ("findings", "right", "clean_files", "clean_lines", "clean_findings", "clean_changed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def java_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.java") if p.is_file())


def make_repo(source: Path, dest: Path, per_kind: int, seed: int) -> dict[str, HandSlip]:
    """A fresh work tree of `source` at `dest`, committed as it is, with slips written into it (path relative
    to `dest` -> its slip)."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".git"))
    for cmd in (["init", "-q"], ["add", "-A"], ["-c", "user.name=bench", "-c", "user.email=bench@localhost",
                                                "commit", "-q", "-m", "base"]):
        subprocess.run(["git", *cmd], cwd=dest, check=True, capture_output=True)
    files = [str(p.relative_to(dest)) for p in java_files(dest)]
    rng = random.Random(seed)
    slips: dict[str, HandSlip] = {}
    wanted = {k: per_kind for k in KINDS}
    for rel in seeded_order(files, seed):   # until each kind has its share
        if not any(wanted.values()):
            break
        try:
            text = read_source(dest / rel)
        except InputError:
            continue
        for kind in sorted((k for k in KINDS if wanted[k]), key=lambda k: (-wanted[k], rng.random())):
            slip = inject(text, kind, rng)
            if slip is not None:
                (dest / rel).write_text(slip.slipped, encoding="utf-8", newline="")
                slips[rel] = slip
                wanted[kind] -= 1
                break
    return slips


def run_check(root: Path, args: list[str], workers: int) -> list[dict]:
    proc = subprocess.run([str(ROOT / "bin" / "check"), "--format", "json", "--quiet", "--workers", str(workers),
                           *args, "."], cwd=root, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        tail = proc.stderr.strip().splitlines()
        raise cli.CommandError(f"bin/check failed on {root}: {tail[-1] if tail else proc.returncode}")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def score(root: Path, slips: dict[str, HandSlip], findings: list[dict], originals: dict[str, str]) -> Tally:
    """The tally of one repository's run: `findings` (bin/check's JSON, paths relative to `root`), the files
    after --fix on disk, `originals` the text of every file before the slips."""
    t = Tally()
    hit: set[str] = set()
    for f in findings:
        rel = f["path"]
        t.findings += 1
        slip = slips.get(rel)
        start = f["gap_offset"] - 1
        if slip is not None and slip.touched(start, start + len(f["original"])):
            t.right += 1
            hit.add(rel)
        elif slip is None:
            t.clean_findings += 1
    for rel, slip in slips.items():
        t.slips[slip.kind] += 1
        t.found[slip.kind] += rel in hit
        t.restored[slip.kind] += read_source(root / rel) == slip.original
    for rel, text in originals.items():
        if rel in slips:
            continue
        t.clean_files += 1
        t.clean_lines += text.count("\n") + 1
        t.clean_changed += read_source(root / rel) != text
    return t


def run_repo(name: str, source: Path, args: list[str], workers: int, per_kind: int = PER_KIND, seed: int = SEED,
             work: Path = WORK) -> tuple[Tally, list[dict], dict[str, HandSlip]]:
    dest = work / name
    slips = make_repo(source, dest, per_kind, seed)
    originals = {}
    for p in java_files(dest):
        rel = str(p.relative_to(dest))
        originals[rel] = slips[rel].original if rel in slips else read_source(p)
    findings = run_check(dest, ["--fix", *args], workers)
    return score(dest, slips, findings, originals), findings, slips


# The habit belief's calibration: every break bin/check finds (no finding of the ranking: a least score none
# reaches) in the development repositories, slipped with each of these seeds, labelled by the slips
CAL_SEEDS = (1, 2, 3, 4)
# the false findings per 1000 lines of code without a slip that the habit breaks may make at each sensitivity:
# below the acceptance's 0.02 at `medium`, with room for the ranking's findings
HABIT_BUDGETS = {"low": 0.005, "medium": 0.016, "high": 0.1}
HAND = "hand slips"


def calibration_breaks(repos: dict[str, Path], seeds, workers: int, work: Path = WORK):
    """Every habit break in `repos` slipped with each of `seeds`, labelled (right: on a gap a slip changed;
    clean: in a file without a slip; family HAND), and the lines and files without a slip."""
    from bench.calibration_fit import ALL_BREAKS
    out, lines, files = [], 0, 0
    (work / "calibration").mkdir(parents=True, exist_ok=True)
    with open(work / "calibration" / "habit-breaks.jsonl", "w") as keep:   # for a look at what was labelled how
        for name, source in repos.items():
            for seed in seeds:
                dest = work / "calibration" / f"{name}-{seed}"
                slips = make_repo(source, dest, PER_KIND, seed)
                for labelled, record in _labelled(run_check(dest, ALL_BREAKS, workers), slips, f"{name}-{seed}"):
                    out.append(labelled)
                    keep.write(json.dumps(record) + "\n")
                for rel, slip in slips.items():   # and every slip, a candidate or not
                    keep.write(json.dumps({"slip": slip.kind, "file": f"{name}-{seed}/{rel}"}) + "\n")
                for p in java_files(dest):
                    if str(p.relative_to(dest)) not in slips:
                        files += 1
                        lines += read_source(p).count("\n") + 1
                shutil.rmtree(dest)
                print(f"calibration: {name} seed {seed}: {len(out)} breaks so far", file=sys.stderr)
    return out, lines, files


def _labelled(findings: list[dict], slips: dict[str, HandSlip], run: str):
    """The habit breaks of one run (`run`: its name; a block shifted whole is one break: its lines that follow
    the header carry its evidence), each labelled by `slips`, with the record kept of it."""
    from bench.calibration_fit import Labelled
    seen = set()
    for f in findings:
        key = (f["path"], json.dumps(f["evidence"], sort_keys=True))
        if key in seen:
            continue
        seen.add(key)
        slip, start = slips.get(f["path"]), f["gap_offset"] - 1
        labelled = Labelled.of_finding(f, bool(slip and slip.touched(start, start + len(f["original"]))),
                                       slip is None, f"{run}/{f['path']}", HAND)
        yield labelled, {**f, "right": labelled.right, "clean": labelled.clean, "file": labelled.file,
                         "kind": slip.kind if slip else ""}


def calibrate(workers: int, repos=DEVELOPMENT, seeds=CAL_SEEDS, others=(), families=None) -> None:
    """The habit belief fitted on the hand-made slips of the development repositories and `others` (more
    labelled breaks: (evidence, right, in a clean file, file, family), with their `families`' budgets), its
    curve the hand slips', into CALIBRATION (the rest of it kept)."""
    from dataclasses import replace

    from bench.calibration_fit import Family, fit_habits
    from check.calibration import CALIBRATION, Calibration
    found = repositories()
    breaks, lines, files = calibration_breaks({r: found[r] for r in repos if r in found}, seeds, workers)
    belief = fit_habits(breaks + list(others), {HAND: Family(lines, files, HABIT_BUDGETS, {}), **(families or {})},
                        HAND)
    cal = Calibration.load(CALIBRATION)
    measured = {k: v for k, v in cal.measured.items() if not k.startswith("habit")}
    measured.update(habit_repositories=list(repos), habit_seeds=list(seeds), habit_breaks=len(breaks) + len(others),
                    habit_budgets=HABIT_BUDGETS, habit_clean_lines=lines)
    replace(cal, habits=belief, measured=measured).save(CALIBRATION)
    print(f"calibration: {CALIBRATION.relative_to(ROOT)}: habit cut-offs {belief.cutoffs}", file=sys.stderr)


DOCS = "hand-slips.md"          # its page, beside bin/check-bench's --docs page
MARKER = "check-bench-hand-slips"


def add_arguments(p) -> None:
    """bin/check-bench's options for this benchmark."""
    p.add_argument("--hand-slips", action="store_true",
                   help="instead: the twelve kinds of hand-made slip injected into formatter-enforced repositories "
                        f"(.data/enforced, .data/devrepos; with --docs, into {DOCS})")
    p.add_argument("--calibrate-hand-slips", action="store_true",
                   help="fit the habit belief on the hand-made slips of the development repositories first")


def run(args, signature_line) -> list[str]:
    """The benchmark as bin/check-bench runs it, at each of `args.sensitivity`: its Markdown lines."""
    known = repositories()
    if not known:
        raise cli.CommandError(f"no repositories under {ENFORCED} or {DEVREPOS}: run 'make data'")
    out = []
    for sensitivity in args.sensitivity:
        rows = []
        for name, source in known.items():
            t, _, _ = run_repo(name, source, ["--sensitivity", sensitivity], args.workers)
            rows.append((name + ("" if name in DEVELOPMENT else " (held out)"), t))
            print(f"hand slips {name} {sensitivity}: {sum(t.found.values())} of {sum(t.slips.values())} found",
                  file=sys.stderr)
        out += [f"### `{sensitivity}`", "", *table(rows).splitlines(), ""]
    return out + [f"Each repository: `bin/check --fix --format json --sensitivity S --workers {args.workers} .` in a "
                  f"work tree of its files with {PER_KIND} files per kind slipped (seed {SEED}).", "",
                  signature_line([("repositories", len(known)), ("per-kind", PER_KIND), ("seed", SEED)])]


def table(rows: list[tuple[str, Tally]]) -> str:
    """The per-repository table, then per kind over all of them."""
    out = ["| repository | slips | found | precision | `--fix` restores | files without a slip changed | "
           "findings / 1000 lines without a slip |", "|---|---:|---:|---:|---:|---:|---:|"]
    total = Tally()
    for name, t in rows:
        total.add(t)
        out.append(_row(name, t))
    out.append(_row("**all**", total))
    out += ["", "| kind | slips | found | `--fix` restores |", "|---|---:|---:|---:|"]
    for k in KINDS:
        if total.slips[k]:
            out.append(f"| {k} | {total.slips[k]} | {total.found[k]} | {total.restored[k]} |")
    return "\n".join(out) + "\n"


def _row(name: str, t: Tally) -> str:
    slips = sum(t.slips.values())
    return (f"| {name} | {slips} | {sum(t.found.values()) / max(slips, 1):.3f} | {t.right / max(t.findings, 1):.3f} | "
            f"{sum(t.restored.values()) / max(slips, 1):.3f} | {t.clean_changed} of {t.clean_files} | "
            f"{1000 * t.clean_findings / max(t.clean_lines, 1):.3f} |")
