"""Fill-in-the-middle metrics: hand-computed exact match, chrF, BLEU and Levenshtein, record parsing, CLI."""
import json
import math

import pytest

from evaluation import cli, fim
from evaluation.common import InputError


def f_beta(precision, recall, beta=2):
    return (1 + beta**2) * precision * recall / (beta**2 * precision + recall)


@pytest.mark.parametrize(
    "middle, generated, expected",
    [
        # exact match, chrF, BLEU, distance, similarity
        ("foo(x)", "foo(x)", (1.0, 100.0, 100.0, 0.0, 1.0)),
        ("foo(x)", "  foo(x) \n", (1.0, 100.0, 100.0, 4.0, 0.6)),  # stripped for exact match only
        # chrF: orders 1 and 2 effective; P = (1 + 1) / 2, R = (2/3 + 1/2) / 2 = 7/12;
        # F2 = 5 P R / (4 P + R) = 7/11. BLEU: the one token "ab" is not "abc".
        ("abc", "ab", (0.0, 700 / 11, 0.0, 1.0, 2 / 3)),
        # chrF on "abc" against "abcd": P = 1, R = (3/4 + 2/3 + 1/2) / 3 = 23/36 -> 115/167.
        # BLEU: 1-, 2-, 3-gram precisions 1 (effective order 3), brevity penalty exp(1 - 4/3).
        ("a b c d", "a b c", (0.0, 100 * 115 / 167, 100 * math.exp(1 - 4 / 3), 2.0, 5 / 7)),
        # chrF: 6 effective orders, P = (4/7 + 2/6 + 1/5 + 0 + 0 + 0) / 6, R = (4/6 + 2/5 + 1/4) / 6
        ("kitten", "sitting", (0.0, 100 * f_beta(58 / 315, 79 / 360), 0.0, 3.0, 1 - 3 / 7)),
        ("abc", "xyz", (0.0, 0.0, 0.0, 3.0, 0.0)),
        ("a", "", (0.0, 0.0, 0.0, 1.0, 0.0)),  # empty generation
        ("", "a", (0.0, 0.0, 0.0, 1.0, 0.0)),  # empty reference
        ("", "", (1.0, 0.0, 0.0, 0.0, 1.0)),  # sacrebleu scores two empty strings 0; rapidfuzz 1.0
    ],
)
def test_score_example(middle, generated, expected):
    scores = fim.score_example(fim.FimExample(middle=middle, generated=generated))
    for name, value in zip(fim.METRIC_NAMES, expected):
        assert getattr(scores, name) == pytest.approx(value, abs=1e-9), name


def test_mean_scores_is_the_mean_of_each_column():
    rows = [fim.FimScores(1.0, 100.0, 100.0, 0.0, 1.0), fim.FimScores(0.0, 50.0, 0.0, 3.0, 0.25)]
    assert fim.mean_scores(rows) == fim.FimScores(0.5, 75.0, 50.0, 1.5, 0.625)
    with pytest.raises(InputError, match="no examples"):
        fim.mean_scores([])


@pytest.mark.parametrize(
    "text, message",
    [
        ("{", "r.json:1: not JSON"),
        ('{"middle": "a"}', "expected a JSON list"),
        ('["a"]', "record 0 is not an object"),
        ('[{"middle": "a", "generated": "a"}, {"middle": "b"}]',
         "record 1 has no 'fill' \\(nor 'generated'\\): a task file"),
        ('[{"middle": "a", "fill": 3}]', "record 0 has no string 'fill'"),
        ('[{"middle": "a", "generated": null}]', "record 0 has no string 'generated'"),
        ('[{"middle": 3, "generated": "a"}]', "record 0 has no string 'middle'"),
        ('[{"middle": "a", "generated": "a", "prefix": 1}]', "record 0 has a non-string 'prefix'"),
    ],
)
def test_parse_records_errors(text, message):
    with pytest.raises(InputError, match=message):
        fim.parse_records(text, "r.json")


def test_parse_records_reads_all_fields():
    text = json.dumps([{"prefix": "x = ", "middle": "f(1)", "suffix": ";", "generated": "f(2)"},
                       {"middle": "y", "generated": "y"}])
    assert fim.parse_records(text, "r.json") == [
        fim.FimExample(middle="f(1)", generated="f(2)", prefix="x = ", suffix=";"),
        fim.FimExample(middle="y", generated="y"),
    ]


def test_pair_lines_rejects_unequal_files():
    with pytest.raises(InputError, match="g.txt: 1 lines but m.txt has 2"):
        fim.pair_lines(["a", "b"], ["a"], "m.txt", "g.txt")


