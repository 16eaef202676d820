"""Which fill-in-the-middle metric agrees best with a person's annotations (the study's last step).

For the records whose `correct` field is filled (yes/no, 1/0, true/false), each metric's point-biserial
correlation with the annotation (Pearson's r of the metric against 0/1) and Spearman's rank correlation,
via scipy. A distance (Levenshtein) falls as a fill gets better, so agreement is the correlation with its
sign turned; the metrics are ranked by agreement (point-biserial), best first.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from scipy import stats

from evaluation.common import InputError

YES = frozenset({"yes", "y", "1", "true", "correct"})
NO = frozenset({"no", "n", "0", "false", "incorrect", "wrong"})
LOWER_IS_BETTER = frozenset({"levenshtein"})


def parse_annotation(value, where: str) -> bool | None:
    """True, False, or None for an empty field."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    if not text:
        return None
    if text in YES:
        return True
    if text in NO:
        return False
    raise InputError(f"{where}: 'correct' is {value!r}; use yes/no or 1/0 (or leave it empty)")


@dataclass(frozen=True)
class Agreement:
    metric: str
    point_biserial: float     # r of the metric against the annotation (nan when undefined)
    spearman: float
    agreement: float          # point_biserial, sign turned for a distance

    @property
    def defined(self) -> bool:
        return not math.isnan(self.agreement)


def agreements(columns: dict[str, Sequence[float]], labels: Sequence[bool]) -> list[Agreement]:
    """Each metric's agreement with the labels, best first (undefined ones last)."""
    if len(labels) < 2:
        raise InputError(f"{len(labels)} annotated record(s): need at least 2 to correlate")
    if len(set(labels)) < 2:
        raise InputError("every annotated record says the same; a correlation needs both yes and no")
    y = [1.0 if x else 0.0 for x in labels]
    out = []
    for name, values in columns.items():
        if len(set(values)) < 2:     # a constant metric has no correlation
            r = rho = float("nan")
        else:
            r = float(stats.pointbiserialr(y, values).statistic)
            rho = float(stats.spearmanr(y, values).statistic)
        sign = -1.0 if name in LOWER_IS_BETTER else 1.0
        out.append(Agreement(name, r, rho, sign * r))
    return sorted(out, key=lambda a: (not a.defined, -a.agreement if a.defined else 0.0))
