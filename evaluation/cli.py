"""`bin/evaluate TASK ...`: read predictions and answers, call the registered metric, print the numbers.

Exit status: 0 on success, 2 on a usage error or bad input (`evaluate: error: ...`, naming the file).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Sequence, TextIO

import formats.codrep2018
import formats.codrep2019
from evaluation import codrep2018, codrep2019, detection, fim, plur, registry, stamina
from evaluation.common import InputError, read_text, signature
from unnatural import cli

PROG = "evaluate"


def _read_text(path: str) -> tuple[str, str]:
    """(content, name for messages) of a file, `-` being standard input."""
    if path == "-":
        try:
            return sys.stdin.read(), "<stdin>"
        except UnicodeDecodeError as error:
            raise InputError(f"<stdin>: not UTF-8 ({error.reason} at byte {error.start})") from None
    return read_text(path), path


def _dataset_folders(option: str | None) -> list[str] | None:
    if option is None:
        return None
    folders = [folder for folder in option.split(":") if folder]
    if not folders:
        raise InputError("--datasets names no folder")
    return folders


def _folders_signature(folders: Sequence[str]) -> str:
    return ":".join(os.path.basename(os.path.normpath(folder)) for folder in folders)


# --- codrep2019 -------------------------------------------------------------------------------------------

def _tasks(datasets, predictions, source: str, folder_of, read_datasets):
    """(folders, task -> answer): --datasets, or else the folders the predictions name; a prediction
    for a path outside them is an error."""
    folders = _dataset_folders(datasets)
    if folders is None:
        folders = sorted({folder_of(path) for path in predictions})
        if not folders:
            raise InputError(f"{source}: no predictions and no --datasets: nothing to evaluate")
    answers = read_datasets(folders)
    outside = [path for path in predictions if path not in answers]
    if outside:
        raise InputError(f"{source}: {outside[0]} is not a task of the datasets {':'.join(folders)}")
    return folders, answers


def _run_codrep2019(args: argparse.Namespace, out: TextIO) -> None:
    text, source = _read_text(args.predictions)
    predictions = codrep2019.parse_predictions(text.splitlines(), source)
    # Without --datasets, the tasks are those of every folder a prediction names.
    folders, answers = _tasks(args.datasets, predictions, source, os.path.dirname, formats.codrep2019.read_datasets)
    scores = registry.get("codrep2019").function(answers, predictions)
    print(f"Total files: {scores.total_files}", file=out)
    print(f"MRR: {scores.mrr}", file=out)
    for k, recall in scores.recall:
        print(f"Recall@{k}: {recall}", file=out)
    print(signature("codrep2019", [("datasets", _folders_signature(folders))]), file=out)


# --- codrep2018 -------------------------------------------------------------------------------------------

def _run_codrep2018(args: argparse.Namespace, out: TextIO) -> None:
    text, source = _read_text(args.predictions)
    predictions = codrep2018.parse_predictions(text.splitlines(), source)
    # Tasks/N.txt -> the dataset folder above Tasks/
    folders, solutions = _tasks(args.datasets, predictions, source,
                                lambda path: os.path.dirname(os.path.dirname(path)),
                                formats.codrep2018.read_datasets)
    line_counts = {path: formats.codrep2018.read_program_line_count(path) for path in predictions}
    codrep2018.check_line_ranges(predictions, line_counts)
    scores = registry.get("codrep2018").function(solutions, predictions)
    print(f"Total files: {scores.total_files}", file=out)
    print(f"Average line error: {scores.average_line_error}", file=out)
    print(f"Recall@1: {scores.recall_at_1}", file=out)
    print(signature("codrep2018", [("datasets", _folders_signature(folders))]), file=out)


# --- detection ------------------------------------------------------------------------------------------

def _run_detection(args: argparse.Namespace, out: TextIO) -> None:
    task_folders = _dataset_folders(args.tasks)
    tasks, clean = detection.read_sets(task_folders, _dataset_folders(args.clean))
    text, source = _read_text(args.findings)
    findings = detection.parse_findings(text.splitlines(), source)
    detection.check_paths(findings, tasks, clean, source)
    threshold = -math.inf if args.threshold is None else args.threshold
    for project, scores in registry.get("detection").function(findings, tasks, clean, threshold).items():
        if project != detection.ALL:
            print(f"\nproject: {project}", file=out)
        print(f"tasks: {scores.tasks}", file=out)
        print(f"clean files: {scores.clean}", file=out)
        print(f"clean lines: {scores.clean_lines}", file=out)
        print(f"AUC: {scores.auc}", file=out)
        print(f"threshold: {'all findings' if args.threshold is None else args.threshold}", file=out)
        print(f"findings: {scores.findings}", file=out)
        print(f"precision: {scores.precision}", file=out)
        print(f"recall: {scores.recall}", file=out)
        print(f"false per KLOC: {scores.false_per_kloc}", file=out)
    if args.sweep:
        _write_sweep(args.sweep, detection.sweep(findings, tasks, clean), out)
    print(signature("detection", [("tasks", _folders_signature(task_folders)),
                                  ("threshold", "all" if args.threshold is None else args.threshold)]), file=out)


def _write_sweep(prefix: str, points, out: TextIO) -> None:
    """The precision/recall curve as PREFIX.csv and PREFIX.png."""
    csv_path, png_path = prefix + ".csv", prefix + ".png"
    try:
        with open(csv_path, "w", encoding="utf-8") as f:
            f.write("threshold,findings,precision,recall,false_per_kloc\n")
            for p in points:
                f.write(f"{p.threshold},{p.findings},{p.precision},{p.recall},{p.false_per_kloc}\n")
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(5, 4))
        ax.plot([p.recall for p in points], [p.precision for p in points], drawstyle="steps-post")
        ax.set_xlabel("recall")
        ax.set_ylabel("precision")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(png_path, dpi=100)
        plt.close(fig)
    except OSError as error:
        raise InputError(f"{error.filename}: cannot write the sweep ({error.strerror})") from None
    print(f"sweep: {csv_path} {png_path}", file=out)


# --- plur -------------------------------------------------------------------------------------------------

def _run_plur(args: argparse.Namespace, out: TextIO) -> None:
    examples = plur.read_examples(args.prediction_file, args.target_file, args.top)
    metrics = registry.get(f"plur:{args.dataset}").function(examples.beams, examples.targets)
    for key, value in metrics.items():
        print(f"{key}: {value:.5f}", file=out)
    print(signature("plur", [("dataset", args.dataset), ("top_n", args.top)]), file=out)


# --- fim --------------------------------------------------------------------------------------------------

def _run_fim(args: argparse.Namespace, out: TextIO) -> None:
    if args.records is not None:
        if args.middles or args.generations:
            raise InputError("give either a JSON records file or --middles with --generations, not both")
        text, source = _read_text(args.records)
        examples = fim.parse_records(text, source)
    elif args.annotations:
        raise InputError("--annotations needs a JSON records file")
    elif args.middles and args.generations:
        middles, middle_source = _read_text(args.middles)
        generations, generated_source = _read_text(args.generations)
        examples = fim.pair_lines(middles.splitlines(), generations.splitlines(), middle_source,
                                  generated_source)
    else:
        raise InputError("give a JSON records file, or both --middles and --generations")
    score = registry.get("fim").function
    rows = [score(example) for example in examples]
    if args.per_example:
        print("\t".join(("index",) + fim.METRIC_NAMES), file=out)
        for index, row in enumerate(rows):
            print("\t".join([str(index)] + [f"{getattr(row, name):.5f}" for name in fim.METRIC_NAMES]), file=out)
    means = fim.mean_scores(rows)
    print(f"examples: {len(rows)}", file=out)
    for name in fim.METRIC_NAMES:
        print(f"{name}: {getattr(means, name):.5f}", file=out)
    if args.annotations:
        _print_agreement(examples, rows, out)
    print(signature("fim", fim.options_signature()), file=out)


def _print_agreement(examples, rows, out: TextIO) -> None:
    """The study's check: each metric's correlation with the records' `correct` annotations, ranked."""
    from evaluation.fim_agreement import agreements
    annotated = [(e.correct, row) for e, row in zip(examples, rows) if e.correct is not None]
    if not annotated:
        raise InputError("--annotations: no record has its 'correct' field filled (yes/no or 1/0)")
    labels = [c for c, _ in annotated]
    # similarity is 1 - normalised Levenshtein: the study compared exact match, chrF, Levenshtein and BLEU
    columns = {name: [getattr(row, name) for _, row in annotated] for name in ("exact_match", "chrf",
                                                                               "levenshtein", "bleu")}
    print(f"annotated: {len(labels)} ({sum(labels)} correct)", file=out)
    print("rank\tmetric\tpoint_biserial\tspearman\tagreement", file=out)
    for rank, a in enumerate(agreements(columns, labels), 1):
        print(f"{rank}\t{a.metric}\t{a.point_biserial:.5f}\t{a.spearman:.5f}\t{a.agreement:.5f}", file=out)


