"""ranker/repairs.py and rank_text: a suggested repair never joins, splits or changes a token."""
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lm.model import LanguageModel
from parsing.java import parse, tokenize
from parsing.schemes import get_scheme
from ranker.rank import rank_text
from ranker.repairs import codrep_edit, joinable
from ranker.score import Scorer


@pytest.mark.parametrize("left, right, ok", [
    ("package", "demo", False), ("int", "x", False), ("x", "1", False), ("$a", "_b", False),
    ("x", ";", True), ("(", ")", True), (")", "{", True), ("=", "1", True), ("a", "=", True),
    ("-", "-b", False), ("-", "-", False), ("+", "=", False), ("-", ">", False), ("<", "<", False),
    (">", ">=", False), ("/", "/", False), ("/", "*", False), ("*", "/", False), ("String", "...", True),
    (":", ":", False), ("&", "&", False), ("1", ".5", False), (".", "5", False), ("x", ".", True),
    ("'a'", "'b'", False), ('""', '"x"', False), ("@", "Override", True), ("=", "-", True),
    ("ü", "x", False), ("]", "[", True), ("be5", ".", True), ("log4j", ".", True), ("x1", ".5", True),
    ("0x1F", ".", False), ("1_000", ".", False), (".5", ".", False),
])
def test_joinable(left, right, ok):
    assert joinable(left, right[:3]) == ok


@pytest.mark.parametrize("observed, repaired, codrep", [
    ("\n    \t", "\n    ", True),    # a tab inserted before a token
    ("\t", "", True), ("\n", "", True), (" \n", " ", True),   # a tab or line break inserted into a gap
    ("\t ", " ", True),              # a tab at the start of a gap without a line break ('package\t com')
    (" ", "", True), ("", " ", True), # a space inserted into an empty gap, a one-space gap emptied
    ("    ", "\n    ", True), ("", "\n", True),   # the only line break of a gap deleted
    ("  ", " ", False), ("   ", "  ", False),      # a space taken out of a longer run
    ("\n     ", "\n    ", False),   # indentation moved by one column
    ("\n", " ", False), ("\t", " ", False),   # replacements
    ("\n\n    ", "\n    ", False),  # a blank line taken out
    ("\t\n    ", "\n    ", False),  # a trailing tab taken out
    ("", "\t", False), ("\n    ", "    ", False), ("\n    ", "\n\n    ", False),
])
def test_codrep_edit(observed, repaired, codrep):
    assert codrep_edit(observed, repaired) == codrep


def tokens(text):
    return [t.text for t in tokenize(text).tokens]


PIECES = ["int", "x", "=", "a", "-", "-b", "+", "++", "1", ".5", "(", ")", "{", "}", ";", "//c\n", "/*k*/",
          "\"s\"", "'c'", "List", "<", ">", ">>", "->", "::", ".", ",", "@", "Override", "return", "if"]
SPACES = ["", " ", "  ", "\t", "\n", "\n    ", " \n", "\n\n\t"]


def apply(text, repair):
    lo = tokenize(text).gap_start(repair.gap)
    return text[:lo] + repair.repaired + text[lo + len(repair.observed):]


STATEMENTS = ["int x = a - -b;", "x++;", "y = (a + 1) * .5;", "list.add(\"s\");", "if (a >= b) { return; }",
              "// note", "/* block */", "char c = 'c';", "f(x -> x::y);", "List<List<String>> l;",
              "@Override void g() {}", "z = a >> 2 >>> 1;", "s = \"\" + \"x\";"]


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["\n    ", "\n\n    ", "\n\t", "  \n    "]), st.sampled_from(STATEMENTS)),
                min_size=1, max_size=12))
def test_every_repair_of_a_parsable_file_keeps_the_tokens(tiny_model, lines):
    """On Java that parses, the rules alone (rank_text) keep every token of every candidate repair."""
    text = "class A {\n    void f() {" + "".join(ws + stmt for ws, stmt in lines) + "\n    }\n}\n"
    # a member among the statements does not parse, and tree-sitter's recovery can split a later string
    # literal into tokens that a space then changes (that is exact_best's case, the test below)
    assume(not parse(text).root_node.has_error)
    scorer = Scorer(LanguageModel(tiny_model))
    ranked = rank_text(scorer, get_scheme(scorer.scheme), text, "t")
    before = tokens(text)
    for candidate in ranked.best():
        assert tokens(apply(text, candidate)) == before, candidate


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(SPACES), st.sampled_from(PIECES)), min_size=2, max_size=25))
def test_every_reported_finding_keeps_the_tokens_even_in_broken_files(tiny_model, parts):
    """On anything at all, the findings reported (exact_best, which --explain and bin/check print) are
    checked by tokenizing their repair."""
    text = "class A {\n" + "".join(ws + piece for ws, piece in parts) + "\n}\n"
    scorer = Scorer(LanguageModel(tiny_model))
    ranked = rank_text(scorer, get_scheme(scorer.scheme), text, "t")
    before = tokens(text)
    found = ranked.exact_best(text, 5)
    assert len(found) == min(5, len(found)) and all(tokens(apply(text, f)) == before for f in found)
    assert [f.offset for f in found] == [f.offset for f in ranked.best() if tokens(apply(text, f)) == before][:5]


