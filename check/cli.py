"""bin/check: check the formatting of a Java repository against its own style and the default model.

Findings are reported only above a threshold calibrated on the development sets (--sensitivity), each
with a rule, a message, a confidence and the whitespace that fixes it; --diff prints the fixes as a patch,
--fix writes them. Exit status: 0 no findings, 1 findings, 2 usage or input errors (the other files are
still checked and reported), 130 interrupted.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from formats.files import InputError, read_source
from lm.model import LanguageModel
from parsing.schemes import UnknownScheme, get_scheme
from ranker.cli import DEFAULT_MODEL, ensure_default_model, load
from ranker.folder import folder_style
from ranker.rank import Style
from unnatural import cli
from unnatural.signature import signature

from .calibration import DEFAULT_SENSITIVITY, POOLED, SENSITIVITIES, Calibration, CalibrationError
from .engine import MAX_FINDINGS, CheckConfig, check_text
from .findings import CheckedFile, Summary

COMMAND = "check"
LEARN = ("folder", "none")   # how the repository's style is learned (--no-learn: none)
DEFAULT_LEARN = "none"   # until a learning method beats the file alone on the detection sets (docs/check.md)

_worker: dict = {}   # per process: scorer, scheme, config, calibration, styles; set before forking


@dataclass(frozen=True)
class CheckRun:
    """What a run is (its signature line): the model, how it learns, and what it reports."""
    model: str
    learn: str
    report: str     # 'sensitivity:medium', 'confidence:0.9' or 'min-score:2.0'
    calibration: str

    def signature(self, lm: LanguageModel) -> str:
        return signature(COMMAND, [*lm.describe(), ("learn", self.learn), ("report", self.report),
                                   ("calibration", self.calibration)])


def reporting(args, calibration: Calibration) -> tuple[str, dict[str, float]]:
    """What the options ask to report: its name for the signature, and the least score of each rule."""
    if args.min_score is not None:
        return f"min-score:{args.min_score}", {POOLED: args.min_score}
    if args.threshold is not None:
        return f"confidence:{args.threshold}", calibration.least_scores(args.threshold)
    name = args.sensitivity or DEFAULT_SENSITIVITY
    return f"sensitivity:{name}", calibration.least_scores(calibration.cutoffs[name])


def parser() -> cli.ArgumentParser:
    p = cli.parser(COMMAND, __doc__.strip(), formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_EPILOG)
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="Java files, folders or git work trees (in a work tree: its tracked and untracked, "
                        "not ignored *.java files)")
    cli.add_model(p, DEFAULT_MODEL, "KenLM model built by bin/build-lm; the default is built from corpora/ "
                  "on first use")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--sensitivity", choices=SENSITIVITIES, default=None,
                   help=f"how many false alarms to risk for more findings (default {DEFAULT_SENSITIVITY}; "
                        "docs/check.md has the measured precision and recall of each)")
    which.add_argument("--threshold", type=cli.fraction, default=None, metavar="CONFIDENCE",
                   help="report findings whose confidence is at least CONFIDENCE (0..1) instead of a sensitivity's")
    which.add_argument("--min-score", type=float, default=None, metavar="SCORE",
                   help="report every finding whose score (log10 gain) is at least SCORE, whatever its rule and "
                        "confidence (how bench/check.py calibrates)")
    p.add_argument("--learn", choices=LEARN, default=DEFAULT_LEARN,
                   help=f"how the repository's style is learned from the files checked (default {DEFAULT_LEARN})")
    p.add_argument("--no-learn", dest="learn", action="store_const", const="none",
                   help="check each file alone (its own style and the model's)")
    p.add_argument("--max-findings", type=cli.positive_int, default=MAX_FINDINGS, metavar="N",
                   help=f"at most N findings per file (default {MAX_FINDINGS})")
    p.add_argument("--format", default="text", choices=("text", "json", "sarif", "checkstyle", "github"),
                   help="how findings are printed (default text)")
    cli.add_workers(p)
    cli.add_max_bytes(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary line")
    return p


_EPILOG = """exit status: 0 no findings, 1 findings, 2 usage or input errors (the other files are still
checked), 130 interrupted."""


def _check_one(path: str) -> CheckedFile:
    try:
        text = read_source(Path(path), max_bytes=_worker["max_bytes"])
    except InputError as e:
        return CheckedFile(path, None, error=str(e))
    style = _worker["styles"](path) if _worker.get("styles") else Style()
    findings = check_text(_worker["scorer"], _worker["scheme"], text, path, _worker["cfg"], _worker["calibration"],
                          style)
    return CheckedFile(path, text, findings)


def main_run(args) -> int:
    from .discover import files_to_check
    from .output import reporter

    t0 = time.time()
    files, errors = files_to_check(args.paths)
    status = cli.EXIT_USAGE if errors else cli.EXIT_OK
    for e in errors:
        cli.error(COMMAND, e)
    try:
        try:
            calibration = Calibration.load()
        except CalibrationError:
            if args.min_score is None:
                raise
            calibration = Calibration({POOLED: ()}, {})   # calibrating: no confidence yet
        model = ensure_default_model(args.model)
        report, least = reporting(args, calibration)
        run = CheckRun(str(model), args.learn, report, calibration.model or "none")
        from ranker.cli import RankConfig
        scorer, lm = load(RankConfig(str(model)))
    except (FileNotFoundError, UnknownScheme, ValueError, OSError, CalibrationError) as e:
        raise cli.CommandError(e) from None
    scheme = get_scheme(lm.scheme)
    styles = folder_style([str(f) for f in files], scheme, strict=False) if args.learn == "folder" else None
    cfg = CheckConfig(least, args.max_findings)
    _worker.update(scorer=scorer, scheme=scheme, cfg=cfg, calibration=calibration, styles=styles,
                   max_bytes=args.max_bytes)
    report = reporter(args.format, sys.stdout)
    if not args.quiet:
        print(run.signature(lm), file=sys.stderr)
    paths = [str(f) for f in files]
    if args.workers <= 1 or len(paths) <= 1:
        results = map(_check_one, paths)
    else:
        from unnatural.parallel import ordered_map
        results = ordered_map(_check_one, paths, args.workers)
    n_files = n_findings = skipped = lines = 0
    try:
        for checked in results:
            if checked.error:
                cli.error(COMMAND, checked.error)
                skipped += 1
                status = cli.EXIT_USAGE
                continue
            n_files += 1
            n_findings += len(checked.findings)
            lines += checked.text.count("\n") + 1
            report.file(checked)
    finally:
        if hasattr(results, "close"):
            results.close()
    report.finish(Summary(n_files, n_findings, skipped, lines, round(time.time() - t0, 2), run.signature(lm)))
    if status == cli.EXIT_OK and n_findings:
        status = cli.EXIT_FINDINGS
    return status


@cli.command(COMMAND)
def main(argv=None) -> int:
    return main_run(parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