# --- stamina ----------------------------------------------------------------------------------------------

def _run_stamina(args: argparse.Namespace, out: TextIO) -> None:
    predicted_text, predicted_source = _read_text(args.predictions)
    actual_text, actual_source = _read_text(args.labels)
    predicted = stamina.parse_labels(predicted_text, predicted_source)
    actual = stamina.LABEL_FORMATS[args.labels_format](actual_text, actual_source)
    if len(predicted) != len(actual):
        raise InputError(f"{predicted_source}: {len(predicted)} labels but {actual_source} has {len(actual)}")
    result = registry.get("stamina").function(predicted, actual)
    print(f"TP: {result.true_positive}  FN: {result.false_negative}  "
          f"TN: {result.true_negative}  FP: {result.false_positive}", file=out)
    print(f"sensitivity: {result.sensitivity:.5f}", file=out)
    print(f"specificity: {result.specificity:.5f}", file=out)
    print(f"BCR: {result.bcr:.5f}", file=out)
    print(f"solved: {'yes' if result.solved else 'no'} (BCR >= {stamina.SOLVED_BCR})", file=out)
    print(signature("stamina", [("solved_at", stamina.SOLVED_BCR)]), file=out)


def _run_list(args: argparse.Namespace, out: TextIO) -> None:
    for metric in registry.METRICS.values():
        print(f"{metric.name}\t{metric.summary}", file=out)


