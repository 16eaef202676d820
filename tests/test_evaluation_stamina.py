"""StaMinA balanced classification rate: hand-computed confusion counts, rates, the 0.99 bar, and the CLI."""
from pathlib import Path

import pytest

from evaluation import cli, stamina
from evaluation.common import InputError, version


def labels(text):
    return stamina.parse_labels(text, "test")


@pytest.mark.parametrize(
    "predicted, actual, counts, rates",
    [
        # (TP, FN, TN, FP), (sensitivity, specificity, BCR)
        ("1100", "1010", (1, 1, 1, 1), (0.5, 0.5, 0.5)),
        ("1010", "1010", (2, 0, 2, 0), (1.0, 1.0, 1.0)),
        ("1111", "1100", (2, 0, 0, 2), (1.0, 0.0, 0.0)),  # accepting everything
        ("1000", "1100", (1, 1, 2, 0), (0.5, 1.0, 2 / 3)),  # harmonic, not arithmetic, mean
        ("0000", "0011", (0, 2, 2, 0), (0.0, 1.0, 0.0)),
        ("11", "11", (2, 0, 0, 0), (1.0, 0.0, 0.0)),  # no negative truth: specificity 0/0 -> 0
        ("00", "00", (0, 0, 2, 0), (0.0, 1.0, 0.0)),  # no positive truth: sensitivity 0/0 -> 0
        ("", "", (0, 0, 0, 0), (0.0, 0.0, 0.0)),
    ],
)
def test_balanced_classification_rate(predicted, actual, counts, rates):
    result = stamina.balanced_classification_rate(labels(predicted), labels(actual))
    assert (result.true_positive, result.false_negative, result.true_negative, result.false_positive) == counts
    assert (result.sensitivity, result.specificity, result.bcr) == pytest.approx(rates)


@pytest.mark.parametrize(
    "true_negative, false_positive, solved",
    [
        (99, 1, True),  # sensitivity 1, specificity 0.99: BCR 2 * 0.99 / 1.99 = 0.99497...
        (98, 2, False),  # specificity 0.98: BCR 0.98990 < 0.99
        (100, 0, True),
    ],
)
def test_solved_at_bcr_0_99(true_negative, false_positive, solved):
    actual = (True,) * 10 + (False,) * (true_negative + false_positive)
    predicted = (True,) * 10 + (False,) * true_negative + (True,) * false_positive
    assert stamina.balanced_classification_rate(predicted, actual).solved is solved


def test_solved_bar_is_inclusive():
    assert stamina.Bcr(1, 0, 1, 0, 1.0, 1.0, 0.99).solved
    assert not stamina.Bcr(1, 0, 1, 0, 1.0, 1.0, 0.9899999).solved


@pytest.mark.parametrize(
    "text, expected",
    [
        ("0110", (False, True, True, False)),
        ("0\n1\n1\n", (False, True, True)),  # one label per line
        ("01 10\n", (False, True, True, False)),
        ("", ()),
    ],
)
def test_parse_labels(text, expected):
    assert labels(text) == expected


@pytest.mark.parametrize("text, where", [("01x", "test:1:3"), ("0\n1\n+\n", "test:3:1"), ("2", "test:1:1")])
def test_parse_labels_rejects_other_characters(text, where):
    with pytest.raises(InputError, match=f"{where}: label must be 0 or 1"):
        labels(text)


def test_unequal_lengths_are_an_error():
    with pytest.raises(InputError, match="3 predicted labels but 2 true labels"):
        stamina.balanced_classification_rate(labels("011"), labels("01"))


def test_cli(tmp_path, capsys):
    (tmp_path / "predicted.txt").write_text("1000\n")
    (tmp_path / "truth.txt").write_text("1\n1\n0\n0\n")
    assert cli.main(["stamina", "--predictions", str(tmp_path / "predicted.txt"),
                     "--labels", str(tmp_path / "truth.txt")]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "TP: 1  FN: 1  TN: 2  FP: 0",
        "sensitivity: 0.50000",
        "specificity: 1.00000",
        "BCR: 0.66667",
        "solved: no (BCR >= 0.99)",
        f"evaluate:stamina|solved_at:0.99|version:{version()}",
    ]


@pytest.mark.parametrize(
    "predicted, truth, message",
    [
        ("101", "10", "predicted.txt: 3 labels but "),
        ("1a", "10", "predicted.txt:1:2: label must be 0 or 1"),
    ],
)
def test_cli_errors_exit_2_and_name_the_file(tmp_path, capsys, predicted, truth, message):
    (tmp_path / "predicted.txt").write_text(predicted)
    (tmp_path / "truth.txt").write_text(truth)
    assert cli.main(["stamina", "--predictions", str(tmp_path / "predicted.txt"),
                     "--labels", str(tmp_path / "truth.txt")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "parser, text, expected",
    [
        (stamina.parse_abbadingo_labels, "3 2\n1 2 0 1\n0 0\n1 1 1\n", (True, False, True)),
        (stamina.parse_abbadingo_labels, "0 2\n", ()),
        (stamina.parse_signed_labels, "+ 1 0\n- 0\n\n+\n", (True, False, True)),
    ],
)
def test_labelled_sample_files(parser, text, expected):
    assert parser(text, "s.txt") == expected


@pytest.mark.parametrize(
    "parser, text, message",
    [
        (stamina.parse_abbadingo_labels, "1 0 1\n", "s.txt:1: not an Abbadingo header"),
        (stamina.parse_abbadingo_labels, "", "s.txt:1: not an Abbadingo header"),
        (stamina.parse_abbadingo_labels, "2 2\n1 0\n", "header announces 2 strings but 1 follow"),
        (stamina.parse_abbadingo_labels, "1 2\n? 1 0\n", "s.txt:2: label must be 0 or 1"),
        (stamina.parse_signed_labels, "+ 1\n? 0 1\n", "s.txt:2: label must be \\+ or -, not '\\?'"),
    ],
)
def test_labelled_sample_file_errors(parser, text, message):
    with pytest.raises(InputError, match=message):
        parser(text, "s.txt")


def test_cli_true_labels_from_an_abbadingo_file(tmp_path, capsys):
    (tmp_path / "predicted.txt").write_text("110")
    (tmp_path / "truth.txt").write_text("3 2\n1 1 0\n0 2 0 1\n0 0\n")
    assert cli.main(["stamina", "--predictions", str(tmp_path / "predicted.txt"), "--labels",
                     str(tmp_path / "truth.txt"), "--labels-format", "abbadingo"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "TP: 1  FN: 0  TN: 1  FP: 1"


DATA = Path(__file__).resolve().parent.parent / ".data" / "stamina"


@pytest.mark.data
@pytest.mark.skipif(not (DATA / "training-abbadingo" / "1_training.txt").exists(), reason="no .data/stamina")
def test_shared_training_sets_parse_and_score():
    truth = stamina.parse_abbadingo_labels((DATA / "training-abbadingo" / "1_training.txt").read_text(), "1")
    assert len(truth) == 10244 and any(truth) and not all(truth)
    assert stamina.balanced_classification_rate(truth, truth).bcr == 1.0
    flipped = tuple(not label for label in truth)
    assert stamina.balanced_classification_rate(flipped, truth).bcr == 0.0
    signs = stamina.parse_signed_labels((DATA / "adl" / "1_training.txt").read_text(), "adl/1")
    assert any(signs) and not all(signs)
