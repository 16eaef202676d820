"""PLUR-style offline evaluation: every dataset's metrics on hand-computed cases, file reading and the CLI."""
import math

import pytest

from evaluation import cli, plur
from evaluation.common import InputError

BP_4_OF_6 = math.exp(1 - 6 / 4)  # NLTK brevity penalty, hypothesis of 4 tokens against a reference of 6
BP_3_OF_4 = math.exp(1 - 4 / 3)


def beams(*lines):
    """Prediction lines as the files hold them (tab-separated beams) -> beams."""
    return plur.split_beams(lines, top_n=100)


# --- code2seq: micro P/R/F1 over subtokens ---

@pytest.mark.parametrize(
    "predictions, targets, expected",
    [
        # the example: tp 2, fp 2, fn 3
        (["code2seq eval", "foo bar"], ["code2seq eval test", "hello world"], (0.5, 0.4, 4 / 9)),
        (["get <OOV> name <pad>"], ["get name"], (1.0, 1.0, 1.0)),  # <OOV>, <pad> dropped
        (["<OOV>"], ["get"], (0.0, 0.0, 0.0)),  # only dropped tokens: tp + fp = 0
        ([""], ["get name"], (0.0, 0.0, 0.0)),  # empty prediction: fn 2
        (["get"], [""], (0.0, 0.0, 0.0)),  # empty target: fp 1, tp + fn = 0
        (["a a"], ["a b"], (1.0, 2 / 3, 0.8)),  # each predicted occurrence counts: tp 2, fn 1
        (["x\ta b"], ["a b"], (0.0, 0.0, 0.0)),  # only the first beam counts
        (["a b", "a"], ["a b", "b"], (2 / 3, 2 / 3, 2 / 3)),  # micro: tp 2, fp 1, fn 1
        ([], [], (0.0, 0.0, 0.0)),  # no targets
    ],
)
def test_code2seq(predictions, targets, expected):
    metrics = plur.code2seq_metrics(beams(*predictions), targets)
    assert list(metrics) == ["precision", "recall", "f1_score"]
    assert list(metrics.values()) == pytest.approx(expected, abs=1e-12)


# --- convattn / OGB code: macro P/R/F1 over lowercased token sets, best beam by F1, exact match ---

@pytest.mark.parametrize("dataset", ["convattn_dataset", "ogb_code_dataset"])
@pytest.mark.parametrize(
    "predictions, targets, expected",
    [
        (["Get Name"], ["get name"], (1.0, 1.0, 1.0, 1.0)),  # lowercased
        (["get"], ["get name"], (1.0, 0.5, 2 / 3, 0.0)),
        (["get", "foo"], ["get name", "bar"], (0.5, 0.25, 1 / 3, 0.0)),  # macro over targets
        (["foo\tget name\tget"], ["get name"], (1.0, 1.0, 1.0, 1.0)),  # best beam by F1
        (["a\ta b c d"], ["a b"], (1.0, 0.5, 2 / 3, 0.0)),  # F1 tie (2/3 both): the first beam
        (["a b c d\ta"], ["a b"], (0.5, 1.0, 2 / 3, 0.0)),
        (["name get"], ["get name"], (1.0, 1.0, 1.0, 0.0)),  # sets agree, sequence does not
        (["get get name"], ["get name"], (1.0, 1.0, 1.0, 0.0)),
        (["x\tget name"], ["get name"], (1.0, 1.0, 1.0, 1.0)),  # exact match in any beam
        ([""], ["get"], (0.0, 0.0, 0.0, 0.0)),  # empty prediction
        ([""], [""], (0.0, 0.0, 0.0, 1.0)),  # zero denominators give 0; the empty sequences are equal
        ([], [], (0.0, 0.0, 0.0, 0.0)),
    ],
)
def test_token_set_metrics(dataset, predictions, targets, expected):
    metrics = plur.DATASETS[dataset](beams(*predictions), targets)
    assert list(metrics) == ["precision", "recall", "f1_score", "exact_match"]
    assert list(metrics.values()) == pytest.approx(expected, abs=1e-12)


# --- funcom: NLTK corpus BLEU without smoothing, funcom's weights ---

