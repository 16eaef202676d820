"""What a score means: a finding's confidence and the cut-off of each --sensitivity, measured on the
development sets (bench/check.py fits them from bin/check's findings there and writes CALIBRATION).

A finding's confidence is the precision measured at its **belief**: a logistic model of "was this finding
the injected error" on its score and rule and on the evidence beside it (`Evidence`: how the rest of the
file's ranking looks, whether the file already had a finding, how often the repository's other files and
the file itself write the gap's whitespace between the same two kinds of tokens, the file's length, and
whether the repair undoes one slip of the five kinds CodRep 2019 injects),
made a precision by isotonic regression of the same labels on it. A real oddity of clean code scores as high
as a slip, but it comes in files with other odd spots, where the slip stands alone, and it is often the
project's or the file's habit (`return  true;` in a repository that writes it elsewhere too); a file's
second finding is rarely an error once its first is fixed; and a repair that is not the undoing of one slip
(a tab made a space, a space taken out of a run of two) is almost never the error. Without weights (an older
calibration file) the belief is the score, with one isotonic curve per rule. A sensitivity is a least
confidence, the lowest at which the false findings in clean files stay within its budget per 1000 lines and,
for `medium`, the clean files with a finding within a share of them. The precision is that of sets where
half the files hold one error each: in a repository with fewer errors the same finding is right less often.
The habit breaks (check/breaks.py) have a belief of their own (`HabitBelief`), fitted on real slips; and a
second one for large repositories (`habits_large`), fitted on slips injected into them, which reports a
break the first does not believe.
"""
from __future__ import annotations

import bisect
import json
import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .rules import RULES

CALIBRATION = Path(__file__).with_name("calibration.json")
# false findings per 1000 lines of clean code each sensitivity allows (the target: at most 0.2 by default)
BUDGETS = {"low": 0.05, "medium": 0.2, "high": 1.0}
SENSITIVITIES = tuple(BUDGETS)
DEFAULT_SENSITIVITY = "medium"
POOLED = "*"          # the curve of rules with too few findings to have their own
MIN_FINDINGS = 30     # findings a rule needs for its own curve
MIN_RIGHT = 10        # right findings a rule needs for its own terms in the belief (the rest share the base)
KNOTS = 32            # points kept per curve (16 left medium's cut-off a step too coarse: docs/notes/calibration.md)
# The evidence: candidates scoring FAR_FLOOR or more on gaps more than NEAR gaps from the finding's (its own
# neighbours look odd because of it). Chosen on the development sets' findings (leave one set out: floors 4,
# 5, 6, 7 gave recall 0.872, 0.865, 0.858, 0.848 at the medium budget, with a first version of the features);
# the ranker must rank down to it.
FAR_FLOOR = 5.0
NEAR = 3
L2 = 0.01             # the logistic fit's penalty
# No finding scoring less is reported at these sensitivities (check/cli.py): the ranking then goes no deeper.
# Below 3.5 were 6 of the 4,200 errors `medium` found in the replay of all 11 sets (docs/calibration.md); with the
# belief's least scores alone a tab could be reported from the calibration run's floor, 2, in most files,
# and every file was ranked down to it (bin/check 1.8x bin/rank's time). `high` (and --threshold) goes as
# deep as its least scores say: there 3.5 cost 2 points of recall.
# The real-slip set's slips score lower, but lowering the floor to its calibration run's (1.0) found none more
# there at `medium` (bin/check-bench --realslips: 0.009 of the changed gaps either way) and cost 10% of
# bin/check's time.
LEAST_REPORTED = {"low": 3.5, "medium": 3.5}
# weights kept <= 0: the least score assumes none of it (every feature is 0 at best)
EVIDENCE = ("far-best", "far-count", "earlier", "repo-share", "file-count", "file-share", "length", "other-edit",
            "other-edit-score")
