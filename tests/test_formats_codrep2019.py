import json
import random

import pytest

from evaluation.make_tasks_cli import main as make_tasks_main
from formats.codrep2019 import TaskFolderError, inject, make_tasks
from parsing.java import tokenize

from conftest import TINY_JAVA


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


def test_make_tasks_cli_bad_input(tmp_path, capsys):
    assert make_tasks_main([str(tmp_path / "missing"), "--output", str(tmp_path / "out")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