@pytest.mark.parametrize(
    "predictions, targets, expected",
    [
        (["a b c d"], ["a b c d"], (1.0, 1.0, 1.0, 1.0, 1.0)),
        # all n-gram precisions 1, brevity penalty exp(1 - 6/4)
        (["a b c d"], ["a b c d e f"], (BP_4_OF_6,) * 5),
        # p1 = 3/4, p2 = 2/3, p3 = 1/2, p4 = 0/1: BLEU-4 is 0 without smoothing
        (["a b c x"], ["a b c d"], (0.0, 0.75, 2 / 3, 0.5, 0.0)),
        # corpus sums: p1 = 2/3, p2 = 1/2 (the empty bigram list of "c" counts 1 in the denominator),
        # p3 = p4 = 0; lengths 3 against 4
        (["a b", "c"], ["a b", "d e"], (0.0, 2 / 3 * BP_3_OF_4, 0.5 * BP_3_OF_4, 0.0, 0.0)),
        (["x y z w\ta b c d"], ["a b c d"], (1.0,) * 5),  # best of the beams by sentence BLEU
        ([""], ["a b"], (0.0,) * 5),  # empty prediction
        (["a"], [""], (0.0,) * 5),  # empty reference
        ([], [], (0.0,) * 5),
    ],
)
def test_funcom(predictions, targets, expected):
    metrics = plur.funcom_metrics(beams(*predictions), targets)
    assert list(metrics) == ["bleu_a", "bleu_1", "bleu_2", "bleu_3", "bleu_4"]
    assert list(metrics.values()) == pytest.approx(expected, abs=1e-12)


def test_funcom_top_n_1_keeps_only_the_first_beam():
    assert plur.funcom_metrics(plur.split_beams(["x y z w\ta b c d"], 1), ["a b c d"])["bleu_1"] == 0.0


# --- GREAT VarMisuse ---

def test_great_var_misuse_table():
    cases = [
        ("NO_BUG", "NO_BUG"),  # sequence, bug-free
        ("POINTER(3) POINTER(5)", "NO_BUG"),  # bug-free missed
        ("POINTER(3) POINTER(9)", "POINTER(3) POINTER(5) POINTER(9)"),  # any repair target: loc, rep, joint
        ("POINTER(4) POINTER(5)", "POINTER(3) POINTER(5)"),  # repair only
        ("NO_BUG", "POINTER(3) POINTER(5)"),  # nothing
        ("POINTER(3) POINTER(5)", "POINTER(3) POINTER(5)"),  # everything
    ]
    metrics = plur.var_misuse_metrics(beams(*[p for p, _ in cases]), [t for _, t in cases])
    assert metrics == pytest.approx({
        "sequence_accuracy": 2 / 6, "bug_free_accuracy": 1 / 2, "localization_accuracy": 2 / 4,
        "repair_accuracy": 3 / 4, "joint_accuracy": 2 / 4,
    })


@pytest.mark.parametrize(
    "predictions, targets, expected",
    [
        # no buggy target: localization, repair and joint have a zero denominator
        (["NO_BUG"], ["NO_BUG"], (1.0, 1.0, 0.0, 0.0, 0.0)),
        # no bug-free target; empty prediction locates nothing
        ([""], ["POINTER(1) POINTER(2)"], (0.0, 0.0, 0.0, 0.0, 0.0)),
        (["POINTER(1)"], ["POINTER(1) POINTER(2)"], (0.0, 0.0, 1.0, 0.0, 0.0)),  # no repair predicted
        (["POINTER(1) POINTER(2)\tNO_BUG"], ["NO_BUG"], (0.0, 0.0, 0.0, 0.0, 0.0)),  # first beam only
        ([], [], (0.0,) * 5),
    ],
)
def test_great_var_misuse_edges(predictions, targets, expected):
    metrics = plur.var_misuse_metrics(beams(*predictions), targets)
    assert list(metrics.values()) == pytest.approx(expected)


# --- ManySStuBs4J and Hoppity: any-beam accuracy ---

@pytest.mark.parametrize(
    "predictions, targets, top_n, accuracy",
    [
        (["a b", "c"], ["a b", "d"], 1, 0.5),
        (["x\tb"], ["b"], 2, 1.0),
        (["x\tb"], ["b"], 1, 0.0),  # the right beam is cut by top_n
        ([""], [""], 1, 1.0),  # empty prediction of an empty target
        ([""], ["a"], 1, 0.0),
        ([], [], 1, 0.0),
    ],
)
def test_manysstubs4j(predictions, targets, top_n, accuracy):
    assert plur.any_beam_accuracy(plur.split_beams(predictions, top_n), targets) == {"accuracy": accuracy}


def test_hoppity_accuracy_per_edit_type():
    targets = ["ADD_NODE POINTER(1) x", "DEL_NODE POINTER(2)", "DEL_NODE POINTER(3)", "REPLACE_VAL POINTER(4) y"]
    predictions = ["ADD_NODE POINTER(1) x", "NO_OP\tDEL_NODE POINTER(2)", "DEL_NODE POINTER(4)", ""]
    metrics = plur.hoppity_metrics(plur.split_beams(predictions, 2), targets)
    assert metrics == {
        "accuracy": 0.5, "add_node_accuracy": 1.0, "del_node_accuracy": 0.5, "replace_val_accuracy": 0.0,
    }
    assert plur.hoppity_metrics([], []) == {"accuracy": 0.0}


