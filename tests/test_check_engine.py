"""bin/check's core: rules and messages of a repair, the calibration's confidence and least scores, and the
engine on a real tiny model (findings that fix the file together, token-preserving, in original coordinates)."""
import math
from array import array

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from check.calibration import FAR_FLOOR, POOLED, Calibration, CalibrationError, Evidence, evidence_of
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
    ("\n    ", "\n\t", ";", "x", "tab", "spaces in a tab-indented file: expected 1 tab of indentation, found 4 spaces"),
    ("\n\t\t", "\n        ", ";", "x", "tab",
     "tab in a space-indented file: expected 8 spaces of indentation, found 2 tabs"),
    ("\n\t ", "\n\t", ";", "x", "tab", "indentation mixes tabs and spaces: expected 1 tab, found 1 tab and 1 space"),
    ("\n\n\n", "\n\n", "}", "class", "blank-lines", "2 blank lines before 'class', expected 1"),
    ("\n", "\n\n", "}", "class", "blank-lines", "no blank line before 'class', expected 1"),
    ("\n\n", "\n", "}", "class", "blank-lines", "1 blank line before 'class', expected none"),
    ("\n    ", "", "a", ")", "line-break", "unexpected line break between 'a' and ')'"),
    (" ", "\n", "{", "x", "line-break", "expected a line break before 'x'"),
    (" \n", "\n", ";", "x", "trailing-space", "trailing whitespace after ';'"),
    ("\r\n  \r\n", "\r\n\r\n", ";", "x", "trailing-space", "whitespace on a blank line before 'x'"),
    ("", "\n", "}", "", "final-newline", "no line break at the end of the file"),
    ("\n\n", "\n", "}", "", "final-newline", "1 blank line at the end of the file"),
    (" \n", "\n", "}", "", "final-newline", "whitespace at the end of the file"),
    ("\r\n    ", "\n    ", ";", "x", "line-ending", "CRLF line ending where the file uses LF"),
    ("\n\n", "\r\n\r\n", ";", "x", "line-ending", "LF line ending where the file uses CRLF"),
])
def test_a_repair_is_told_as_a_rule_and_a_message(original, replacement, before, after, rule, message):
    found, told = describe(original, replacement, before, after)
    assert (found.id, told) == (rule, message)
    assert RULES[rule] is found


def test_a_message_says_who_writes_the_repair_so():
    found, told = describe("\n\n\n", "\n\n", "}", "class", "the repository")
    assert (found.id, told) == ("blank-lines", "2 blank lines before 'class', the repository uses 1 here")


@pytest.mark.parametrize("gap, breaks", [("", 0), ("\n", 1), ("\r\n", 1), ("\r", 1), ("\r\n\r\n", 2), ("\n\r", 2)])
def test_line_breaks_count_as_editors_do(gap, breaks):
    assert line_breaks(gap) == breaks


@pytest.mark.parametrize("ws, text",
                         [("", "none"), (" ", "1 space"), ("\t\t", "2 tabs"), ("\t  ", "1 tab and 2 spaces")])
def test_amounts(ws, text):
    assert amount(ws) == text


@pytest.mark.parametrize("content", ["", "[1, 2]", '{"curves": {}}', '{"curves": {"*": []}, "cutoffs": {"low": 1}}',
                                     # no belief weights (the score alone was once the belief): not read
                                     '{"curves": {"*": [[0, 0.5]]}, "cutoffs": {"low": 1, "medium": 1, "high": 1}}'])
def test_a_broken_calibration_file_is_one_error(tmp_path, content):
    p = tmp_path / "c.json"
    p.write_text(content)
    with pytest.raises(CalibrationError, match="c.json"):
        Calibration.load(p)


CLEAN = ("package p;\n\nclass A {\n    int x = 1;\n\n    void f(int a, int b) {\n        if (a > b) {\n"
         "            x = a + b;\n        }\n    }\n}\n")


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
    assert broken[f.start:f.end] == f.observed == " " and f.repaired == ""
    assert broken[:f.start] + f.repaired + broken[f.end:] == CLEAN
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
        assert text[f.start:f.end] == f.observed
        text = text[:f.start] + f.repaired + text[f.end:]
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
    assert [f.evidence["earlier"] for f in findings] == list(range(len(expected)))


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
    gaps = range(len(stream) + 1)
    assert [edits.current_start(g) for g in gaps] == [stream.gap_start(g) for g in gaps]


