"""The habit breaks of lines and blocks (check/breaks.py): continuations against their siblings and their
bracket's step (parsing/style.py), a line indented with the repository's other character, a block shifted
whole, lines joined and blank lines."""
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation.hand_slips import KINDS, inject
from parsing.java import tokenize
from parsing.schemes import get_scheme
from parsing.style import continuation_siblings, first_continuations
from ranker.walk import StyleWalk

CHAIN = ("class C{n} {{\n    int f{n}() {{\n        return foo{n}(a, b)\n            .bar()\n            .qux()\n"
         "            .baz(\n"
         "                x,\n                y);\n    }}\n\n    int g{n}() {{\n        int v = 1;\n"
         "        if (v > 0) {{\n            v++;\n        }}\n        return v;\n    }}\n}}\n")


def _lines(text):
    w = StyleWalk(get_scheme("kind-units"), text)
    return w.symbols()[1::2], w.gap_texts()


def test_continuations_siblings_and_a_brackets_first_line():
    tokens, gaps = _lines(CHAIN.format(n=0))
    firsts = first_continuations(tokens, gaps)
    assert [(tokens[g], off) for g, off in firsts] == [(".", 4)]          # `.bar()` from `return foo0(a, b)`
    siblings, kids = continuation_siblings(tokens, gaps)
    assert sorted((tokens[g], tokens[p], d) for g, p, d in siblings) == [(".", ".", 0), (".", ".", 0), ("ID", "ID", 0)]
    assert [(tokens[g], d, opened) for g, _, d, opened in kids] == [("ID", 4, 1)]   # `x,` below `.baz(`


def test_continuations_give_the_same_with_the_callers_line_events():
    from ranker.cache import line_events
    w = StyleWalk(get_scheme("kind-units"), CHAIN.format(n=1))
    tokens, starts, events = line_events(w.ids)
    gaps = w.gap_texts()
    assert tokens == list(w.symbols()[1::2])
    assert first_continuations(tokens, gaps, starts) == first_continuations(tokens, gaps)
    assert continuation_siblings(tokens, gaps, starts, events) == continuation_siblings(tokens, gaps)


def _breaks(tmp_path, text, others):
    from tests.test_check_breaks import _breaks_of
    from tests.test_check_engine import _folder
    return _breaks_of(text, _folder(tmp_path, [text, *others]))


OTHERS = [CHAIN.format(n=n) for n in range(1, 9)]


@pytest.mark.parametrize("slip, habit, observed, repaired", [
    # a chain's next `.call()` 4 columns deeper than its siblings
    (("            .qux()", "                .qux()"), "continuation-sibling", "\n                ", "\n            "),
    # a bracket's first line a step too deep
    (("                x,\n", "                    x,\n"), "continuation-first", "\n                    ",
     "\n                "),
    # a tab in a repository that indents with spaces, in a file too short to tell its unit
    (("        int v = 1;", "\tint v = 1;"), "mixed-indent", "\n\t", "\n        "),
    # the brace of an `if` on a line of its own
    (("        if (v > 0) {", "        if (v > 0)\n        {"), "brace", "\n        ", " "),
    # two blank lines between members
    (("    }\n\n    int g0", "    }\n\n\n    int g0"), "blank-lines-doubled", "\n\n\n    ", "\n\n    "),
])
def test_a_line_the_repository_writes_otherwise_is_a_break(tmp_path, slip, habit, observed, repaired):
    text = CHAIN.format(n=0).replace(*slip, 1)
    found = [b for b in _breaks(tmp_path, text, OTHERS) if b.observed == observed]
    assert [(b.habit, b.repaired) for b in found] == [(habit, repaired)]


def test_a_block_shifted_whole_is_one_break_and_its_lines_follow_it(tmp_path):
    block = "        if (v > 0) {\n            v++;\n        }\n"
    text = CHAIN.format(n=0).replace(block, "".join("    " + line + "\n" for line in block.splitlines()), 1)
    found = _breaks(tmp_path, text, OTHERS)
    header = [b for b in found if b.follows < 0 and b.habit == "indentation"]
    assert len(header) == 1 and header[0].repaired.endswith("\n        ")
    followers = [b for b in found if b.follows == header[0].gap]
    assert [b.repaired for b in followers] == ["\n            ", "\n        "]   # `v++;` and its `}`


def test_an_offset_far_outside_the_asked_steps_is_no_error(tmp_path):
    # a bracket's first line 40 columns shallower than its opening line: only the statement's step judges it
    text = ("class D {\n    void f() {\n" + " " * 60 + "call(\n" + " " * 20 + "x);\n    }\n}\n")
    found = [(b.habit, b.repaired) for b in _breaks(tmp_path, text, OTHERS) if b.habit.startswith("continuation")]
    assert found == [("continuation-first", "\n" + " " * 64)]


SAMPLE = CHAIN.format(n=7) + "\n"


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_of_hand_slip_keeps_the_tokens_and_names_its_gaps(kind):
    slip = next((s for seed in range(20) if (s := inject(SAMPLE, kind, random.Random(seed))) is not None), None)
    if slip is None:
        pytest.skip(f"no site for {kind} in the sample")
    assert slip.slipped != SAMPLE and tokenize(slip.slipped).texts == tokenize(SAMPLE).texts
    assert all(slip.slipped[a:b].strip() == "" for a, b in slip.gaps)
    a, b = slip.gaps[0]
    assert slip.touched(a, b) and not slip.touched(b + 50, b + 51)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(KINDS))
def test_a_hand_slip_is_written_only_where_the_file_keeps_its_kind(seed, kind):
    text = SAMPLE.replace("if (", "if(") if kind == "keyword-paren" else SAMPLE
    slip = inject(text, kind, random.Random(seed))
    if kind == "keyword-paren":
        assert slip is None   # the file writes `if(`: its habit is not `if (`
    elif slip is not None:
        assert tokenize(slip.slipped).texts == tokenize(text).texts
