"""evaluation/real_edits.py: realistic slips of any size, each undone by the kind of fix the real-slip set
names it after, in the development set's mix; and bin/make-tasks' `real` mix."""
import random

import pytest
from conftest import data_path

from evaluation.injection import quotas
from evaluation.real_edits import REAL_EDITS, REAL_MIX, mix_of, real_candidates
from evaluation.tasks import TaskConfig, make_tasks
from formats.codrep2019 import read_answers
from formats.realslips import changed_gaps, read_set
from parsing.java import tokenize

SPACES = ("package p;\n\nclass A {\n    int x = 1;\n\n    void f(int a) {\n        if (a > x) {\n"
          "            x = a;\n        }\n    }\n}\n\n")
TABS = "class B {\n\tint y;\n\n\tvoid g() {\n\t\ty = 2;\n\t}\n}\n"
INDENTED_BLANKS = "class C {\r\n\tint y;\r\n\t\r\n\tvoid g() {\r\n\t\ty = 2;\r\n\t}\r\n\t\r\n\tint z;\r\n}\r\n"


@pytest.mark.parametrize("kind", sorted(REAL_EDITS))
@pytest.mark.parametrize("text", [SPACES, TABS, INDENTED_BLANKS], ids=["spaces", "tabs", "crlf-indented-blanks"])
def test_each_slip_is_undone_by_the_fix_it_is_named_after(kind, text):
    made = list(real_candidates(tokenize(text), kind, random.Random(0)))
    if kind == "unindent blank line" and text is not INDENTED_BLANKS:
        assert made == []    # only where the file's blank lines keep their indentation
        return
    if kind == "remove final blank line" and text is not SPACES:
        assert made == []    # only where the file ends with a blank line
        return
    assert made, kind
    for slipped, edit in made:
        (gap,) = changed_gaps(slipped, text)   # the fix: from the slip back to the clean file
        assert gap.kind == REAL_EDITS[kind].fixed_as, (kind, edit)
        assert edit.kind == kind and edit.answer == edit.gap_start == gap.offset
        assert (gap.old, gap.new) == (edit.edited, edit.original)
        assert slipped[edit.gap_start - 1:edit.gap_start - 1 + len(edit.edited)] == edit.edited


def test_slips_take_the_files_unit_and_line_breaks():
    for slipped, edit in real_candidates(tokenize(SPACES), "reindent", random.Random(1)):
        assert abs(len(edit.edited) - len(edit.original)) == 4
    for slipped, edit in real_candidates(tokenize(TABS), "tab/space swapped", random.Random(1)):
        assert "\t" not in edit.edited and edit.edited.endswith("    " * edit.original.count("\t"))
    for slipped, edit in real_candidates(tokenize(SPACES), "tab/space swapped", random.Random(1)):
        assert edit.edited.count("\t") == 1 and len(edit.edited) == len(edit.original) - 3
    for slipped, edit in real_candidates(tokenize(INDENTED_BLANKS), "break line", random.Random(1)):
        assert edit.edited.startswith("\r\n\t") and edit.lines_added == 1


def test_the_mix_is_the_development_sets():
    s = read_set(data_path("realslips"))
    assert mix_of(g.kind for c in s.changes for g in c.gaps) == REAL_MIX
    assert set(REAL_MIX) == set(REAL_EDITS)


def test_make_tasks_with_the_real_mix(tmp_path):
    texts = [(f"{i}.java", SPACES.replace("class A", f"class A{i}")) for i in range(30)]
    summary = make_tasks(texts, tmp_path / "tasks", TaskConfig(count=20, seed=3, mix="real"))
    # 20 owed in the mix's proportions; the one "unindent blank line" owed finds no file with indented blank lines
    assert summary.tasks == 19 and set(summary.kinds) <= set(REAL_MIX)
    assert summary.kinds["join lines"] >= 3 and "unindent blank line" not in summary.kinds
    assert len(read_answers(str(tmp_path / "tasks"))) == 19


def test_a_file_without_the_kind_owed_takes_another_owed_kind(tmp_path):
    """No file here has indented blank lines: every other kind owed is still paid, one task per file."""
    texts = [(f"{i}.java", SPACES.replace("class A", f"class A{i}")) for i in range(40)]
    summary = make_tasks(texts, tmp_path / "tasks", TaskConfig(seed=5, mix="real"))
    owed = quotas(40, REAL_MIX)
    assert owed["unindent blank line"] >= 1
    assert summary.tasks == 40 - owed["unindent blank line"]
    assert all(summary.kinds[k] == n for k, n in owed.items() if k != "unindent blank line")
