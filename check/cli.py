"""bin/check: check the formatting of a Java repository against its own style and the default model.

Findings are reported only above a threshold calibrated on the development sets (--sensitivity), each
with a rule, a message, a confidence and the whitespace that fixes it; --diff prints the fixes as a patch,
--fix writes them. With --since REV or --staged (the pre-commit hook's) only the lines the change added or
modified are judged, reported and fixed, by the whole work tree's style. Exit status: 0 no findings, 1
findings, 2 usage or input errors (a PATH that does not exist: the other files are still checked and
reported), 130 interrupted.
"""
from __future__ import annotations

import argparse
import functools
import math
import os
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from tqdm import tqdm

from formats.files import InputError, read_source
from lm.kenlm_tools import KenlmError
from lm.model import LanguageModel
from parsing.offsets import Lines
from parsing.schemes import UnknownScheme, get_scheme
from ranker.cli import DEFAULT_MODEL, RankConfig, ensure_default_model, load
from ranker.learn import LearnConfig, Learned, learn
from ranker.rank import walk_text
from unnatural import cli
from unnatural.signature import signature

from .calibration import (
    DEFAULT_SENSITIVITY,
    LEAST_REPORTED,
    POOLED,
    SENSITIVITIES,
    Calibration,
    CalibrationError,
    HabitBelief,
)
from .config import DEFAULT_LEARN, LEARN_METHODS, learn_method
from .engine import MAX_FINDINGS, CheckConfig, check_text
from .findings import CheckedFile, Summary
from .ignores import RuleChoice, silence
from .output import add_arguments as add_output_arguments
from .output import options_for, reporter
from .report import summary_line

COMMAND = "check"
# The error model (ranker/repairs.py): a repository's errors are of any kind (a space added to a space, a
# line indented one column off), not only CodRep 2019's; and check/calibration.json is fitted on these scores.
EDITS = "real"

_worker: dict = {}   # per process: scorer, scheme, config, calibration, what was learned; set before forking


@dataclass(frozen=True)
class CheckRun:
    """What a run is (its signature line): the model, how it learns, and what it reports."""
    model: str
    learn: LearnConfig
    report: str     # 'sensitivity:medium', 'confidence:0.9' or 'min-score:2.0'
    calibration: str

    def signature(self, lm: LanguageModel) -> str:
        project = self.learn.fields()[1:]   # the project model's folds, order and weight
        return signature(COMMAND, [*lm.describe(), ("learn", self.learn.method), *project, ("edits", EDITS),
                                   ("report", self.report), ("calibration", self.calibration)])


def reporting(args, calibration: Calibration) -> tuple[str, dict[str, float], float]:
    """What the options ask to report: its name for the signature, the least score of each rule and the
    least confidence."""
    if args.min_score is not None:
        return f"min-score:{args.min_score}", {POOLED: args.min_score}, 0.0
    if args.threshold is not None:
        return f"confidence:{args.threshold}", calibration.least_scores(args.threshold), args.threshold
    name = args.sensitivity or DEFAULT_SENSITIVITY
    cutoff = calibration.cutoffs[name]
    floor = LEAST_REPORTED.get(name, -math.inf)
    return f"sensitivity:{name}", {rule: max(s, floor) for rule, s in calibration.least_scores(cutoff).items()}, cutoff


def habit_least(args, believed: HabitBelief | None) -> float:
    """The least belief of a habit break reported (check/breaks.py) by habit belief `believed`
    (check/calibration.py's): every one when calibrating (--min-score), none without a habit belief."""
    if args.min_score is not None:
        return -math.inf
    if believed is None:
        return math.inf
    if args.threshold is not None:
        return believed.least_belief(args.threshold)
    return believed.cutoffs.get(args.sensitivity or DEFAULT_SENSITIVITY, math.inf)


