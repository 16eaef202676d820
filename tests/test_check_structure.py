"""The indentation a file's structure implies (check/structure.py): which lines start a statement, how far
each is from its block's header, and the lines the file indents otherwise than its habit."""
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from check.structure import shifted_runs, statement_lines


def _walk(text: str):
    from parsing.offsets import has_line_break
    from parsing.schemes import get_scheme
    from ranker.walk import StyleWalk
    walk = StyleWalk(get_scheme("kind-units"), text)
    texts = walk.gap_texts()
    return walk.ids, texts, np.array([has_line_break(g) for g in texts[:-1]], dtype=bool), walk.unit


def _lines(text: str) -> dict[str, tuple[str, int]]:
    """The statement lines, named by their text: (kind, offset)."""
    from parsing.java import tokenize
    ids, texts, starts, _ = _walk(text)
    begins = tokenize(text).starts
    rows = text.splitlines()
    return {rows[text[:begins[line.gap]].count("\n")].strip(): (line.kind, line.offset)
            for line in statement_lines(ids, texts, starts)}


@pytest.mark.parametrize("text, line, kind, offset", [
    ("class A {\n    void f() {\n        a();\n    }\n}\n", "a();", "statement", 4),
    ("class A {\n    void f() {\n        a();\n    }\n}\n", "}", "close", 0),
    ("class A {\n  void f() {\n      a();\n  }\n}\n", "a();", "statement", 4),              # 2 spaces, one line off
    ("class A {\n\tvoid f() {\n\t\ta();\n\t}\n}\n", "a();", "statement", 4),                # a tab is 4 columns
    ("class A {\n    void f()\n    {\n        a();\n    }\n}\n", "a();", "statement", 4),  # Allman braces
    ("class A {\n    void f() {\n        if (x)\n            a();\n    }\n}\n", "a();", "body", 4),
    ("class A {\n    void f() {\n        switch (x) {\n        case 1:\n            a();\n        }\n    }\n}\n",
     "case 1:", "label", 0),
    ("class A {\n    void f() {\n        switch (x) {\n        case 1:\n            a();\n        }\n    }\n}\n",
     "a();", "after-label", 4),
    ("class A {\n    void f() {\n        g(x -> {\n                a();\n        });\n    }\n}\n", "a();",
     "statement", 8),
    ("class A {\n    @Deprecated\n    void f() {\n        a();\n    }\n}\n", "a();", "statement", 4),
    ("class A {\n    void f() {\n        for (a();\n                b(); ) {\n            c();\n        }\n    }\n}\n",
     "c();", "statement", 4),                                                        # a head's clause on its own line
])
def test_a_statement_line_is_measured_from_its_block_header(text, line, kind, offset):
    assert _lines(text)[line] == (kind, offset)


@pytest.mark.parametrize("text, line", [
    ("class A {\n    int[] a = {\n        1,\n        2\n    };\n}\n", "1,"),              # an array's elements
    ("class A {\n    void f() {\n        a(1,\n              2);\n    }\n}\n", "2);"),      # a continuation
    ("class A {\n    void f() {\n        // a comment\n        a();\n    }\n}\n", "// a comment"),
    ("class A {\n    void f() {\n        g()\n            .h(new R() {\n        void run() {}\n    });\n    }\n}\n",
     "void run() {}"),                                  # a block opened on a continuation line: taste
])
def test_alignment_and_continuations_are_not_judged(text, line):
    assert line not in _lines(text)


def _method(statements: list[str], unit: str = "    ") -> str:
    return "class A {\n" + unit + "void f() {\n" + "".join(s + "\n" for s in statements) + unit + "}\n}\n"


def test_a_line_off_the_files_habit_is_found_with_the_offset_of_the_habit():
    lines = ["        a%d();" % i for i in range(8)]
    lines[3] = "            a3();"   # one level too deep
    ids, texts, starts, unit = _walk(_method(lines))
    found = shifted_runs(ids, texts, starts, 5)
    assert [(run.first.kind, run.first.offset, run.habit) for run in found] == [("statement", 8, 4)]
    assert len(found[0].first.indent) + found[0].shift == len("        ")   # where the habit puts it


def test_a_habit_seen_too_rarely_is_no_habit():
    ids, texts, starts, _ = _walk(_method(["        a();", "            b();"]))
    assert shifted_runs(ids, texts, starts, 5) == []


def _runs(text: str) -> list[tuple[list[str], int, bool]]:
    """The shifted runs of a file: the text of each line a run moves, its shift and whether it moved whole."""
    from parsing.java import tokenize
    ids, texts, starts, _ = _walk(text)
    begins = tokenize(text).starts
    rows = text.splitlines()
    return [([rows[text[:begins[t]].count("\n")].strip() for t in run.lines], run.shift, run.whole)
            for run in shifted_runs(ids, texts, starts, 5)]


_SIBLINGS = ["        a%d();" % i for i in range(6)]


@pytest.mark.parametrize("body, expected", [
    # a statement one level too deep: itself, with its continuation line
    (_SIBLINGS[:3] + ["            b(1,", "                2);"] + _SIBLINGS[3:], [(["b(1,", "2);"], -4, True)]),
    # a block's body pasted a level too deep, a comment first: the comment and every line moved, one run
    (_SIBLINGS + ["        if (x) {", "                // why", "                c();", "                d();",
                  "        }"], [(["// why", "c();", "d();"], -4, True)]),
    # a block one level too deep whose '}' lines up with it: the block moved with its header
    (_SIBLINGS + ["            if (x) {", "                c();", "            }"],
     [(["if (x) {", "c();", "}"], -4, True)]),
    # two lines off by different columns: two runs
    (_SIBLINGS[:3] + ["          b();", "            c();"] + _SIBLINGS[3:],
     [(["b();"], -2, True), (["c();"], -4, True)]),
])
def test_lines_off_their_habit_by_the_same_columns_move_as_one_run(body, expected):
    assert _runs(_method(body)) == expected


