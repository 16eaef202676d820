"""formats/codrep2018.py: task files, program lines as the evaluator counts them, solutions."""
import os
from pathlib import Path

import pytest
from conftest import make_dataset

from formats import codrep2018 as c18
from formats.codrep2018 import TaskError, parse_task, read_solution, task_body, task_paths
from formats.files import InputError


@pytest.mark.parametrize("task, body", [
    (b"x = 1;\n\nclass A {}\n", b"class A {}\n"),
    (b"x = 1;\r\n\r\nclass A {}\r\n", b"class A {}\r\n"),
    (b"only one line", b""),
])
def test_task_body(task, body):
    assert task_body(task) == body


@pytest.mark.parametrize(
    "content, lines",
    [
        (b"new\n\na\nb\n", 2),
        (b"new\n\na\nb", 2),  # no final newline
        (b"new\n\na\r\nb\r\n", 2),
        (b"new\n\n\n\n", 2),  # empty program lines count
        (b"new\n\n", 0),
        (b"", 0),
    ],
)
def test_program_line_count(content, lines):
    assert c18.program_line_count(content) == lines


def test_read_solutions(tmp_path):
    dataset = make_dataset(tmp_path, "Dataset1", [(3, 2), (5, 5)])
    assert c18.read_solutions(str(dataset)) == {
        str(dataset / "Tasks" / "1.txt"): 2, str(dataset / "Tasks" / "2.txt"): 5,
    }
    (dataset / "Solutions" / "2.txt").write_text("five")
    with pytest.raises(InputError, match=r"Solutions/2.txt: solution is not a line number"):
        c18.read_solutions(str(dataset))
    (dataset / "Solutions" / "2.txt").unlink()
    with pytest.raises(InputError, match=r"Solutions/2.txt: cannot read the solution"):
        c18.read_solutions(str(dataset))


@pytest.mark.parametrize("data, problem", [
    (b"x = 1;\nnot blank\nclass A {}\n", "no blank line"),
    (b"x = 1;", "no blank line"),
    (b"x = 1;\n\n", "empty program"),
    (b"x = 1;\n\n   \n\n", "empty program"),
    (b"x = \xff;\n\nclass A {}\n", "not UTF-8"),
    (b"\n\nclass A {}\n", "new line (line 1) is blank"),
])
def test_bad_tasks_name_the_file(data, problem):
    with pytest.raises(TaskError) as e:
        parse_task(data, "T/7.txt")
    assert "T/7.txt" in str(e.value) and problem in str(e.value)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("data, new, lines", [
    (b"a();\n\nx\ny\n", "a();", ("x", "y")),
    (b"a();\n\nx\ny", "a();", ("x", "y")),
    (b"a();\r\n\r\nx\r\ny\r\n", "a();", ("x\r", "y\r")),
    (b"a();\n\nx\n\ny\n", "a();", ("x", "", "y")),
])
def test_program_lines_match_the_evaluator(data, new, lines):
    task = parse_task(data, "t.txt")
    assert task.new_line == new and task.lines == lines
    assert len(task.lines) == c18.program_line_count(data)


def test_task_paths_and_solutions(tmp_path):
    ds = make_dataset(tmp_path, "DS", [(20, 9), (20, 13)] * 6)
    (ds / "Tasks" / "notes.txt").write_text("x\n\ny\n")   # other names come first, then 1, 2, ..., 10
    paths = task_paths(str(ds))[1:]
    assert [Path(p).name for p in paths[:3]] == ["1.txt", "2.txt", "3.txt"]   # numeric order, 10 after 9
    assert Path(paths[9]).name == "10.txt" and all(os.path.isabs(p) for p in paths)
    assert read_solution(paths[1]) == 13
    with pytest.raises(TaskError):
        task_paths(str(tmp_path / "missing"))


def test_iter_dataset_skips_tasks_without_a_solution(tmp_path):
    ds = make_dataset(tmp_path, "DS", [(3, 1), (3, 2)])
    (ds / "Solutions" / "2.txt").unlink()
    assert [(os.path.basename(p), s) for p, s in c18.iter_dataset(ds)] == [("1.txt", 1)]