def joinable_by_operator(left, right):
    """joinable written plainly: each operator tried at each split (the fast one looks the heads up)."""
    from parsing.java import JOINED_OPERATORS
    from ranker.repairs import _word
    a, b = left[-1:], right[:1]
    if not a or not b:
        return True
    number = left[:1].isdigit() or left[:1] == "." and left[1:2].isdigit()   # only a number takes in a '.'
    if _word(a) and _word(b) or number and b == "." or a == "." and b.isdigit() or a in "\"'" and b in "\"'":
        return False
    return not any(left.endswith(op[:k]) and right.startswith(op[k:])
                   for op in JOINED_OPERATORS for k in range(1, len(op)))


OPERATOR_CHARS = "=!<>&|+-*/%^:.ax1\"'( "


@settings(max_examples=3000)
@given(st.text(OPERATOR_CHARS, max_size=4), st.text(OPERATOR_CHARS, max_size=4))
def test_joinable_is_joinable_by_operator(left, right):
    assert joinable.__wrapped__(left, right) == joinable_by_operator(left, right)


def test_joinable_every_operator_split():
    from parsing.java import JOINED_OPERATORS
    for op in JOINED_OPERATORS:
        for k in range(1, len(op)):
            for left, right in [(op[:k], op[k:]), ("x" + op[:k], op[k:] + "y"), (op[:k], op[k:k + 1])]:
                assert joinable.__wrapped__(left[-3:], right[:3]) == joinable_by_operator(left[-3:], right[:3])


@pytest.mark.parametrize("gap, indent, unit, expected", [
    # a slip a person makes and the fix no one-character edit gives
    ("\n            ", "    ", "    ", "\n        "),          # a line indented a unit too deep
    ("\n\t\t", "    ", "    ", "\n        "),                   # tabs in a space-indented file
    ("   \n    ", "    ", "    ", "\n    "),                    # a run of trailing spaces
    ("\n\n\n    ", "    ", "    ", "\n\n    "),                 # two blank lines made one
    ("\n        ", "    ", "    ", " "),                        # two lines joined
    ("   ", "    ", "    ", " "),                               # a run of spaces made one
    ("", "    ", "    ", "\n        "),                         # a line broken as a continuation
    ("\n  \n    ", "    ", "    ", "\n\n    "),                 # whitespace on a blank line
    ("\r\n\t\t\t", "\t", "\t", "\r\n\t\t"),                      # a CRLF file's line break kept
])
def test_wide_edits_propose_the_fixes_people_make(gap, indent, unit, expected):
    from ranker.repairs import wide_edits
    assert expected in wide_edits(gap, indent, unit)


@given(st.text(" \t\n", max_size=12), st.sampled_from(["", "    ", "\t\t"]),
       st.sampled_from([None, "    ", "  ", "\t"]))
def test_property_wide_edits_are_whitespace_new_and_distinct(gap, indent, unit):
    from ranker.repairs import gap_edits, wide_edits
    wide = wide_edits(gap, indent, unit)
    assert gap not in wide and len(set(wide)) == len(wide)
    assert all(not r.strip(" \t\r\n") for r in wide)
    # the cost of a gap stays bounded: at most 4 counts of line breaks times 8 indentations, 2 joins, and the
    # one-character edits (at most 14)
    assert len(wide) <= 4 * 8 + 2 and len(gap_edits(gap)) <= 14


def test_the_codrep_error_model_plans_no_wide_edits(tiny_model):
    """bin/rank's rankings are CodRep 2019's one-character repairs alone; bin/check's error model adds the rest."""
    codrep, real = Scorer(LanguageModel(tiny_model)), Scorer(LanguageModel(tiny_model), edits="real")
    text = "class A {\n    int f() {\n            return 1;\n    }\n}\n"
    scheme = get_scheme(codrep.scheme)
    narrow = {c.repaired for c in rank_text(codrep, scheme, text, "t").best()}
    wide = {c.repaired for c in rank_text(real, scheme, text, "t").best()}
    assert "\n        " not in narrow and "\n        " in wide
