"""formats/codrep2019.py: answers, near-duplicate voting, the task writer and its answer conventions."""
import json
import random

import pytest

from formats import codrep2019 as c19
from formats.codrep2019 import TaskFolderError, inject, majority_text, make_tasks
from formats.files import InputError
from parsing.java import tokenize

from conftest import TINY_JAVA, make_folder


@pytest.mark.parametrize("seed", range(40))
def test_injected_edit_keeps_tokens_and_answer_points_at_the_edit(seed):
    text = TINY_JAVA["B.java"]
    new_text, edit = inject(text, random.Random(seed))
    toks = lambda t: [x.text for x in tokenize(t).tokens]
    assert toks(new_text) == toks(text) and new_text != text
    lo = edit.gap_start - 1
    assert new_text[lo:lo + len(edit.edited)] == edit.edited
    assert text[lo:lo + len(edit.original)] == edit.original
    if edit.kind == "delete":
        assert abs(len(new_text) - len(text)) == 1 and new_text[edit.answer - 1] != "" and edit.answer <= len(new_text)
    else:
        assert new_text[edit.answer - 1] in " \t\n"       # the inserted or written character itself


@pytest.mark.parametrize("gap, kind, char, answer_in_gap", [
    (" ", "insert", " ", "last"),      # '  ': the inserted space is the last of its run
    ("\n\n", "delete", "\n", "first"), # a blank line removed: the first remaining character
])
def test_indistinguishable_edits_get_one_canonical_answer(gap, kind, char, answer_in_gap):
    text = f"class A {{ int x;{gap}int y; }}"
    for seed in range(200):
        made = inject(text, random.Random(seed))
        if made and made[1].kind == kind and made[1].original == gap:
            new_text, edit = made
            lo, hi = edit.gap_start, edit.gap_start + len(edit.edited) - 1
            assert edit.answer == (hi if answer_in_gap == "last" else lo)
            return
    pytest.fail("the edit was never drawn")


def test_make_tasks_writes_a_task_folder_and_refuses_to_overwrite(tmp_path):
    texts = sorted(TINY_JAVA.items())
    out = tmp_path / "tasks"
    assert make_tasks(texts, out, 5, seed=3) == 5
    answers = (out / "out.txt").read_text().split()
    truth = [json.loads(l) for l in (out / "truth.jsonl").read_text().splitlines()]
    assert len(answers) == 5 and [t["answer"] for t in truth] == [int(a) for a in answers]
    assert sorted(p.name for p in out.glob("*.txt")) == sorted([f"{i}.txt" for i in range(5)] + ["out.txt"])
    with pytest.raises(TaskFolderError, match="not empty"):
        make_tasks(texts, out, 5, seed=3)
    assert make_tasks(texts, out, 5, seed=3, force=True) == 5


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
    assert [p.name for p in c19.task_files(folder)] == ["notes.txt"] + [f"{n}.txt" for n in range(12)]


def test_original_texts_come_from_truth_jsonl_or_from_voting(tmp_path):
    made = tmp_path / "made"
    make_tasks(sorted(TINY_JAVA.items()), made, 3, seed=1)
    assert sorted(c19.original_texts(made).values()) == sorted(TINY_JAVA.values())
    voted = tmp_path / "voted"
    voted.mkdir()
    clean = TINY_JAVA["B.java"]
    for i, broken in enumerate([clean.replace("int g(", "int  g("), clean.replace("s = s", "s =s"), clean]):
        (voted / f"{i}.txt").write_text(broken)
    (voted / "out.txt").write_text("1\n1\n1\n")
    assert set(c19.original_texts(voted).values()) == {clean}