@pytest.mark.parametrize("evidence, features", [
    # no evidence against a finding: every feature 0 (the least scores assume it)
    (Evidence(), {"far-best": 0.0, "far-count": 0.0, "earlier": 0.0, "repo-share": 0.0, "file-count": 0.0,
                  "length": 0.0, "other-edit": 0.0}),
    (Evidence(repo_observed=3, repo_repaired=0), {"repo-share": 0.75}),    # the repository's habit
    (Evidence(repo_observed=0, repo_repaired=50), {"repo-share": 0.0}),    # never written so: a slip
    (Evidence(repo_observed=10, repo_repaired=9), {"repo-share": 0.5}),
    (Evidence(file_observed=1), {"file-count": math.log(2)}),              # once more in the file
    (Evidence(gaps=100), {"length": math.log(2)}),
    (Evidence(gaps=900), {"length": math.log(10)}),
    (Evidence(other_edit=True), {"other-edit": 1.0}),                      # not the undoing of one slip
])
def test_the_evidence_features(evidence, features):
    got = evidence.features()
    assert all(v >= 0 for v in got.values())
    for k, v in features.items():
        assert got[k] == pytest.approx(v)


HABIT = "class A {\n    int f() {\n        return  x;\n    }\n    int g() {\n        return  y;\n    }\n" \
        "    int h() {\n        return z;\n    }\n}\n"
OTHERS = ("class B {\n    int f() {\n        return  b;\n    }\n}\n",
          "class C {\n    int f() {\n        return c;\n    }\n    int g() {\n        return d;\n    }\n}\n")


def _folder(tmp_path, texts, scheme="kind-units"):
    """The learning pass's Style of the first of `texts` (the folder's counts, its kept leaves), from real files."""
    from parsing.schemes import get_scheme
    from ranker.folder import folder_style
    paths = []
    for i, t in enumerate(texts):
        (tmp_path / f"F{i}.java").write_text(t)
        paths.append(str(tmp_path / f"F{i}.java"))
    return folder_style(paths, get_scheme(scheme), strict=False)(paths[0])


@pytest.mark.parametrize("text, others, learn, expected", [
    # `return  x`: 2 spaces between 'return' and a name twice in the file, 1 space once; once more in B (2
    # spaces), twice in C (1 space)
    (HABIT, OTHERS, True, dict(repo_observed=1, repo_repaired=2, file_observed=1, file_repaired=1)),
    ("\ufeff" + HABIT, OTHERS, True,
     dict(repo_observed=1, repo_repaired=2, file_observed=1, file_repaired=1)),   # a BOM
    (HABIT, OTHERS[1:], True, dict(repo_observed=0, repo_repaired=2, file_observed=1, file_repaired=1)),
    (HABIT, OTHERS, False, dict(repo_observed=0, repo_repaired=0, file_observed=1, file_repaired=1)),   # --no-learn
    (HABIT.replace("return  y", "return y"), (), True,
     dict(repo_observed=0, repo_repaired=0, file_observed=0, file_repaired=2)),
])
@pytest.mark.parametrize("scheme", ["kind-units", "kind"])   # the C++ walk (from the kept leaves), and Python's
def test_the_context_counts_the_whitespace_between_the_same_kinds_of_tokens(tmp_path, text, others, learn, expected,
                                                                            scheme):
    from check.engine import _Context
    from parsing.java import tokenize
    from parsing.schemes import get_scheme
    from ranker.rank import Style
    style = _folder(tmp_path, [text, *others], scheme) if learn else Style()
    stream = tokenize(text.lstrip("\ufeff"))
    gap = stream.gap_texts.index("  ") + text.startswith("\ufeff")   # the ranking's gap: a BOM is a token there
    got = _Context(get_scheme(scheme), text, style).evidence(Evidence(7.0, 1, 0), gap, " ")
    assert got == Evidence(7.0, 1, 0, gaps=len(stream.gap_texts), **expected)


TRAILING = "class A {\n    int f() { \n        return x;\n    }\n    int g() {\n        return y;\n    }\n}\n"


