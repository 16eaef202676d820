"""evaluation/checkstyle.py: running Debian's Checkstyle in batches and telling the violations an edit adds."""
import shutil

import pytest

from evaluation.checkstyle import (
    SHIPPED,
    Checkstyle,
    CheckstyleError,
    Violation,
    config_path,
    new_violations,
    original_lines,
    properties,
)
from parsing.style import SPACES, TAB

needs_checkstyle = pytest.mark.skipif(shutil.which("checkstyle") is None,
                                      reason="checkstyle not installed (make setup)")


@pytest.mark.parametrize("line, edited_line, added, expected", [
    (5, 5, 0, (5,)),
    (5, 5, 1, (5,)),        # the line the newline was inserted on
    (6, 5, 1, (5,)),        # its rest, moved to a line of its own
    (9, 5, 1, (8,)),
    (4, 5, 1, (4,)),
    (5, 5, -1, (5, 6)),     # two lines joined
    (4, 5, -1, (4,)),
    (7, 5, -1, (8,)),
])
def test_original_lines_map_through_an_added_or_removed_line_break(line, edited_line, added, expected):
    assert original_lines(line, edited_line, added) == expected


def v(line, check="WhitespaceAround", message="'=' is not preceded with whitespace."):
    return Violation(line, check, message)


@pytest.mark.parametrize("original, edited, edited_line, added, new", [
    ([], [v(5)], 5, 0, [v(5)]),
    ([v(5)], [v(5)], 5, 0, []),                                  # the clean file had it already
    ([v(4)], [v(5)], 5, 0, [v(5)]),                              # same message, another line: new
    ([], [v(9)], 5, 0, []),                                      # far from the edit
    ([v(5)], [v(6)], 5, 1, []),                                  # moved by the inserted line break
    ([v(6)], [v(5)], 5, -1, []),                                 # joined into the edited line
    ([v(5, "RightCurly", "'}' at column 9 should be alone")],
     [v(5, "RightCurly", "'}' at column 10 should be alone")], 5, 0, []),   # columns do not count
    ([v(5, "Indentation", "level 8, expected 8")], [v(5, "Indentation", "level 9, expected 8")], 5, 0,
     [v(5, "Indentation", "level 9, expected 8")]),
])
def test_new_violations(original, edited, edited_line, added, new):
    assert new_violations(original, edited, edited_line, added) == new


def test_properties_follow_the_project_indentation():
    assert properties(TAB) == {"basicOffset": "4", "tabWidth": "4", "tabSeverity": "ignore"}
    assert properties(SPACES[2])["basicOffset"] == "2" and properties(SPACES[2])["tabSeverity"] == "error"


def test_an_unknown_configuration_is_one_line():
    with pytest.raises(CheckstyleError, match="no such Checkstyle configuration"):
        config_path("nonexistent.xml")


@needs_checkstyle
def test_the_shipped_configuration_flags_whitespace_and_reports_unparsable_files(tmp_path):
    ok = tmp_path / "A.java"
    ok.write_text("class A {\n    int x = 1;\n}\n")
    bad_ws = tmp_path / "B.java"
    bad_ws.write_text("class B {\n    int x =1 ;\n}\n")
    broken = tmp_path / "C.java"
    broken.write_text("class C { void f( { int y = ;; }\n")
    found = Checkstyle(SHIPPED["whitespace"], properties(SPACES[4])).check([ok, bad_ws, broken])
    assert found[ok] == []
    assert {x.check for x in found[bad_ws]} >= {"WhitespaceAround", "NoWhitespaceBefore"}
    assert all(x.line == 2 for x in found[bad_ws])
    assert found[broken] is None


@needs_checkstyle
@pytest.mark.parametrize("unit, flagged", [(SPACES[4], True), (TAB, False)])
def test_a_tab_is_flagged_only_in_a_space_indented_project(tmp_path, unit, flagged):
    f = tmp_path / "A.java"
    f.write_text("class A {\n\tint x = 1;\n}\n" if unit == TAB else "class A {\n    int x = 1;\t\n}\n")
    checks = {x.check for x in Checkstyle(SHIPPED["whitespace"], properties(unit)).check([f])[f]}
    assert ("FileTabCharacter" in checks) == flagged


@needs_checkstyle
@pytest.mark.parametrize("config", ["not xml at all\n",
                                    '<?xml version="1.0"?>\n<module name="Checker"><module name="Bogus"/></module>\n'])
def test_a_configuration_checkstyle_cannot_load_is_one_line(tmp_path, config):
    path = tmp_path / "bad.xml"
    path.write_text(config)
    with pytest.raises(CheckstyleError) as raised:
        Checkstyle(path).validate()
    assert "\n" not in str(raised.value) and "bad.xml" in str(raised.value)


def test_a_missing_checkstyle_is_one_line(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(CheckstyleError, match="checkstyle not found"):
        Checkstyle(SHIPPED["whitespace"])
