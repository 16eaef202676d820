"""evaluation/detection.py and `bin/evaluate detection`: AUC, precision, recall and false alarms of findings."""
import json
import math

import pytest
from conftest import run_evaluate

from evaluation.detection import (
    ALL,
    CleanFile,
    Finding,
    TaskFile,
    auc,
    by_project,
    detection_scores,
    parse_findings,
    read_sets,
    sweep,
)
from formats.codrep2019 import InjectedEdit, MadeTask, write_task_folder
from formats.files import InputError


@pytest.mark.parametrize("pos, neg, expected", [
    ([2, 3], [1], 1.0),
    ([1], [2, 3], 0.0),
    ([1, 3], [2], 0.5),
    ([2], [2], 0.5),                       # a tie counts half
    ([2, 2], [1, 2, 3], (2 * (1 + 0.5)) / 6),
    ([], [1], 0.0),
])
def test_auc(pos, neg, expected):
    assert auc(pos, neg) == pytest.approx(expected)


def brute_auc(pos, neg):
    return sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg) / (len(pos) * len(neg))


@pytest.mark.parametrize("seed", range(5))
def test_auc_equals_counting_every_pair(seed):
    import random
    rng = random.Random(seed)
    pos = [rng.choice([0, 1, 1.5, 2, 3]) for _ in range(30)]
    neg = [rng.choice([0, 0.5, 1, 2]) for _ in range(25)]
    assert auc(pos, neg) == pytest.approx(brute_auc(pos, neg))


TASKS = [TaskFile("/t/0.txt", 10, "a"), TaskFile("/t/1.txt", 20, "a"), TaskFile("/t/2.txt", 30, "b")]
CLEAN = [CleanFile("/c/0.java", 1000, "a"), CleanFile("/c/1.java", 1000, "b")]
FINDINGS = [
    Finding("/t/0.txt", 10, 5.0),    # right
    Finding("/t/0.txt", 11, 1.0),    # wrong, in a task file
    Finding("/t/1.txt", 7, 4.0),     # wrong
    Finding("/t/1.txt", 20, 2.0),    # right, lower
    Finding("/c/0.java", 3, 3.0),    # a false alarm
    # /t/2.txt and /c/1.java have no finding: top score 0
]


@pytest.mark.parametrize("threshold, findings, precision, recall, false_per_kloc", [
    (-math.inf, 5, 2 / 5, 2 / 3, 1 / 2),
    (0.0, 5, 2 / 5, 2 / 3, 1 / 2),
    (2.0, 4, 2 / 4, 2 / 3, 1 / 2),
    (3.5, 2, 1 / 2, 1 / 3, 0.0),
    (5.0, 1, 1.0, 1 / 3, 0.0),
    (6.0, 0, 0.0, 0.0, 0.0),
])
def test_scores_at_a_threshold(threshold, findings, precision, recall, false_per_kloc):
    s = detection_scores(FINDINGS, TASKS, CLEAN, threshold)
    assert (s.findings, s.tasks, s.clean, s.clean_lines) == (findings, 3, 2, 2000)
    assert s.precision == pytest.approx(precision) and s.recall == pytest.approx(recall)
    assert s.false_per_kloc == pytest.approx(false_per_kloc)
    # top scores: tasks 5, 4, 0; clean 3, 0 -> pairs won: (5>3,5>0,4>3,4>0, 0=0 half) = 4.5 of 6
    assert s.auc == pytest.approx(4.5 / 6)


def test_scores_per_project_come_after_the_overall_ones():
    out = by_project(FINDINGS, TASKS, CLEAN, 2.0)
    assert list(out) == [ALL, "a", "b"]
    assert out["a"].tasks == 2 and out["a"].clean == 1 and out["a"].findings == 4
    assert out["b"].findings == 0 and out["b"].auc == 0.5


