"""Habit breaks (check/breaks.py): the gaps a repository's own habits say are slips, and the habit belief
that weighs them (check/calibration.py; its fitting: tests/test_bench_calibration_fit.py)."""
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from check.calibration import POOLED, Calibration, Evidence, HabitBelief, habit_features
from parsing.style import columns

BODY = "        int a{i} = {i};\n        if (a{i} > 0) {{\n            a{i}++;\n        }}\n"


def _other(n: int) -> str:
    """Another file of the repository, in its style."""
    return f"class C{n} {{\n    void f() {{\n" + "".join(BODY.format(i=i) for i in range(8)) + "    }\n}\n"


def _text(slip: str = "") -> str:
    """A space-indented class; `slip` replaces its second `if (` line's head (what the test breaks)."""
    text = "class A {\n    void f() {\n" + "".join(BODY.format(i=i) for i in range(4)) + "    }\n}\n"
    return text.replace("        if (a1 > 0) {", slip, 1) if slip else text


def _breaks_of(text, style):
    from check.engine import _Context
    from parsing.schemes import get_scheme
    return _Context(get_scheme("kind-units"), text, style).breaks()


def _breaks(tmp_path, text, others=3):
    from tests.test_check_engine import _folder
    return _breaks_of(text, _folder(tmp_path, [text, *(_other(n) for n in range(others))]))


@pytest.mark.parametrize("slip, habit, observed, repaired", [
    ("        if (a1 > 0) { ", "trailing", " \n            ", "\n            "),    # a trailing space
    ("\t    if (a1 > 0) {", "mixed-indent", "\n\t    ", "\n        "),           # a tab where 4 spaces go
    ("        if(a1 > 0) {", "spacing", "", " "),                                 # `if(` in an `if (` repository
    ("        if (a1 > 0){", "spacing", "", " "),
    ("        if (a1  > 0) {", "spacing", "  ", " "),                              # a run of spaces
])
def test_a_gap_the_repository_writes_otherwise_is_a_break_with_its_repair(tmp_path, slip, habit, observed, repaired):
    found = _breaks(tmp_path, _text(slip))
    assert [(b.habit, b.observed, b.repaired) for b in found] == [(habit, observed, repaired)]
    assert found[0].repo_repaired >= 5 and found[0].repo_observed == 0


def _allman(text: str) -> str:
    """The text with every `{` on a line of its own, at its statement's indentation."""
    import re
    return re.sub(r"^( *)(.*\S) \{$", r"\1\2\n\1{", text, flags=re.M)


def test_a_brace_on_the_line_where_the_repository_puts_it_below_is_a_line_break(tmp_path):
    from tests.test_check_engine import _folder
    text = _allman(_text()).replace("        if (a1 > 0)\n        {", "        if (a1 > 0) {", 1)
    found = _breaks_of(text, _folder(tmp_path, [text, *(_allman(_other(n)) for n in range(3))]))
    assert [(b.habit, b.observed, b.repaired) for b in found] == [("brace", " ", "\n        ")]


def test_one_break_mends_every_habit_its_gap_breaks(tmp_path):
    # a trailing space after `{` and a tab mixed into the next line's indentation: one gap, one fix for both
    text = _text().replace("        if (a1 > 0) {\n            a1++;", "        if (a1 > 0) { \n\t        a1++;")
    found = _breaks(tmp_path, text)
    assert [(b.habit, b.observed, b.repaired) for b in found] == [("trailing", " \n\t        ", "\n            ")]


@pytest.mark.parametrize("slip", ["        if(a1 > 0) {", "            if (a1 > 0) {"])
def test_a_file_the_counts_were_not_learned_from_gets_no_negative_counts(tmp_path, slip):
    # a file outside the work tree's learned files (or a staged version): its own keys are not in the counts
    from parsing.schemes import get_scheme
    from ranker.folder import folder_style
    paths = []
    for n in range(3):
        (tmp_path / f"C{n}.java").write_text(_other(n))
        paths.append(str(tmp_path / f"C{n}.java"))
    text = _text(slip)
    style = folder_style(paths, get_scheme("kind-units"), strict=False)(str(tmp_path / "Outside.java"))
    found = _breaks_of(text, style)
    assert found and all(min(b.repo_observed, b.repo_repaired, b.file_observed, b.file_repaired) >= 0 for b in found)


