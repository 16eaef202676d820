"""evaluation/slip_ceiling.py: a gap's pattern, the rules measured on patterns, and bin/check-bench
--realslips-ceiling on a tiny real-slip set written by the test."""
import itertools
import json
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.check import main as check_bench
from evaluation.realslips import clean_texts
from evaluation.slip_ceiling import _most_within, gap_patterns, oracle, rarity, read_gaps, token_class, with_file_counts
from formats.realslips import changed_gaps, gap_record, read_set
from parsing.java import tokenize


@pytest.mark.parametrize("kind, cls", [("identifier", "identifier"), ("type_identifier", "identifier"),
                                       ("string_literal", "literal"), ("decimal_integer_literal", "literal"),
                                       ("if", "if"), ("(", "("), ("line_comment", "line_comment")])
def test_token_class(kind, cls):
    assert token_class(kind) == cls


def shape(text, token):
    """The shape of the gap after the first token `token` of `text`."""
    i = tokenize(text).texts.index(token) + 1
    return gap_patterns(text)[i][2]


@pytest.mark.parametrize("text, token, expected", [
    ("class A { void f() { if(x) {} } }", "if", ("line", 0, False)),
    ("class A { void f() { if  (x) {} } }", "if", ("line", 2, False)),
    ("class A { void f() { if\t(x) {} } }", "if", ("line", 1, True)),
    ("class A {\n    int x;\n        int y;\n}\n", ";", ("breaks", 1, False, False, "spaces", 4)),
    ("class A {\n\tint x; \n\tint y;\n}\n", ";", ("breaks", 1, True, False, "tabs", 0)),
    ("class A {\n\tint x;\r\n\r\n\tint y;\n}\n", ";", ("breaks", 2, False, False, "tabs", 0)),
    ("class A {\n    int x;\n}", "}", ("line", 0, False)),
])
def test_the_shape_of_a_gap(text, token, expected):
    assert shape(text, token) == expected


def test_blank_lines_and_their_whitespace():
    text = "class A {\n    int x;\n    \n\n    int y;\n}\n"
    patterns = gap_patterns(text)
    assert len(patterns) == 11 and patterns[0][0] == "^" and patterns[-1][:2] == ("}", "$")
    assert (";", "int", ("breaks", 3, False, True, "spaces", 0)) in patterns


def test_a_file_the_set_would_not_take_has_no_patterns():
    assert gap_patterns("class A { int x = ; ") is None


def test_file_counts():
    assert with_file_counts(["a", "b", "a", "a"]) == [("a", 2), ("b", 0), ("a", 2), ("a", 2)]
    assert with_file_counts(["a", "b", "a"]) == [("a", 1), ("b", 0), ("a", 1)]


@given(st.lists(st.tuples(st.integers(1, 5), st.integers(0, 4)), max_size=7), st.integers(0, 8))
def test_the_knapsack_is_the_best_subset(items, capacity):
    value = Counter({i: v for i, (v, _) in enumerate(items)})
    cost = Counter({i: c for i, (_, c) in enumerate(items)})
    chosen = _most_within(value, cost, capacity)
    assert sum(cost[k] for k in chosen) <= capacity
    best = max(sum(value[k] for k in subset) for n in range(len(items) + 1)
               for subset in itertools.combinations(range(len(items)), n)
               if sum(cost[k] for k in subset) <= capacity)
    assert sum(value[k] for k in chosen) == best


# (project, before, after): alpha writes `if (` in its clean files and slipped `if(`; its `x ;` slip is a
# pattern its clean files hold twice
CHANGES = [("alpha", "class A {\n    void f() {\n        if(x) { y = 1 ; }\n    }\n}\n",
            "class A {\n    void f() {\n        if (x) { y = 1; }\n    }\n}\n")]
CLEAN = [("alpha", "class B {\n    void g() {\n        if (x) { z = 2 ; w = 3 ; }\n    }\n}\n"),
         ("alpha", "class C {\n    void h() {\n        if (y) { v = 4; }\n    }\n}\n")]


