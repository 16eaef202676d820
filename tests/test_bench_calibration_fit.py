"""bench/calibration_fit.py: the belief, its precision curve and each sensitivity's cut-off fitted from labelled
findings, and the habit beliefs from labelled breaks, every family of sets kept within its budgets."""
import math
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.calibration_fit import (
    INJECTED,
    Family,
    Labelled,
    _logistic,
    belief_weights,
    fit,
    fit_change_habits,
    fit_habits,
    habit_break,
    isotonic,
)
from check.calibration import FAR_FLOOR, POOLED, Calibration, CalibrationError, Evidence


@given(st.lists(st.floats(0, 1, allow_nan=False), max_size=40))
def test_isotonic_is_monotone_and_keeps_the_mean(ys):
    fitted = isotonic(ys)
    assert len(fitted) == len(ys)
    assert all(a <= b + 1e-12 for a, b in zip(fitted, fitted[1:]))
    if ys:
        assert math.isclose(sum(fitted), sum(ys), abs_tol=1e-9)


def _with_evidence(family: str = INJECTED) -> list[Labelled]:
    """Tabs and line breaks: at the same score an error stands alone in its file, a false finding comes with
    other odd gaps, and a file's second finding is false."""
    out = []
    for i in range(80):
        score = 3 + (i % 20) / 4   # 3.0 .. 7.75
        for rule in ("tab", "line-break"):
            out.append(Labelled(Evidence(), True, False, family=family, rule=rule, score=score))
            out.append(Labelled(Evidence(score - 0.5, 3), False, True, family=family, rule=rule, score=score))
            out.append(Labelled(Evidence(FAR_FLOOR, 0, 1), False, False, family=family, rule=rule, score=score - 1))
    return out


def test_the_belief_weighs_the_evidence_and_its_confidence_is_the_precision_beside_it(tmp_path):
    cal = fit(_with_evidence(), {INJECTED: Family(20_000, 0, {"low": 0.0, "medium": 2.0, "high": 20.0})})
    w = cal.weights
    assert w["far-count"] < 0 and w["earlier"] < 0 and w["far-best"] <= 0
    assert set(cal.curves) == {POOLED} and cal.evidence_floor == FAR_FLOOR
    alone, crowded, second = Evidence(), Evidence(6.0, 3), Evidence(FAR_FLOOR, 0, 1)
    assert cal.confidence("tab", 6.0, alone) > 0.9 > 0.1 > cal.confidence("tab", 6.0, crowded)
    assert cal.confidence("tab", 6.0, second) < 0.1
    # the least score of a rule is where a finding with no evidence against it reaches the cut-off
    cut = cal.cutoffs["medium"]
    least = cal.least_scores(cut)
    assert cal.confidence("tab", least["tab"] + 1e-6) >= cut > cal.confidence("tab", least["tab"] - 0.01)
    assert least["indent"] == math.inf or cal.confidence("indent", least["indent"] + 1e-6) >= cut
    cal.save(tmp_path / "c.json")
    assert Calibration.load(tmp_path / "c.json") == cal
    # a confidence of 0 reaches down to the least score the calibration run measured, not below
    assert min(cal.least_scores(0.0).values()) < 2.0
    measured = Calibration(cal.curves, cal.cutoffs, weights=cal.weights, measured={"min_score": 2.0})
    assert min(measured.least_scores(0.0).values()) == 2.0


def test_every_family_keeps_within_its_budgets():
    """A family of sets whose clean files allow no false finding at `low` raises low's cut-off above the
    false findings they hold; beside it, the injected errors' family alone allows more."""
    budgets = {"low": 0.0, "medium": 2.0, "high": 20.0}
    alone = fit(_with_evidence(), {INJECTED: Family(20_000, 0, budgets)})
    strict = [replace(f, family="strict", file=f"s{i}") for i, f in enumerate(_with_evidence())]
    both = fit(_with_evidence() + strict, {INJECTED: Family(20_000, 0, budgets),
                                            "strict": Family(1_000, 0, {"low": 0.0, "medium": 0.0, "high": 0.0})})
    assert all(both.cutoffs[s] >= alone.cutoffs[s] for s in budgets)
    false = [f for f in strict if f.clean and not f.right]
    assert all(both.confidence(f.rule, f.score, f.evidence) < both.cutoffs["high"] for f in false)


