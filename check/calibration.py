"""What a score means at run time: a finding's confidence, the cut-off of each --sensitivity and the least
score worth ranking down to, from check/calibration.json (fitted by the benchmark on the development sets:
bench/calibration_fit.py, run by bench/check.py and bench/hand_slips.py from bin/check's findings there).

A finding's confidence is the precision measured at its **belief**: a logistic model of "was this finding
the injected error" on its score and rule and on the evidence beside it (`Evidence`: how the rest of the
file's ranking looks, whether the file already had a finding, how often the repository's other files and
the file itself write the gap's whitespace between the same two kinds of tokens, the file's length, and
whether the repair undoes one slip of the five kinds CodRep 2019 injects),
made a precision by isotonic regression of the same labels on it. A real oddity of clean code scores as high
as a slip, but it comes in files with other odd spots, where the slip stands alone, and it is often the
project's or the file's habit (`return  true;` in a repository that writes it elsewhere too); a file's
second finding is rarely an error once its first is fixed; and a repair that is not the undoing of one slip
(a tab made a space, a space taken out of a run of two) is almost never the error. A sensitivity is a least
confidence, the lowest at which the false findings in clean files stay within its budget per 1000 lines and,
for `medium`, the clean files with a finding within a share of them. The precision is that of sets where
half the files hold one error each: in a repository with fewer errors the same finding is right less often.
The habit breaks (check/breaks.py) have a belief of their own (`HabitBelief`), fitted on slips made by hand
in repositories whose CI enforces a formatter (bench/hand_slips.py), and another for judging a change
(`change`), fitted on the real commits that made slips (bench/commits.py): there a break's evidence is also
how the change itself writes the gap, and its confidence is the precision measured on those commits.
"""
from __future__ import annotations

import bisect
import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from .rules import RULES

CALIBRATION = Path(__file__).with_name("calibration.json")
SENSITIVITIES = ("low", "medium", "high")   # from the fewest false alarms to the most findings
DEFAULT_SENSITIVITY = "medium"
POOLED = "*"          # the belief's precision curve (calibration.json's curves); the least score of any rule
# The evidence: candidates scoring FAR_FLOOR or more on gaps more than NEAR gaps from the finding's (its own
# neighbours look odd because of it). Chosen on the development sets' findings (leave one set out: floors 4,
# 5, 6, 7 gave recall 0.872, 0.865, 0.858, 0.848 at the medium budget, with a first version of the features);
# the ranker must rank down to it.
FAR_FLOOR = 5.0
NEAR = 3
# No finding scoring less is reported at these sensitivities (check/cli.py): the ranking then goes no deeper.
# Below 3.5 were 6 of the 4,200 errors `medium` found in the replay of all 11 sets (docs/calibration.md); with the
# belief's least scores alone a tab could be reported from the calibration run's floor, 2, in most files,
# and every file was ranked down to it (bin/check 1.8x bin/rank's time). `high` (and --threshold) goes as
# deep as its least scores say: there 3.5 cost 2 points of recall.
# The real-slip set's slips score lower, but lowering the floor to its calibration run's (1.0) found none more
# there at `medium` (bin/check-bench --realslips: 0.009 of the changed gaps either way) and cost 10% of
# bin/check's time.
LEAST_REPORTED = {"low": 3.5, "medium": 3.5}


@dataclass(frozen=True)
class Evidence:
    """What a file's ranking says beside a finding's own score."""
    far_best: float = FAR_FLOOR   # the best score on another gap (FAR_FLOOR: none reaches it)
    far_count: int = 0            # other gaps scoring FAR_FLOOR or more
    earlier: int = 0              # the file's findings so far; without any, 1 if a better candidate was not reported
    # the gap's whitespace (its gap symbol) between the same two kinds of tokens (its narrow context):
    repo_observed: int = 0        # as it is, in the repository's other files (the folder's counts)
    repo_repaired: int = 0        # as the repair writes it, there
    file_observed: int = 0        # as it is, elsewhere in the file
    gaps: int = 0                 # the file's gaps (its length)
    other_edit: bool = False      # the repair undoes none of the five kinds of slip (ranker/repairs.py's codrep_edit)
    file_repaired: int = 0        # the gap's whitespace as the repair writes it, elsewhere in the file
    habit: str = ""               # a habit break's habit (check/breaks.py; '': a candidate of the ranking)
    breaks: int = 0               # a habit break's: the other breaks in its file (a file in no one style has many)
    # judging a change (a habit break's): the gap as it is and as repaired elsewhere in the change's lines (the
    # file's counts above are then those of the lines it left alone)
    change_observed: int = 0
    change_repaired: int = 0

    def features(self, score: float = 0.0) -> dict[str, float]:
        """Each 0 at best (no evidence against the finding), larger against it (`score`: the finding's)."""
        return {"far-best": self.far_best - FAR_FLOOR, "far-count": math.log1p(self.far_count),
                "earlier": float(self.earlier > 0),
                "repo-share": self.repo_observed / (self.repo_observed + self.repo_repaired + 1),
                "file-count": math.log1p(self.file_observed),
                "file-share": self.file_observed / (self.file_observed + self.file_repaired + 1),
                "length": math.log1p(self.gaps / 100),
                "other-edit": float(self.other_edit),
                # an injected error scores high, a real slip need not: what the score says of a repair that
                # undoes none of the five kinds (a repair of any size) is weighed apart
                "other-edit-score": float(self.other_edit) * max(score, 0.0) / 10}