def parser() -> cli.ArgumentParser:
    p = cli.parser(COMMAND, __doc__.strip(), formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_EPILOG)
    p.add_argument("paths", nargs="*", default=["."], metavar="PATH",
                   help="Java files, folders or git work trees (in a work tree: its tracked and untracked, "
                        "not ignored *.java files; default: the current folder)")
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
    p.add_argument("--learn", type=learn_method, choices=LEARN_METHODS, default=None,
                   help="how the repository's style is learned: each file's own alone (file; 'none' is its old "
                        "name), the other files' counts beneath it (folder: in a git work tree, all of its "
                        "files', cached), a model of the other files checked "
                        f"(project), or both (default {DEFAULT_LEARN}; docs/check.md compares them)")
    p.add_argument("--no-learn", dest="learn", action="store_const", const="file",
                   help="check each file alone (its own style and the model's): --learn file")
    p.add_argument("--max-findings", type=cli.positive_int, default=MAX_FINDINGS, metavar="N",
                   help=f"at most N findings per file (default {MAX_FINDINGS})")
    p.add_argument("--diff", action="store_true",
                   help="print the fixes as a unified diff (for git apply) instead of the findings")
    p.add_argument("--fix", action="store_true",
                   help="write the fixes into the files (whitespace only; each file replaced atomically)")
    p.add_argument("--since", metavar="REV",
                   help="report (and --diff, --fix) only findings on the lines added or modified since git "
                        "revision REV, from its merge base with HEAD (a branch: what a pull request onto it "
                        "changes, --since origin/main); the whole repository still teaches its style")
    p.add_argument("--staged", action="store_true",
                   help="report (and --diff, --fix) only findings on the lines staged for the next commit (git's "
                        "index against HEAD; the pre-commit hook's; in a `pre-commit run --from-ref A --to-ref B`, "
                        "the lines changed since A)")
    p.add_argument("--no-cache", action="store_true",
                   help="learn the work tree's style without reading or writing its cache (docs/ci.md)")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="neither check nor learn from files matching GLOB (relative to the repository's root; "
                        "repeatable; also the configuration file's 'exclude', docs/ci.md)")
    p.add_argument("--select", action="append", default=None, metavar="RULE[,RULE...]",
                   help="report only these rules (repeatable; instead of the configuration's 'select'; "
                        "docs/configuration.md)")
    p.add_argument("--ignore", action="append", default=[], metavar="RULE[,RULE...]",
                   help="report none of these rules, nor fix them (repeatable; added to the configuration's "
                        "'ignore')")
    p.add_argument("--report-unused-suppressions", action="store_true",
                   help="a warning for each '// unnatural: ignore' comment (or rule in one) that silenced no "
                        "finding; any makes the exit status 1")
    p.add_argument("--skip-bad-files", action="store_true",
                   help="files that cannot be checked (unreadable, binary, not UTF-8) are warnings that do not "
                        "change the exit status: 1 only for findings (a CI gate; a PATH that does not exist is "
                        "still an error, exit 2)")
    add_output_arguments(p)
    cli.add_workers(p)
    cli.add_cluster(p, "check on a Dask cluster instead of --workers: a scheduler address, or local:N for N local "
                    "worker processes; the same output (docs/scale.md)")
    cli.add_max_bytes(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary line")
    p.add_argument("--explain-rule", action=_ExplainRule, metavar="RULE",
                   help="print what RULE flags, why, an example and its fix, and exit (docs/rules.md)")
    return p


class _ExplainRule(argparse.Action):
    """--explain-rule RULE: the rule's entry on stdout, exit 0; an unknown name lists the rules, exit 2. It acts
    as --help does, so no PATH is needed."""

    def __call__(self, parser, namespace, value, option_string=None):
        from .rule_docs import entry_text, unknown_rule_text
        from .rules import RULES
        if value not in RULES:
            parser.exit(cli.EXIT_USAGE, f"{COMMAND}: error: --explain-rule: {unknown_rule_text(value)}")
        sys.stdout.write(entry_text(value))
        parser.exit(cli.EXIT_OK)


_EPILOG = """exit status: 0 no findings, 1 findings or files skipped (each a warning line; with --skip-bad-files
findings only), 2 usage, input or fatal errors (a PATH that does not exist: the other PATHs are still
checked; not a git work tree or an unknown revision for --since/--staged; a bad configuration file; a fix
that cannot be written), 130 interrupted (docs/errors.md)."""


def _check_one(path: str) -> CheckedFile:
    try:
        text = read_source(Path(path), max_bytes=_worker["max_bytes"])
    except InputError as e:
        return CheckedFile(path, None, error=str(e))
    learned: Learned = _worker["learned"]
    lines = None
    if _worker["changed"] is not None:   # judging a change: the file's changed lines (a new file: all of them)
        lines = _worker["changed"].get(_key(path))
        lines = frozenset(range(1, len(Lines(text).starts) + 1) if lines is None else lines)
    style = learned.style(path)
    walked = walk_text(_worker["scheme"], text, style)   # its parse tells the first syntax error
    findings = check_text(learned.scorer(path) or _worker["scorer"], _worker["scheme"], text, path, _worker["cfg"],
                          _worker["calibration"], style, lines, walked)
    # where the grammar misreads a file, the gaps are not where the code's structure is, and its findings may
    # be wrong (or missed); a file the C++ walk does not cover is parsed once more to tell
    broken = (walked.error_line or None) if walked is not None else _first_error_line(text)
    return CheckedFile(path, text, findings, syntax_error=broken)


def _first_error_line(text: str) -> int | None:
    from parsing.java import BOM, GRAMMAR
    return GRAMMAR.first_error_line(text[1:] if text.startswith(BOM) else text)


def main_run(args) -> int:
    from .discover import files_to_check
    t0 = time.time()
    root = _configure(args)
    files, problems = files_to_check(args.paths, args.max_bytes)
    if args.exclude:
        from .config import excluded, relative_to
        files = [f for f in files if not excluded(relative_to(f, root), args.exclude)]
    # the PATHs, not the files: the revision is checked even when no file is left, and git gets a short list
    # (before the inputs' lines: a bad revision is the one line of a run that stops)
    since, staged = judged_change(args, os.environ)
    changed = _changed_lines(since, args.paths, staged) if since or staged else None
    for problem in problems:   # an input not checked: one line; a PATH naming nothing to read is an error
        (cli.error if problem.severity == "error" else cli.warning)(COMMAND, problem)
    run, lm, job = _set_up(args, files, changed is not None)
    job["changed"] = changed
    from .paths import common_top  # SARIF and GitHub name files relative to the repository's root
    report = None if args.diff else reporter(args.format, sys.stdout, options_for(
        sys.stdout, args.color, quiet=args.quiet, root=common_top(args.paths)))
    if not args.quiet:
        print(run.signature(lm), file=sys.stderr)
    paths = [str(f) for f in files if changed is None or _key(f) in changed]
    results = _results(paths, job, args)
    tally = _Tally(skipped=len(problems), errors=sum(p.severity == "error" for p in problems))
    bar = tqdm(total=len(paths), unit="file", desc="checking", file=sys.stderr, leave=False,
               disable=args.quiet or not sys.stderr.isatty())
    try:
        for checked in results:
            bar.update()
            lines = changed[_key(checked.path)] if changed is not None and checked.text is not None else None
            checked = _silenced(checked, args, root, tally, lines)
            if lines is not None:   # a change judged: only its lines
                checked = replace(checked, findings=tuple(f for f in checked.findings if f.line in lines))
            tally.add(checked)
            if checked.syntax_error is not None:
                cli.warning(COMMAND, f"{checked.path}:{checked.syntax_error}: the Java grammar cannot parse this line "
                                     "(a syntax error?): the file's findings may be wrong")
            if len(checked.findings) >= args.max_findings and not args.quiet:
                cli.warning(COMMAND, f"{checked.path}: {args.max_findings} findings, the most a file gets "
                                     "(--max-findings): its whitespace may follow no one style; the rest are not "
                                     "reported")
            if checked.error and report is None:   # a reporter writes the warning line (and its format's note)
                cli.warning(COMMAND, checked.error)
            elif checked.findings and (args.diff or args.fix):
                _repair(checked, args, tally)
            if report is not None:
                with tqdm.external_write_mode(file=sys.stdout):   # the bar is cleared while findings are written
                    report.file(checked)
    finally:
        bar.close()
        results.close()
    summary = Summary(tally.files, tally.findings, tally.skipped, tally.lines, round(time.time() - t0, 2),
                      run.signature(lm))
    if report is not None:
        report.finish(summary)
    elif not args.quiet:
        print(summary_line(summary), file=sys.stderr)
    if tally.errors:
        return cli.EXIT_USAGE
    return cli.EXIT_FINDINGS if tally.findings or tally.unused or (tally.skipped and not args.skip_bad_files) \
        else cli.EXIT_OK


@dataclass
class _Tally:
    files: int = 0
    findings: int = 0
    skipped: int = 0     # inputs that could not be checked
    lines: int = 0
    errors: int = 0      # PATHs that name nothing to check, fixes that could not be written
    unused: int = 0      # suppressions that silenced nothing (counted with --report-unused-suppressions)

    def add(self, checked: CheckedFile) -> None:
        if checked.error:
            self.skipped += 1
            return
        self.files += 1
        self.findings += len(checked.findings)
        self.lines += checked.text.count("\n") + 1


def judged_change(args, environ) -> tuple[str | None, bool]:
    """(--since's revision, --staged): the change whose lines are judged. `--staged` in a pre-commit run given
    `--from-ref A --to-ref B` (CI, a pre-push hook; pre-commit then sets PRE_COMMIT_FROM_REF and
    PRE_COMMIT_TO_REF, with B checked out) judges the lines changed since A: the index holds nothing to commit."""
    if args.staged and args.since is None and environ.get("PRE_COMMIT_FROM_REF") and environ.get("PRE_COMMIT_TO_REF"):
        return environ["PRE_COMMIT_FROM_REF"], False
    return args.since, args.staged


def _configure(args) -> Path:
    """Read the repository's configuration file into `args` (the command line wins; excludes add up): the
    root that excludes are relative to."""
    from .config import ConfigError, load
    from .paths import common_top
    root = common_top(args.paths) or Path(os.path.abspath(os.curdir))
    try:
        config = load(root)
    except ConfigError as e:
        raise cli.CommandError(e) from None
    if config.sensitivity and args.sensitivity is None and args.threshold is None and args.min_score is None:
        args.sensitivity = config.sensitivity
    args.learn = args.learn or config.learn or DEFAULT_LEARN
    args.exclude = [*config.exclude, *args.exclude]
    args.rules = _rule_choice(args, config)
    return root


def _rule_choice(args, config) -> RuleChoice:
    """The rules checked: --select instead of the configuration's, --ignore added to its (check/ignores.py)."""
    from .config import rule_ids
    try:
        select = rule_ids(args.select, "--select") if args.select is not None else config.select
        ignore = rule_ids(args.ignore, "--ignore")
    except ValueError as e:
        raise cli.CommandError(e) from None
    return RuleChoice(None if select is None else frozenset(select), frozenset((*config.ignore, *ignore)),
                      tuple((glob, frozenset(rules)) for glob, rules in config.per_file_ignores))


def _set_up(args, files, change: bool = False) -> tuple[CheckRun, LanguageModel, dict]:
    """Load the calibration and the model, learn the repository's style: what every file's check needs (the
    job, which a cluster worker installs with `_install`). Judging a `change`, the habit breaks are believed
    as the calibration's change belief says, where it has one."""
    try:
        try:
            calibration = Calibration.load()
            if change and calibration.change is not None:
                calibration = replace(calibration, habits=calibration.change)
        except CalibrationError:
            if args.min_score is None:
                raise
            calibration = Calibration({POOLED: ()}, {})   # calibrating: no confidence yet
        model = ensure_default_model(args.model)
        report, least, cutoff = reporting(args, calibration)
        lm = LanguageModel(str(model))
        scheme = get_scheme(lm.scheme)
    except (FileNotFoundError, UnknownScheme, ValueError, OSError, CalibrationError) as e:
        raise cli.CommandError(e) from None
    config = LearnConfig(args.learn)
    if config.project and args.cluster:   # its models live in a temporary folder of this machine
        raise cli.CommandError(f"--learn {args.learn} learns its project models here; it cannot check with --cluster")
    # a project model is learned where the files are checked, on top of the general model's scorer
    general = load(RankConfig(str(model), edits=EDITS))[0] if config.project else None
    try:
        learned = _whole_tree(args, config, scheme, files) or learn(
            [str(f) for f in files], lm, config, general, args.workers, max_bytes=args.max_bytes)
    except (KenlmError, OSError) as e:
        raise cli.CommandError(f"learning a project model: {e}") from None
    cfg = CheckConfig(least, args.max_findings, least_confidence=cutoff, evidence_floor=calibration.evidence_floor,
                      habit_least=habit_least(args, calibration.habits))
    job = dict(model=str(model), cfg=cfg, calibration=calibration, learned=learned, max_bytes=args.max_bytes)
    return CheckRun(str(model), config, report, calibration.model or "none"), lm, job


def _whole_tree(args, config: LearnConfig, scheme, checked) -> Learned | None:
    """--learn folder on files of one git work tree: the whole tree's style, cached (check/repostyle.py)."""
    from .repostyle import learning_tree, tree_style
    top = learning_tree(args.paths) if config.method == "folder" else None
    if top is None:
        return None
    from .discover import files_to_check
    files, _ = files_to_check(["."], args.max_bytes, cwd=top)
    if args.exclude:
        from .config import excluded
        files = [f for f in files if not excluded(Path(f).as_posix(), args.exclude)]
    tree = tree_style(top, files, scheme, args.max_bytes, args.workers, cache_dir=None if args.no_cache else True)
    return Learned(config, None, styles=tree.styles([str(f) for f in checked]), seconds=tree.seconds)


def _install(job: dict) -> None:
    """Make this process ready to check files: the model loaded (once per process; forked workers share
    the parent's pages)."""
    general = job["learned"].general
    scorer, lm = (general, general.general) if general is not None else load(RankConfig(job["model"], edits=EDITS))
    _worker.update(job, scorer=scorer, scheme=get_scheme(lm.scheme))


def _results(paths: list[str], job: dict, args):
    """`_check_one` of every path, in order: here, in forked workers, or on a Dask cluster."""
    if args.cluster:
        from unnatural.cluster import ClusterError, cluster_map  # Dask is imported only with --cluster
        try:
            yield from cluster_map(_check_one, paths, args.cluster, init=functools.partial(_install, job))
        except ClusterError as e:
            raise cli.CommandError(e) from None
        return
    _install(job)
    if args.workers <= 1 or len(paths) <= 1:
        yield from map(_check_one, paths)
        return
    from unnatural.parallel import ordered_map
    results = ordered_map(_check_one, paths, args.workers, parent=True)   # this process checks its share too
    try:
        yield from results
    finally:
        results.close()


def _key(path) -> str:
    """A file's key in --since's answer: its real path (changed_lines resolves links; a user's path may
    go through one)."""
    return os.path.realpath(path)


def _changed_lines(rev: str | None, paths, staged: bool = False) -> dict[str, set[int] | None]:
    """--since: real path -> the lines changed since `rev` (None: all of it) of the files under `paths`;
    files not changed are absent."""
    from .since import SinceError, changed_lines
    try:
        return {_key(p): lines for p, lines in changed_lines(paths, rev, staged).items()}
    except SinceError as e:
        raise cli.CommandError(e) from None


def _silenced(checked: CheckedFile, args, root: Path, tally: _Tally, lines: set[int] | None = None) -> CheckedFile:
    """The file's findings less those of the rules not checked in it and those its suppression comments
    silence, before anything is reported or fixed (check/ignores.py); a warning line per problem with a
    suppression comment and, when asked, per unused one (judging a change, `lines`: those on its lines only)."""
    rules = None
    if not args.rules.all:
        from .config import relative_to
        rules = args.rules.rules(relative_to(checked.path, root))
    silenced = silence(checked, rules)
    for line in silenced.problems:
        cli.warning(COMMAND, line)
    if args.report_unused_suppressions:
        unused = [u for u, at in zip(silenced.unused, silenced.unused_at) if lines is None or at in lines]
        for line in unused:
            cli.warning(COMMAND, line)
        tally.unused += len(unused)
    return silenced.checked


def _repair(checked: CheckedFile, args, tally: _Tally) -> None:
    """--diff: print the file's fixes as a patch; --fix: write them (the file is left alone if it changed).
    A display-only rule's fixes are left out (check/rules.py)."""
    from .fix import apply, unified_diff, write_fixed
    from .rules import RULES
    fixed = apply(checked.text, [f for f in checked.findings if f.rule not in RULES or RULES[f.rule].fixable])
    if args.diff:
        from .paths import patch_path  # relative to the repository's root, however the file was named
        sys.stdout.write(unified_diff(patch_path(checked.path), checked.text, fixed))
    if args.fix:
        problem = write_fixed(Path(checked.path), checked.text.encode("utf-8"), fixed)
        if problem:
            cli.error(COMMAND, problem)
            tally.errors += 1
        elif fixed != checked.text and not args.quiet:
            print(f"{COMMAND}: wrote {checked.path}", file=sys.stderr)


@cli.command(COMMAND)
def main(argv=None) -> int:
    return main_run(parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
