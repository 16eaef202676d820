"""CodRep 2019 MRR: reciprocal ranks, answers, prediction parsing and the CLI, on tiny task folders."""
import io
import os
from pathlib import Path

import pytest
from conftest import make_folder
from conftest import run_evaluate as run
from hypothesis import given
from hypothesis import strategies as st

from evaluation import cli, codrep2019
from evaluation.common import InputError, version
from formats import codrep2019 as c19
from formats.files import normalize_path

DATA = Path(__file__).resolve().parent.parent / ".data" / "codrep2019"


@pytest.mark.parametrize(
    "ranking, answer, expected",
    [
        ([3], 3, 1.0),
        ([5, 3, 7], 3, 0.5),
        ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 10, 0.1),
        ([4, 3, 3], 3, 0.5),  # first occurrence counts
        ([3, 4, 3], 3, 1.0),
        ([1, 2], 3, 0.0),  # absent
        ([], 3, 0.0),  # empty ranking
        ([0], 0, 1.0),  # offset 0 is an offset like any other
    ],
)
def test_reciprocal_rank(ranking, answer, expected):
    assert codrep2019.reciprocal_rank(ranking, answer) == expected


@pytest.mark.parametrize(
    "predictions, mrr, recalls",
    [
        # a: rank 1, b: rank 2, c: missing -> (1 + 1/2 + 0) / 3
        ({"a": [3], "b": [1, 10]}, 0.5, (1 / 3, 2 / 3, 2 / 3)),
        ({}, 0.0, (0.0, 0.0, 0.0)),  # nothing predicted: every task scores 0
        # c's answer 0 at position 6: in Recall@10 only
        ({"c": [9, 8, 7, 6, 5, 0]}, (1 / 6) / 3, (0.0, 0.0, 1 / 3)),
        ({"a": [3], "b": [10], "c": [0]}, 1.0, (1.0, 1.0, 1.0)),
    ],
)
def test_score_rankings(predictions, mrr, recalls):
    answers = {normalize_path(p): a for p, a in {"a": 3, "b": 10, "c": 0}.items()}
    scores = codrep2019.score_rankings(answers, predictions)
    assert scores.total_files == 3
    assert scores.mrr == pytest.approx(mrr, abs=1e-15)
    assert [scores.recall_at(k) for k in (1, 5, 10)] == pytest.approx(list(recalls))


def test_score_rankings_without_tasks_is_zero_not_a_division_error():
    scores = codrep2019.score_rankings({}, {})
    assert (scores.total_files, scores.mrr, scores.recall_at(1)) == (0, 0.0, 0.0)


def test_score_rankings_rejects_a_prediction_outside_the_tasks():
    with pytest.raises(InputError, match="not a task"):
        codrep2019.score_rankings({normalize_path("a"): 1}, {"b": [1]})


def test_parse_predictions_keeps_order_skips_blank_lines_and_allows_empty_rankings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    parsed = codrep2019.parse_predictions(["b.txt 3 1 2", "", "a.txt", "  "])
    assert list(parsed.items()) == [(str(tmp_path / "b.txt"), [3, 1, 2]), (str(tmp_path / "a.txt"), [])]


@pytest.mark.parametrize(
    "lines, message",
    [
        (["x.txt 1", "x.txt 2"], r"preds:2: second prediction for x.txt \(first on line 1\)"),
        (["x.txt 1", "./x.txt 2"], r"preds:2: second prediction"),  # same task, other spelling
        (["x.txt 1 two"], r"preds:1: offsets must be integers"),
        (["x.txt 1.5"], r"preds:1: offsets must be integers"),
    ],
)
def test_parse_predictions_errors(lines, message):
    with pytest.raises(InputError, match=message):
        codrep2019.parse_predictions(lines, source="preds")


def test_relative_and_absolute_paths_name_the_same_task(tmp_path, monkeypatch):
    folder = make_folder(tmp_path, "tasks", [4, 9])
    monkeypatch.chdir(tmp_path)
    predictions = codrep2019.parse_predictions([f"{folder}/0.txt 4", "tasks/1.txt 1 9"])
    scores = codrep2019.score_rankings(c19.read_answers("tasks"), predictions)
    assert scores.mrr == 0.75


def test_cli_prints_the_official_lines_then_recalls_and_signature(tmp_path, monkeypatch, capsys):
    folder = make_folder(tmp_path, "validation", [4, 9, 2, 0])
    predictions = f"{folder}/0.txt 4 9\n{folder}/1.txt 4 9\n{folder}/2.txt 1 1 1 1 1 2\n"
    status, out, err = run(["codrep2019", "--datasets", str(folder)], predictions, monkeypatch, capsys)
    assert (status, err) == (0, "")
    # (1 + 1/2 + 1/6 + 0) / 4 = 0.41666...; 3.txt has no line and scores 0
    assert out.splitlines() == [
        "Total files: 4",
        f"MRR: {(1 + 1 / 2 + 1 / 6) / 4}",
        "Recall@1: 0.25",
        "Recall@5: 0.5",
        "Recall@10: 0.75",
        f"evaluate:codrep2019|datasets:validation|version:{version()}",
    ]


