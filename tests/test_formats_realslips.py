"""formats/realslips.py: reading a real-slip set, the kinds of a changed gap, the set's gaps of a text."""
import json

import pytest
from conftest import data_path
from hypothesis import given, settings
from hypothesis import strategies as st

from formats.files import InputError
from formats.realslips import (
    END_OF_FILE,
    KINDS,
    Change,
    CleanFile,
    changed_gaps,
    classify,
    gap_record,
    gap_texts,
    read_set,
    whatever_the_taste,
)

BEFORE = "class A {\n    int x = 1;\n  int y= 2;\n}\n"
AFTER = "class A {\n    int x = 1;\n    int y = 2;\n}\n"


def record(project, file, before, after, **extra):
    gaps = changed_gaps(before, after)
    return {"project": project, "file": file, "repo": project, "commit": "c0", "parent": "p0", "path": f"src/{file}",
            "time": 1, "subject": "whitespace", "lines": before.count("\n") + 1,
            "gaps": [gap_record(g) for g in gaps], "before": before, "after": after, **extra}


def write_set(root, truth, clean):
    root.mkdir(parents=True, exist_ok=True)
    (root / "truth.jsonl").write_text("".join(json.dumps(r) + "\n" for r in truth))
    (root / "clean.jsonl").write_text("".join(json.dumps(r) + "\n" for r in clean))
    return root


def test_read_set_gives_frozen_records(tmp_path):
    root = write_set(tmp_path / "set", [record("alpha", "b1.java", BEFORE, AFTER)],
                     [{"project": "beta", "file": "c1.java", "repo": "beta", "commit": "c1", "path": "C.java",
                       "blob": "b", "lines": 3}])
    s = read_set(root)
    assert s.projects == ("alpha", "beta") and s.problems == ()
    (change,), (clean,) = s.changes, s.clean
    assert isinstance(change, Change) and isinstance(clean, CleanFile)
    assert change.before == BEFORE and change.after == AFTER and change.lines == 5 and change.path == "src/b1.java"
    assert [(g.offset, g.line, g.old, g.new, g.kind) for g in change.gaps] == [
        (25, 2, "\n  ", "\n    ", "indentation change"), (33, 3, "", " ", "space added")]
    assert clean.lines == 3 and s.folder("beta") == root / "beta"
    with pytest.raises(AttributeError):
        change.file = "b2.java"


@pytest.mark.parametrize("line, problem", [
    ("{not json", "not JSON"),
    ("[1, 2]", "not a record"),
    ('{"project": "alpha"}', "not a record"),
    ('{"project": "a", "file": "b.java", "lines": "many", "gaps": [], "before": "", "after": ""}', "not a record"),
])
def test_a_bad_line_is_left_out_and_named(tmp_path, line, problem):
    root = write_set(tmp_path / "set", [record("alpha", "b1.java", BEFORE, AFTER)], [])
    with open(root / "truth.jsonl", "a") as f:
        f.write(line + "\n")
    s = read_set(root)
    assert len(s.changes) == 1
    (message,) = s.problems
    assert message.startswith(f"{root / 'truth.jsonl'}:2: ") and problem in message


def test_a_folder_without_truth_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="not a real-slip set"):
        read_set(tmp_path)


def test_a_set_without_clean_files(tmp_path):
    root = write_set(tmp_path / "set", [record("alpha", "b1.java", BEFORE, AFTER)], [])
    (root / "clean.jsonl").unlink()
    assert read_set(root).clean == ()


@pytest.mark.parametrize("kind, taste", [
    ("indentation change", True), ("tab<->space", True), ("trailing whitespace removed", True),
    ("trailing whitespace added", True), ("space added", True), ("space removed", True),
    ("space amount changed", True), ("end of file: line break added", True), ("end of file: blank line removed", True),
    ("line break added", False), ("line break removed", False), ("blank line added", False),
    ("blank line removed", False), ("line ending", False), ("other", False),
])
def test_the_kinds_that_are_slips_whatever_the_taste(kind, taste):
    assert kind in KINDS and whatever_the_taste(kind) is taste