def test_a_clean_file_in_a_consistent_repository_has_no_break(tmp_path):
    assert _breaks(tmp_path, _text()) == []


def test_without_a_repository_nothing_is_a_break(tmp_path):
    # one file alone: nobody says what the habit is
    assert _breaks(tmp_path, _text("        if(a1 > 0) {"), others=0) == []


def test_a_habit_the_repository_does_not_keep_is_no_break(tmp_path):
    # the other files write trailing spaces after every `{`: a trailing space is their habit too
    others = [_other(n).replace("{\n", "{ \n") for n in range(3)]
    from tests.test_check_engine import _folder
    text = _text("        if (a1 > 0) { ")
    assert [b for b in _breaks_of(text, _folder(tmp_path, [text, *others])) if b.habit == "trailing"] == []


@pytest.mark.parametrize("ws, stop, width", [
    ("\t", 8, 8), ("    \t", 8, 8), ("\t    ", 8, 12), ("  \t", 4, 4), ("\t\t", 4, 8), ("", 8, 0), ("   ", 8, 3),
])
def test_a_tab_reaches_the_next_stop(ws, stop, width):
    assert columns(ws, stop) == width


def _evidence(ro, rr, fo=0, fr=50, habit="trailing", breaks=0):
    return Evidence(repo_observed=ro, repo_repaired=rr, file_observed=fo, file_repaired=fr, habit=habit, breaks=breaks)


def test_each_habit_weighs_its_evidence_its_own_way():
    f = habit_features(_evidence(1, 999, habit="spacing"))
    assert f["repo-odds"] == f["spacing:repo-odds"] == pytest.approx(math.log(2 / 1000))
    assert not any(k.startswith("trailing:") for k in f)


@given(st.dictionaries(st.sampled_from(["bias", "repo-odds", "trailing:file-any"]), st.floats(-5, 5), min_size=1),
       st.lists(st.tuples(st.floats(-20, 20), st.floats(0, 1)), min_size=1, max_size=5),
       st.dictionaries(st.sampled_from(["low", "medium", "high"]), st.floats(0, 1)))
def test_a_habit_belief_survives_its_file(tmp_path_factory, weights, curve, cutoffs):
    path = tmp_path_factory.mktemp("cal") / "calibration.json"
    curve = tuple(sorted(curve))
    cal = Calibration({POOLED: ((0.0, 0.5),)}, {"low": 0.5, "medium": 0.5, "high": 0.5}, weights={"bias": 0.0},
                      habits=HabitBelief(weights, curve, cutoffs), change=HabitBelief(cutoffs, curve, weights))
    cal.save(path)
    assert (Calibration.load(path).habits, Calibration.load(path).change) == (cal.habits, cal.change)


BELIEVED, DOUBTED = HabitBelief({"bias": 1.0}, ((0.0, 0.9),), {}), HabitBelief({"bias": -1.0}, ((0.0, 0.9),), {})


@pytest.mark.parametrize("habits, least, reported", [
    # a belief of 1.0 (the bias alone), a confidence of 0.9 from belief 0 on; the least belief reported
    (BELIEVED, 0.5, 0.9),
    (BELIEVED, 1.5, None),     # believed less than the least reported
    (DOUBTED, 0.5, None),
    (None, 0.5, None),         # no habit belief: no break is believed
])
def test_the_engine_reports_a_believed_break_where_it_is(tmp_path, tiny_model, habits, least, reported):
    from check.engine import CheckConfig, check_text
    from lm.model import LanguageModel
    from parsing.schemes import get_scheme
    from ranker.score import Scorer
    from tests.test_check_engine import _folder
    lm = LanguageModel(str(tiny_model))
    text = _text("        if (a1 > 0) { ")
    style = _folder(tmp_path, [text, *(_other(n) for n in range(3))], lm.scheme)
    cal = Calibration({POOLED: ((0.0, 0.5),)}, {"low": 0.5, "medium": 0.5, "high": 0.5}, habits=habits)
    cfg = CheckConfig({POOLED: math.inf}, habit_least=least)   # the ranking reports nothing
    found = check_text(Scorer(lm), get_scheme(lm.scheme), text, "A.java", cfg, cal, style)
    expected = [("trailing-space", " \n            ", "\n            ", reported, "trailing")] if reported else []
    assert [(f.rule, f.observed, f.repaired, f.confidence, f.evidence["habit"]) for f in found] == expected
    if reported:
        assert found[0].offset == text.index("{ \n") + 2 == found[0].start + 1   # the trailing space itself
        assert (found[0].line, found[0].column) == (8, 22)   # line 8: "        if (a1 > 0) { "


