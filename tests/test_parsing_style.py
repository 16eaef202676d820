"""parsing/style.py: a file's indentation unit, a project's, and re-indentation to another unit."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsing.java import tokenize
from parsing.style import SPACES, TAB, Indentation, detect_indentation, majority_indentation, reindent


def block(indent: str, depth: int = 3) -> str:
    lines = ["class A {"]
    for d in range(1, depth + 1):
        lines += [indent * d + f"y{d}{k} = {k};" for k in range(4)]
        lines.append(indent * d + f"if (x{d}) {{")
    lines.append(indent * (depth + 1) + "f(a,")
    lines.append(indent * (depth + 3) + "b);")          # a continuation line: two units deeper
    for d in range(depth, 0, -1):
        lines.append(indent * d + "}")
    lines.append("}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("indent, unit", [("\t", "\t"), ("  ", "  "), ("    ", "    "), ("   ", "   "),
                                          ("        ", "        ")])
def test_detect_indentation(indent, unit):
    assert detect_indentation(tokenize(block(indent))).unit == unit


def test_javadoc_alignment_is_not_indentation():
    text = "class A {\n  /**\n   * doc\n   */\n  int x;\n  void f() {\n    g();\n  }\n}\n"
    assert detect_indentation(tokenize(text)).unit == "  "


def test_a_file_with_no_indentation_defaults_to_four_spaces():
    assert detect_indentation(tokenize("class A { }\n")).unit == "    "


def test_a_few_lines_at_eight_columns_are_not_an_eight_space_file():
    text = "class A {\n    void f() {\n        g();\n        h();\n    }\n}\n"
    assert detect_indentation(tokenize(text)).unit == "    "


def test_alignment_lines_do_not_change_the_unit():
    text = "class A {\n" + "    int x;\n" * 10 + "    void f() {\n" + "        g(a,\n          b);\n" * 3 + "    }\n}\n"
    assert detect_indentation(tokenize(text)).unit == "    "


@pytest.mark.parametrize("text, unit", [
    # a small file's one line at 2 columns is its first level, unless the other lines sit at levels of 4
    ("class A {\n  int x;\n}\n", "  "),
    ("class A {\n  int x = f(a,\n      b);\n}\n", "  "),
    ("class A {\n" + "    int x;\n" * 9 + "  int y;\n}\n", "    "),
    ("class A {\n    int x;\n}\n", "    "),
    ("class A {\n    int x = f(a,\n      b);\n}\n", "    "),   # nothing at 2 columns: alignment
    # one line at 4 columns among 8-column levels that are not 80% of the lines: 4 spaces
    ("class A {\n" + "        int x;\n" * 14 + "            int y;\n" * 6 + "    int z;\n" + "      f(a,\n" * 6
     + "}\n", "    "),
])
def test_a_lone_line_at_one_unit(text, unit):
    assert detect_indentation(tokenize(text)).unit == unit


def test_majority_weighs_indented_lines():
    assert majority_indentation([Indentation("\t", 50), Indentation("    ", 10), Indentation("    ", 10)]).unit == "\t"
    assert majority_indentation([]).unit == "    "


@pytest.mark.parametrize("target", [TAB, SPACES[2]])
def test_reindent_changes_units_keeps_tokens_and_leaves_text_blocks(target):
    text = ('class A {\n    /**\n     * doc\n     */\n    void f() {\n        String s = """\n'
            '            x\n            """;\n        g(a,\n                b);\n    }\n}\n')
    out = reindent(tokenize(text), SPACES[4], target)
    assert detect_indentation(tokenize(out)).unit == target.unit
    assert [t.text for t in tokenize(out).tokens if "doc" not in t.text] == \
           [t.text for t in tokenize(text).tokens if "doc" not in t.text]
    assert '"""\n            x\n            """' in out            # a text block's content is untouched
    assert target.unit + " * doc" in out                          # the Javadoc follows its '/**'


lines = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3), st.sampled_from(["x();", "}", "int y = 1;", ""])),
                 min_size=1, max_size=30)


@settings(max_examples=80, deadline=None)
@given(lines)
def test_reindent_to_tabs_and_back_is_the_identity(spec):
    text = "class A {\n" + "".join(" " * (4 * lv + extra) + code + "\n" for lv, extra, code in spec) + "}\n"
    there = reindent(tokenize(text), SPACES[4], TAB)
    assert reindent(tokenize(there), TAB, SPACES[4]) == text
