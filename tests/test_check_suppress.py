"""Regions a file turns checking off for (check/suppress.py): which gaps, and that the engine reports nothing in
them while it still finds the same slip outside them."""
import pytest

from check.calibration import POOLED, Calibration
from check.engine import CheckConfig, check_text
from check.suppress import may_have_quiet, quiet_gaps
from parsing.java import tokenize


def _quiet_tokens(text):
    """The token after each quiet gap (the gap before token i is gap i), '' for the end of the file."""
    s = tokenize(text)
    return [s.token_text(g) if g < len(s) else "" for g in sorted(quiet_gaps(s))]


@pytest.mark.parametrize("text, expected", [
    ("class A { int x; }", []),
    ("class A {\n// @formatter:off\nint x;\n// @formatter:on\nint y; }", ["int", "x", ";", "// @formatter:on"]),
    ("class A {\n/* CHECKSTYLE:OFF */ int x;\n/* CHECKSTYLE:ON */ }", ["int", "x", ";", "/* CHECKSTYLE:ON */"]),
    ("class A {\n// spotless:off\nint x; }", ["int", "x", ";", "}", ""]),                      # to the end
    ('class A { String s = "@formatter:off"; int x; }', []),                                 # a string is no comment
    ("class A {\n// @formatter:on\nint x;\n// @formatter:off\n}",
     ["}", ""]),                  # an on alone does nothing
])
def test_quiet_gaps_lie_between_an_off_comment_and_the_next_on(text, expected):
    assert _quiet_tokens(text) == expected


@pytest.mark.parametrize("text, may", [("int x;", False), ("// @formatter:off", True), ('"spotless:off"', True)])
def test_the_cheap_test_before_tokenizing_misses_no_region(text, may):
    assert may_have_quiet(text) == may


CLEAN = "package p;\n\nclass A {\n    int x = 1;\n\n    void f(int a, int b) {\n        x = a + b;\n    }\n}\n"
BROKEN = CLEAN.replace("x = a + b;", "x = a + b ;")


@pytest.fixture
def checker(tiny_model):
    from lm.model import LanguageModel
    from parsing.schemes import get_scheme
    from ranker.score import Scorer
    lm = LanguageModel(str(tiny_model))
    return Scorer(lm), get_scheme(lm.scheme)


@pytest.mark.parametrize("text, found", [
    (BROKEN, True),
    (BROKEN.replace("        x = a + b ;",
                    "        // @formatter:off\n        x = a + b ;\n        // @formatter:on"), False),
    (BROKEN.replace("    void f", "    // @formatter:off\n    // @formatter:on\n    void f"), True),
])
def test_the_engine_reports_nothing_where_checking_is_off(checker, text, found):
    scorer, scheme = checker
    cal = Calibration({POOLED: ((0.0, 0.5),)}, {"low": 0.5, "medium": 0.5, "high": 0.5})
    findings = check_text(scorer, scheme, text, "A.java", CheckConfig({POOLED: 0.5}, max_findings=1), cal)
    assert any(f.observed == " " and f.repaired == "" and text[f.start + 1] == ";" for f in findings) == found


@pytest.mark.parametrize("source, pairs", [
    # the grammar splits varargs after an annotation into three '.': the gaps around them are left alone
    ("class A { void f(double @Nullable ... xs) {} }", {("Nullable", "."), (".", "."), (".", "xs")}),
    ("class A { void f() { Collections.<T>emptyList(); } }", {(".", "<"), ("<", "T"), ("T", ">"), (">", "emptyList")}),
    ("class A { void f() { Collections.<List<T>>emptyList(); } }", {(".", "<"), ("<", "List"), (">", ">"),
                                                                    (">", "emptyList")}),
    ("class A { void f(String... xs) {} }", set()),
    ("class A { List<T> f() { return a.b; } }", set()),
])
def test_gaps_the_grammar_misreads_are_left_alone(source, pairs):
    stream = tokenize(source)
    texts = stream.token_texts()
    assert {(texts[i - 1], texts[i]) for i in quiet_gaps(stream)} == pairs


@pytest.mark.parametrize("source", [
    "class A { void f(double @Nullable ... xs) {} }",
    "class A { void f() { Collections.<T>emptyList(); } }",
    "/** Waits... then goes. */\nclass A { void f() { Collections.<List<T>>emptyList(); } }",
    'class A { String s = "a.<b ... c"; /* x.<y */ void f(String... xs) { a.b(); } }',   # none in code
    "\ufeffclass A { void f() { x.<T>g(); y. <T>h(); } }",                              # after a BOM
    "class A { int x; }\n// ...",
])
def test_the_engine_leaves_alone_what_the_tokenizer_misreads(checker, source):
    """The engine reads only the tokens where the text matches, not all of them: the same gaps as the
    tokenizer's whole stream gives."""
    from check.engine import _Edits
    from ranker.rank import rank_text
    scorer, scheme = checker
    ranked = rank_text(scorer, scheme, source, "A.java", least=2.0)
    edits = _Edits(source, ranked.gap_texts, ranked.gap_starts)
    stream = tokenize(source)
    assert edits.quiet() == quiet_gaps(stream)