# The share of the clean files a sensitivity may put a finding in, beside its false findings per 1000 lines
# (the target: 0.98 of clean files unchanged). Chosen on the development sets' findings (leave one set
# out, the replay in docs/notes/calibration.md): with the other-edit evidence, at `medium` a share of 0.02 leaves their
# recall at 0.852 (0.04: 0.882, but 0.966 of their clean files unchanged).
FILE_BUDGETS = {"medium": 0.02}
# The same for the real-slip sets' clean files (formats/realslips.py): files of the same projects that no later
# commit fixed, not files without anomalies (tabs in a space-indented file, a missing space, left as they
# were), so the findings there bound the false alarms from above; the budgets are looser accordingly.
SLIP_BUDGETS = {"low": 0.2, "medium": 0.5, "high": 2.0}
SLIP_FILE_BUDGETS = {"medium": 0.08}


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
    curves: dict[str, tuple[tuple[float, float], ...]]   # rule -> (score, precision) knots, scores ascending
    cutoffs: dict[str, float]                            # sensitivity -> least confidence reported
    model: str = ""                                      # the model it was measured with (file name)
    measured: dict = field(default_factory=dict)         # sets, findings, budgets: how it was made
    weights: dict[str, float] = field(default_factory=dict)   # the belief's; none: the belief is the score
    habits: "HabitBelief | None" = None                   # how far the habit breaks are believed (none: not)
    habits_large: "HabitBelief | None" = None             # ... in large repositories, beside it (none: no such)

    @property
    def evidence_floor(self) -> float:
        """The score down to which a file must be ranked for the evidence (inf: the belief needs none)."""
        return FAR_FLOOR if self.weights else math.inf

    def _line(self, rule: str) -> tuple[float, float]:
        """(intercept, slope on the score) of `rule`'s belief with no evidence against it."""
        w = self.weights
        return (w.get("bias", 0.0) + w.get(f"rule:{rule}", 0.0),
                w.get("score", 0.0) + w.get(f"rule-score:{rule}", 0.0))

    def belief(self, rule: str, score: float, evidence: Evidence = Evidence()) -> float:
        """The log-odds that the finding is an error (the score itself without weights)."""
        if not self.weights:
            return score
        a, b = self._line(rule)
        return a + b * score + sum(self.weights.get(k, 0.0) * v for k, v in evidence.features(score).items())

    def confidence(self, rule: str, score: float, evidence: Evidence = Evidence()) -> float:
        """The precision measured at the finding's belief: a step function (the isotonic fit's), flat past
        the ends; 0 below the first knot. Without weights, on the score, with `rule`'s curve."""
        knots = (self.curves.get(POOLED) if self.weights else self.curves.get(rule) or self.curves.get(POOLED)) or ()
        i = bisect.bisect_right([k[0] for k in knots], self.belief(rule, score, evidence))
        return knots[i - 1][1] if i else 0.0

    def least_scores(self, cutoff: float, known: Evidence = Evidence()) -> dict[str, float]:
        """rule -> the least score whose confidence can reach `cutoff` (inf: none does; with weights, with no
        evidence against it but what is `known` (the rest counted at its best), and no lower than the
        calibration run's floor); POOLED for the rest."""
        if not self.weights:
            return {rule: next((s for s, p in knots if p >= cutoff), math.inf) for rule, knots in self.curves.items()}
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
        if self.habits_large is not None:
            data["habits_large"] = self.habits_large.as_dict()
        path.write_text(json.dumps(data, indent=1) + "\n")

    @classmethod
    def load(cls, path: Path = CALIBRATION) -> "Calibration":
        try:
            data = json.loads(Path(path).read_text())
            out = cls({str(r): tuple((float(s), float(p)) for s, p in ks) for r, ks in data["curves"].items()},
                      {str(k): float(v) for k, v in data["cutoffs"].items()}, str(data.get("model", "")),
                      dict(data.get("measured", {})), {str(k): float(v) for k, v in data.get("weights", {}).items()},
                      HabitBelief.of_dict(data["habits"]) if "habits" in data else None,
                      HabitBelief.of_dict(data["habits_large"]) if "habits_large" in data else None)
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
    """Knots of the isotonic fit of correct-or-not on score (or belief): at most KNOTS steps, each the
    precision from its score on (the fit's value at the first point of each step)."""
    points = sorted(points)
    fitted = isotonic([1.0 if ok else 0.0 for _, ok in points])
    steps: list[tuple[float, float]] = []
    for (score, _), p in zip(points, fitted):
        if not steps or p > steps[-1][1]:   # (rounded down: a knot above its first point would leave it out)
            steps.append((math.floor(score * 1e4) / 1e4, round(p, 4)))
    while len(steps) > KNOTS:   # merge the closest neighbouring steps (keeps the curve monotone)
        i = min(range(1, len(steps)), key=lambda j: steps[j][1] - steps[j - 1][1])
        steps.pop(i)
    return tuple(steps)


