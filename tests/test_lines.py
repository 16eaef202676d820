"""lines/: CodRep 2018 task parsing, features, ranking order, and the train/rank commands end to end."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from lines.features import CHEAP_NAMES, cheap_features, line_tokens, parse_errors, prepare, window_symbols, window_texts
from lines.model import order_lines

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / ".data" / "codrep2018"
HAVE_LMPLZ = (ROOT / ".tools" / "kenlm" / "bin" / "lmplz").exists() or shutil.which("lmplz")

PROGRAM = """package demo;

import java.util.List;

public class Counter {
    private int count = 0;

    public void add(int n) {
        count += n;
    }

    public int get() {
        return count;
    }
}
"""


# ------------------------------------------------------------------------------------------ tasks


# ------------------------------------------------------------------------------------------ features

def test_cheap_features_prefer_the_similar_line():
    lines = tuple(PROGRAM.split("\n"))
    prep = prepare("count += n * 2;", lines, keep=3)
    feats = cheap_features("count += n * 2;", lines, prep)
    assert feats.shape == (len(prep.candidates), len(CHEAP_NAMES))
    assert 8 in prep.candidates   # 'count += n;' (0-based 8) survives the prefilter
    lev = feats[:, CHEAP_NAMES.index("lev")]
    assert prep.candidates[int(np.argmax(lev))] == 8
    assert np.isfinite(feats).all()


@pytest.mark.parametrize("new, line, name, value", [
    ("a(b);", "a(b);", "equal", 1.0),
    ("a(b);", "  a(c);", "equal", 0.0),
    ("if (x) {", "}", "brace_delta", 2.0),
    ("foo(bar(x));", "foo(x);", "paren_delta", 0.0),
    ("import a.b.Inject;", "import c.Inject;", "same_last_word", 1.0),
    ("// note", "x = 1;", "new_comment", 1.0),
    ("x = 1;", "\t\tx = 2;", "indent", 8.0),
])
def test_cheap_feature_values(new, line, name, value):
    lines = ("class A {", line, "}")
    prep = prepare(new, lines)
    feats = cheap_features(new, lines, prep)
    row = int(np.flatnonzero(prep.candidates == 1)[0])
    assert feats[row, CHEAP_NAMES.index(name)] == pytest.approx(value)


def test_line_tokens_kinds_identifiers_methods():
    tok = line_tokens('   result = compute(x, "s") + 42;')
    assert tok.texts[:4] == ("result", "=", "compute", "(")
    assert {"result", "compute", "x"} <= tok.identifiers
    assert tok.methods == frozenset({"compute"})
    assert '"s"' in tok.literals and "42" in tok.literals
    assert " " not in "".join(tok.symbols) and "compute" in tok.symbols


@pytest.mark.parametrize("text, broken", [("int x = 1;\nint y = 2;", False), ("int x = ;\n}", True)])
def test_parse_errors(text, broken):
    assert (parse_errors(text) > 0) == broken


def test_windows_replace_one_line_keeping_its_indentation():
    lines = ("a();", "    b();", "c();", "d();")
    orig, repl = window_texts("x();", lines, 1, width=1)
    assert orig == "a();\n    b();\nc();" and repl == "a();\n    x();\nc();"
    syms = window_symbols(lines, 1, "x();", width=1)
    assert "x" in syms and "b" not in syms and "a" in syms and "c" in syms and "d" not in syms


def test_order_lines_lists_every_line_once():
    n = 7
    cands = np.array([1, 3, 4])
    s1 = np.array([0.1, 0.9, 0.5])
    top = np.array([3, 4])
    s2 = np.array([-1.0, 2.0])
    prep_scores = np.array([0.0, 0, 5, 0, 0, 1, 0])
    order = order_lines(n, prep_scores, cands, s1, top, s2)
    assert order == (4, 3, 1, 2, 5, 0, 6)


# ------------------------------------------------------------------------------------------ end to end

def make_dataset(folder: Path, tasks) -> Path:
    """A CodRep 2018 data set of variants of PROGRAM: (new line, 1-based replaced line) per task."""
    (folder / "Tasks").mkdir(parents=True)
    (folder / "Solutions").mkdir()
    for n, (new, sol) in enumerate(tasks, start=1):
        body = PROGRAM.replace("Counter", f"Counter{n}").replace("count", f"count{n % 3}")
        (folder / "Tasks" / f"{n}.txt").write_text(f"{new.replace('count', f'count{n % 3}')}\n\n{body}")
        (folder / "Solutions" / f"{n}.txt").write_text(f"{sol}\n")
    return folder


TRAIN_TASKS = [("count += n * 2;", 9), ("return count * 2;", 13), ("private long count = 0;", 6),
               ("public void add(long n) {", 8), ("import java.util.Map;", 3), ("public int value() {", 12)]


def run_bin(name, *args, cwd=ROOT):
    return subprocess.run([str(ROOT / "bin" / name), *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          timeout=600)


def run_rank(*args):
    return run_bin("rank-lines", *args)


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_LMPLZ, reason="lmplz not built (make setup)")
def test_train_then_rank_end_to_end(tmp_path):
    train = make_dataset(tmp_path / "Train", TRAIN_TASKS * 5)
    dev = make_dataset(tmp_path / "Dev", TRAIN_TASKS)
    model = tmp_path / "model"
    r = run_bin("train-line-ranker", "--output", model, "--workers", "1", "--rounds1", "20", "--rounds2", "20",
                "--quiet", "--dev", dev, train)
    assert r.returncode == 0, r.stderr
    assert "signature: line-ranker|model:" in r.stderr and "average line error" in r.stderr
    for name in ("lm.bin", "lm.bin.json", "stage1.txt", "stage2.txt", "signature.json"):
        assert (model / name).is_file()

    # bad tasks beside good ones: one warning line each, naming the file; the others are ranked; exit 1
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "1.txt").write_bytes(b"x = 1;\nno separator\nclass A {}\n")
    (bad / "2.txt").write_bytes(b"x = 1;\n\n")
    (bad / "3.txt").write_bytes(b"x = \xff;\n\nclass A {}\n")
    good = dev / "Tasks" / "2.txt"
    r = run_rank("--model", model, "--workers", "2", bad, good)
    assert r.returncode == 1, r.stderr
    out = r.stdout.splitlines()
    assert len(out) == 1
    fields = out[0].split()
    assert fields[0] == str(good.resolve())
    n_lines = len(PROGRAM.rstrip("\n").split("\n"))
    assert sorted(map(int, fields[1:])) == list(range(1, n_lines + 1))
    errors = [l for l in r.stderr.splitlines() if l.startswith("rank-lines: warning:")]
    assert len(errors) == 3 and all(str(bad / f"{i}.txt") in e for i, e in zip((1, 2, 3), errors))
    assert "signature: line-ranker|model:" in r.stderr

    # a whole data set folder: every task, in task order, scored by the shared evaluator
    r = run_rank("--model", model, dev)
    lines = r.stdout.splitlines()
    assert [Path(l.split()[0]).name for l in lines] == [f"{i}.txt" for i in range(1, len(TRAIN_TASKS) + 1)]
    from evaluation.codrep2018 import parse_predictions, score_line_predictions
    from formats.codrep2018 import read_solutions
    scores = score_line_predictions(read_solutions(str(dev)), parse_predictions(lines))
    assert scores.total_files == len(TRAIN_TASKS)
    assert scores.recall_at_1 >= 0.5   # the tasks are easy: similar lines are right there


def test_rank_without_model_is_one_error_line(tmp_path):
    r = run_rank("--model", tmp_path / "nothing", tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "nothing" in r.stderr


@pytest.mark.data
@pytest.mark.slow
@pytest.mark.skipif(not (ROOT / ".models" / "lines" / "signature.json").exists() or not (DATA / "Dataset4").is_dir(),
                    reason="needs .data/codrep2018 and a trained .models/lines")
def test_trained_model_ranks_real_tasks():
    tasks = sorted((DATA / "Dataset4" / "Tasks").glob("*.txt"))[:40]
    r = run_rank("--model", ROOT / ".models" / "lines", *tasks)
    assert r.returncode == 0, r.stderr
    from evaluation.codrep2018 import parse_predictions, score_line_predictions
    from formats.codrep2018 import read_solution
    sols = {str(t.resolve()): read_solution(t) for t in tasks}
    scores = score_line_predictions(sols, parse_predictions(r.stdout.splitlines()))
    assert scores.total_files == 40 and scores.average_line_error < 0.2
