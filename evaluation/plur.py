"""PLUR-style offline evaluation: the metrics of google-research/plur `plur/eval/*.py`, one per dataset.

Input (as `plur_evaluator.py --dataset --prediction_file --target_file --top_n`): one line per target in the
target file; the prediction file has one line per target with its beam of predictions separated by tabs,
best first; only the first `top_n` predictions of a line count. Files of unequal line count are rejected.
Sequences are split on whitespace (so an empty line is the empty sequence, never one empty token).

Per dataset (what the PLUR evaluators compute; where the PLUR code left a detail to us, the assumption is
marked ASSUMED):
- code2seq_dataset: micro precision / recall / F1 over subtokens, summed over all targets as code2seq's
  `update_per_subtoken_statistics` does: each predicted subtoken found in the target is a true positive
  (else a false positive), each target subtoken missing from the prediction a false negative. Prediction
  tokens `<OOV>` and `<pad>` are dropped. Only the first prediction counts, as in code2seq (ASSUMED that
  PLUR ignores top_n here as code2seq does).
- convattn_dataset, ogb_code_dataset: per target, precision / recall / F1 over the *sets* of lowercased
  tokens (the OGB code2 evaluator's `_eval_F1`, zero denominators give 0); of the top_n predictions the one
  with the highest F1 counts (the first on ties); the metrics are averaged over targets (macro).
  exact_match: some top_n prediction has exactly the target's lowercased token sequence (ASSUMED: any beam).
- funcom_dataset: funcom's `bleu.py` with NLTK `corpus_bleu`, no smoothing: `bleu_a` is BLEU-4 with the
  default weights, `bleu_1`..`bleu_4` use the weights (1,0,0,0) .. (0,0,0,1) as funcom does; one reference
  per target; of the top_n predictions the one with the highest NLTK `sentence_bleu` (default weights, no
  smoothing, first on ties) is the hypothesis (ASSUMED selection criterion). Values in [0, 1], not x100.
- great_var_misuse_dataset: a line is `NO_BUG` (bug-free) or `<error location> <repair> ...` (ASSUMED text
  form of PLUR's output: location first, then the repair target(s)). First prediction only.
  sequence_accuracy: prediction token sequence equals the target's, over all targets;
  bug_free_accuracy: over bug-free targets, the prediction is `NO_BUG`;
  localization_accuracy: over buggy targets, the first token equals the target's location;
  repair_accuracy: over buggy targets, the prediction's second token is one of the target's repair tokens;
  joint_accuracy: over buggy targets, both localization and repair are right.
- manysstubs4j_dataset: accuracy, a target counts when any of its top_n predictions equals it.
- hoppity_single_ast_diff_dataset: the same any-beam accuracy, and per edit type (the first token of the
  target line, lowercased: `<type>_accuracy`), edit types in sorted order.
- retrieve_and_edit_dataset: successive matching tokens of a prediction = how many of its tokens match the
  target from the start (the common prefix); expected_successive_matching_tokens is its mean over the
  top_n predictions, max_successive_matching_tokens its max, both averaged over targets; sentence_bleu is
  the mean over targets of the best NLTK `sentence_bleu` among the top_n (no smoothing) (ASSUMED).
A ratio whose denominator is 0 (no targets, no buggy targets, ...) is reported as 0.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from evaluation.common import InputError, read_text, safe_ratio

OOV = "<OOV>"
PAD = "<pad>"
NO_BUG = "NO_BUG"
BEAM_SEPARATOR = "\t"

Beams = Sequence[Sequence[str]]  # per target, its predictions (best first), each a line of text
Metrics = dict[str, float]


@dataclass(frozen=True)
class PlurExamples:
    """Predictions and targets read from a pair of PLUR files, beams already cut to top_n."""

    beams: tuple[tuple[str, ...], ...]
    targets: tuple[str, ...]


def split_beams(prediction_lines: Sequence[str], top_n: int) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(line.split(BEAM_SEPARATOR)[:top_n]) for line in prediction_lines)


def read_examples(prediction_file: str, target_file: str, top_n: int = 1) -> PlurExamples:
    """Read the two files; unequal line counts raise InputError naming both files."""
    if top_n < 1:
        raise InputError(f"--top must be at least 1, not {top_n}")
    prediction_lines = _read_lines(prediction_file)
    target_lines = _read_lines(target_file)
    if len(prediction_lines) != len(target_lines):
        raise InputError(
            f"{prediction_file}: {len(prediction_lines)} lines but {target_file} has {len(target_lines)}"
        )
    return PlurExamples(split_beams(prediction_lines, top_n), tuple(target_lines))


def _read_lines(path: str) -> list[str]:
    text = read_text(path, newline="")
    # Only newlines end lines: a tab or other control character is content (tabs separate the beams).
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def _check_same_length(beams: Beams, targets: Sequence[str]) -> None:
    if len(beams) != len(targets):
        raise InputError(f"{len(beams)} predictions but {len(targets)} targets")


# --- code2seq ---------------------------------------------------------------------------------------------

def subtoken_counts(prediction: str, target: str) -> tuple[int, int, int]:
    """(true positives, false positives, false negatives) of one prediction, code2seq-style."""
    predicted = [token for token in prediction.split() if token not in (OOV, PAD)]
    original = target.split()
    true_positive = sum(1 for token in predicted if token in original)
    false_positive = len(predicted) - true_positive
    false_negative = sum(1 for token in original if token not in predicted)
    return true_positive, false_positive, false_negative


def code2seq_metrics(beams: Beams, targets: Sequence[str]) -> Metrics:
    _check_same_length(beams, targets)
    tp = fp = fn = 0
    for beam, target in zip(beams, targets):
        counts = subtoken_counts(beam[0] if beam else "", target)
        tp, fp, fn = tp + counts[0], fp + counts[1], fn + counts[2]
    precision = safe_ratio(tp, tp + fp)
    recall = safe_ratio(tp, tp + fn)
    return {"precision": precision, "recall": recall, "f1_score": _f1(precision, recall)}


def _f1(precision: float, recall: float) -> float:
    return safe_ratio(2 * precision * recall, precision + recall)


# --- convattn and OGB code --------------------------------------------------------------------------------

def token_set_scores(prediction: str, target: str) -> tuple[float, float, float]:
    """(precision, recall, F1) of the lowercased token sets, as OGB's `_eval_F1`."""
    predicted = set(prediction.lower().split())
    label = set(target.lower().split())
    true_positive = len(label & predicted)
    precision = safe_ratio(true_positive, len(predicted))
    recall = safe_ratio(true_positive, len(label))
    return precision, recall, _f1(precision, recall)