def belief_weights(findings: list[tuple[str, float, bool, bool]], evidence: list[Evidence],
                   l2: float = L2, primary: list[bool] | None = None) -> dict[str, float]:
    """The belief's weights: a logistic regression (Newton's method, an L2 penalty) of correct-or-not on a
    bias, the score, an intercept and a slope per rule with MIN_FINDINGS findings of which MIN_RIGHT right
    (the others share the base), and the evidence. An evidence weight that comes out positive is left out
    (so that no evidence is the best case, which the least scores assume).

    With `primary` (a flag per finding), the bias, the score, the evidence and the rules' own terms are
    fitted on the primary findings alone (the injected errors': the ranking's findings on real slips are
    almost all wrong whatever their score and flattened the score's slopes; fitted on both, `medium` found
    0.847 of the injected errors, 0.861 fitted so); a rule with too few primary findings for terms of its
    own but enough of all (`final-newline`, `trailing-space`: real slips) gets them from all its findings,
    the rest held fixed."""
    import numpy as np   # only when fitting
    primary = primary if primary is not None else [True] * len(findings)
    first = _own_rules([f for f, p in zip(findings, primary) if p])
    later = [r for r in _own_rules(findings) if r not in first]
    names = ["bias", "score", *_rule_names(first), *EVIDENCE]
    X = np.array([_belief_row(f, e, names) for f, e in zip(findings, evidence)], float)
    y = np.array([ok for _, _, ok, _ in findings], float)
    rows = np.array(primary, bool)
    use = list(range(len(names)))
    while True:
        w = _logistic(X[rows][:, use], y[rows], l2)
        weights = {names[j]: float(v) for j, v in zip(use, w)}
        positive = [j for j in use if names[j] in EVIDENCE and weights[names[j]] > 0]
        if not positive:
            break
        use = [j for j in use if j not in positive]
    if later:
        extra = _rule_names(later)
        mine = np.array([f[0] in later for f in findings], bool)
        Z = np.array([_belief_row(f, e, extra) for f, e in zip(findings, evidence)], float)[mine]
        base = X[mine][:, use] @ np.array([weights[names[j]] for j in use])
        weights.update(zip(extra, map(float, _logistic(Z, y[mine], l2, base))))
    return {k: round(v, 6) for k, v in weights.items()}


def _own_rules(findings: list[tuple[str, float, bool, bool]]) -> list[str]:
    """The rules with MIN_FINDINGS findings of which MIN_RIGHT right: those get terms of their own."""
    right: dict[str, int] = defaultdict(int)
    count: dict[str, int] = defaultdict(int)
    for rule, _, ok, _ in findings:
        count[rule] += 1
        right[rule] += ok
    return sorted(r for r in count if count[r] >= MIN_FINDINGS and right[r] >= MIN_RIGHT)


def _rule_names(rules: list[str]) -> list[str]:
    return [f"{k}:{r}" for r in rules for k in ("rule", "rule-score")]


def _belief_row(finding: tuple[str, float, bool, bool], evidence: Evidence, names: list[str]) -> list[float]:
    rule, score = finding[0], finding[1]
    x = {"bias": 1.0, "score": score, **evidence.features(score), f"rule:{rule}": 1.0, f"rule-score:{rule}": score}
    return [x.get(n, 0.0) for n in names]