@pytest.mark.parametrize("others, expected", [
    # a trailing space changes no gap symbol: its habit is counted (what trails a line), here and in the others
    ((), dict(repo_observed=0, repo_repaired=0, file_observed=0, file_repaired=7)),
    (("class B {\n    int f() {\n        return b;\n    }\n}\n",),
     dict(repo_observed=0, repo_repaired=5, file_observed=0, file_repaired=7)),
    (("class B { \n    int f() {\n        return b;\n    }\n}\n",),
     dict(repo_observed=1, repo_repaired=4, file_observed=0, file_repaired=7)),
])
def test_the_context_counts_the_habit_a_repair_changes(tmp_path, others, expected):
    from check.engine import _Context
    from parsing.java import tokenize
    from parsing.schemes import get_scheme
    from ranker.rank import Style
    style = _folder(tmp_path, [TRAILING, *others]) if others else Style()
    stream = tokenize(TRAILING)
    gap = stream.gap_texts.index(" \n        ")
    got = _Context(get_scheme("kind-units"), TRAILING, style).evidence(Evidence(7.0, 1, 0), gap, "\n        ")
    assert got == Evidence(7.0, 1, 0, gaps=len(stream.gap_texts), **expected)


@pytest.mark.parametrize("broken, original, other", [
    (CLEAN.replace("int x = 1;", "int x = 1 ;"), " ", False),    # a space typed into an empty gap: one slip
    (CLEAN.replace("int x = 1;", "int x =  1;"), "  ", True),    # a space too many in a run: not one of the kinds
])
def test_a_finding_says_whether_its_repair_undoes_one_slip(tiny_model, broken, original, other):
    from lm.model import LanguageModel
    from parsing.schemes import get_scheme
    from ranker.score import Scorer
    lm = LanguageModel(str(tiny_model))
    scorer, scheme = Scorer(lm, edits="any"), get_scheme(lm.scheme)   # as bin/check ranks: every repair by its gain
    findings = check_text(scorer, scheme, broken, "A.java", CheckConfig({POOLED: 0.5}, max_findings=1), _cal())
    assert [(f.observed, f.evidence["other_edit"]) for f in findings] == [(original, other)]


@pytest.mark.parametrize("bom", ["", "\ufeff"])   # a BOM: a token of the ranking (after_bom), not of the walk
def test_a_finding_carries_the_repositorys_counts(checker, tmp_path, bom):
    """End to end, on the tiny model: the finding `1 ;` is weighed against how the folder writes a number
    before ';' (one file with `2;`, one with `3 ;`)."""
    scorer, scheme = checker
    from ranker.rank import Style
    broken = CLEAN.replace("int x = 1;", "int x = 1 ;")
    others = [CLEAN.replace("int x = 1;", "int x = 2;"), CLEAN.replace("int x = 1;", "int x = 3 ;")]
    folder = _folder(tmp_path, [bom + broken, *others]).folder
    findings = check_text(scorer, scheme, bom + broken, "A.java", CheckConfig({POOLED: 0.5}, max_findings=1),
                          _cal(), Style(folder))
    assert [f.observed for f in findings] == [" "]
    e = Evidence(**findings[0].evidence)
    assert (e.repo_observed, e.repo_repaired, e.file_observed) == (1, 1, 0)
    assert e.gaps == len(tokenize_gaps(broken))


def tokenize_gaps(text):
    from parsing.java import tokenize
    return tokenize(text).gap_texts


def _default_checker():
    from lm.model import LanguageModel
    from parsing.schemes import get_scheme
    from ranker.cli import DEFAULT_MODEL
    from ranker.score import Scorer
    from unnatural import ROOT
    if not (ROOT / DEFAULT_MODEL).exists():
        pytest.skip("no default model (make demo builds it)")
    lm = LanguageModel(str(ROOT / DEFAULT_MODEL))
    return Scorer(lm), get_scheme(lm.scheme)


SLIP = "class A {\n    int f(int a) {\n        int x = a ;\n        return x;\n    }\n}\n"


