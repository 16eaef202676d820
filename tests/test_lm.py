import io
import json
import zipfile
from contextlib import redirect_stderr, redirect_stdout

import pytest

from lm.build import BuildConfig, build
from lm.cli import main as build_lm
from formats.codrep2019 import majority_text
from lm.corpus import write_corpus
from lm.model import LanguageModel, log10_to_bits
from formats.codrep2018 import task_body as codrep2018_body
from formats.sources import SourceError, iter_raw, shape_of
from parsing.java import tokenize
from parsing.schemes import get_scheme

from conftest import TINY_JAVA


def make_sources(root):
    """One of each SOURCE shape, written by the test."""
    (root / "plain" / "sub").mkdir(parents=True)
    (root / "plain" / "sub" / "A.java").write_text(TINY_JAVA["A.java"])
    with zipfile.ZipFile(root / "src.zip", "w") as z:
        z.writestr("mod/B.java", TINY_JAVA["B.java"])
        z.writestr("mod/notes.txt", "not java")
    ds = root / "Dataset9"
    (ds / "Tasks").mkdir(parents=True)
    (ds / "Solutions").mkdir()
    (ds / "Tasks" / "1.txt").write_text("int y = 2;\n\n" + TINY_JAVA["C.java"])
    (ds / "Solutions" / "1.txt").write_text("3\n")
    cr = root / "codrep"
    cr.mkdir()
    (cr / "0.txt").write_text(TINY_JAVA["A.java"])
    (cr / "out.txt").write_text("5\n")
    (root / "One.java").write_text(TINY_JAVA["C.java"])
    (root / "broken.zip").write_bytes(b"PK not really")
    return root


@pytest.mark.parametrize("name, shape", [
    ("plain", "folder"), ("src.zip", "archive"), ("Dataset9", "codrep2018"), ("codrep", "codrep2019"),
    ("One.java", "java"),
])
def test_sources_are_recognised_by_shape(tmp_path, name, shape):
    assert shape_of(make_sources(tmp_path) / name) == shape


@pytest.mark.parametrize("name, message", [
    ("missing", "no such file or folder"), ("broken.zip", "not a readable zip"),
])
def test_unreadable_sources_are_errors(tmp_path, name, message):
    with pytest.raises(SourceError, match=message):
        list(iter_raw(make_sources(tmp_path) / name))


def test_folder_entries_are_recognised_recursively(tmp_path):
    root = make_sources(tmp_path)
    (root / "broken.zip").unlink()
    got = {(r.shape, r.data) for r in iter_raw(root)}
    assert ("codrep2018", TINY_JAVA["C.java"].encode()) in got   # body after new line + blank line
    assert ("archive", TINY_JAVA["B.java"].encode()) in got        # only *.java members
    assert ("java", TINY_JAVA["A.java"].encode()) in got
    assert ("codrep2019", TINY_JAVA["A.java"].encode()) in got
    assert ("java", TINY_JAVA["C.java"].encode()) in got
    assert len(got) == 5 and sum(1 for _ in iter_raw(root)) == 5


@pytest.mark.parametrize("task, body", [
    (b"x = 1;\n\nclass A {}\n", b"class A {}\n"),
    (b"x = 1;\r\n\r\nclass A {}\r\n", b"class A {}\r\n"),
    (b"only one line", b""),
])
def test_codrep2018_body(task, body):
    assert codrep2018_body(task) == body


def test_corpus_dedups_and_skips_undecodable(tmp_path):
    d = tmp_path / "c"
    d.mkdir()
    (d / "A.java").write_text(TINY_JAVA["A.java"])
    (d / "A2.java").write_text(TINY_JAVA["A.java"])
    (d / "bad.java").write_bytes(b"class \xff {}")
    (d / "dangling.java").symlink_to(tmp_path / "nowhere.java")   # unreadable, even for root
    (d / "broken.zip").write_bytes(b"PK no")
    out = tmp_path / "corpus.txt"
    stats = write_corpus(iter_raw(str(d)), "kind", out, workers=1, progress=False, sources=[str(d)])
    (s,) = stats.sources
    assert (s.files, s.duplicates, s.skipped) == (1, 1, 3)
    line = out.read_text().splitlines()[0]
    assert line.split() == get_scheme("kind").symbols(tokenize(TINY_JAVA["A.java"]))


def test_codrep2019_reader_votes_out_injected_errors():
    clean = TINY_JAVA["B.java"]
    broken = [clean.replace("int g(", "int  g("), clean.replace("s = s", "s =s"), clean.replace("{\n", "{\n\n", 1)]
    assert majority_text([b.encode() for b in broken]) == clean.encode()


@pytest.mark.slow
def test_build_writes_model_and_signature(tiny_model, tiny_corpus):
    sig = json.loads((tiny_model.parent / (tiny_model.name + ".json")).read_text())
    assert sig["order"] == 4 and sig["scheme"] == "kind" and sig["files"] == 3
    assert sig["tokens"] == sum(len(tokenize(t)) for t in TINY_JAVA.values())
    assert sig["versions"]["kenlm"] and sig["lmplz"][0] == "lmplz"
    lm = LanguageModel(tiny_model)
    assert lm.order == 4


@pytest.mark.slow
def test_per_symbol_scores_sum_to_the_sentence_score(tiny_model):
    lm = LanguageModel(tiny_model)
    syms = get_scheme("kind").symbols(tokenize(TINY_JAVA["A.java"].replace("x = 1", "x=1")))
    scores = lm.symbol_scores(syms)
    assert len(scores) == len(syms) + 1
    assert sum(scores) == pytest.approx(lm.score(syms), abs=1e-4)
    assert log10_to_bits(-1.0) == pytest.approx(3.3219, abs=1e-4)


def run_cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = build_lm(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv, message", [
    (["{tmp}/missing"], "no such file or folder"),
    (["{tmp}/emptydir"], "empty corpus"),
    (["{tmp}/broken.zip"], "not a readable zip"),
    (["--scheme", "nope", "{tmp}/plain"], "unknown token scheme 'nope'"),
    (["--order", "0", "{tmp}/plain"], "outside 1..10"),
    (["--order", "11", "{tmp}/plain"], "outside 1..10"),
])
def test_build_lm_bad_input_is_one_line_and_exit_2(tmp_path, argv, message, lmplz_available):
    make_sources(tmp_path)
    (tmp_path / "emptydir").mkdir()
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv] + ["--quiet", "--output", str(tmp_path / "m.bin")]
    code, out, err = run_cli(argv)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1 and err.startswith("build-lm: error:")


@pytest.mark.slow
def test_build_lm_prints_model_path_last(tmp_path, tiny_corpus, lmplz_available):
    code, out, err = run_cli([str(tiny_corpus), "--order", "3", "--quiet", "--output", str(tmp_path / "m.bin")])
    assert code == 0 and out.strip() == str(tmp_path / "m.bin")
    assert "order:3|scheme:kind" in err
