"""Single-line fill-in-the-middle: how close each generated middle is to the true one.

Per example (`middle` is the reference, `generated` the hypothesis):
- exact_match: 1 when both are equal after `str.strip()`, else 0;
- chrf: sacrebleu's sentence chrF, character order 6, word order 0, beta 2 (sacrebleu's defaults), 0..100;
- bleu: sacrebleu's sentence BLEU with its defaults (13a tokenizer, exp smoothing), 0..100;
- levenshtein: rapidfuzz Levenshtein distance (insert, delete, substitute cost 1);
- similarity: rapidfuzz `Levenshtein.normalized_similarity`, 1 - distance / max(len), 1.0 for two empty
  strings.
Only exact match strips; the other metrics see the strings as they are (trailing whitespace is an error
of a single-line completion too). The summary is the plain mean of each column.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Sequence

import numpy as np
import sacrebleu
from rapidfuzz.distance import Levenshtein
from sacrebleu.metrics import BLEU, CHRF

from evaluation.common import InputError
from evaluation.fim_agreement import parse_annotation
from formats.files import json_objects

CHRF_CHAR_ORDER = 6
CHRF_WORD_ORDER = 0
CHRF_BETA = 2
_CHRF = CHRF(char_order=CHRF_CHAR_ORDER, word_order=CHRF_WORD_ORDER, beta=CHRF_BETA)
_BLEU = BLEU(effective_order=True)  # sentence-level BLEU needs effective order, as sacrebleu.sentence_bleu


@dataclass(frozen=True)
class FimExample:
    middle: str
    generated: str
    prefix: str = ""
    suffix: str = ""
    correct: bool | None = None   # a person's annotation of the study's records, when given


@dataclass(frozen=True)
class FimScores:
    exact_match: float
    chrf: float
    bleu: float
    levenshtein: float
    similarity: float


METRIC_NAMES = tuple(field.name for field in fields(FimScores))


def score_example(example: FimExample) -> FimScores:
    reference, hypothesis = example.middle, example.generated
    return FimScores(
        exact_match=float(hypothesis.strip() == reference.strip()),
        chrf=float(_CHRF.sentence_score(hypothesis, [reference]).score),
        bleu=float(_BLEU.sentence_score(hypothesis, [reference]).score),
        levenshtein=float(Levenshtein.distance(hypothesis, reference)),
        similarity=float(Levenshtein.normalized_similarity(hypothesis, reference)),
    )


def mean_scores(rows: Sequence[FimScores]) -> FimScores:
    if not rows:
        raise InputError("no examples to evaluate")
    table = np.array([[getattr(row, name) for name in METRIC_NAMES] for row in rows], dtype=float)
    return FimScores(*map(float, table.mean(axis=0)))


def parse_records(text: str, source: str) -> list[FimExample]:
    """A JSON list of {prefix, middle, suffix, generated} objects, or the study's records (bin/fim's output)
    {middle, fill, original_code, generated_code, correct}; middle and generated (or fill) are required."""
    examples = []
    for index, record in enumerate(json_objects(text, source, "record")):
        if "generated" not in record and "fill" not in record:
            raise InputError(f"{source}: record {index} has no 'fill' (nor 'generated'): a task file? "
                             "bin/fim makes the predictions")
        hypothesis = "generated" if "generated" in record else "fill"
        for key in ("middle", hypothesis):
            if not isinstance(record.get(key), str):
                raise InputError(f"{source}: record {index} has no string {key!r}")
        for key in ("prefix", "suffix"):
            if not isinstance(record.get(key, ""), str):
                raise InputError(f"{source}: record {index} has a non-string {key!r}")
        examples.append(FimExample(
            middle=record["middle"], generated=record[hypothesis],
            prefix=record.get("prefix", ""), suffix=record.get("suffix", ""),
            correct=parse_annotation(record.get("correct"), f"{source}: record {index}"),
        ))
    return examples


def pair_lines(middles: Sequence[str], generations: Sequence[str], middle_source: str,
               generated_source: str) -> list[FimExample]:
    """Two parallel files, one single-line middle per line."""
    if len(middles) != len(generations):
        raise InputError(
            f"{generated_source}: {len(generations)} lines but {middle_source} has {len(middles)}"
        )
    return [FimExample(middle=m, generated=g) for m, g in zip(middles, generations)]


def options_signature() -> list[tuple[str, object]]:
    return [
        ("chrf", f"c{CHRF_CHAR_ORDER}w{CHRF_WORD_ORDER}b{CHRF_BETA}"),
        ("bleu", "13a-exp-sentence"),
        ("sacrebleu", sacrebleu.__version__),
    ]