def test_a_break_in_a_crlf_file_keeps_its_line_endings(tmp_path):
    text = _text("        if (a1 > 0) { ").replace("\n", "\r\n")
    found = _breaks(tmp_path, text)
    assert [(b.habit, b.observed, b.repaired) for b in found] == \
        [("trailing", " \r\n            ", "\r\n            ")]


def _check(tmp_path, tiny_model, text, lines, others=3):
    """The breaks the engine reports in `text` (a believed belief, the ranking reporting nothing), judging the
    change of `lines` (None: the whole file), in a repository of `others` other files."""
    from check.engine import CheckConfig, check_text
    from lm.model import LanguageModel
    from parsing.schemes import get_scheme
    from ranker.score import Scorer
    from tests.test_check_engine import _folder
    lm = LanguageModel(str(tiny_model))
    style = _folder(tmp_path, [text, *(_other(n) for n in range(others))], lm.scheme)
    cal = Calibration({POOLED: ((0.0, 0.5),)}, {"low": 0.5, "medium": 0.5, "high": 0.5}, habits=BELIEVED)
    cfg = CheckConfig({POOLED: math.inf}, habit_least=0.5)
    return check_text(Scorer(lm), get_scheme(lm.scheme), text, "A.java", cfg, cal, style, lines)


@pytest.mark.parametrize("lines, expected", [
    (None, []),                        # the whole file: `if(` three times is the file's own habit
    (frozenset({4, 8, 12}), [4, 8, 12]),   # the change wrote them: three breaks of the repository's habit
    (frozenset({4, 8, 12, 13}), [4, 8, 12]),
    (frozenset({8}), []),              # the lines it left alone write `if(` twice: the file's habit
    (frozenset({5, 6}), []),           # a change elsewhere
])
def test_a_change_that_writes_a_break_three_times_breaks_the_habit_three_times(tmp_path, tiny_model, lines,
                                                                              expected):
    text = _text()
    for i in range(3):
        text = text.replace(f"        if (a{i} > 0) {{", f"        if(a{i} > 0) {{")
    found = _check(tmp_path, tiny_model, text, lines)
    assert [f.line for f in found] == expected
    assert all((f.observed, f.repaired, f.evidence["habit"]) == ("", " ", "spacing") for f in found)
    if len(found) == 3:   # the change's other two count as the change's evidence, not the file's
        assert [(f.evidence["file_observed"], f.evidence["change_observed"]) for f in found] == [(0, 2)] * 3


def test_judging_a_change_reports_nothing_on_the_lines_it_left_alone(tmp_path, tiny_model):
    text = _text("        if (a1 > 0) { ")   # a trailing space on line 8
    assert [f.line for f in _check(tmp_path, tiny_model, text, None)] == [8]
    assert _check(tmp_path, tiny_model, text, frozenset({3, 4, 5})) == ()


@pytest.mark.parametrize("end, others_end, expected", [
    ("}", "}\n", [("final-newline", "", "\n")]),          # no line break ends it, where every other file has one
    ("}\n\n\n", "}\n", [("final-newline", "\n\n\n", "\n")]),   # blank lines after it
    ("}\n", "}\n", []),
    ("}", "}", []),                                       # the repository's files end without one too
])
def test_the_end_of_a_file_is_a_break_where_the_other_files_end_otherwise(tmp_path, end, others_end, expected):
    from tests.test_check_engine import _folder
    text = _text().removesuffix("}\n") + end
    others = [_other(n).removesuffix("}\n") + others_end for n in range(6)]
    found = _breaks_of(text, _folder(tmp_path, [text, *others]))
    assert [(b.habit, b.observed, b.repaired) for b in found] == expected