# --- Retrieve and edit ---

@pytest.mark.parametrize(
    "predictions, targets, expected",
    [
        # matches from the start 2, 4, 0 -> expected 2, max 4; the identical beam has BLEU 1
        (["a b x d\ta b c d\tz"], ["a b c d"], (2.0, 4.0, 1.0)),
        # one token of two: no bigram match, BLEU 0 without smoothing
        (["x"], ["x y"], (1.0, 1.0, 0.0)),
        (["a b x d\ta b c d\tz", "x"], ["a b c d", "x y"], (1.5, 2.5, 0.5)),  # means over targets
        ([""], ["a"], (0.0, 0.0, 0.0)),
        (["a"], [""], (0.0, 0.0, 0.0)),
        ([], [], (0.0, 0.0, 0.0)),
    ],
)
def test_retrieve_and_edit(predictions, targets, expected):
    metrics = plur.retrieve_and_edit_metrics(beams(*predictions), targets)
    assert list(metrics) == [
        "expected_successive_matching_tokens", "max_successive_matching_tokens", "sentence_bleu",
    ]
    assert list(metrics.values()) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    "prediction, target, count",
    [("a b c", "a b c", 3), ("a b c", "a x c", 1), ("x", "a", 0), ("a b", "a b c", 2), ("a b c", "a", 1),
     ("", "a", 0)],
)
def test_successive_matching_tokens(prediction, target, count):
    assert plur.successive_matching_tokens(prediction.split(), target.split()) == count


# --- files and CLI ---

def write(path, text):
    path.write_bytes(text.encode())
    return str(path)


def test_read_examples_splits_beams_cuts_top_n_and_keeps_empty_lines(tmp_path):
    predictions = write(tmp_path / "p", "a\tb\tc\n\r\nx y\n")
    targets = write(tmp_path / "t", "a\n\nx y\n")
    examples = plur.read_examples(predictions, targets, top_n=2)
    assert examples == plur.PlurExamples(beams=(("a", "b"), ("",), ("x y",)), targets=("a", "", "x y"))


def test_read_examples_rejects_unequal_line_counts(tmp_path):
    predictions = write(tmp_path / "p", "a\nb\n")
    targets = write(tmp_path / "t", "a\n")
    with pytest.raises(InputError, match=r"p: 2 lines but .*t has 1"):
        plur.read_examples(predictions, targets)


def test_cli_acceptance_example(tmp_path, capsys):
    predictions = write(tmp_path / "p", "code2seq eval\nfoo bar\n")
    targets = write(tmp_path / "t", "code2seq eval test\nhello world\n")
    argv = ["plur", "--dataset", "code2seq_dataset", "--prediction_file", predictions, "--target_file", targets]
    assert cli.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["precision: 0.50000", "recall: 0.40000", "f1_score: 0.44444"]
    assert lines[3].startswith("evaluate:plur|dataset:code2seq_dataset|top_n:1|version:")


def test_cli_top_n_changes_the_result(tmp_path, capsys):
    predictions = write(tmp_path / "p", "x\tb\n")
    targets = write(tmp_path / "t", "b\n")
    base = ["plur", "--dataset", "manysstubs4j_dataset", "--prediction_file", predictions, "--target_file", targets]
    assert cli.main(base) == 0
    assert capsys.readouterr().out.startswith("accuracy: 0.00000\n")
    assert cli.main(base + ["--top_n", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("accuracy: 1.00000\n") and "|top_n:2|" in out


@pytest.mark.parametrize(
    "extra, status_message",
    [
        (["--dataset", "nope_dataset"], "invalid choice"),
        (["--dataset", "code2seq_dataset", "--top_n", "0"], "must be at least 1"),
        (["--dataset", "code2seq_dataset", "--top_n", "two"], "not an integer"),
    ],
)
def test_cli_usage_errors_exit_2(tmp_path, capsys, extra, status_message):
    predictions = write(tmp_path / "p", "a\n")
    targets = write(tmp_path / "t", "a\n")
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["plur", "--prediction_file", predictions, "--target_file", targets] + extra)
    assert exit_info.value.code == 2
    assert status_message in capsys.readouterr().err


def test_cli_unequal_files_and_missing_file_exit_2_with_one_line(tmp_path, capsys):
    predictions = write(tmp_path / "p", "a\nb\n")
    targets = write(tmp_path / "t", "a\n")
    base = ["plur", "--dataset", "funcom_dataset", "--prediction_file", predictions, "--target_file"]
    assert cli.main(base + [targets]) == 2
    err = capsys.readouterr().err
    assert "2 lines but" in err and err.count("\n") == 1
    assert cli.main(base + [str(tmp_path / "absent")]) == 2
    err = capsys.readouterr().err
    assert "absent: cannot read" in err and err.count("\n") == 1
