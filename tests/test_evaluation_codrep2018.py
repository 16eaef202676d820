"""CodRep 2018 line error: loss, program length, parsing, range checks and the CLI, on tiny datasets."""
import math
from pathlib import Path

import pytest
from conftest import make_dataset
from conftest import run_evaluate as run

from evaluation import codrep2018
from evaluation.common import InputError
from formats import codrep2018 as c18
from formats.files import normalize_path

DATA = Path(__file__).resolve().parent.parent / ".data" / "codrep2018"


@pytest.mark.parametrize(
    "predicted, correct, loss",
    [
        (5, 5, 0.0),
        (6, 5, 0.7615941559557649),  # tanh(1)
        (3, 5, 0.9640275800758169),  # tanh(2): the sign of the error does not matter
        (7, 5, 0.9640275800758169),
        (None, 5, 1.0),  # missing prediction
        (1, 400, 1.0),  # tanh saturates to 1.0 in floating point
    ],
)
def test_line_loss(predicted, correct, loss):
    assert codrep2018.line_loss(predicted, correct) == pytest.approx(loss, abs=1e-15)


@pytest.mark.parametrize(
    "predictions, average, recall",
    [
        ({"t1": 2, "t2": 5}, 0.0, 1.0),
        ({"t1": 2}, 0.5, 0.5),  # t2 missing: loss 1
        ({}, 1.0, 0.0),
        ({"t1": 3, "t2": 5}, (math.tanh(1) + 0) / 2, 0.5),
    ],
)
def test_score_line_predictions(predictions, average, recall):
    solutions = {normalize_path(path): line for path, line in {"t1": 2, "t2": 5}.items()}
    scores = codrep2018.score_line_predictions(solutions, predictions)
    assert scores.total_files == 2
    assert scores.average_line_error == pytest.approx(average, abs=1e-15)
    assert scores.recall_at_1 == recall


def test_score_without_tasks_is_zero_and_outside_prediction_is_an_error():
    assert codrep2018.score_line_predictions({}, {}) == codrep2018.LineScores(0, 0.0, 0.0)
    with pytest.raises(InputError, match="not a task"):
        codrep2018.score_line_predictions({normalize_path("a"): 1}, {"b": 1})


def test_parse_predictions_takes_the_first_line_number(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert codrep2018.parse_predictions(["a.txt 3 1 2", "", "b.txt 7"]) == {
        str(tmp_path / "a.txt"): 3, str(tmp_path / "b.txt"): 7,
    }


@pytest.mark.parametrize(
    "lines, message",
    [
        (["a.txt 1", "./a.txt 2"], r"p:2: second prediction for ./a.txt \(first on line 1\)"),
        (["a.txt"], "p:1: no line number after a.txt"),
        (["a.txt x 1"], "p:1: line number is not an integer: 'x'"),
    ],
)
def test_parse_predictions_errors(lines, message):
    with pytest.raises(InputError, match=message):
        codrep2018.parse_predictions(lines, source="p")


@pytest.mark.parametrize("line, ok", [(1, True), (3, True), (0, False), (4, False), (-1, False)])
def test_check_line_ranges(line, ok):
    predictions, counts = {"/d/Tasks/1.txt": line}, {"/d/Tasks/1.txt": 3}
    if ok:
        codrep2018.check_line_ranges(predictions, counts)
    else:
        with pytest.raises(InputError, match=rf"/d/Tasks/1.txt: predicted line {line} is outside 1..3"):
            codrep2018.check_line_ranges(predictions, counts)


def test_cli_prints_total_average_error_recall_and_signature(tmp_path, monkeypatch, capsys):
    dataset = make_dataset(tmp_path, "Dataset1", [(3, 2), (5, 5), (4, 1)])
    tasks = dataset / "Tasks"
    predictions = f"{tasks}/1.txt 2 3\n{tasks}/2.txt 4\n"  # right, off by one, 3.txt missing
    status, out, err = run(["codrep2018", "--datasets", str(dataset)], predictions, monkeypatch, capsys)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[:3] == [
        "Total files: 3",
        f"Average line error: {math.fsum([0.0, math.tanh(1), 1.0]) / 3}",
        f"Recall@1: {1 / 3}",
    ]
    assert lines[3].startswith("evaluate:codrep2018|datasets:Dataset1|version:")


@pytest.mark.parametrize(
    "prediction, message",
    [
        ("{tasks}/1.txt 4\n", "Tasks/1.txt: predicted line 4 is outside 1..3"),
        ("{tasks}/1.txt 0\n", "Tasks/1.txt: predicted line 0 is outside 1..3"),
        ("{tasks}/9.txt 1\n", "Tasks/9.txt is not a task of the datasets"),
        ("{tasks}/1.txt\n", "<stdin>:1: no line number"),
    ],
)
def test_cli_bad_predictions_name_the_file(tmp_path, monkeypatch, capsys, prediction, message):
    dataset = make_dataset(tmp_path, "Dataset1", [(3, 2)])
    text = prediction.format(tasks=dataset / "Tasks")
    status, out, err = run(["codrep2018", "-d", str(dataset)], text, monkeypatch, capsys)
    assert (status, out) == (2, "")
    assert message in err and err.count("\n") == 1


def test_cli_without_datasets_uses_the_dataset_of_the_predicted_tasks(tmp_path, monkeypatch, capsys):
    dataset = make_dataset(tmp_path, "Dataset2", [(3, 2), (3, 1)])
    status, out, _ = run(["codrep2018"], f"{dataset}/Tasks/2.txt 1\n", monkeypatch, capsys)
    assert status == 0
    assert out.splitlines()[:3] == ["Total files: 2", "Average line error: 0.5", "Recall@1: 0.5"]


@pytest.mark.data
@pytest.mark.skipif(not (DATA / "Dataset1" / "Solutions").exists(), reason="no .data/codrep2018")
def test_dataset1_always_line_1():
    solutions = c18.read_solutions(str(DATA / "Dataset1"))
    scores = codrep2018.score_line_predictions(solutions, {path: 1 for path in solutions})
    assert scores.total_files == 3858
    assert scores.average_line_error == pytest.approx(0.9989448602794923, abs=1e-15)
    assert scores.recall_at_1 == 3 / 3858
