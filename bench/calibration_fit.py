"""The calibration's fitting (check/calibration.py reads what it writes, check/calibration.json): from bin/check's
findings on the development sets, labelled, the belief's weights and precision curve and each sensitivity's
least confidence (`fit`), and the habit belief (`fit_habits`). bench/check.py and
bench/hand_slips.py run bin/check for them and call these.

Each finding or habit break of a calibration run is a `Labelled` record (`Labelled.of_finding`: from a finding
of `bin/check --format json`, whose `evidence` object holds check/calibration.py's Evidence by name). Every set
belongs to a `Family` (the detection sets' injected errors, INJECTED; the real slips; the hand-made slips),
whose clean files bound the false findings each sensitivity may make: a sensitivity's least confidence (or
least belief) is the lowest at which every family keeps within its budgets.
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

from check.calibration import (
    POOLED,
    SENSITIVITIES,
    Calibration,
    CalibrationError,
    Evidence,
    HabitBelief,
    habit_features,
)

# false findings per 1000 lines of clean code each sensitivity allows (the target: at most 0.2 by default)
BUDGETS = {"low": 0.05, "medium": 0.2, "high": 1.0}
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
MIN_FINDINGS = 30     # findings a rule needs for terms of its own in the belief
MIN_RIGHT = 10        # right findings a rule needs for its own terms (the rest share the base)
KNOTS = 32            # points kept per curve (16 left medium's cut-off a step too coarse: docs/notes/calibration.md)
L2 = 0.01             # the logistic fit's penalty
# the evidence features the belief weighs (Evidence.features), their weights kept <= 0: the least score
# assumes none of it (every feature is 0 at best)
EVIDENCE = ("far-best", "far-count", "earlier", "repo-share", "file-count", "file-share", "length", "other-edit",
            "other-edit-score")
INJECTED = "injected"   # the detection sets: one injected error in half the files
# The change belief (bench/commits.py): the terms a habit weighs its own way, and the fit's penalty. Chosen on
# the commit-time development set's breaks, leaving one project out (docs/notes/change-belief.md): at a budget
# of 0.7 these found 0.310 of the held-out project's slips (1.70 false per 1000 added lines there), without
# the two agree-shares 0.226 (2.34), every term per habit 0.194 (2.11).
CHANGE_TERMS = ("bias", "change-share", "repo-odds", "file-share", "file-agree", "change-agree")
CHANGE_L2 = 0.1
COMMITS = "commits"   # the family of the commit-time set: false findings per 1000 changed lines
# The habit breaks' calibration run of bin/check: no finding of the ranking (a least score none reaches), every
# break
ALL_BREAKS = ["--min-score", "1000", "--max-findings", "60"]


@dataclass(frozen=True)
class Labelled:
    """A finding of the ranking, or a habit break, of a calibration run, labelled."""
    evidence: Evidence
    right: bool              # the injected error, or at a slip
    clean: bool              # in a clean file (one without an error or a slip)
    file: str = ""
    family: str = INJECTED   # the Family of the set it was found in
    rule: str = ""           # a finding's rule and score (a habit break's beliefs weigh neither)
    score: float = 0.0

    @staticmethod
    def of_finding(f: dict, right: bool, clean: bool, file: str = "", family: str = INJECTED) -> "Labelled":
        """A finding of `bin/check --format json`, labelled."""
        return Labelled(Evidence(**f["evidence"]), right, clean, file, family, f["rule"], f["score"])


def habit_break(f: dict) -> bool:
    """Whether a finding of `bin/check --format json` is a habit break (check/breaks.py: its evidence names the
    habit), which has beliefs of its own."""
    return bool(f["evidence"].get("habit"))


@dataclass(frozen=True)
class Family:
    """Calibration sets of one kind, whose clean files bound the false findings: their clean lines and files,
    and the false findings each sensitivity allows in them (per 1000 lines; as a share of the files)."""
    clean_lines: int
    clean_files: int = 0
    budgets: dict = field(default_factory=lambda: dict(BUDGETS))
    file_budgets: dict = field(default_factory=lambda: dict(FILE_BUDGETS))


class Rated(NamedTuple):
    """A labelled finding or break as a budget counts it: its confidence (or belief) and labels."""
    value: float
    right: bool
    clean: bool
    file: str
    family: str


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
    """Knots of the isotonic fit of correct-or-not on a belief: at most KNOTS steps, each the precision from
    its belief on (the fit's value at the first point of each step)."""
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


def belief_weights(findings: list[Labelled], l2: float = L2, primary: list[bool] | None = None) -> dict[str, float]:
    """The belief's weights: a logistic regression (Newton's method, an L2 penalty) of right-or-not on a
    bias, the score, an intercept and a slope per rule with MIN_FINDINGS findings of which MIN_RIGHT right
    (the others share the base), and the evidence. An evidence weight that comes out positive is left out
    (so that no evidence is the best case, which the least scores assume).

    With `primary` (a flag per finding), the bias, the score, the evidence and the rules' own terms are
    fitted on the primary findings alone (the injected errors': the ranking's findings on real slips are
    almost all wrong whatever their score and flattened the score's slopes; fitted on both, `medium` found
    0.847 of the injected errors, 0.861 fitted so); a rule with too few primary findings for terms of its
    own but enough of all (`final-newline`, `trailing-space`: real slips) gets them from all its findings,
    the rest held fixed."""
    import numpy as np  # only when fitting
    primary = primary if primary is not None else [True] * len(findings)
    first = _own_rules([f for f, p in zip(findings, primary) if p])
    later = [r for r in _own_rules(findings) if r not in first]
    names = ["bias", "score", *_rule_names(first), *EVIDENCE]
    X = np.array([_belief_row(f, names) for f in findings], float)
    y = np.array([f.right for f in findings], float)
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
        mine = np.array([f.rule in later for f in findings], bool)
        Z = np.array([_belief_row(f, extra) for f in findings], float)[mine]
        base = X[mine][:, use] @ np.array([weights[names[j]] for j in use])
        weights.update(zip(extra, map(float, _logistic(Z, y[mine], l2, base))))
    return {k: round(v, 6) for k, v in weights.items()}


def _own_rules(findings: list[Labelled]) -> list[str]:
    """The rules with MIN_FINDINGS findings of which MIN_RIGHT right: those get terms of their own."""
    right: dict[str, int] = defaultdict(int)
    count: dict[str, int] = defaultdict(int)
    for f in findings:
        count[f.rule] += 1
        right[f.rule] += f.right
    return sorted(r for r in count if count[r] >= MIN_FINDINGS and right[r] >= MIN_RIGHT)


def _rule_names(rules: list[str]) -> list[str]:
    return [f"{k}:{r}" for r in rules for k in ("rule", "rule-score")]


def _belief_row(f: Labelled, names: list[str]) -> list[float]:
    x = {"bias": 1.0, "score": f.score, **f.evidence.features(f.score), f"rule:{f.rule}": 1.0,
         f"rule-score:{f.rule}": f.score}
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


def fit(findings: list[Labelled], families: dict[str, Family], model: str = "",
        measured: dict | None = None) -> Calibration:
    """From every finding of the ranking made at a low threshold on the development sets, labelled, and the
    families of sets they come from (name -> Family; INJECTED's, the sets of injected errors, is the one the
    belief's base terms are fitted on: belief_weights' primary findings): the belief's weights, its precision
    curve and the least confidence of each sensitivity INJECTED's budgets name, the lowest at which every
    family's clean files keep within its budgets (false findings per 1000 lines, and clean files with a finding
    as a share of them)."""
    if not findings or INJECTED not in families or families[INJECTED].clean_lines <= 0:
        raise CalibrationError("nothing to calibrate on: no findings or no clean lines")
    weights = belief_weights(findings, primary=[f.family == INJECTED for f in findings])
    blank = Calibration({}, {}, weights=weights)
    curve = _curve([(blank.belief(f.rule, f.score, f.evidence), f.right) for f in findings])
    cal = Calibration({POOLED: curve}, {}, model, dict(measured or {}), weights)
    rated = [Rated(cal.confidence(f.rule, f.score, f.evidence), f.right, f.clean, f.file, f.family) for f in findings]
    cutoffs = {name: _strictest(rated, families, name, _cutoff) for name in families[INJECTED].budgets}
    return Calibration(cal.curves, cutoffs, model, dict(measured or {}), cal.weights)


def _strictest(rated: list[Rated], families: dict[str, Family], name: str, cut) -> float:
    """The highest of every family's cut-off of sensitivity `name` (`cut`: _cutoff or _least) over its own
    findings: every family keeps within its budgets."""
    return max(cut([r for r in rated if r.family == fam], name, {fam: family}) for fam, family in families.items())


def _cutoff(rated: list[Rated], name: str, family: dict[str, Family]) -> float:
    """The least confidence of sensitivity `name` in one family's findings (`family`: its name -> Family): the
    lowest at which its clean files' false findings keep within its budgets."""
    if not rated:
        return 1e-4
    return round(max(_least(rated, name, family, 1.0 + 1e-9), 1e-4), 4)


def _least(rated: list[Rated], name: str, family: dict[str, Family], none: float | None = None) -> float:
    """The least value (of a confidence, or of any measure that grows with it) at which one family's findings
    keep within the budgets of sensitivity `name` in its clean files; when not even the best do, `none` (None:
    just above the best); -inf when there are none."""
    if not rated:
        return -math.inf
    best = max(r.value for r in rated)
    return _lowest_within(rated, _Spending(family, name), math.nextafter(best, math.inf) if none is None else none)


def _lowest_within(rated: list[Rated], spending: "_Spending", none: float) -> float:
    """The lowest value at which findings, counted from the highest value down onto `spending`, keep every
    family within its budgets; `none` when not even the highest do."""
    ordered = sorted(rated, key=lambda r: -r.value)
    cut = none
    for i, r in enumerate(ordered):
        if not spending.add(r):
            break
        if i + 1 == len(ordered) or ordered[i + 1].value < r.value:   # a cut-off between distinct values
            cut = r.value
    return cut


class _Spending:
    """What the findings counted so far spend of each family's budgets at sensitivity `name`: the false findings
    in its clean files (per 1000 lines) and the clean files with one (a share of them)."""

    def __init__(self, families: dict[str, Family], name: str):
        self.families, self.name = families, name
        self.false_clean: dict[str, int] = defaultdict(int)
        self.touched: dict[str, set[str]] = defaultdict(set)

    def add(self, r: Rated) -> bool:
        """Count a finding; whether its family still keeps within its budgets (one without budgets always
        does)."""
        if r.family not in self.families or not r.clean or r.right:
            return True
        fam = self.families[r.family]
        self.false_clean[r.family] += 1
        self.touched[r.family].add(r.file)
        files = fam.file_budgets.get(self.name, math.inf) * fam.clean_files if fam.clean_files else math.inf
        return (self.false_clean[r.family] <= fam.budgets[self.name] * fam.clean_lines / 1000
                and len(self.touched[r.family]) <= files)


def fit_habits(breaks: list[Labelled], families: dict[str, Family], measured_on: str) -> HabitBelief:
    """From the habit breaks found in development sets, labelled: the habit belief (a logistic fit on all of
    them), its precision curve (on family `measured_on`'s: the precision of a break in repositories with
    slips) and each sensitivity's least belief, the lowest at which every family's clean files keep within
    its budgets."""
    if not any(b.family == measured_on for b in breaks):
        raise CalibrationError(f"no habit breaks of {measured_on} to calibrate on")
    blank = _habit_weights(breaks)
    rated = [Rated(blank.belief(b.evidence), b.right, b.clean, b.file, b.family) for b in breaks]
    curve = _curve([(r.value, r.right) for r in rated if r.family == measured_on])
    return HabitBelief(blank.weights, curve,
                       {name: _strictest(rated, families, name, _least) for name in SENSITIVITIES})


def fit_change_habits(breaks: list[Labelled], family: Family) -> HabitBelief:
    """From the habit breaks on the lines that real commits changed (`family`: their changed lines and the
    budgets per 1000 of them), labelled (right: at a slip a later commit fixed; every other one counted false):
    the change belief, on fewer terms than the whole-file one (CHANGE_TERMS: a habit weighs only these its own
    way; a few dozen slips per habit cannot carry more), its curve and least beliefs."""
    blank = _habit_weights(breaks, CHANGE_L2, lambda name: ":" not in name or name.split(":")[1] in CHANGE_TERMS)
    rated = [Rated(blank.belief(b.evidence), b.right, b.clean, b.file, COMMITS) for b in breaks]
    curve = _curve([(r.value, r.right) for r in rated])
    return HabitBelief(blank.weights, curve, {name: _least(rated, name, {COMMITS: family}) for name in SENSITIVITIES})


def _habit_weights(breaks: list[Labelled], l2: float = L2, keep=lambda name: True) -> HabitBelief:
    """A habit belief with the weights of a logistic fit of right-or-not on `breaks`' habit features (those
    whose names `keep`; no curve, no cut-offs)."""
    import numpy as np  # only when fitting
    rows = [habit_features(b.evidence) for b in breaks]
    names = sorted({k for r in rows for k in r if keep(k)})
    X = np.array([[r.get(n, 0.0) for n in names] for r in rows], float)
    w = _logistic(X, np.array([b.right for b in breaks], float), l2)
    return HabitBelief({n: round(float(v), 6) for n, v in zip(names, w)}, (), {})