def test_the_repositorys_habit_lowers_a_findings_confidence(tmp_path):
    """The real default model and the shipped calibration: `a ;` is less believed in a repository whose other
    files write a space before ';' after a name too than in one whose files write none."""
    scorer, scheme = _default_checker()
    cal = Calibration.load()
    cfg = CheckConfig({POOLED: 0.0}, max_findings=1, evidence_floor=cal.evidence_floor)

    def finding(habit: str):
        others = [f"class B{i} {{\n    int g(int b) {{\n        int y = b{habit};\n        return y;\n    }}\n}}\n"
                  for i in range(6)]
        (tmp_path / f"h{len(habit)}").mkdir()
        paths = []
        for i, t in enumerate([SLIP, *others]):
            paths.append(tmp_path / f"h{len(habit)}" / f"F{i}.java")
            paths[-1].write_text(t)
        from ranker.folder import folder_style
        style = folder_style([str(p) for p in paths], scheme, strict=False)(str(paths[0]))
        found = check_text(scorer, scheme, SLIP, "A.java", cfg, cal, style)
        assert [(f.observed, f.repaired) for f in found] == [(" ", "")]
        return found[0]

    habit, slip = finding(" "), finding("")
    # each other file writes `y;` too: 6 of the repair's in both
    assert (habit.evidence["repo_observed"], habit.evidence["repo_repaired"]) == (6, 6)
    assert (slip.evidence["repo_observed"], slip.evidence["repo_repaired"]) == (0, 12)
    assert habit.confidence < slip.confidence
    # the habit's own part: the same finding without the repository's counts is believed more
    from dataclasses import replace
    evidence = Evidence(**habit.evidence)
    alone = replace(evidence, repo_observed=0, repo_repaired=0)
    assert cal.belief(habit.rule, habit.score, evidence) < cal.belief(habit.rule, habit.score, alone)


@settings(max_examples=300, deadline=None)
@given(rule=st.sampled_from(sorted(RULES)), score=st.floats(0, 40), far_best=st.floats(FAR_FLOOR, 40),
       far_count=st.integers(0, 60), earlier=st.integers(0, 3), repo_observed=st.integers(0, 10 ** 5),
       repo_repaired=st.integers(0, 10 ** 5), file_observed=st.integers(0, 500), gaps=st.integers(0, 10 ** 5),
       other_edit=st.booleans(), file_repaired=st.integers(0, 500),
       sensitivity=st.sampled_from(["low", "medium", "high"]))
def test_no_finding_below_its_files_least_score_could_be_reported(rule, score, far_best, far_count, earlier,
                                                                  repo_observed, repo_repaired, file_observed,
                                                                  gaps, other_edit, file_repaired, sensitivity):
    """The least score of a file (what is known before it is ranked: its length, its findings so far) is
    exact for the shipped calibration: whatever the rest of a finding's evidence, below it the confidence
    stays under the cut-off (so bin/check may rank the file only that deep). Nothing scoring less than the
    calibration run's floor was measured, and the least scores never go below it: the ranking stops there."""
    cal = Calibration.load()
    assume(score >= cal.measured.get("min_score", 0.0))
    cut = cal.cutoffs[sensitivity]
    evidence = Evidence(far_best, far_count, earlier, repo_observed, repo_repaired, file_observed, gaps, other_edit,
                        file_repaired)
    least = cal.least_scores(cut, Evidence(earlier=earlier, gaps=gaps))
    assert least[rule] >= cal.least_scores(cut)[rule]
    if cal.confidence(rule, score, evidence) >= cut:
        assert score >= least[rule] - 1e-9


def test_a_long_file_or_a_second_finding_needs_a_higher_score():
    cal = Calibration.load()
    cut = cal.cutoffs["medium"]
    alone = cal.least_scores(cut)["space-before"]
    assert alone < cal.least_scores(cut, Evidence(gaps=1000))["space-before"] \
        < cal.least_scores(cut, Evidence(gaps=1000, earlier=1))["space-before"]


@given(st.lists(st.sampled_from(["a", " ", "\n", "\r\n", "\t", "\r"]), min_size=1, max_size=40),
       st.sets(st.integers(0, 12)))
def test_a_gap_is_judged_when_a_line_it_spans_is_one_of_the_change(pieces, lines):
    """A gap spans the lines from its first character's to the next token's (just past it)."""
    import re

    from check.engine import _Edits
    from parsing.offsets import Lines
    text = "".join(pieces)
    gaps = [(m.start(), m.group()) for m in re.finditer(r"[ \t\r\n]*", text) if m.start() == 0 or m.group()]
    edits = _Edits(text, tuple(g for _, g in gaps), array("q", [s for s, _ in gaps]), lines=frozenset(lines))
    at = Lines(text).position
    expected = [any(n in lines for n in range(at(s)[0], at(s + len(g))[0] + 1)) for s, g in gaps]
    assert [edits.judged(i) for i in range(len(gaps))] == expected