def test_cli_json_records_with_per_example_rows(tmp_path, capsys):
    records = tmp_path / "records.json"
    records.write_text(json.dumps([
        {"prefix": "int x = ", "middle": "foo(x)", "suffix": ";", "generated": "foo(x)"},
        {"prefix": "int y = ", "middle": "kitten", "suffix": ";", "generated": "sitting"},
    ]))
    assert cli.main(["fim", str(records), "--per-example"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "index\texact_match\tchrf\tbleu\tlevenshtein\tsimilarity"
    assert lines[1] == "0\t1.00000\t100.00000\t100.00000\t0.00000\t1.00000"
    assert lines[2].startswith("1\t0.00000\t") and lines[2].endswith("\t0.00000\t3.00000\t0.57143")
    assert lines[3] == "examples: 2"
    assert lines[4] == "exact_match: 0.50000"
    assert lines[6:9] == ["bleu: 50.00000", "levenshtein: 1.50000", "similarity: 0.78571"]  # (1 + 4/7) / 2
    assert lines[9].startswith("evaluate:fim|chrf:c6w0b2|bleu:13a-exp-sentence|sacrebleu:")


def test_cli_parallel_files(tmp_path, capsys):
    (tmp_path / "m.txt").write_text("a b c d\nx\n")
    (tmp_path / "g.txt").write_text("a b c d\ny\n")
    assert cli.main(["fim", "--middles", str(tmp_path / "m.txt"), "--generations", str(tmp_path / "g.txt")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "examples: 2" and lines[1] == "exact_match: 0.50000"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["fim"], "give a JSON records file, or both --middles and --generations"),
        (["fim", "--middles", "{d}/m.txt"], "give a JSON records file"),
        (["fim", "{d}/r.json", "--middles", "{d}/m.txt"], "not both"),
        (["fim", "{d}/bad.json"], "bad.json:1: not JSON"),
        (["fim", "{d}/empty.json"], "no examples"),
        (["fim", "{d}/absent.json"], "absent.json: cannot read"),
    ],
)
def test_cli_errors_exit_2_with_one_line(tmp_path, capsys, argv, message):
    (tmp_path / "m.txt").write_text("a\n")
    (tmp_path / "r.json").write_text("[]")
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "empty.json").write_text("[]")
    assert cli.main([arg.format(d=tmp_path) for arg in argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


# --- the study's records and --annotations -------------------------------------------------------------

def test_study_records_use_fill_as_the_hypothesis():
    text = json.dumps([{"middle": "foo(x)", "fill": "foo(x)", "original_code": "a", "generated_code": "a",
                        "correct": "yes"}, {"middle": "abc", "fill": "ab", "correct": ""}])
    examples = fim.parse_records(text, "r.json")
    assert [(e.generated, e.correct) for e in examples] == [("foo(x)", True), ("ab", None)]


@pytest.mark.parametrize("value, expected", [("yes", True), ("No", False), ("1", True), (0, False), (True, True),
                                             ("", None), (None, None)])
def test_annotation_values(value, expected):
    from evaluation.fim_agreement import parse_annotation
    assert parse_annotation(value, "r.json: record 0") is expected


def test_a_bad_annotation_names_the_record():
    with pytest.raises(InputError, match="r.json: record 0: 'correct' is 'maybe'"):
        fim.parse_records(json.dumps([{"middle": "a", "fill": "a", "correct": "maybe"}]), "r.json")


# Eight fills whose annotations are known: exact match says yes exactly where the person did (r = 1); the
# near miss the person rejected ('return totals;') has a high chrF (88.6) and distance 1 but a BLEU of 34.7,
# so BLEU agrees next best, then chrF, then Levenshtein, whose distances grow with the length of the wrong
# fills rather than with how wrong they are. Each r is also computed here with the standard library.
AGREEMENT_CASES = [
    ("return total;", "return total;", "yes"),
    ("x = y + 1;", "x = y + 1;", "yes"),
    ("foo(a, b);", "foo(a, b);", "1"),
    ("int count = 0;", "int count = 0;", "yes"),
    ("return totals;", "return total;", "no"),
    ("bar();", "foo(a, b);", "no"),
    ("while (true) {", "int count = 0;", "0"),
    ("abc", "xyz", "no"),
]


def test_annotations_rank_the_metrics(tmp_path, capsys):
    import statistics
    records = [{"middle": m, "fill": f, "original_code": "", "generated_code": "", "correct": c}
               for f, m, c in AGREEMENT_CASES] + [{"middle": "z", "fill": "y", "correct": ""}]   # not annotated
    path = tmp_path / "records.json"
    path.write_text(json.dumps(records))
    assert cli.main(["fim", "--annotations", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "annotated: 8 (4 correct)" in lines
    table = lines[lines.index("rank\tmetric\tpoint_biserial\tspearman\tagreement") + 1:][:4]
    assert [row.split("\t")[1] for row in table] == ["exact_match", "bleu", "chrf", "levenshtein"]
    assert table[0].split("\t")[2:] == ["1.00000", "1.00000", "1.00000"]
    y = [1, 1, 1, 1, 0, 0, 0, 0]
    scores = [fim.score_example(fim.FimExample(m, f)) for f, m, _ in AGREEMENT_CASES]
    for row in table:
        _, metric, r, _, agreement = row.split("\t")
        expected = statistics.correlation(y, [getattr(s, metric) for s in scores])
        assert float(r) == pytest.approx(expected, abs=1e-5)
        assert float(agreement) == pytest.approx(-expected if metric == "levenshtein" else expected, abs=1e-5)


@pytest.mark.parametrize("records, message", [
    ([{"middle": "a", "fill": "a", "correct": ""}], "no record has its 'correct' field filled"),
    ([{"middle": "a", "fill": "a", "correct": "yes"}, {"middle": "b", "fill": "b", "correct": "yes"}],
     "every annotated record says the same"),
])
def test_annotations_errors(tmp_path, capsys, records, message):
    path = tmp_path / "records.json"
    path.write_text(json.dumps(records))
    assert cli.main(["fim", "--annotations", str(path)]) == 2
    assert message in capsys.readouterr().err