@pytest.mark.parametrize("old, new, kinds", [
    ("", " ", ["space added"]),
    (" ", "", ["space removed"]),
    (" ", "  ", ["space amount changed"]),
    (" ", "\t", ["tab<->space"]),
    (" ", "\n    ", ["line break added"]),
    ("\n\t", " ", ["line break removed", "tab<->space"]),
    ("\n\n    ", "\n    ", ["blank line removed"]),
    ("\n    ", "\n\n    ", ["blank line added"]),
    ("\n  ", "\n    ", ["indentation change"]),
    ("\n        ", "\n\t\t", ["tab<->space"]),
    ("  \n    ", "\n    ", ["trailing whitespace removed"]),
    ("\n\n    ", "\n    \n    ", ["trailing whitespace added"]),
    ("\r\n    ", "\n    ", ["line ending"]),
])
def test_classify_as_the_set_labels(old, new, kinds):
    assert classify(old, new) == kinds


@pytest.mark.parametrize("text, gaps", [
    ("class A {}", ["", " ", " ", "", ""]),
    ("class A {\r\n  // c\r\n}\r\n", ["", " ", " ", "\r\n  ", "\r\n", "\r\n"]),
    ("/* a\r\n b */ class A {}\n", ["", " ", " ", " ", "", "\n"]),
])
def test_gap_texts(text, gaps):
    got, tokens = gap_texts(text)
    assert got == gaps and "".join(g + t for g, t in zip(got, tokens + [""])) == text


@pytest.mark.parametrize("text", ["class A {", "class A {}\u00a0", "class A\u3000{}", "\ufeffclass A {}"])
def test_gap_texts_of_what_the_set_would_not_take(text):
    assert gap_texts(text) is None


def test_changed_gaps_end_of_file_and_other_tokens():
    (gap,) = changed_gaps("class A {}\n\n", "class A {}\n")
    assert gap.kind == END_OF_FILE + "blank line removed" and gap.index == 4 and gap.next_token == ""
    assert gap.prev_token == "}" and (gap.line, gap.end_line) == (1, 3) and list(gap.lines) == [1, 2, 3]
    assert changed_gaps("class A {}", "class B {}") is None
    assert changed_gaps(BEFORE, BEFORE) == ()


def test_changed_gaps_are_those_of_the_shared_set():
    """Every change of the development set: its records are what changed_gaps makes of before and after."""
    s = read_set(data_path("realslips"))
    assert s.problems == () and len(s.projects) == 10
    for change in s.changes[::7]:
        assert changed_gaps(change.before, change.after) == change.gaps, (change.project, change.file)


_WS = st.sampled_from(["", " ", "  ", "\t", "\n", "\n    ", "\n\t", "\n\n  ", " \n", "\r\n"])


@settings(max_examples=60, deadline=None)
@given(st.lists(_WS, min_size=7, max_size=7), st.lists(_WS, min_size=7, max_size=7))
def test_changed_gaps_tell_where_and_what(old, new):
    """Any whitespace between the tokens of a small file: the changed gaps are where the two differ, at the
    offsets of the before text, with the before and after whitespace."""
    tokens = ["class", "A", "{", "int", "x", ";", "}"]
    for ws in (old, new):   # `class A` and `int x` need a space
        ws[1], ws[4] = ws[1] or " ", ws[4] or " "
    before, after = ("".join(w + t for w, t in zip(ws, tokens)) for ws in (old, new))
    gaps = changed_gaps(before, after)
    assert [g.index for g in gaps] == [i for i in range(7) if old[i] != new[i]]
    for g in gaps:
        assert before[g.offset - 1:g.offset - 1 + len(g.old)] == g.old == old[g.index] and g.new == new[g.index]
        assert g.kind in KINDS and g.kinds[0] == g.kind