def test_a_sensitivity_keeps_the_clean_files_with_a_finding_within_its_share():
    """Beside the false findings per 1000 lines, the share of clean files with a finding: each false finding
    here is in a clean file of its own, so a share of 0.1 of 100 clean files allows 10 of them."""
    findings = []
    for i in range(100):
        score = 2 + i / 10
        findings.append(Labelled(Evidence(), True, False, f"task{i}", rule="tab", score=score))
        findings.append(Labelled(Evidence(), False, True, f"clean{i}", rule="tab", score=score - 0.05))
    loose = fit(findings, {INJECTED: Family(1_000_000, 0, {"medium": 100.0})})
    tight = fit(findings, {INJECTED: Family(1_000_000, 100, {"medium": 100.0}, {"medium": 0.1})})
    assert tight.cutoffs["medium"] > loose.cutoffs["medium"]

    def touched(cal):
        return {f.file for f in findings if f.clean and cal.confidence(f.rule, f.score) >= cal.cutoffs["medium"]}
    assert len(touched(tight)) <= 10 < len(touched(loose))
    # with no share for the sensitivity, only the lines' budget counts
    assert fit(findings, {INJECTED: Family(1_000_000, 100, {"medium": 100.0}, {})}).cutoffs == loose.cutoffs


def test_the_belief_is_fitted_on_the_primary_findings_and_a_rule_only_the_others_have_gets_its_own_terms():
    findings = _with_evidence()
    primary = [True] * len(findings)
    # findings of another family, wrong whatever their score, and a rule only they have, right when it scores high
    for i in range(200):
        findings.append(Labelled(Evidence(), False, False, family="other", rule="line-break", score=3 + i / 20))
        findings.append(Labelled(Evidence(), i % 40 >= 30, False, family="other", rule="final-newline",
                                 score=3 + (i % 40) / 8))
        primary += [False, False]
    alone = belief_weights(_with_evidence())
    both = belief_weights(findings, primary=primary)
    pooled = belief_weights(findings)
    assert {k: v for k, v in both.items() if "final-newline" not in k} == alone
    assert (pooled["score"] + pooled.get("rule-score:line-break", 0)
            < alone["score"] + alone.get("rule-score:line-break", 0))
    cal = Calibration({}, {}, weights=both)
    assert cal.belief("final-newline", 7.5) > 0 > cal.belief("final-newline", 3.5)
    # fit's primary findings are INJECTED's
    families = {INJECTED: Family(20_000), "other": Family(20_000)}
    assert fit(findings, families).weights == both


def test_a_logistic_fit_with_a_large_offset_stays_finite():
    import numpy as np
    X = np.array([[1.0, s] for s in np.linspace(2, 8, 60)])
    y = (np.arange(60) % 7 == 0).astype(float)   # a few right, at every score
    w = _logistic(X, y, 0.01, offset=np.linspace(10, 40, 60))
    assert np.all(np.isfinite(w)) and np.abs(w).max() < 100
    p = 1 / (1 + np.exp(-(X @ w + np.linspace(10, 40, 60))))
    assert abs(p.sum() - y.sum()) < 0.5   # the fit's mean is the data's (the score equations hold)


def test_an_evidence_weight_that_would_reward_a_crowded_file_is_left_out():
    # now the crowded findings are the right ones: far-count would come out positive
    findings = [replace(f, evidence=Evidence(f.score + 1, 3) if f.right else Evidence()) for f in _with_evidence()]
    cal = fit(findings, {INJECTED: Family(20_000)})
    assert "far-count" not in cal.weights and "far-best" not in cal.weights


def test_fit_needs_findings_and_clean_lines_of_injected_errors():
    with pytest.raises(CalibrationError):
        fit([], {INJECTED: Family(100)})
    with pytest.raises(CalibrationError):
        fit(_with_evidence(), {INJECTED: Family(0)})
    with pytest.raises(CalibrationError):
        fit(_with_evidence("other"), {"other": Family(100)})