def test_cli_datasets_limit_the_tasks_and_reject_predictions_outside(tmp_path, monkeypatch, capsys):
    first = make_folder(tmp_path, "first", [1, 2])
    second = make_folder(tmp_path, "second", [3])
    both = f"{first}:{second}"
    status, out, _ = run(["codrep2019", "-d", both], f"{second}/0.txt 3\n", monkeypatch, capsys)
    assert status == 0 and out.splitlines()[:2] == ["Total files: 3", f"MRR: {1 / 3}"]
    assert "datasets:first:second" in out
    status, out, err = run(["codrep2019", "-d", str(first)], f"{second}/0.txt 3\n", monkeypatch, capsys)
    assert status == 2 and out == ""
    assert err.startswith("evaluate: error: <stdin>: ") and "second/0.txt is not a task of the datasets" in err
    assert err.count("\n") == 1


def test_cli_without_datasets_counts_every_task_of_the_predicted_folders(tmp_path, monkeypatch, capsys):
    folder = make_folder(tmp_path, "tasks", [1, 2, 3, 4])
    status, out, _ = run(["codrep2019"], f"{folder}/2.txt 3\n", monkeypatch, capsys)
    assert status == 0 and out.splitlines()[:2] == ["Total files: 4", "MRR: 0.25"]


@pytest.mark.parametrize(
    "argv_tail, stdin_text, message",
    [
        ([], "", "no predictions and no --datasets"),
        (["-d", "{folder}"], "{folder}/0.txt 1\n{folder}/0.txt 2\n", "<stdin>:2: second prediction"),
        (["-d", "{folder}"], "{folder}/0.txt x\n", "<stdin>:1: offsets must be integers"),
        (["-d", "{folder}/nowhere"], "", "nowhere/out.txt: cannot read the answers"),
        (["-d", "{folder}", "-p", "{folder}/missing.txt"], "", "missing.txt: cannot read"),
    ],
)
def test_cli_bad_input_is_one_line_on_stderr_and_status_2(tmp_path, monkeypatch, capsys, argv_tail,
                                                          stdin_text, message):
    folder = make_folder(tmp_path, "tasks", [1])
    argv = ["codrep2019"] + [arg.format(folder=folder) for arg in argv_tail]
    status, out, err = run(argv, stdin_text.format(folder=folder), monkeypatch, capsys)
    assert (status, out) == (2, "")
    assert message in err and err.count("\n") == 1


def test_cli_prediction_file_option(tmp_path, capsys):
    folder = make_folder(tmp_path, "tasks", [7])
    prediction_file = tmp_path / "predictions.txt"
    prediction_file.write_text(f"{folder}/0.txt 1 7\n")
    assert cli.main(["codrep2019", "-p", str(prediction_file)]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "MRR: 0.5"


@pytest.mark.data
@pytest.mark.skipif(not (DATA / "validation" / "out.txt").exists(), reason="no .data/codrep2019")
def test_validation_mrr_of_increasing_offsets_and_of_the_answers():
    folder = str(DATA / "validation")
    answers = c19.read_answers(folder)
    assert len(answers) == 1000
    # "every offset in increasing order" puts the answer a at position a + 1; the tail does not matter.
    increasing = {path: list(range(answer + 1)) for path, answer in answers.items()}
    assert codrep2019.score_rankings(answers, increasing).mrr == pytest.approx(0.0026521028006388464, abs=1e-15)
    perfect = {os.path.relpath(path): [answer] for path, answer in answers.items()}
    scores = codrep2019.score_rankings(answers, perfect)
    assert (scores.total_files, scores.mrr, scores.recall_at(1)) == (1000, 1.0, 1.0)


@given(st.lists(st.integers(0, 20), max_size=30), st.integers(0, 20))
def test_reciprocal_rank_is_one_over_the_first_index(ranking, answer):
    expected = 1 / (ranking.index(answer) + 1) if answer in ranking else 0.0
    assert codrep2019.reciprocal_rank(ranking, answer) == expected


@given(st.lists(st.tuples(st.integers(0, 50), st.lists(st.integers(0, 50), max_size=12)), min_size=1,
                max_size=40), st.randoms(use_true_random=False))
def test_mrr_does_not_depend_on_the_order_of_the_tasks(tasks, random):
    # The ranker and this CLI may walk the tasks in different orders; the MRR must be the same float.
    answers = [(f"/t/{n}.txt", answer) for n, (answer, _) in enumerate(tasks)]
    predictions = [(f"/t/{n}.txt", ranking) for n, (_, ranking) in enumerate(tasks)]
    shuffled_answers, shuffled_predictions = list(answers), list(predictions)
    random.shuffle(shuffled_answers)
    random.shuffle(shuffled_predictions)
    assert codrep2019.score_rankings(dict(answers), dict(predictions)) == \
        codrep2019.score_rankings(dict(shuffled_answers), dict(shuffled_predictions))


def test_bytes_that_are_not_utf8_are_a_one_line_error(tmp_path, monkeypatch, capsys):
    folder = make_folder(tmp_path, "tasks", [1])
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"\xff 1\n"), encoding="utf-8"))
    assert cli.main(["codrep2019", "-d", str(folder)]) == 2
    assert capsys.readouterr().err == "evaluate: error: <stdin>: not UTF-8 (invalid start byte at byte 0)\n"
    (folder / "out.txt").write_bytes(b"\xff\n")
    with pytest.raises(InputError, match="out.txt: not UTF-8"):
        c19.read_answers(str(folder))
