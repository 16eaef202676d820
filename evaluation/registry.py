"""Every metric of the project by name, so that callers (the CLI, the ranker, notebooks) look them up in one place."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from evaluation import codrep2018, codrep2019, detection, fim, plur, stamina


@dataclass(frozen=True)
class Metric:
    name: str
    task: str  # the `bin/evaluate TASK` that prints it
    function: Callable
    summary: str


def _metrics() -> dict[str, Metric]:
    metrics = [
        Metric("codrep2019", "codrep2019", codrep2019.score_rankings,
               "MRR and Recall@1/5/10 of ranked offsets (CodRep 2019)"),
        Metric("codrep2018", "codrep2018", codrep2018.score_line_predictions,
               "average tanh line error and Recall@1 (CodRep 2018)"),
        Metric("detection", "detection", detection.by_project,
               "file-level AUC; precision, recall and false findings per KLOC at a threshold"),
        Metric("fim", "fim", fim.score_example,
               "exact match, chrF, BLEU, Levenshtein distance and similarity of one middle"),
        Metric("stamina", "stamina", stamina.balanced_classification_rate,
               "balanced classification rate (StaMinA)"),
    ]
    metrics += [
        Metric(f"plur:{dataset}", "plur", function, f"PLUR evaluator of {dataset}")
        for dataset, function in plur.DATASETS.items()
    ]
    return {metric.name: metric for metric in metrics}


METRICS: dict[str, Metric] = _metrics()


def get(name: str) -> Metric:
    try:
        return METRICS[name]
    except KeyError:
        raise KeyError(f"unknown metric {name!r} (known: {', '.join(sorted(METRICS))})") from None
