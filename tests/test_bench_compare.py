"""bin/compare-orders: argument errors, reports written, corpus and model caches reused (no timing asserted)."""
import csv
import subprocess

import pytest
from conftest import ROOT, TINY_JAVA

from bench import compare
from bench.compare import UsageError, main, parse_orders, parse_schemes
from evaluation.tasks import TaskConfig, make_tasks


@pytest.mark.parametrize("spec, expected", [
    ("2-10", list(range(2, 11))),
    ("3-8", [3, 4, 5, 6, 7, 8]),
    ("7", [7]),
    ("3,5,7", [3, 5, 7]),
    ("7,3,3", [3, 7]),
    ("1-2,9-10", [1, 2, 9, 10]),
])
def test_parse_orders(spec, expected):
    assert parse_orders(spec) == expected


@pytest.mark.parametrize("spec", ["0-3", "12", "2-11", "x", "5-3", "", "3,,5"])
def test_parse_orders_rejects(spec):
    with pytest.raises(UsageError):
        parse_orders(spec)


@pytest.mark.parametrize("spec, expected", [("kind", ["kind"]), ("kind,text", ["kind", "text"]),
                                            ("text, kind,text", ["text", "kind"])])
def test_parse_schemes(spec, expected):
    assert parse_schemes(spec) == expected


@pytest.fixture
def eval_dir(tmp_path):
    d = tmp_path / "eval"
    make_tasks(sorted(TINY_JAVA.items()), d, TaskConfig(count=3, seed=1))
    return d


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("extra, message", [
    (["--orders", "0-3"], "order 0 is outside 1..10"),
    (["--orders", "12"], "order 12 is outside 1..10"),
    (["--schemes", "kind,nope"], "unknown scheme 'nope'"),
    (["--eval-limit", "0"], "--eval-limit 0"),
])
def test_bad_arguments_exit_2_with_one_line(capsys, tmp_path, tiny_corpus, eval_dir, extra, message):
    code, out, err = run(capsys, "--train", str(tiny_corpus), "--eval", str(eval_dir), "--output",
                         str(tmp_path / "out"), *extra)
    assert code == 2
    assert err.startswith("compare-orders: error:") and message in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_eval_folder_without_answers_is_named(capsys, tmp_path, tiny_corpus, eval_dir):
    (eval_dir / "out.txt").unlink()
    code, _, err = run(capsys, "--train", str(tiny_corpus), "--eval", str(eval_dir))
    assert code == 2
    assert str(eval_dir) in err and "out.txt" in err


def test_missing_train_source_is_named(capsys, tmp_path, eval_dir):
    code, _, err = run(capsys, "--train", str(tmp_path / "nowhere"), "--eval", str(eval_dir))
    assert code == 2 and "nowhere" in err


def test_corpus_key_depends_on_scheme_and_exclude(tiny_corpus):
    k = compare.corpus_key([str(tiny_corpus)], "kind", ())
    assert k == compare.corpus_key([str(tiny_corpus)], "kind", ())
    assert k != compare.corpus_key([str(tiny_corpus)], "text", ())
    assert k != compare.corpus_key([str(tiny_corpus)], "kind", ("A.java",))


@pytest.mark.parametrize("limit, expected", [(None, 3), (2, 2), (10, 3)])
def test_eval_limit_takes_the_first_tasks_by_number(eval_dir, limit, expected):
    ev = compare.load_eval(eval_dir, limit)
    assert [p.name for p in ev.files] == [f"{i}.txt" for i in range(expected)]
    assert len(ev.answers) == expected and ev.total == 3


