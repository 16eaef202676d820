"""bin/check's core: rules and messages of a repair, the calibration's curves and cut-offs, and the engine
on a real tiny model (findings that fix the file together, token-preserving, in original coordinates)."""
import math

import pytest
from hypothesis import given, settings, strategies as st

from check.calibration import FAR_FLOOR, POOLED, Calibration, CalibrationError, Evidence, evidence_of, fit, isotonic
from check.engine import CheckConfig, check_text
from check.rules import RULES, amount, describe, line_breaks


@pytest.mark.parametrize("original, replacement, before, after, rule, message", [
    (" ", "", "x", ";", "space-before", "unexpected space before ';'"),
    (" ", "", "(", "a", "space-after", "unexpected space after '('"),
    ("\t", "", "a", ".", "tab", "unexpected tab before '.'"),
    ("", " ", "a", "=", "missing-space", "missing space between 'a' and '='"),
    ("  ", " ", "a", "=", "whitespace", "expected 1 space between 'a' and '=', found 2 spaces"),
    ("\t", " ", "a", "=", "tab", "expected 1 space between 'a' and '=', found 1 tab"),
    ("\n      ", "\n        ", ";", "x", "indent", "expected 8 spaces of indentation before 'x', found 6 spaces"),
    ("\n\t\t", "\n\t", ";", "x", "indent", "expected 1 tab of indentation before 'x', found 2 tabs"),
    ("\n    ", "\n\t", ";", "x", "tab", "expected 1 tab of indentation, found 4 spaces"),
    ("\n\t ", "\n\t", ";", "x", "tab", "indentation mixes tabs and spaces: expected 1 tab, found 1 tab and 1 space"),
    ("\n\n\n", "\n\n", "}", "class", "blank-lines", "unexpected blank line before 'class'"),
    ("\n", "\n\n", "}", "class", "blank-lines", "expected a blank line more before 'class'"),
    ("\n    ", "", "a", ")", "line-break", "unexpected line break between 'a' and ')'"),
    (" ", "\n", "{", "x", "line-break", "expected a line break before 'x'"),
    (" \n", "\n", ";", "x", "trailing-space", "trailing whitespace after ';'"),
    ("\r\n  \r\n", "\r\n\r\n", ";", "x", "trailing-space", "whitespace on a blank line before 'x'"),
    ("", "\n", "}", "", "line-break", "expected a line break before the end of the file"),
    ("\r\n    ", "\n    ", ";", "x", "line-ending", "CRLF line ending where the file uses LF"),
    ("\n\n", "\r\n\r\n", ";", "x", "line-ending", "LF line ending where the file uses CRLF"),
])
def test_a_repair_is_told_as_a_rule_and_a_message(original, replacement, before, after, rule, message):
    assert describe(original, replacement, before, after) == (rule, message)
    assert rule in RULES


@pytest.mark.parametrize("gap, breaks", [("", 0), ("\n", 1), ("\r\n", 1), ("\r", 1), ("\r\n\r\n", 2), ("\n\r", 2)])
def test_line_breaks_count_as_editors_do(gap, breaks):
    assert line_breaks(gap) == breaks


@pytest.mark.parametrize("ws, text", [("", "none"), (" ", "1 space"), ("\t\t", "2 tabs"), ("\t  ", "1 tab and 2 spaces")])
def test_amounts(ws, text):
    assert amount(ws) == text


@given(st.lists(st.floats(0, 1, allow_nan=False), max_size=40))
def test_isotonic_is_monotone_and_keeps_the_mean(ys):
    fitted = isotonic(ys)
    assert len(fitted) == len(ys)
    assert all(a <= b + 1e-12 for a, b in zip(fitted, fitted[1:]))
    if ys:
        assert math.isclose(sum(fitted), sum(ys), abs_tol=1e-9)


def _findings():
    """A tab before a token is an error at score >= 3; an indentation finding never is; clean files hold
    the false ones."""
    out = []
    for i in range(60):
        score = 1 + i / 10   # 1.0 .. 6.9
        out.append(("tab", score, score >= 3, score < 3))
        out.append(("indent", score, False, True))
    return out