def build_parser() -> cli.ArgumentParser:
    parser = cli.parser(PROG, "Offline evaluation of stored predictions.")
    tasks = parser.add_subparsers(dest="task", metavar="TASK", required=True)

    rank = tasks.add_parser("codrep2019", help="CodRep 2019: MRR of ranked offsets read from stdin")
    rank.add_argument("-d", "--datasets", help="task folders separated by ':' (default: the predicted ones)")
    rank.add_argument("-p", "--predictions", default="-", help="prediction file (default: stdin)")
    rank.set_defaults(run=_run_codrep2019)

    line = tasks.add_parser("codrep2018", help="CodRep 2018: average line error of predicted lines")
    line.add_argument("-d", "--datasets",
                      help="dataset folders (with Tasks/, Solutions/) separated by ':' (default: the predicted ones)")
    line.add_argument("-p", "--predictions", default="-", help="prediction file (default: stdin)")
    line.set_defaults(run=_run_codrep2018)

    plur_parser = tasks.add_parser("plur", help="PLUR evaluator, offline mode")
    plur_parser.add_argument("--dataset", required=True, choices=sorted(plur.DATASETS))
    plur_parser.add_argument("--prediction_file", "--prediction-file", required=True)
    plur_parser.add_argument("--target_file", "--target-file", required=True)
    cli.add_top(plur_parser, "predictions of a beam that count", default=1, aliases=("--top_n", "--top-n"),
                metavar="N")
    plur_parser.set_defaults(run=_run_plur)

    fim_parser = tasks.add_parser("fim", help="single-line fill-in-the-middle")
    fim_parser.add_argument("records", nargs="?", help="JSON list of {prefix, middle, suffix, generated}, or "
                            "the study's records from bin/fim {middle, fill, original_code, generated_code, correct}")
    fim_parser.add_argument("--annotations", action="store_true",
                            help="also correlate each metric with the records' filled 'correct' fields "
                                 "(point-biserial and Spearman), ranked by agreement")
    fim_parser.add_argument("--middles", help="file of true middles, one per line")
    fim_parser.add_argument("--generations", help="file of generated middles, one per line")
    fim_parser.add_argument("--per-example", action="store_true", help="also print one row per example")
    fim_parser.set_defaults(run=_run_fim)

    bcr = tasks.add_parser("stamina", help="StaMinA balanced classification rate")
    bcr.add_argument("--predictions", required=True, help="predicted labels: 0/1 string or one per line")
    bcr.add_argument("--labels", required=True, help="true labels, in the --labels-format")
    bcr.add_argument("--labels-format", choices=sorted(stamina.LABEL_FORMATS), default="01",
                     help="01: like the predictions (default); abbadingo: labelled Abbadingo sample; "
                          "signs: +/- lines of the adl files")
    bcr.set_defaults(run=_run_stamina)

    detect = tasks.add_parser("detection", help="file-level AUC, precision, recall and false alarms of findings")
    detect.add_argument("--tasks", required=True, metavar="TASKDIR",
                        help="task folders from bin/make-tasks, separated by ':'")
    detect.add_argument("--clean", metavar="CLEANDIR",
                        help="folders of clean files, separated by ':' (default: each task folder's clean/)")
    detect.add_argument("--threshold", type=float, default=None,
                        help="count findings scoring at least this (default: every finding)")
    detect.add_argument("--sweep", metavar="PREFIX",
                        help="also write the precision/recall curve to PREFIX.csv and PREFIX.png")
    detect.add_argument("-f", "--findings", default="-", help="findings, one JSON object per line (default: stdin)")
    detect.set_defaults(run=_run_detection)

    listing = tasks.add_parser("list", help="list the registered metrics")
    listing.set_defaults(run=_run_list)
    return parser


@cli.command(PROG)
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.run(args, sys.stdout)
    except InputError as error:
        raise cli.CommandError(error) from None
    return cli.EXIT_OK


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:   # the reader (e.g. `head`) closed the pipe: not an error of ours
        sys.stderr.close()
        sys.exit(cli.EXIT_OK)