def _logistic(X, y, l2: float, offset=0.0):
    """The weights of a logistic regression of y on the columns of X (Newton's method, an L2 penalty), each
    row's log-odds `offset` (a fixed part) added. A step that does not lower the penalized loss is halved
    (a large offset saturates the first steps' curvature, and undamped Newton then flies off)."""
    import numpy as np

    def loss(w):
        z = X @ w + offset
        return float(np.sum(np.logaddexp(0, z) - y * z) + l2 / 2 * w @ w)

    w = np.zeros(X.shape[1])
    now = loss(w)
    for _ in range(100):
        p = 1 / (1 + np.exp(-np.clip(X @ w + offset, -50, 50)))
        step = np.linalg.solve((X * (p * (1 - p))[:, None]).T @ X + l2 * np.eye(X.shape[1]), X.T @ (p - y) + l2 * w)
        for _ in range(30):
            if loss(w - step) <= now + 1e-12:
                break
            step = step / 2
        w -= step
        now = loss(w)
        if np.abs(step).max() < 1e-9:
            break
    return w


@dataclass(frozen=True)
class Family:
    """Calibration sets of one kind, whose clean files bound the false findings: their clean lines and files,
    and the false findings each sensitivity allows in them (per 1000 lines; as a share of the files)."""
    clean_lines: int
    clean_files: int = 0
    budgets: dict = field(default_factory=lambda: dict(BUDGETS))
    file_budgets: dict = field(default_factory=lambda: dict(FILE_BUDGETS))


INJECTED = "injected"   # the detection sets: one injected error in half the files


def fit(findings: list[tuple[str, float, bool, bool]], clean_lines: int, budgets: dict[str, float] = BUDGETS,
        model: str = "", measured: dict | None = None, evidence: list[Evidence] | None = None,
        files: list[str] | None = None, clean_files: int = 0,
        file_budgets: dict[str, float] = FILE_BUDGETS, families: dict[str, Family] | None = None,
        family_of: list[str] | None = None) -> Calibration:
    """From (rule, score, correct, in_clean_file) of every finding made at a low threshold on the development
    sets, the lines of their clean files and each finding's `evidence`: the belief's weights, its precision
    curve and each sensitivity's least confidence, the lowest at which the false findings in clean files stay
    within its budget per 1000 lines and, given each finding's file (`files`) and the number of clean files,
    the clean files with a finding within its share of them (`file_budgets`). With `families` (name ->
    Family) and each finding's (`family_of`), every family's clean files keep within its own budgets (the
    sets of INJECTED errors take `clean_lines`, `clean_files`, `budgets` and `file_budgets`). Without
    evidence: one precision curve on the score per rule (rules with fewer than MIN_FINDINGS share the pooled
    one)."""
    if not findings or clean_lines <= 0:
        raise CalibrationError("nothing to calibrate on: no findings or no clean lines")
    if evidence is not None:
        weights = belief_weights(findings, evidence, primary=[f == INJECTED for f in family_of]
                                 if family_of is not None else None)
        blank = Calibration({}, {}, weights=weights)
        beliefs = [blank.belief(r, s, e) for (r, s, _, _), e in zip(findings, evidence)]
        cal = Calibration({POOLED: _curve([(b, ok) for b, (_, _, ok, _) in zip(beliefs, findings)])}, {}, model,
                          dict(measured or {}), weights)
    else:
        evidence = [Evidence()] * len(findings)
        by_rule: dict[str, list[tuple[float, bool]]] = defaultdict(list)
        for rule, score, ok, _ in findings:
            by_rule[rule].append((score, ok))
        curves = {POOLED: _curve([(s, ok) for _, s, ok, _ in findings])}
        curves.update((rule, _curve(pts)) for rule, pts in by_rule.items() if len(pts) >= MIN_FINDINGS)
        cal = Calibration(curves, {}, model, dict(measured or {}))
    files = files if files is not None else [""] * len(findings)
    families = {INJECTED: Family(clean_lines, clean_files, budgets, file_budgets), **(families or {})}
    family_of = family_of if family_of is not None else [INJECTED] * len(findings)
    rated = [(cal.confidence(r, s, e), ok, clean, file, f)
             for (r, s, ok, clean), e, file, f in zip(findings, evidence, files, family_of)]
    cutoffs = {name: _strictest(rated, families, name, _cutoff) for name in budgets}
    return Calibration(cal.curves, cutoffs, model, dict(measured or {}), cal.weights)


