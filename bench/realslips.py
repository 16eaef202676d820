"""The real-slip benchmark of bin/check (`bin/check-bench --realslips`; `make check-bench` runs it after the
detection sets): whitespace slips that developers made and fixed, from the git histories of Java projects
(`.data/realslips`, formats/realslips.py; `make data` unpacks it).

Each project folder is copied fresh to `.cache/check-bench/realslips/<sensitivity>/<project>` and checked
as one folder, as the set's README scores it: `bin/check --format json` at the sensitivity (the findings
kept beside the copy, `<project>.jsonl`), then `bin/check --fix` on the copy. The figures
(evaluation/realslips.py) are those of the reference scorer run on that folder, `realslips.py score --set
.data/realslips --findings F --fixed F` with F = `.cache/check-bench/realslips/<sensitivity>`: when the
shared data is beside the checkout, it is run and every figure compared to 3 decimals (a warning for each
that differs).

Held out: projects named by `--held-out P1,P2` (or HELD_OUT below, for a calibration that leaves them out)
are marked and totalled apart from the others; by default none is.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

from evaluation import slip_ceiling
from evaluation.realslips import Counts, Outputs, clean_texts, disagreements, read_outputs, score_project, total
from formats.files import InputError
from formats.realslips import KINDS, SlipSet, read_set, whatever_the_taste
from unnatural import ROOT, cli

DEFAULT_SET = ROOT / ".data" / "realslips"
# The set's reference scorer: where it is (the shared data beside the checkout), every run is checked against it
REFERENCE = ROOT.parent / "shared" / "data" / "realslips" / "realslips.py"
WORK = ROOT / ".cache" / "check-bench" / "realslips"
# The projects a calibration on this set leaves out (set it where the calibration is fitted on the others):
# reported apart, as the held-out rows and totals.
HELD_OUT: tuple[str, ...] = ("google-truth", "jenkins", "recaf")   # 2 spaces, 4 spaces, tabs
MARKER = "check-bench-realslips"   # the marker comments around the tables
DOCS = "realslips-bench.md"        # the page they go in, beside bin/check-bench's --docs page
CEILING_MARKER, CEILING_DOCS = "realslips-ceiling", "realslips-ceiling.md"   # --realslips-ceiling's


def add_arguments(p) -> None:
    """bin/check-bench's options for this benchmark."""
    p.add_argument("--realslips", action="store_true",
                   help="only the real-slip set (whitespace slips developers fixed, .data/realslips)")
    p.add_argument("--realslips-set", type=Path, default=DEFAULT_SET, metavar="DIR",
                   help=f"the real-slip set (default {DEFAULT_SET.relative_to(ROOT)})")
    p.add_argument("--realslips-ceiling", action="store_true",
                   help="instead: how much of the real-slip set a checker of a gap's pattern can find at all "
                        f"(evaluation/slip_ceiling.py; with --docs, into {CEILING_DOCS})")
    p.add_argument("--held-out", default=None, metavar="P1,P2,...",
                   help="real-slip projects held out from calibration: reported apart (default: "
                        f"{','.join(HELD_OUT) or 'none'})")


def available(folder: Path) -> bool:
    return (folder / "truth.jsonl").is_file()


def held_out_projects(option: str | None, slips: SlipSet) -> tuple[str, ...]:
    names = tuple(n for n in (option.split(",") if option is not None else HELD_OUT) if n)
    unknown = sorted(set(names) - set(slips.projects))
    if unknown:
        raise cli.CommandError(f"--held-out: no project {', '.join(unknown)} in {slips.root} "
                               f"(projects: {', '.join(slips.projects)})")
    return names