def evidence_of(scores, gaps, gap: int, earlier: int) -> Evidence:
    """The evidence beside a finding on `gap`, from its file's ranking (`scores` best first, each candidate's
    `gaps`; complete down to FAR_FLOOR at least)."""
    far: dict[int, float] = {}
    for s, g in zip(scores, gaps):
        if s < FAR_FLOOR:
            break
        if abs(g - gap) > NEAR and g not in far:
            far[g] = s
    return Evidence(max(far.values(), default=FAR_FLOOR), len(far), earlier)


class CalibrationError(ValueError):
    pass



@dataclass(frozen=True)
class Calibration:
    """The belief's weights and precision curve, each sensitivity's least confidence, and the habit beliefs,
    as check/calibration.json holds them (bench/calibration_fit.py fits them)."""
    curves: dict[str, tuple[tuple[float, float], ...]]   # POOLED -> (belief, precision) knots, beliefs ascending
    cutoffs: dict[str, float]                            # sensitivity -> least confidence reported
    model: str = ""                                      # the model it was measured with (file name)
    measured: dict = field(default_factory=dict)         # sets, findings, budgets: how it was made
    weights: dict[str, float] = field(default_factory=dict)   # the belief's (none: every belief 0)
    habits: "HabitBelief | None" = None                   # how far the habit breaks are believed (none: not)
    change: "HabitBelief | None" = None   # the same judging a change (--since, --staged), fitted on real commits

    @property
    def evidence_floor(self) -> float:
        """The score down to which a file must be ranked for the evidence."""
        return FAR_FLOOR

    def _line(self, rule: str) -> tuple[float, float]:
        """(intercept, slope on the score) of `rule`'s belief with no evidence against it."""
        w = self.weights
        return (w.get("bias", 0.0) + w.get(f"rule:{rule}", 0.0),
                w.get("score", 0.0) + w.get(f"rule-score:{rule}", 0.0))

    def belief(self, rule: str, score: float, evidence: Evidence = Evidence()) -> float:
        """The log-odds that the finding is an error."""
        a, b = self._line(rule)
        return a + b * score + sum(self.weights.get(k, 0.0) * v for k, v in evidence.features(score).items())

    def confidence(self, rule: str, score: float, evidence: Evidence = Evidence()) -> float:
        """The precision measured at the finding's belief: a step function (the isotonic fit's), flat past
        the ends; 0 below the first knot."""
        knots = self.curves.get(POOLED) or ()
        i = bisect.bisect_right([k[0] for k in knots], self.belief(rule, score, evidence))
        return knots[i - 1][1] if i else 0.0

    def least_scores(self, cutoff: float, known: Evidence = Evidence()) -> dict[str, float]:
        """rule -> the least score whose confidence can reach `cutoff` (inf: none does) with no evidence against
        it but what is `known` (the rest counted at its best), and no lower than the calibration run's floor;
        POOLED for the rest."""
        z = next((s for s, p in self.curves.get(POOLED, ()) if p >= cutoff), math.inf)
        lowest = self.measured.get("min_score", -math.inf)   # nothing below it was measured
        against = sum(self.weights.get(k, 0.0) * v for k, v in known.features().items())
        out = {}
        for rule in (*RULES, POOLED):
            a, b = self._line(rule)
            if z == math.inf:
                out[rule] = math.inf
            elif b > 0:
                out[rule] = max((z - a - against) / b, lowest)
            else:   # a belief that does not grow with the score: the least score reaches it, if any does
                out[rule] = lowest if b < 0 or a + against >= z else math.inf
        return out

    def save(self, path: Path = CALIBRATION) -> None:
        data = {"curves": {r: [list(k) for k in ks] for r, ks in sorted(self.curves.items())},
                "weights": self.weights, "cutoffs": self.cutoffs, "model": self.model, "measured": self.measured}
        if self.habits is not None:
            data["habits"] = self.habits.as_dict()
        if self.change is not None:
            data["change-habits"] = self.change.as_dict()
        path.write_text(json.dumps(data, indent=1) + "\n")

    @classmethod
    def load(cls, path: Path = CALIBRATION) -> "Calibration":
        try:
            data = json.loads(Path(path).read_text())
            out = cls({str(r): tuple((float(s), float(p)) for s, p in ks) for r, ks in data["curves"].items()},
                      {str(k): float(v) for k, v in data["cutoffs"].items()}, str(data.get("model", "")),
                      dict(data.get("measured", {})), {str(k): float(v) for k, v in data.get("weights", {}).items()},
                      HabitBelief.of_dict(data["habits"]) if "habits" in data else None,
                      HabitBelief.of_dict(data["change-habits"]) if "change-habits" in data else None)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise CalibrationError(f"{path}: not a calibration file ({e})") from None
        missing = [s for s in SENSITIVITIES if s not in out.cutoffs]
        if missing or POOLED not in out.curves or not out.weights:
            raise CalibrationError(f"{path}: no cut-off for {', '.join(missing)}" if missing else
                                   f"{path}: no pooled curve" if POOLED not in out.curves else
                                   f"{path}: no belief weights (an older calibration: fit it again, "
                                   "bin/check-bench --calibrate)")
        return out