def token_set_metrics(beams: Beams, targets: Sequence[str]) -> Metrics:
    _check_same_length(beams, targets)
    rows = []
    for beam, target in zip(beams, targets):
        beam = beam or ("",)
        scores = [token_set_scores(prediction, target) for prediction in beam]
        best = max(range(len(scores)), key=lambda i: (scores[i][2], -i))  # highest F1, first on ties
        wanted = target.lower().split()
        exact = any(prediction.lower().split() == wanted for prediction in beam)
        rows.append((*scores[best], float(exact)))
    means = np.mean(rows, axis=0) if rows else np.zeros(4)
    return dict(zip(("precision", "recall", "f1_score", "exact_match"), map(float, means)))


# --- funcom (BLEU) ------------------------------------------------------------------------------------------

FUNCOM_WEIGHTS = {
    "bleu_a": (0.25, 0.25, 0.25, 0.25),
    "bleu_1": (1.0, 0.0, 0.0, 0.0),
    "bleu_2": (0.0, 1.0, 0.0, 0.0),
    "bleu_3": (0.0, 0.0, 1.0, 0.0),
    "bleu_4": (0.0, 0.0, 0.0, 1.0),
}


def _sentence_bleu(prediction: Sequence[str], target: Sequence[str]) -> float:
    from nltk.translate.bleu_score import sentence_bleu  # importing nltk takes seconds: only when needed

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NLTK warns on every zero n-gram count; 0 is the intended value
        return float(sentence_bleu([list(target)], list(prediction)))


def _best_by_bleu(beam: Sequence[str], target_tokens: list[str]) -> list[str]:
    candidates = [prediction.split() for prediction in (beam or ("",))]
    if len(candidates) == 1:
        return candidates[0]
    scores = [_sentence_bleu(candidate, target_tokens) for candidate in candidates]
    return candidates[int(np.argmax(scores))]  # argmax keeps the first on ties


def funcom_metrics(beams: Beams, targets: Sequence[str]) -> Metrics:
    from nltk.translate.bleu_score import corpus_bleu  # importing nltk takes seconds: only when needed

    _check_same_length(beams, targets)
    references = [[target.split()] for target in targets]
    hypotheses = [_best_by_bleu(beam, reference[0]) for beam, reference in zip(beams, references)]
    if not references:
        return {name: 0.0 for name in FUNCOM_WEIGHTS}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            name: float(corpus_bleu(references, hypotheses, weights=weights))
            for name, weights in FUNCOM_WEIGHTS.items()
        }


# --- GREAT VarMisuse ----------------------------------------------------------------------------------------