@pytest.mark.parametrize("finding, habit", [
    ({"rule": "tab", "score": 4.5, "evidence": {"far_best": 6.25, "far_count": 2, "other_edit": True}}, False),
    ({"rule": "trailing-space", "score": 0.0, "evidence": {"repo_observed": 3, "habit": "trailing", "breaks": 1}},
     True),
])
def test_a_json_finding_is_labelled_with_its_evidence(finding, habit):
    """What bench/check.py and bench/hand_slips.py read of bin/check's --format json."""
    x = Labelled.of_finding(finding, True, False, "A.java", "slips")
    assert x == Labelled(Evidence(**finding["evidence"]), True, False, "A.java", "slips", finding["rule"],
                         finding["score"])
    assert habit_break(finding) == habit


def _evidence(ro, rr, fo=0, fr=50, habit="trailing", breaks=0):
    return Evidence(repo_observed=ro, repo_repaired=rr, file_observed=fo, file_repaired=fr, habit=habit, breaks=breaks)


def _dataset() -> list[Labelled]:
    """Breaks of two families: slips where the repository almost never writes the gap (right), anomalies
    where it often does (wrong), and a detection family whose clean files hold only anomalies."""
    out = []
    for i in range(40):
        out.append(Labelled(_evidence(0, 5000), True, False, f"b{i}", "slips"))
        out.append(Labelled(_evidence(400, 5000, fo=5), False, i % 2 == 0, f"c{i}", "slips"))
        out.append(Labelled(_evidence(300, 4000, fo=3), False, True, f"d{i}", "injected"))
    return out


def test_the_habit_belief_ranks_a_rare_break_above_a_common_one_and_keeps_the_budgets():
    families = {"slips": Family(10_000, 40, {"low": 0.1, "medium": 0.5, "high": 2.0}, {}),
                "injected": Family(100_000, 40, {"low": 0.0, "medium": 0.05, "high": 0.5}, {})}
    fitted = fit_habits(_dataset(), families, "slips")
    rare, common = _evidence(0, 5000), _evidence(400, 5000, fo=5)
    assert fitted.confidence(rare) == pytest.approx(1.0) and fitted.confidence(common) == pytest.approx(0.0)
    # no family may put a break in its clean files at medium: the least belief is above every anomaly's
    assert fitted.belief(common) < fitted.cutoffs["medium"] <= fitted.belief(rare)
    assert fitted.belief(common) < fitted.least_belief(0.9) <= fitted.belief(rare)
    assert fitted.least_belief(1.01) == math.inf


def test_the_habit_belief_needs_breaks_of_the_family_it_measures():
    with pytest.raises(CalibrationError):
        fit_habits([Labelled(_evidence(0, 10), True, False, "f", "other")], {"other": Family(100)}, "slips")


def test_the_change_belief_believes_a_break_the_change_itself_rarely_writes():
    """Judging a change: a tab among a change's spaces is the slip, a change written in tabs throughout is its
    author's habit (the same repository counts for both); the budget is per 1000 changed lines."""
    def tab(co, cr, right, i):
        e = Evidence(repo_observed=10, repo_repaired=5000, habit="mixed-indent", change_observed=co,
                     change_repaired=cr)
        return Labelled(e, right, not right, f"c{i}", "commits")
    breaks = [tab(1, 150, True, i) for i in range(30)] + [tab(150, 1, False, i) for i in range(60)]
    fitted = fit_change_habits(breaks, Family(30_000, budgets={"low": 0.0, "medium": 0.5, "high": 2.0},
                                              file_budgets={}))
    odd, habit = breaks[0].evidence, breaks[-1].evidence
    assert fitted.confidence(odd) == pytest.approx(1.0) and fitted.confidence(habit) == pytest.approx(0.0)
    assert fitted.belief(habit) < fitted.cutoffs["low"] <= fitted.cutoffs["medium"] <= fitted.belief(odd)
    # a habit weighs only the change's terms its own way
    assert {k.split(":")[1] for k in fitted.weights if ":" in k} <= {"bias", "change-share", "repo-odds",
                                                                     "file-share", "file-agree", "change-agree"}