def test_a_case_body_too_deep_is_one_run_between_its_labels():
    labels = []
    for n in range(6):
        labels += [f"        case {n}:", f"            a{n}();", "            break;"]
    labels[4:6] = ["                a1();", "                break;"]
    text = _method(["        switch (x) {", *labels, "        }"])
    assert _runs(text) == [(["a1();", "break;"], -4, True)]


@st.composite
def _blocks(draw, depth=0):
    """Statements and nested blocks, as lines of (level, text)."""
    out = []
    for i in range(draw(st.integers(1, 4))):
        if depth < 3 and draw(st.booleans()):
            out.append((0, f"if (x{i}) {{"))
            out += [(level + 1, text) for level, text in draw(_blocks(depth + 1))]
            out.append((0, "}"))
        else:
            out.append((0, f"a{i}();"))
    return out


@settings(max_examples=60, deadline=None)
@given(_blocks(), st.sampled_from(["  ", "    ", "\t"]))
def test_a_file_indented_by_its_structure_has_no_line_off_its_habit(body, unit):
    text = "class A {\n" + unit + "void f() {\n" + "".join(unit * (level + 2) + t + "\n" for level, t in body) + \
        unit + "}\n}\n"
    ids, texts, starts, _ = _walk(text)
    assert shifted_runs(ids, texts, starts, 1) == []


@settings(max_examples=80, deadline=None)
@given(_blocks(), st.sampled_from(["  ", "    ", "\t"]), st.data())
def test_moving_each_run_by_its_shift_restores_a_statement_indented_a_level_too_deep(body, unit, data):
    # a statement (with its block) moved one level deeper: the runs, re-indented, give the file back
    tops = [j for j, (level, t) in enumerate(body) if level == 0 and t != "}"]
    assume(len([j for j, (level, _) in enumerate(body) if level == 0]) >= 4)   # the habit outvotes the slip
    j = data.draw(st.sampled_from(tops))
    end = j
    if body[j][1].startswith("if"):
        end = next(k for k in range(j + 1, len(body)) if body[k] == (0, "}"))
    shifted = [(level + (j <= k <= end), t) for k, (level, t) in enumerate(body)]

    def text_of(rows):
        return "class A {\n" + unit + "void f() {\n" + "".join(unit * (level + 2) + t + "\n" for level, t in rows) + \
            unit + "}\n}\n"
    from parsing.java import tokenize
    original, slipped = text_of(body), text_of(shifted)
    ids, texts, starts, _ = _walk(slipped)
    begins = tokenize(slipped).starts
    rows = slipped.split("\n")
    width = 4 if unit == "\t" else len(unit)
    for run in shifted_runs(ids, texts, starts, 2):
        assert run.whole and run.shift == -width
        for t in run.lines:
            at = slipped[:begins[t]].count("\n")
            rows[at] = rows[at][len(unit):]
    assert "\n".join(rows) == original


_PIECES = ["{", "}", "(", ")", "[", "]", ";", ":", "if", "else", "do", "for", "case", "default", "x", "=", ",",
           "// c\n", "\n", "\n    ", "\n\t", " "]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=60))
def test_any_token_soup_gives_lines_within_the_file(pieces):
    # unbalanced braces and parentheses, labels anywhere: the walk may hold error tokens, and nothing breaks
    text = " ".join(pieces)
    ids, texts, starts, unit = _walk(text)
    lines = statement_lines(ids, texts, starts)
    assert all(0 <= line.gap < len(texts) and line.kind in ("statement", "close", "label", "after-label", "body")
               for line in lines)
    for run in shifted_runs(ids, texts, starts, 1):
        assert run.first.offset != run.habit and run.at_habit >= run.at_own >= run.length >= 1
        assert all(0 <= t < len(texts) for t in run.lines)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(-2, 3)), max_size=30, unique_by=lambda t: t[0]),
       st.lists(st.tuples(st.integers(0, 40), st.integers(-2, 3)), max_size=30), st.booleans())
def test_the_last_target_before_a_query_at_its_level(targets, queries, inclusive):
    from reference_structure import last_before
    targets = sorted(targets)
    got = last_before(np.array([p for p, _ in targets], np.int64), np.array([lv for _, lv in targets], np.int64),
                      np.array([p for p, _ in queries], np.int64), np.array([lv for _, lv in queries], np.int64),
                      inclusive)
    want = [max([p for p, lv in targets if lv == ql and (p <= qp if inclusive else p < qp)], default=-1)
            for qp, ql in queries]
    assert got.tolist() == want


def _same_as_numpy(text: str):
    from reference_structure import structure

    from check.structure import _structure
    ids, _, starts, _ = _walk(text)
    assert [a.tolist() for a in _structure(ids, starts)] == [a.tolist() for a in structure(ids, starts)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES + ["while", "(x)", "else if", "{ case x :", "= {", "a . b"]), max_size=80))
def test_the_compiled_structure_is_numpys_on_any_token_soup(pieces):
    _same_as_numpy(" ".join(pieces))


def test_the_compiled_structure_is_numpys_on_real_files():
    from conftest import data_path
    folder = data_path("codrep2019", "validation")
    for n in range(0, 1000, 25):   # 40 files of the split's different base files
        _same_as_numpy((folder / f"{n}.txt").read_text())