def var_misuse_metrics(beams: Beams, targets: Sequence[str]) -> Metrics:
    _check_same_length(beams, targets)
    sequence_hits = bug_free = bug_free_hits = buggy = location_hits = repair_hits = joint_hits = 0
    for beam, target in zip(beams, targets):
        predicted = (beam[0] if beam else "").split()
        wanted = target.split()
        sequence_hits += predicted == wanted
        if not wanted or wanted[0] == NO_BUG:
            bug_free += 1
            bug_free_hits += bool(predicted) and predicted[0] == NO_BUG
            continue
        buggy += 1
        located = bool(predicted) and predicted[0] == wanted[0]
        repaired = len(predicted) > 1 and predicted[1] in wanted[1:]
        location_hits += located
        repair_hits += repaired
        joint_hits += located and repaired
    return {
        "sequence_accuracy": safe_ratio(sequence_hits, len(targets)),
        "bug_free_accuracy": safe_ratio(bug_free_hits, bug_free),
        "localization_accuracy": safe_ratio(location_hits, buggy),
        "repair_accuracy": safe_ratio(repair_hits, buggy),
        "joint_accuracy": safe_ratio(joint_hits, buggy),
    }


# --- ManySStuBs4J and Hoppity (any-beam accuracy) -----------------------------------------------------------

def _any_beam_hit(beam: Sequence[str], target: str) -> bool:
    wanted = target.split()
    return any(prediction.split() == wanted for prediction in (beam or ("",)))


def any_beam_accuracy(beams: Beams, targets: Sequence[str]) -> Metrics:
    _check_same_length(beams, targets)
    hits = sum(_any_beam_hit(beam, target) for beam, target in zip(beams, targets))
    return {"accuracy": safe_ratio(hits, len(targets))}


def edit_type(target: str) -> str:
    """Hoppity's edit type of a target: its first token, lowercased (`empty` for an empty line)."""
    tokens = target.split()
    return tokens[0].lower() if tokens else "empty"


def hoppity_metrics(beams: Beams, targets: Sequence[str]) -> Metrics:
    _check_same_length(beams, targets)
    hits = [_any_beam_hit(beam, target) for beam, target in zip(beams, targets)]
    metrics = {"accuracy": safe_ratio(sum(hits), len(targets))}
    types = [edit_type(target) for target in targets]
    for kind in sorted(set(types)):
        of_kind = [hit for hit, t in zip(hits, types) if t == kind]
        metrics[f"{kind}_accuracy"] = safe_ratio(sum(of_kind), len(of_kind))
    return metrics


# --- Retrieve and edit --------------------------------------------------------------------------------------

def successive_matching_tokens(prediction: Sequence[str], target: Sequence[str]) -> int:
    """How many tokens of the prediction match the target from the start."""
    count = 0
    for predicted, wanted in zip(prediction, target):
        if predicted != wanted:
            break
        count += 1
    return count


def retrieve_and_edit_metrics(beams: Beams, targets: Sequence[str]) -> Metrics:
    _check_same_length(beams, targets)
    expected, best, bleu = [], [], []
    for beam, target in zip(beams, targets):
        wanted = target.split()
        candidates = [prediction.split() for prediction in (beam or ("",))]
        matches = [successive_matching_tokens(candidate, wanted) for candidate in candidates]
        expected.append(float(np.mean(matches)))
        best.append(max(matches))
        bleu.append(max(_sentence_bleu(candidate, wanted) for candidate in candidates))
    return {
        "expected_successive_matching_tokens": float(np.mean(expected)) if expected else 0.0,
        "max_successive_matching_tokens": float(np.mean(best)) if best else 0.0,
        "sentence_bleu": float(np.mean(bleu)) if bleu else 0.0,
    }


DATASETS: dict[str, Callable[[Beams, Sequence[str]], Metrics]] = {
    "code2seq_dataset": code2seq_metrics,
    "convattn_dataset": token_set_metrics,
    "funcom_dataset": funcom_metrics,
    "great_var_misuse_dataset": var_misuse_metrics,
    "hoppity_single_ast_diff_dataset": hoppity_metrics,
    "manysstubs4j_dataset": any_beam_accuracy,
    "ogb_code_dataset": token_set_metrics,
    "retrieve_and_edit_dataset": retrieve_and_edit_metrics,
}


def evaluate(dataset: str, examples: PlurExamples) -> Metrics:
    try:
        metric = DATASETS[dataset]
    except KeyError:
        raise InputError(f"unknown PLUR dataset {dataset!r} (known: {', '.join(sorted(DATASETS))})") from None
    return metric(examples.beams, examples.targets)