def test_fit_gives_each_rule_its_curve_and_each_sensitivity_its_cutoff(tmp_path):
    cal = fit(_findings(), clean_lines=20_000, budgets={"low": 0.0, "medium": 1.0, "high": 3.0})
    assert cal.confidence("tab", 5.0) == 1.0 and cal.confidence("tab", 1.5) == 0.0
    assert cal.confidence("indent", 6.9) == 0.0
    assert cal.confidence("space-before", 6.0) == cal.confidence(POOLED, 6.0)   # no curve: the pooled one
    least = cal.least_scores(cal.cutoffs["low"])
    assert least["tab"] == 3.0 and least["indent"] == math.inf
    # medium allows 20 false findings in 20,000 clean lines: still only the sure tabs, ranked first
    assert cal.cutoffs["medium"] >= cal.cutoffs["high"]
    cal.save(tmp_path / "c.json")
    assert Calibration.load(tmp_path / "c.json") == cal


@pytest.mark.parametrize("content", ["", "[1, 2]", '{"curves": {}}', '{"curves": {"*": []}, "cutoffs": {"low": 1}}'])
def test_a_broken_calibration_file_is_one_error(tmp_path, content):
    p = tmp_path / "c.json"
    p.write_text(content)
    with pytest.raises(CalibrationError, match="c.json"):
        Calibration.load(p)


def test_fit_needs_findings_and_clean_lines():
    with pytest.raises(CalibrationError):
        fit([], 100)
    with pytest.raises(CalibrationError):
        fit(_findings(), 0)


CLEAN = "package p;\n\nclass A {\n    int x = 1;\n\n    void f(int a, int b) {\n        if (a > b) {\n            x = a + b;\n        }\n    }\n}\n"


@pytest.fixture
def checker(tiny_model):
    from lm.model import LanguageModel
    from parsing.schemes import get_scheme
    from ranker.score import Scorer
    lm = LanguageModel(str(tiny_model))
    return Scorer(lm), get_scheme(lm.scheme)


def _cal():
    return Calibration({POOLED: ((0.0, 0.5),)}, {"low": 0.5, "medium": 0.5, "high": 0.5})


@pytest.mark.parametrize("broken", [
    CLEAN.replace("x = a + b;", "x = a + b ;"),
    CLEAN.replace("int x = 1;", "int x = 1 ;"),
    CLEAN.replace("if (a > b)", "if (a > b )"),
])
def test_the_engine_finds_the_slip_and_its_fix_gives_the_file_back(checker, broken):
    scorer, scheme = checker
    findings = check_text(scorer, scheme, broken, "A.java", CheckConfig({POOLED: 0.5}, max_findings=1), _cal())
    assert len(findings) == 1
    f = findings[0]
    assert broken[f.start:f.end] == f.original == " " and f.replacement == ""
    assert broken[:f.start] + f.replacement + broken[f.end:] == CLEAN
    before = broken[:f.offset - 1]
    assert (f.line, f.column) == (before.count("\n") + 1, f.offset - before.rfind("\n") - 1)
    assert f.rule == "space-before" and f.confidence == 0.5


def test_findings_are_in_the_original_files_coordinates_and_keep_the_tokens(checker):
    from parsing.java import tokenize
    scorer, scheme = checker
    broken = CLEAN.replace("x = a + b;", "x = a + b ;").replace("int x = 1;", "int x = 1 ;")
    findings = check_text(scorer, scheme, broken, "A.java", CheckConfig({POOLED: 0.0}, max_findings=6), _cal())
    assert len(findings) >= 2 and len({f.start for f in findings}) == len(findings)
    text = broken
    for f in sorted(findings, key=lambda f: -f.start):   # apply from the end: earlier starts stay valid
        assert text[f.start:f.end] == f.original
        text = text[:f.start] + f.replacement + text[f.end:]
    assert tokenize(text).token_texts() == tokenize(broken).token_texts()


def test_nothing_is_reported_below_the_least_score(checker):
    scorer, scheme = checker
    assert check_text(scorer, scheme, CLEAN, "A.java", CheckConfig({POOLED: math.inf}), _cal()) == ()
    assert check_text(scorer, scheme, "", "A.java", CheckConfig({POOLED: 0.0}), _cal()) == ()