@pytest.fixture
def tiny(tmp_path):
    root = tmp_path / "set"
    (root / "alpha").mkdir(parents=True)
    truth, clean = [], []
    for i, (project, before, after) in enumerate(CHANGES, 1):
        (root / project / f"b{i}.java").write_text(before)
        truth.append({"project": project, "file": f"b{i}.java", "repo": project, "commit": "c", "parent": "p",
                      "path": "p", "time": 0, "subject": "s", "lines": before.count("\n"),
                      "gaps": [gap_record(g) for g in changed_gaps(before, after)], "before": before,
                      "after": after})
    for i, (project, text) in enumerate(CLEAN, 1):
        (root / project / f"c{i}.java").write_text(text)
        clean.append({"project": project, "file": f"c{i}.java", "repo": project, "commit": "c", "path": "p",
                      "blob": "b", "lines": text.count("\n")})
    (root / "truth.jsonl").write_text("".join(json.dumps(r) + "\n" for r in truth))
    (root / "clean.jsonl").write_text("".join(json.dumps(r) + "\n" for r in clean))
    return root


def gaps_of(root, keyed=list):
    slips = read_set(root)
    texts = {p: clean_texts(slips, p) for p in slips.projects}
    return read_gaps(slips, lambda project, file: texts[project][file]).keyed(keyed)


def test_the_labels_choose_what_the_clean_files_do_not_hold(tiny):
    gaps = gaps_of(tiny)
    assert [kind for *_, kind in gaps.changed] == ["space added", "space removed"]
    assert gaps.clean_lines == 10
    none = oracle(gaps, 0.0)                 # no false finding: `if(` only
    assert none.found == Counter({"space added": 1}) and none.false == 0
    some = oracle(gaps, 200.0)               # 2 false findings allowed: `1 ;` too, at the clean files' `2 ;`, `3 ;`
    assert some.found == Counter({"space added": 1, "space removed": 1}) and some.false == 2
    assert some.share() == 1.0 and some.false_per_kloc == 200.0 and some.recurring == 0
    assert oracle(gaps, 200.0, least_files=2).found == Counter()    # each slipped in one file only
    assert (none.alone, some.alone) == (0.0, 1.0)                    # --fix would need both gaps, and only them
    assert oracle(gaps, 200.0, taste_only=True).found == some.found


def test_the_file_count_tells_a_file_that_writes_it_twice(tiny):
    counted = gaps_of(tiny, with_file_counts)
    # the clean file writes `x ;` twice, the slipped file once: told apart, found within no budget
    assert oracle(counted, 0.0).found == Counter({"space added": 1, "space removed": 1})


def test_rare_patterns(tiny):
    gaps = gaps_of(tiny)
    rare = rarity(gaps, 0)
    assert rare.found["space added"] == 1          # no other file writes `if(`
    assert rare.found["space removed"] == 0        # another file writes ` ;`
    assert rarity(gaps, 5).false >= rare.false


def test_the_command_prints_the_tables(tiny, tmp_path, capsys):
    docs = tmp_path / "check-bench.md"
    assert check_bench(["--realslips-ceiling", "--realslips-set", str(tiny), "--docs", str(docs)]) == 0
    out = capsys.readouterr().out
    assert "| pattern | with the labels, within 0.5 / KLOC | 0.500 |" in out
    assert out.strip().splitlines()[-1].startswith("check-bench|realslips-ceiling:1|clean-lines:10")
    page = (tmp_path / "realslips-ceiling.md").read_text()
    assert "<!-- realslips-ceiling -->" in page and "| space added | yes | 1 |" in page


def test_a_set_with_nothing_to_measure_is_one_line(tmp_path, capsys):
    (tmp_path / "truth.jsonl").write_text('{"broken\n')
    (tmp_path / "clean.jsonl").write_text("")
    assert check_bench(["--realslips-ceiling", "--realslips-set", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "not JSON; left out" in err and "no changed gaps or no clean lines to measure" in err
    assert "Traceback" not in err and "internal error" not in err