@pytest.mark.slow
def test_reports_written_and_models_reused(capsys, tmp_path, tiny_corpus, eval_dir, lmplz_available):
    out, models, cache = tmp_path / "out", tmp_path / "models", tmp_path / "cache"
    argv = ["--orders", "2-3", "--schemes", "kind,text", "--train", str(tiny_corpus), "--eval", str(eval_dir),
            "--output", str(out), "--models", str(models), "--cache", str(cache), "--workers", "1", "--quiet"]
    code, stdout, err = run(capsys, *argv)
    assert code == 0, err
    for name in ("compare.csv", "compare.md", "compare.png"):
        assert (out / name).stat().st_size > 0
    assert (out / "compare.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = list(csv.DictReader(open(out / "compare.csv")))
    assert [(r["scheme"], r["order"]) for r in rows] == [("kind", "2"), ("kind", "3"), ("text", "2"), ("text", "3")]
    assert all(r["reused"] == "False" for r in rows)
    assert all(0 <= float(r["mrr"]) <= 1 and float(r["bits_per_symbol"]) > 0 for r in rows)
    assert stdout.strip().splitlines()[-1].startswith("compare-orders|train:corpus(3files")
    assert "| kind | 2 |" in (out / "compare.md").read_text()
    built = {p: p.stat().st_mtime_ns for p in models.glob("*.bin")}
    corpora = {p: p.stat().st_mtime_ns for p in cache.glob("*.txt")}
    assert len(built) == 4 and len(corpora) == 2
    from lm.model import ceilings_path  # each model bounds its repairs as bin/build-lm's models do
    assert all(ceilings_path(p).is_file() for p in built)

    code, _, err = run(capsys, *argv)
    assert code == 0, err
    rows = list(csv.DictReader(open(out / "compare.csv")))
    assert all(r["reused"] == "True" for r in rows)
    assert {p: p.stat().st_mtime_ns for p in models.glob("*.bin")} == built
    assert {p: p.stat().st_mtime_ns for p in cache.glob("*.txt")} == corpora


@pytest.mark.slow
def test_changed_signature_rebuilds(capsys, tmp_path, tiny_corpus, eval_dir, lmplz_available):
    argv = ["--orders", "2", "--schemes", "kind", "--train", str(tiny_corpus), "--eval", str(eval_dir),
            "--output", str(tmp_path / "out"), "--models", str(tmp_path / "m"), "--cache", str(tmp_path / "c"),
            "--workers", "1", "--quiet"]
    assert run(capsys, *argv)[0] == 0
    (sig,) = (tmp_path / "m").glob("*.bin.json")
    sig.write_text('{"order": 2, "scheme": "kind", "corpus_key": "other"}')
    assert run(capsys, *argv)[0] == 0
    rows = list(csv.DictReader(open(tmp_path / "out" / "compare.csv")))
    assert rows[0]["reused"] == "False"


def test_shim_reports_usage_error():
    proc = subprocess.run([str(ROOT / "bin" / "compare-orders"), "--orders", "12", "--train", "x", "--eval", "y"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.startswith("compare-orders: error: --orders 12")


def test_reports_round_trip_through_csv(tmp_path):
    rows = [compare.Row(scheme, order, round(0.9 + order / 100, 6), 0.8, round(2.5 - order / 10, 6), 1.5, 900.0, 10.0,
                        5.0, 0.01,
                        40.0, f"m-{scheme}-{order}.bin", order == 3)
            for scheme in ("kind", "text") for order in (3, 4)]
    sig = "compare-orders|train:D1(2files,9tokens)|eval:v(4tasks)|orders:3-4|schemes:kind,text|workers:1"
    table = compare.write_reports(rows, tmp_path, sig, "")
    assert compare.rows_from_csv(tmp_path / "compare.csv") == rows
    md = (tmp_path / "compare.md").read_text()
    assert md.startswith(table) and md.strip().endswith(sig) and "--workers 1" in md
    assert (tmp_path / "compare.png").read_bytes()[:4] == b"\x89PNG"


def test_workers_must_be_positive(capsys, tmp_path, tiny_corpus, eval_dir):
    with pytest.raises(SystemExit) as exit_info:
        main(["--train", str(tiny_corpus), "--eval", str(eval_dir), "--workers", "0"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.splitlines()[-1].startswith("compare-orders: error: argument --workers")
