"""What a score means: a finding's confidence and the cut-off of each --sensitivity, measured on the
development sets (bench/check.py fits them from bin/check's findings there and writes CALIBRATION).

A finding's confidence is the precision measured at its score for its rule (isotonic regression of "was
this finding the injected error" on the score, one curve per rule: an unexpected tab at score 5 is far more
often an error than an odd indentation at score 5). A sensitivity is a least confidence, the lowest at which
the false findings in clean files stay within its budget per 1000 lines. The precision is that of sets where
half the files hold one error each: in a repository with fewer errors the same finding is right less often.
"""
from __future__ import annotations

import bisect
import json
import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

CALIBRATION = Path(__file__).with_name("calibration.json")
# false findings per 1000 lines of clean code each sensitivity allows (issue 18: at most 0.2 by default)
BUDGETS = {"low": 0.05, "medium": 0.2, "high": 1.0}
SENSITIVITIES = tuple(BUDGETS)
DEFAULT_SENSITIVITY = "medium"
POOLED = "*"          # the curve of rules with too few findings to have their own
MIN_FINDINGS = 30     # findings a rule needs for its own curve
KNOTS = 16            # points kept per curve


class CalibrationError(ValueError):
    pass


@dataclass(frozen=True)
class Calibration:
    curves: dict[str, tuple[tuple[float, float], ...]]   # rule -> (score, precision) knots, scores ascending
    cutoffs: dict[str, float]                            # sensitivity -> least confidence reported
    model: str = ""                                      # the model it was measured with (file name)
    measured: dict = field(default_factory=dict)         # sets, findings, budgets: how it was made

    def confidence(self, rule: str, score: float) -> float:
        """The precision measured at `score` for `rule`: a step function (the isotonic fit's), flat past
        the ends; 0 below the first knot."""
        knots = self.curves.get(rule) or self.curves.get(POOLED) or ()
        i = bisect.bisect_right([k[0] for k in knots], score)
        return knots[i - 1][1] if i else 0.0

    def least_scores(self, cutoff: float) -> dict[str, float]:
        """rule -> the least score whose confidence reaches `cutoff` (inf: none does); POOLED for the rest."""
        out = {}
        for rule, knots in self.curves.items():
            out[rule] = next((s for s, p in knots if p >= cutoff), math.inf)
        return out

    def save(self, path: Path = CALIBRATION) -> None:
        data = {"curves": {r: [list(k) for k in ks] for r, ks in sorted(self.curves.items())},
                "cutoffs": self.cutoffs, "model": self.model, "measured": self.measured}
        path.write_text(json.dumps(data, indent=1) + "\n")

    @classmethod
    def load(cls, path: Path = CALIBRATION) -> "Calibration":
        try:
            data = json.loads(Path(path).read_text())
            out = cls({str(r): tuple((float(s), float(p)) for s, p in ks) for r, ks in data["curves"].items()},
                      {str(k): float(v) for k, v in data["cutoffs"].items()}, str(data.get("model", "")),
                      dict(data.get("measured", {})))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise CalibrationError(f"{path}: not a calibration file ({e})") from None
        missing = [s for s in SENSITIVITIES if s not in out.cutoffs]
        if missing or POOLED not in out.curves:
            raise CalibrationError(f"{path}: no cut-off for {', '.join(missing)}" if missing else
                                   f"{path}: no pooled curve")
        return out


def isotonic(ys: list[float]) -> list[float]:
    """Pool-adjacent-violators: the non-decreasing sequence closest to `ys` in squared error."""
    blocks: list[list[float]] = []   # [mean, weight]
    for y in ys:
        blocks.append([float(y), 1.0])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2 = blocks.pop()
            m1, w1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2])
    out: list[float] = []
    for m, w in blocks:
        out.extend([m] * int(w))
    return out


def _curve(points: list[tuple[float, bool]]) -> tuple[tuple[float, float], ...]:
    """Knots of the isotonic fit of correct-or-not on score: at most KNOTS steps, each the precision
    from its score on (the fit's value at the first point of each step)."""
    points = sorted(points)
    fitted = isotonic([1.0 if ok else 0.0 for _, ok in points])
    steps: list[tuple[float, float]] = []
    for (score, _), p in zip(points, fitted):
        if not steps or p > steps[-1][1]:
            steps.append((round(score, 4), round(p, 4)))
    while len(steps) > KNOTS:   # merge the closest neighbouring steps (keeps the curve monotone)
        i = min(range(1, len(steps)), key=lambda j: steps[j][1] - steps[j - 1][1])
        steps.pop(i)
    return tuple(steps)


def fit(findings: list[tuple[str, float, bool, bool]], clean_lines: int, budgets: dict[str, float] = BUDGETS,
        model: str = "", measured: dict | None = None) -> Calibration:
    """From (rule, score, correct, in_clean_file) of every finding made at a low threshold on the development
    sets and the lines of their clean files: one precision curve per rule (rules with fewer than
    MIN_FINDINGS share the pooled one) and each sensitivity's least confidence, the lowest at which the
    false findings in clean files stay within its budget per 1000 lines."""
    if not findings or clean_lines <= 0:
        raise CalibrationError("nothing to calibrate on: no findings or no clean lines")
    by_rule: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for rule, score, ok, _ in findings:
        by_rule[rule].append((score, ok))
    curves = {POOLED: _curve([(s, ok) for _, s, ok, _ in findings])}
    curves.update((rule, _curve(pts)) for rule, pts in by_rule.items() if len(pts) >= MIN_FINDINGS)
    cal = Calibration(curves, {}, model, dict(measured or {}))
    rated = sorted(((cal.confidence(r if r in curves else POOLED, s), ok, clean) for r, s, ok, clean in findings),
                   key=lambda x: -x[0])
    cutoffs = {}
    for name, budget in budgets.items():
        allowed, false_clean, cut = budget * clean_lines / 1000, 0, 1.0 + 1e-9
        for i, (conf, ok, clean) in enumerate(rated):
            false_clean += clean and not ok
            if false_clean > allowed:
                break
            if i + 1 == len(rated) or rated[i + 1][0] < conf:   # a cut-off between distinct confidences
                cut = conf
        cutoffs[name] = round(max(cut, 1e-4), 4)
    return Calibration(curves, cutoffs, model, dict(measured or {}))