def _strictest(rated: list[tuple[float, bool, bool, str, str]], families: dict[str, Family], name: str,
               cut) -> float:
    """The highest of every family's cut-off of sensitivity `name` (`cut`: _cutoff or _least) over its own
    findings (value, right, in a clean file, file, family): every family keeps within its budgets."""
    return max(cut([r[:4] for r in rated if r[4] == fam], name, family) for fam, family in families.items())


def _cutoff(rated: list[tuple[float, bool, bool, str]], name: str, family: Family) -> float:
    """The least confidence of sensitivity `name` in one family's findings (confidence, right, in a clean
    file, file): the lowest at which its clean files' false findings keep within its budgets."""
    if not rated:
        return 1e-4
    return round(max(_least(rated, name, family, 1.0 + 1e-9), 1e-4), 4)


def _least(rated: list[tuple[float, bool, bool, str]], name: str, family: Family, none: float | None = None) -> float:
    """The least value (of a confidence, or of any measure that grows with it) at which one family's findings
    (value, right, in a clean file, file) keep within the budgets of sensitivity `name` in its clean files;
    when not even the best do, `none` (None: just above the best); -inf when there are none."""
    if not rated:
        return -math.inf
    best = max(value for value, *_ in rated)
    return _lowest_within([(value, ok, clean, file, "") for value, ok, clean, file in rated],
                          _Spending({"": family}, name), math.nextafter(best, math.inf) if none is None else none)


def _lowest_within(rated: list[tuple[float, bool, bool, str, str]], spending: "_Spending", none: float) -> float:
    """The lowest value at which findings (value, right, in a clean file, file, family), counted from the highest
    value down onto `spending`, keep every family within its budgets; `none` when not even the highest do."""
    ordered = sorted(rated, key=lambda r: -r[0])
    cut = none
    for i, (value, ok, clean, file, family) in enumerate(ordered):
        if not spending.add(ok, clean, file, family):
            break
        if i + 1 == len(ordered) or ordered[i + 1][0] < value:   # a cut-off between distinct values
            cut = value
    return cut


class _Spending:
    """What the findings counted so far spend of each family's budgets at sensitivity `name`: the false findings
    in its clean files (per 1000 lines) and the clean files with one (a share of them)."""

    def __init__(self, families: dict[str, Family], name: str):
        self.families, self.name = families, name
        self.false_clean: dict[str, int] = defaultdict(int)
        self.touched: dict[str, set[str]] = defaultdict(set)

    def add(self, ok: bool, clean: bool, file: str, family: str) -> bool:
        """Count a finding of `family`; whether the family still keeps within its budgets (one without
        budgets always does)."""
        if family not in self.families or not clean or ok:
            return True
        fam = self.families[family]
        self.false_clean[family] += 1
        self.touched[family].add(file)
        files = fam.file_budgets.get(self.name, math.inf) * fam.clean_files if fam.clean_files else math.inf
        return (self.false_clean[family] <= fam.budgets[self.name] * fam.clean_lines / 1000
                and len(self.touched[family]) <= files)


def habit_features(e: Evidence) -> dict[str, float]:
    """What the habit belief weighs of a break (check/breaks.py): how often the repository's other files and
    the rest of the file write the gap as it is and as repaired, how many other breaks the file has, and
    which habit it breaks."""
    ro, rr, fo, fr = e.repo_observed, e.repo_repaired, max(e.file_observed, 0), e.file_repaired
    each = {"bias": 1.0, "repo-odds": math.log((ro + 1) / (rr + 1)), "repo-repaired": math.log1p(rr),
            "file-share": fo / (fo + fr + 1), "file-observed": math.log1p(fo), "file-any": float(fo > 0),
            "file-repaired": math.log1p(fr), "file-breaks": math.log1p(e.breaks)}
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

    def belief(self, evidence: Evidence) -> float:
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