@pytest.mark.parametrize("scores, gaps, gap, earlier, expected", [
    ([], [], 5, 0, Evidence(FAR_FLOOR, 0, 0)),
    ([9.0, 7.0, 6.0], [5, 6, 8], 5, 1, Evidence(FAR_FLOOR, 0, 1)),      # its own gap and its neighbours
    ([9.0, 7.0, 6.0, 5.5], [5, 20, 20, 1], 5, 0, Evidence(7.0, 2, 0)),  # one gap counts once, at its best
    ([9.0, 4.9, 4.8], [5, 30, 40], 5, 0, Evidence(FAR_FLOOR, 0, 0)),    # below the floor: not evidence
    ([8.0, 6.0], [50, 5], 5, 2, Evidence(8.0, 1, 2)),
])
def test_the_evidence_is_the_rest_of_the_ranking_far_from_the_finding(scores, gaps, gap, earlier, expected):
    assert evidence_of(scores, gaps, gap, earlier) == expected


def _with_evidence():
    """Tabs and line breaks: at the same score an error stands alone in its file, a false finding comes with
    other odd gaps, and a file's second finding is false."""
    findings, evidence = [], []
    for i in range(80):
        score = 3 + (i % 20) / 4   # 3.0 .. 7.75
        for rule in ("tab", "line-break"):
            findings.append((rule, score, True, False))
            evidence.append(Evidence())
            findings.append((rule, score, False, True))
            evidence.append(Evidence(score - 0.5, 3))
            findings.append((rule, score - 1, False, False))
            evidence.append(Evidence(FAR_FLOOR, 0, 1))
    return findings, evidence


def test_the_belief_weighs_the_evidence_and_its_confidence_is_the_precision_beside_it(tmp_path):
    findings, evidence = _with_evidence()
    cal = fit(findings, 20_000, budgets={"low": 0.0, "medium": 2.0, "high": 20.0}, evidence=evidence)
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


def test_an_evidence_weight_that_would_reward_a_crowded_file_is_left_out():
    findings, evidence = _with_evidence()
    # now the crowded findings are the right ones: far-count would come out positive
    evidence = [Evidence(s + 1, 3) if ok else Evidence() for (_, s, ok, _), e in zip(findings, evidence)]
    cal = fit(findings, 20_000, evidence=evidence)
    assert "far-count" not in cal.weights and "far-best" not in cal.weights


def test_without_weights_the_belief_is_the_score():
    cal = fit(_findings(), clean_lines=20_000)
    assert cal.weights == {} and cal.evidence_floor == math.inf
    assert cal.belief("tab", 4.2, Evidence(9.0, 5, 3)) == 4.2
    assert cal.confidence("tab", 5.0, Evidence(9.0, 5, 3)) == cal.confidence("tab", 5.0)


@pytest.mark.parametrize("least_confidence, expected", [(0.0, [0.9, 0.1]), (0.5, [0.9])])
def test_a_files_second_finding_is_judged_by_its_confidence_too(checker, least_confidence, expected):
    scorer, scheme = checker
    broken = CLEAN.replace("x = a + b;", "x = a + b ;").replace("int x = 1;", "int x = 1 ;")
    # a belief that trusts a file's first finding and not the ones after it
    cal = Calibration({POOLED: ((-100.0, 0.1), (0.0, 0.9))}, {"low": 0.5, "medium": 0.5, "high": 0.5},
                      weights={"bias": 1.0, "earlier": -10.0})
    cfg = CheckConfig({POOLED: 0.0}, max_findings=2, least_confidence=least_confidence)
    findings = check_text(scorer, scheme, broken, "A.java", cfg, cal)
    assert [f.confidence for f in findings] == expected
    assert [f.evidence.earlier for f in findings] == list(range(len(expected)))


@pytest.mark.parametrize("text", [
    CLEAN,
    "\ufeff" + CLEAN,                                              # a BOM: one more token, an empty gap before it
    CLEAN.replace("\n", "\r\n"),
    'class A {\n  String s = "a  b"; // c  d\n  /* e\n   f */ int x;\n}',
    "class A {}",
])
def test_the_engine_reads_the_original_tokens_off_its_first_ranking(checker, text):
    """bin/check takes the file's tokens from the ranking's gaps instead of tokenizing it again: the same
    token texts, gap starts and gap texts as the tokenizer's."""
    from check.engine import _Edits
    from parsing.java import tokenize
    from ranker.rank import rank_text
    scorer, scheme = checker
    ranked = rank_text(scorer, scheme, text, "A.java", least=2.0)
    edits = _Edits(text, ranked.gap_texts, ranked.gap_starts)
    stream = tokenize(text)
    assert edits.token_texts() == stream.token_texts() and edits.token_count() == len(stream)
    assert [edits.current_start(g) for g in range(len(stream) + 1)] == [stream.gap_start(g) for g in range(len(stream) + 1)]
