import json

import pytest
from conftest import TINY_JAVA

from evaluation.edits import find_edit
from evaluation.errors import group_failures, outcomes, repair_exactness
from evaluation.tasks import TaskConfig, make_tasks


@pytest.mark.parametrize("task, base, kind, char", [
    ("int x  = 1;", "int x = 1;", "insert", " "),
    ("int x= 1;", "int x = 1;", "delete", " "),
    ("int x\t= 1;", "int x = 1;", "replace", "\t"),
    ("int x = 1;", "int x = 1;", None, None),
])
def test_find_edit(task, base, kind, char):
    edit = find_edit(task, base)
    if kind is None:
        assert edit is None
    else:
        assert (edit.kind, edit.char, edit.before, edit.after) == (kind, char, "x", "=")


def test_failures_are_grouped_and_exactness_checked(tmp_path):
    folder = tmp_path / "tasks"
    make_tasks(sorted(TINY_JAVA.items()), folder, TaskConfig(count=3, seed=1))
    answers = [int(a) for a in (folder / "out.txt").read_text().split()]
    paths = [str((folder / f"{i}.txt").absolute()) for i in range(3)]
    truth = [json.loads(l) for l in (folder / "truth.jsonl").read_text().splitlines()]
    # task 0 ranked first with the exact repair; task 1 ranked second; task 2 not predicted
    preds = {paths[0]: [answers[0], 1], paths[1]: [answers[1] + 1, answers[1]]}
    results = outcomes(folder, preds)
    assert [r.position for r in results] == [1, 2, None]
    groups = group_failures(results, lambda r: r.edit.kind)
    assert sum(n for _, n, _ in groups) == 2
    assert sum(lost for _, _, lost in groups) == pytest.approx((0.5 + 1.0) / 3)
    from parsing.java import tokenize
    text0 = (folder / "0.txt").read_text()
    gap = next(i for i in range(len(tokenize(text0)) + 1) if tokenize(text0).gap_start(i) == truth[0]["gap_start"] - 1)
    good = {"path": paths[0], "offset": answers[0], "gap": gap, "observed": truth[0]["edited"],
            "repaired": truth[0]["original"]}
    assert repair_exactness(folder, [good]).exact == 1
    bad = dict(good, repaired=truth[0]["original"] + "\t")
    ex = repair_exactness(folder, [bad])
    assert (ex.first, ex.checked, ex.exact) == (1, 1, 0)