def fit_habits(breaks: list[tuple[Evidence, bool, bool, str, str]], families: dict[str, Family],
               measured_on: str) -> HabitBelief:
    """From (evidence, right, in a clean file, file, family) of the habit breaks found in development sets:
    the habit belief (a logistic fit on all of them), its precision curve (on family `measured_on`'s: the
    precision of a break in repositories with slips) and each sensitivity's least belief, the lowest at
    which every family's clean files keep within its budgets."""
    if not any(family == measured_on for *_, family in breaks):
        raise CalibrationError(f"no habit breaks of {measured_on} to calibrate on")
    blank = _habit_weights(breaks)
    rated = [(blank.belief(e), ok, clean, file, family) for e, ok, clean, file, family in breaks]
    curve = _curve([(b, ok) for b, ok, *_, family in rated if family == measured_on])
    return HabitBelief(blank.weights, curve,
                       {name: _strictest(rated, families, name, _least) for name in SENSITIVITIES})


def fit_habits_beside(breaks: list[tuple[Evidence, bool, bool, str, str]], families: dict[str, Family],
                      first: HabitBelief, fit_on: set[str]) -> HabitBelief:
    """A second habit belief beside `first`: a logistic fit on the breaks of the families `fit_on` (the large
    repositories': the detection sets' anomalies and the slips injected beside them), its precision curve
    on the same breaks, and each sensitivity's least belief, the lowest at which the breaks that either
    belief reports keep every family of `families` within its budgets (those `first` reports count first)."""
    mine = [b for b in breaks if b[4] in fit_on]
    if not any(ok for _, ok, *_ in mine):
        raise CalibrationError(f"no slip among the habit breaks of {', '.join(sorted(fit_on))} to calibrate on")
    blank = _habit_weights(mine)
    beliefs = [(blank.belief(e), first.belief(e)) for e, *_ in breaks]
    curve = _curve([(b, ok) for (b, _), (_, ok, *_, family) in zip(beliefs, breaks) if family in fit_on])
    cutoffs = {name: _least_beside([(b, ok, clean, file, family, a >= first.cutoffs.get(name, math.inf))
                                    for (b, a), (_, ok, clean, file, family) in zip(beliefs, breaks)], families, name)
               for name in SENSITIVITIES}
    return HabitBelief(blank.weights, curve, cutoffs)


def _habit_weights(breaks: list[tuple[Evidence, bool, bool, str, str]]) -> "HabitBelief":
    """A habit belief with the weights of a logistic fit of right-or-not on `breaks`' habit features (no
    curve, no cut-offs)."""
    import numpy as np   # only when fitting
    rows = [habit_features(e) for e, *_ in breaks]
    names = sorted({k for r in rows for k in r})
    X = np.array([[r.get(n, 0.0) for n in names] for r in rows], float)
    w = _logistic(X, np.array([ok for _, ok, *_ in breaks], float), L2)
    return HabitBelief({n: round(float(v), 6) for n, v in zip(names, w)}, (), {})


def _least_beside(rated: list[tuple[float, bool, bool, str, str, bool]], families: dict[str, Family],
                  name: str) -> float:
    """The least belief of sensitivity `name` over breaks (belief, right, in a clean file, file, family,
    reported already by another belief): the lowest at which those reported by either keep every family's
    clean files within its budgets (inf: not even the most believed one)."""
    spending = _Spending(families, name)
    for _, ok, clean, file, family, already in rated:
        if already and not spending.add(ok, clean, file, family):
            return math.inf   # the other belief alone spends the budget
    return _lowest_within([r[:5] for r in rated if not r[5]], spending, math.inf)