def run_check(folder: Path, args: list[str], workers: int, learn: str | None) -> str:
    """bin/check's stdout on `folder`."""
    proc = subprocess.run([str(ROOT / "bin" / "check"), "--quiet", "--workers", str(workers),
                           *(["--learn", learn] if learn else []), *args, str(folder)], capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        tail = proc.stderr.strip().splitlines()
        raise cli.CommandError(f"bin/check failed on {folder}: {tail[-1] if tail else proc.returncode}")
    return proc.stdout


def run_project(slips: SlipSet, project: str, sensitivity: str, workers: int, learn: str | None = None,
                work: Path | None = None) -> Outputs:
    """bin/check's findings on a fresh copy of `project`'s folder, and the copy as its --fix leaves it."""
    work = work or WORK
    dest = work / sensitivity / project
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    if not slips.folder(project).is_dir():
        raise cli.CommandError(f"{slips.folder(project)}: no such folder (the set's project {project})")
    shutil.copytree(slips.folder(project), dest)
    findings = work / sensitivity / f"{project}.jsonl"
    findings.write_text(run_check(dest, ["--format", "json", "--sensitivity", sensitivity], workers, learn))
    run_check(dest, ["--fix", "--format", "json", "--sensitivity", sensitivity], workers, learn)
    return read_outputs(findings, dest)


def measure(slips: SlipSet, sensitivities, workers: int, learn: str | None = None,
            work: Path | None = None) -> dict[str, dict[str, Counts]]:
    """sensitivity -> project -> its counts (the outputs kept under `work`, default WORK)."""
    work = work or WORK
    out: dict[str, dict[str, Counts]] = {}
    for s in sensitivities:
        out[s] = {}
        for p in slips.projects:
            outputs = run_project(slips, p, s, workers, learn, work)
            for problem in outputs.problems:
                cli.warning("check-bench", problem)
            c = score_project([x for x in slips.changes if x.project == p], [x for x in slips.clean if x.project == p],
                              outputs, clean_texts(slips, p))
            out[s][p] = c
            print(f"realslips {p} {s}: found {c.gaps.share('found'):.3f} exact {c.gaps.share('exact'):.3f} "
                  f"false/KLOC {c.false_per_kloc:.3f}", file=sys.stderr)
        (work / s / "scores.json").write_text(json.dumps({p: asdict(c) for p, c in out[s].items()}, indent=1))
        against_reference(slips, out[s], work / s)
    return out


def against_reference(slips: SlipSet, per: dict[str, Counts], folder: Path) -> None:
    """The reference scorer run on the outputs kept in `folder`: a line on stderr saying whether every figure
    agrees to 3 decimals (a warning for each that does not); nothing when the scorer is absent."""
    if not REFERENCE.exists():
        return
    out = folder / "reference-scores.json"
    proc = subprocess.run([sys.executable, str(REFERENCE), "score", "--set", str(slips.root), "--findings",
                           str(folder), "--fixed", str(folder), "--out", str(out)], capture_output=True, text=True)
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()
        cli.warning("check-bench", f"the reference scorer failed on {folder}: {tail[-1] if tail else proc.returncode}")
        return
    differ = disagreements(per, json.loads(out.read_text()))
    for line in differ:
        cli.warning("check-bench", f"{folder.name}: {line}")
    if not differ:
        print(f"realslips {folder.name}: every figure agrees with the reference scorer to 3 decimals",
              file=sys.stderr)


PROJECT_HEAD = ("| project | held out | sensitivity | files | gaps | found | toward | exact | line "
                "| files with a finding | other / file | false / KLOC | fix exact | fix closer | fix same "
                "| fix further | clean changed by fix |")


def _project_row(name: str, held: str, sensitivity: str, c: Counts) -> str:
    g = c.gaps
    return (f"| {name} | {held} | {sensitivity} | {c.files} | {g.gaps} | {g.share('found'):.3f} | "
            f"{g.share('toward'):.3f} | {g.share('exact'):.3f} | {g.share('line'):.3f} | "
            f"{c.per_file('files_found'):.3f} | "
            f"{c.per_file('other'):.3f} | {c.false_per_kloc:.3f} | {c.per_file('fix_exact'):.3f} | "
            f"{c.per_file('fix_closer'):.3f} | {c.per_file('fix_same'):.3f} | {c.per_file('fix_further'):.3f} | "
            f"{c.clean_changed_share:.3f} |")


def _scopes(projects, held_out) -> list[tuple[str, list[str]]]:
    if not held_out:
        return [("all projects", list(projects))]
    return [("development projects", [p for p in projects if p not in held_out]),
            ("held-out projects", [p for p in projects if p in held_out]), ("all projects", list(projects))]


def project_table(results: dict[str, dict[str, Counts]], held_out) -> list[str]:
    out = [PROJECT_HEAD, "|---|---|---|" + "---:|" * 14]
    for s, per in results.items():
        for p, c in per.items():
            out.append(_project_row(p, "yes" if p in held_out else "", s, c))
    for s, per in results.items():
        for label, names in _scopes(per, held_out):
            out.append(_project_row(f"**{label}** ({len(names)})", "", s, total(per[p] for p in names)))
    return out


def _gap_row(name: str, taste: str, sensitivity: str, g) -> str:
    return (f"| {name} | {taste} | {sensitivity} | {g.gaps} | {g.share('found'):.3f} | {g.share('toward'):.3f} | "
            f"{g.share('exact'):.3f} | {g.share('line'):.3f} |")


def kind_table(results: dict[str, dict[str, Counts]], held_out) -> list[str]:
    """Per kind of changed gap (all projects), then the two groups of kinds per scope."""
    out = ["| kind of gap | whatever the taste | sensitivity | gaps | found | toward | exact | line |",
           "|---|---|---|---:|---:|---:|---:|---:|"]
    for s, per in results.items():
        kinds = total(per.values()).kinds
        for k in sorted(kinds, key=lambda k: (KINDS.index(k) if k in KINDS else len(KINDS), k)):
            out.append(_gap_row(k, "yes" if whatever_the_taste(k) else "", s, kinds[k]))
    for s, per in results.items():
        for label, names in _scopes(per, held_out):
            c = total(per[p] for p in names)
            out.append(_gap_row(f"**slips whatever the taste**, {label}", "yes", s, c.group(True)))
            out.append(_gap_row(f"**the rest**, {label}", "", s, c.group(False)))
    return out


def _read(folder: Path) -> SlipSet:
    try:
        slips = read_set(folder)
    except InputError as e:
        raise cli.CommandError(e) from None
    for problem in slips.problems:
        cli.warning("check-bench", problem)
    return slips


def ceiling(args, signature_line) -> list[str]:
    """The real-slip set's ceiling for a checker of a gap's pattern (evaluation/slip_ceiling.py): its tables."""
    slips = _read(args.realslips_set)
    texts = {p: clean_texts(slips, p) for p in slips.projects}
    plain = slip_ceiling.read_gaps(slips, lambda project, file: texts[project][file])
    counted = plain.keyed(slip_ceiling.with_file_counts)
    if plain.unread:
        cli.warning("check-bench", f"{plain.unread} changed gaps in files whose gaps could not be read: left out")
    if not plain.changed or not plain.clean_lines:
        raise cli.CommandError(f"{args.realslips_set}: no changed gaps or no clean lines to measure")
    return [*slip_ceiling.tables(plain, counted), "",
            signature_line([("realslips-ceiling", len(slips.projects)), ("clean-lines", plain.clean_lines)])]


def run(args, signature_line) -> list[str]:
    """The benchmark as bin/check-bench runs it: its Markdown lines (`signature_line(fields)` ends them)."""
    slips = _read(args.realslips_set)
    held_out = held_out_projects(args.held_out, slips)
    results = measure(slips, args.sensitivity, args.workers, args.learn)
    return [*project_table(results, held_out), "", *kind_table(results, held_out), "",
            signature_line([("realslips", len(slips.projects)), ("held-out", ",".join(held_out) or "none")])]