@pytest.mark.parametrize("lines, reported", [(None, True), (frozenset({20}), True), (frozenset({3}), False)])
def test_a_file_end_the_change_wrote_is_reported_with_its_fix(tmp_path, tiny_model, lines, reported):
    text = _text().removesuffix("\n")   # 20 lines, the last without its line break
    found = _check(tmp_path, tiny_model, text, lines, others=6)   # a habit of 5 files at least
    assert [(f.rule, f.line, f.observed, f.repaired) for f in found] == ([("final-newline", 20, "", "\n")]
                                                                         if reported else [])


def test_a_belief_fitted_per_habit_believes_only_the_habits_it_was_fitted_on():
    fitted = HabitBelief({"bias": 1.0, "trailing:bias": 0.5}, ((0.0, 0.9),), {})
    assert fitted.belief(_evidence(0, 50, habit="trailing")) == pytest.approx(1.5)
    assert fitted.belief(_evidence(0, 50, habit="final-newline")) == -math.inf
    assert BELIEVED.belief(_evidence(0, 50, habit="final-newline")) == pytest.approx(1.0)   # every habit alike


@pytest.mark.parametrize("fo, fr, co, cr, file_agree, change_agree", [
    (0, 0, 0, 0, 0.0, None),        # a new file: nothing of its own agrees; no change evidence at all
    (0, 9, 0, 0, 0.9, None),        # the file's own lines write the repair
    (9, 0, 1, 3, 0.0, 0.6),
])
def test_the_agree_shares_say_how_much_of_the_file_and_the_change_write_the_repair(fo, fr, co, cr, file_agree,
                                                                                 change_agree):
    f = habit_features(Evidence(repo_observed=0, repo_repaired=9, file_observed=fo, file_repaired=fr, habit="brace",
                                change_observed=co, change_repaired=cr))
    assert f["file-agree"] == f["brace:file-agree"] == pytest.approx(file_agree)
    assert f.get("change-agree") == (None if change_agree is None else pytest.approx(change_agree))


def test_the_two_sides_of_one_tokens_spacing_are_a_pair(tmp_path):
    (tmp_path / "alone").mkdir()
    found = _breaks(tmp_path, _text("        if (a1>0) {"))
    assert [(b.habit, b.observed, b.repaired) for b in found] == [("spacing", "", " "), ("spacing", "", " ")]
    first, second = found
    assert (second.gap, first.pair, second.pair) == (first.gap + 1, second.gap, first.gap)
    alone = _breaks(tmp_path / "alone", _text("        if (a1 >0) {"))
    assert [b.pair for b in alone] == [-1]


@pytest.mark.parametrize("weights, lines", [
    ({"bias": 1.0}, [8, 8, 12]),
    # the file writes `a2> 0` too: each left side alone is doubted; line 8's comes with its right side
    ({"bias": 1.0, "file-observed": -5.0}, [8, 8]),
    ({"bias": -1.0}, []),
])
def test_a_pair_is_reported_whole_as_confident_as_its_likelier_side(tmp_path, tiny_model, weights, lines):
    from check.engine import CheckConfig, check_text
    from lm.model import LanguageModel
    from parsing.schemes import get_scheme
    from ranker.score import Scorer
    from tests.test_check_engine import _folder
    lm = LanguageModel(str(tiny_model))
    text = _text("        if (a1>0) {").replace("if (a2 > 0)", "if (a2> 0)")
    style = _folder(tmp_path, [text, *(_other(n) for n in range(3))], lm.scheme)
    cal = Calibration({POOLED: ((0.0, 0.5),)}, {"low": 0.5, "medium": 0.5, "high": 0.5},
                      habits=HabitBelief(weights, ((0.0, 0.9),), {}))
    found = check_text(Scorer(lm), get_scheme(lm.scheme), text, "A.java", CheckConfig({POOLED: math.inf},
                       habit_least=0.5), cal, style)
    assert [(f.line, f.observed, f.repaired) for f in found] == [(line, "", " ") for line in lines]
    assert len({f.confidence for f in found if f.line == 8}) <= 1