def test_sweep_matches_scores_at_each_threshold():
    points = sweep(FINDINGS, TASKS, CLEAN)
    assert [p.threshold for p in points] == [5.0, 4.0, 3.0, 2.0, 1.0]
    for p in points:
        s = detection_scores(FINDINGS, TASKS, CLEAN, p.threshold)
        assert (p.findings, p.precision, p.recall, p.false_per_kloc) == (s.findings, s.precision, s.recall,
                                                                         s.false_per_kloc)


@pytest.mark.parametrize("line, message", [
    ("not json", "<x>:1: not a JSON object"),
    ("[1]", "<x>:1: not a JSON object"),
    ('{"path": "a", "offset": 1}', "<x>:1: a finding needs path, offset and a numeric score"),
    ('{"path": "a", "offset": "x", "score": 1}', "<x>:1: a finding needs"),
    ('{"path": "a", "offset": 1, "score": NaN}', "<x>:1: score is not a finite number"),
    ("[" * 100000 + "]" * 100000, "<x>:1: not a JSON object"),
])
def test_malformed_findings_name_the_line(line, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        parse_findings([line], "<x>")


def make_set(tmp_path, project="proj"):
    text = "class A {\n    int x;\n}\n"
    edited = text.replace("int x", "int\tx")
    task = MadeTask(edited, InjectedEdit("insert tab", 19, 3, 18, " ", " \t", 2, 0), "A.java")
    folder = tmp_path / project
    write_task_folder(folder, [task], [("B.java", text), ("C.java", text + "\n")], project=project)
    return folder


def test_evaluate_detection_end_to_end(tmp_path, monkeypatch, capsys):
    folder = make_set(tmp_path)
    findings = [{"path": str(folder / "0.txt"), "offset": 19, "score": 4.2},
                {"path": str(folder / "clean" / "0.java"), "offset": 5, "score": 1.0}]
    stdin = "\n".join(json.dumps(f) for f in findings) + "\n"
    status, out, err = run_evaluate(["detection", "--tasks", str(folder), "--threshold", "1"], stdin,
                                    monkeypatch, capsys)
    assert status == 0, err
    lines = dict(l.split(": ", 1) for l in out.splitlines() if ": " in l)
    assert lines["tasks"] == "1" and lines["clean files"] == "2" and lines["clean lines"] == "7"
    assert float(lines["AUC"]) == 1.0 and float(lines["precision"]) == 0.5 and float(lines["recall"]) == 1.0
    assert float(lines["false per KLOC"]) == pytest.approx(1000 / 7)
    assert out.splitlines()[-1].startswith("evaluate:detection|tasks:proj|threshold:1.0")


def test_evaluate_detection_sweep_writes_csv_and_png(tmp_path, monkeypatch, capsys):
    folder = make_set(tmp_path)
    stdin = json.dumps({"path": str(folder / "0.txt"), "offset": 19, "score": 4.2}) + "\n"
    prefix = tmp_path / "pr"
    status, out, err = run_evaluate(["detection", "--tasks", str(folder), "--sweep", str(prefix)], stdin,
                                    monkeypatch, capsys)
    assert status == 0, err
    assert (tmp_path / "pr.csv").read_text().splitlines()[1].startswith("4.2,1,1.0,1.0,")
    assert (tmp_path / "pr.png").read_bytes()[:4] == b"\x89PNG"


def test_a_finding_outside_the_sets_is_an_error(tmp_path, monkeypatch, capsys):
    folder = make_set(tmp_path)
    stdin = json.dumps({"path": str(tmp_path / "Other.java"), "offset": 1, "score": 1}) + "\n"
    status, out, err = run_evaluate(["detection", "--tasks", str(folder)], stdin, monkeypatch, capsys)
    assert status == 2 and "Other.java" in err and "neither a task nor a clean file" in err


def test_projects_come_from_truth_and_clean_index(tmp_path):
    a, b = make_set(tmp_path, "a"), make_set(tmp_path, "b")
    tasks, clean = read_sets([str(a), str(b)])
    assert sorted(t.project for t in tasks) == ["a", "b"]
    assert sorted(c.project for c in clean) == ["a", "a", "b", "b"]