def habit_features(e: Evidence) -> dict[str, float]:
    """What the habit belief weighs of a break (check/breaks.py): how often the repository's other files and
    the rest of the file write the gap as it is and as repaired, how many other breaks the file has, and
    which habit it breaks."""
    ro, rr, fo, fr = e.repo_observed, e.repo_repaired, max(e.file_observed, 0), e.file_repaired
    each = {"bias": 1.0, "repo-odds": math.log((ro + 1) / (rr + 1)), "repo-repaired": math.log1p(rr),
            "file-share": fo / (fo + fr + 1), "file-observed": math.log1p(fo), "file-any": float(fo > 0),
            "file-repaired": math.log1p(fr), "file-breaks": math.log1p(e.breaks),
            # the file's own lines write the repair: a departure from the file, not from a new file's taste
            # (a share, as file-share: a count's log carries one project's sizes to another)
            "file-agree": fr / (fo + fr + 1)}
    if e.change_observed or e.change_repaired:   # judging a change: how the change itself writes it
        co, cr = max(e.change_observed, 0), e.change_repaired
        each.update({"change-share": co / (co + cr + 1), "change-agree": cr / (co + cr + 1),
                     "change-observed": math.log1p(co), "change-repaired": math.log1p(cr)})
    # each habit weighs them its own way (trailing whitespace is a slip only where a repository has almost none)
    return {**each, **{f"{e.habit}:{k}": v for k, v in each.items()}}


@dataclass(frozen=True)
class HabitBelief:
    """How far a habit break is believed: a logistic model of "was this break the developer's slip" on its
    habit_features (its **belief**), the precision measured at each belief (isotonic regression: its
    **confidence**), and each sensitivity's least belief reported (`cutoffs`: on the belief, not the
    confidence, whose steps are wide: one holds most breaks of a habit, and a budget may end inside it);
    fitted on real slips (bench/check.py: the real-slip sets' development projects)."""
    weights: dict[str, float]
    curve: tuple[tuple[float, float], ...]
    cutoffs: dict[str, float]

    @cached_property
    def fitted(self) -> frozenset[str]:
        """The habits weighed their own way (none: every habit alike)."""
        return frozenset(k.split(":")[0] for k in self.weights if ":" in k)

    def belief(self, evidence: Evidence) -> float:
        if self.fitted and evidence.habit not in self.fitted:   # a habit it was not fitted on: not believed
            return -math.inf
        return sum(self.weights.get(k, 0.0) * v for k, v in habit_features(evidence).items())

    def confidence(self, evidence: Evidence) -> float:
        return self.precision(self.belief(evidence))

    def precision(self, belief: float) -> float:
        """The precision measured at `belief`: the isotonic fit's knots joined by straight lines, so that a
        higher belief is a higher confidence and each sensitivity's least belief is a least confidence (0
        below the first knot, flat past the last)."""
        knots = self.curve
        i = bisect.bisect_right([k[0] for k in knots], belief)
        if not i:
            return 0.0
        if i == len(knots):
            return knots[-1][1]
        (b0, p0), (b1, p1) = knots[i - 1], knots[i]
        return round(p0 + (p1 - p0) * (belief - b0) / (b1 - b0), 4) if b1 > b0 else p0

    def least_belief(self, confidence: float) -> float:
        """The least belief whose confidence reaches `confidence` (inf: none does)."""
        for (b0, p0), (b1, p1) in zip(((-math.inf, 0.0), *self.curve), self.curve):
            if p1 >= confidence:
                return b1 if p1 == p0 or b0 == -math.inf else b0 + (b1 - b0) * (confidence - p0) / (p1 - p0)
        return math.inf

    def least_confidence(self, sensitivity: str) -> float:
        """The confidence of sensitivity `sensitivity`'s least belief: what a break's confidence must reach."""
        return self.precision(self.cutoffs.get(sensitivity, math.inf))

    def as_dict(self) -> dict:
        return {"weights": self.weights, "curve": [list(k) for k in self.curve], "cutoffs": self.cutoffs}

    @classmethod
    def of_dict(cls, data: dict) -> "HabitBelief":
        return cls({str(k): float(v) for k, v in data["weights"].items()},
                   tuple((float(b), float(p)) for b, p in data["curve"]),
                   {str(k): float(v) for k, v in data["cutoffs"].items()})
