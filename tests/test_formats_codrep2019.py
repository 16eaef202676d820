"""formats/codrep2019.py: answers, near-duplicate voting, the task folder writer."""

import pytest
from conftest import TINY_JAVA, make_folder

from evaluation.tasks import TaskConfig, make_tasks
from formats import codrep2019 as c19
from formats.codrep2019 import InjectedEdit, MadeTask, TaskFolderError, majority_text
from formats.files import InputError


def _made(n: int, kind: str = "insert tab") -> MadeTask:
    text = TINY_JAVA["A.java"]
    edit = InjectedEdit(kind, 20 + n, 5, 19, "", "\t", 3, 0)
    return MadeTask(text[:18] + "\t" + text[18:], edit, f"src/{n}.java", "a message [Check]")


def test_write_task_folder_writes_tasks_answers_truth_and_clean_files(tmp_path):
    out = tmp_path / "tasks"
    c19.write_task_folder(out, [_made(0), _made(1)], [("src/c.java", "class C {}\n")], project="p")
    assert (out / "out.txt").read_text() == "20\n21\n"
    truth = c19.read_jsonl(out / "truth.jsonl")
    assert [t["task"] for t in truth] == ["0.txt", "1.txt"]
    assert truth[0]["project"] == "p" and truth[0]["checkstyle"] == "a message [Check]"
    assert truth[0]["source"] == "src/0.java"
    assert (out / "clean" / "0.java").read_text() == "class C {}\n"
    assert c19.read_jsonl(out / "clean.jsonl") == [{"file": "clean/0.java", "source": "src/c.java", "project": "p"}]
    assert c19.read_answers(str(out)) == {str(out / "0.txt"): 20, str(out / "1.txt"): 21}


def test_write_task_folder_refuses_a_non_empty_folder_and_leaves_nothing_half_written(tmp_path, monkeypatch):
    out = tmp_path / "tasks"
    c19.write_task_folder(out, [_made(0)])
    with pytest.raises(TaskFolderError, match="not empty"):
        c19.write_task_folder(out, [_made(0), _made(1)])
    assert sorted(p.name for p in out.iterdir()) == ["0.txt", "out.txt", "truth.jsonl"]

    class Boom(RuntimeError):
        pass

    def fail(*a, **k):
        raise Boom
    monkeypatch.setattr(c19.json, "dumps", fail)
    with pytest.raises(Boom):
        c19.write_task_folder(out, [_made(0), _made(1)], force=True)
    assert (out / "out.txt").read_text() == "20\n"                       # the old folder is intact
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tasks"]      # no temporary folder is left
    monkeypatch.undo()
    c19.write_task_folder(out, [_made(0), _made(1)], force=True)
    assert (out / "out.txt").read_text() == "20\n21\n"


@pytest.mark.parametrize("line, message", [("[1, 2]", "not a JSON object"), ("{", "not a JSON object")])
def test_read_jsonl_names_a_bad_line(tmp_path, line, message):
    (tmp_path / "truth.jsonl").write_text('{"task": "0.txt"}\n' + line + "\n")
    with pytest.raises(InputError, match=f"truth.jsonl:2: {message}"):
        c19.read_jsonl(tmp_path / "truth.jsonl")


def test_codrep2019_reader_votes_out_injected_errors():
    clean = TINY_JAVA["B.java"]
    broken = [clean.replace("int g(", "int  g("), clean.replace("s = s", "s =s"), clean.replace("{\n", "{\n\n", 1)]
    assert majority_text([b.encode() for b in broken]) == clean.encode()


def test_read_answers_maps_line_n_plus_1_to_task_n(tmp_path):
    folder = make_folder(tmp_path, "tasks", [5, 7, 11])
    (folder / "notes.md").write_text("not a task")
    answers = c19.read_answers(str(folder))
    assert answers == {str((folder / f"{n}.txt").resolve()): a for n, a in enumerate([5, 7, 11])}


@pytest.mark.parametrize(
    "out_text, message",
    [
        ("5\n", "no line 2"),  # two tasks, one answer
        ("5\nseven\n", r"out.txt:2: answer is not an integer"),
        (None, "cannot read the answers"),
    ],
)
def test_read_answers_errors_name_out_txt(tmp_path, out_text, message):
    folder = make_folder(tmp_path, "tasks", [5, 7])
    if out_text is None:
        (folder / "out.txt").unlink()
    else:
        (folder / "out.txt").write_text(out_text)
    with pytest.raises(InputError, match=message) as error:
        c19.read_answers(str(folder))
    assert "out.txt" in str(error.value)


def test_task_files_are_in_task_order(tmp_path):
    folder = make_folder(tmp_path, "tasks", list(range(12)))
    (folder / "notes.txt").write_text("x")
    assert [p.name for p in c19.task_files(folder)] == [f"{n}.txt" for n in range(12)]


@pytest.mark.parametrize("files, out, problem", [
    ({"0.txt": "x", "1.txt": "y"}, "5\n6\n", None),
    ({"NOTES.txt": "notes"}, None, "out.txt: cannot read the answers"),
    ({"NOTES.txt": "notes"}, "1\n", "no N.txt task files"),
    ({"NOTES.txt": "notes", "0.txt": "x"}, None, "out.txt: cannot read the answers"),
    ({"0.txt": "x", "3.txt": "y"}, "5\n6\n", "no line 4 for the answer of"),
    ({"0.txt": "x"}, "five\n", "out.txt:1: answer is not an integer"),
])
def test_a_task_folder_is_known_by_its_full_shape(tmp_path, files, out, problem):
    """out.txt with an integer answer for each N.txt: a repository's NOTES.txt is not a task folder."""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    if out is not None:
        (tmp_path / "out.txt").write_text(out)
    got = c19.task_folder_problem(tmp_path)
    assert (got is None) if problem is None else (problem in got)
    assert c19.is_task_folder(tmp_path) == (problem is None)


def test_original_texts_come_from_truth_jsonl_or_from_voting(tmp_path):
    made = tmp_path / "made"
    make_tasks(sorted(TINY_JAVA.items()), made, TaskConfig(count=3, seed=1))
    assert sorted(c19.original_texts(made).values()) == sorted(TINY_JAVA.values())
    voted = tmp_path / "voted"
    voted.mkdir()
    clean = TINY_JAVA["B.java"]
    for i, broken in enumerate([clean.replace("int g(", "int  g("), clean.replace("s = s", "s =s"), clean]):
        (voted / f"{i}.txt").write_text(broken)
    (voted / "out.txt").write_text("1\n1\n1\n")
    assert set(c19.original_texts(voted).values()) == {clean}
