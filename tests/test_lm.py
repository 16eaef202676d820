import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest
from conftest import TINY_JAVA

from formats.sources import RawFile, iter_raw
from lm.cli import main as build_lm
from lm.corpus import write_corpus
from lm.model import LanguageModel, log10_to_bits
from parsing.java import tokenize
from parsing.schemes import get_scheme


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


@pytest.mark.slow
def test_build_writes_model_and_signature(tiny_model, tiny_corpus):
    sig = json.loads((tiny_model.parent / (tiny_model.name + ".json")).read_text())
    assert sig["order"] == 4 and sig["scheme"] == "kind-units" and sig["files"] == 3
    assert sig["tokens"] == sum(len(tokenize(t)) for t in TINY_JAVA.values())
    assert sig["versions"]["kenlm"] and sig["lmplz"][0] == "lmplz"
    lm = LanguageModel(tiny_model)
    assert lm.order == 4


@pytest.mark.slow
def test_per_symbol_scores_sum_to_the_sentence_score(tiny_model):
    lm = LanguageModel(tiny_model)
    syms = get_scheme(lm.scheme).symbols(tokenize(TINY_JAVA["A.java"].replace("x = 1", "x=1")))
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
    from test_formats_sources import make_sources
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


@pytest.mark.slow
def test_fold_models_never_see_their_fold(tmp_path, tiny_corpus, lmplz_available):
    """build_folds: each distinct file goes to the fold of its content; the model without fold f was
    estimated on the other folds' files only, and the full model on all of them."""
    from formats.sources import RawFile
    from lm.build import build_folds
    from lm.corpus import fold_of
    files = [RawFile("src", name, text.encode(), "java") for name, text in sorted(TINY_JAVA.items())]
    files.append(RawFile("src", "copy", files[0].data, "java"))   # a copy: read once, same fold
    sig, held_out, stats = build_folds(files, ("src",), "kind", 2, 2, tmp_path / "all.bin", tmp_path, workers=1,
                                       progress=False)
    folds = [fold_of(f.data, 2) for f in files[:3]]
    assert stats.fold_files == [folds.count(0), folds.count(1)] and stats.files == 3
    assert sig["files"] == 3 and sig["sources"][0]["duplicates"] == 1 and (tmp_path / "all.bin.json").exists()
    scheme = get_scheme("kind")
    for f, model in held_out.items():
        lm = LanguageModel(model)
        others = [t for t, g in zip(sorted(TINY_JAVA.values()), folds) if g != f]
        corpus = (tmp_path / f"fold{1 - f}.txt").read_text().splitlines()
        assert corpus == [" ".join(scheme.symbols(tokenize(t))) for t in others]
        assert lm.order == 2
    assert set(held_out) == {f for f in (0, 1) if any(g != f for g in folds)}


@pytest.mark.slow
@pytest.mark.parametrize("names, order",
                         [(["A.java"], 3), (sorted(TINY_JAVA), 4)])   # one file needs fallback discounts
def test_lmplz_fed_through_a_pipe_makes_the_model_of_the_corpus_file(tmp_path, names, order, lmplz_available):
    """build() streams the corpus into lmplz while tokenizing; estimate() runs lmplz on a written corpus
    file (and retries with --discount_fallback): the same model, the same recorded arguments."""
    from lm.build import BuildConfig, build, estimate
    src = tmp_path / "src"
    src.mkdir()
    for name in names:
        (src / name).write_text(TINY_JAVA[name])
    sig = build(BuildConfig((str(src),), order=order, output=tmp_path / "piped.bin", workers=2), progress=False)
    corpus = tmp_path / "corpus.txt"
    write_corpus(iter_raw(str(src)), "kind-units", corpus, workers=1, progress=False)
    made = estimate([corpus], tmp_path / "file.bin", order, tmp_path)
    assert (tmp_path / "piped.bin").read_bytes() == (tmp_path / "file.bin").read_bytes()
    assert sig["lmplz"] == made["lmplz"]
    assert ("--discount_fallback" in made["lmplz"]) == (len(names) == 1)


def test_corpus_is_the_same_for_any_worker_count(tmp_path):
    """Batches of files go to forked workers in turn; the lines come back in file order."""
    from lm import corpus as corpus_module
    files = [RawFile("src", f"F{i}.java", (TINY_JAVA["ABC"[i % 3] + ".java"] + "//" + str(i) + "\n").encode(), "java")
             for i in range(3 * corpus_module.BATCH + 5)]
    files.insert(7, RawFile("src", "bad.java", b"\xff", "java"))
    files.insert(40, files[3])   # a copy: read once
    texts = []
    for workers in (1, 2, 3):
        out = tmp_path / f"w{workers}.txt"
        stats = write_corpus(files, "kind-units", out, workers=workers, progress=False)
        assert (stats.files, stats.skipped, stats.sources[0].duplicates) == (len(files) - 2, 1, 1)
        texts.append(out.read_bytes())
    assert texts[0] == texts[1] == texts[2] and texts[0].count(b"\n") == len(files) - 2


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_listed_files_are_read_by_the_workers_into_the_same_corpus(tmp_path, workers):
    """write_corpus of files listed, not read (iter_entries): each process reads the files it takes, archive
    members too, and the corpus and its counts are those of the files read first (iter_raw), copies across
    processes included."""
    import zipfile

    from formats.sources import iter_entries
    from lm import corpus as corpus_module
    d = tmp_path / "src"
    d.mkdir()
    n = 3 * corpus_module.BATCH + 5
    def text(k: int) -> str:
        return TINY_JAVA["ABC"[k % 3] + ".java"] + "//" + str(k) + "\n"
    with zipfile.ZipFile(d / "a.zip", "w") as z:
        for i in range(n):
            z.writestr(f"p/F{i:03d}.java", text(i % 50))
        z.writestr("p/bad.java", b"\xff")
    for i in range(n):   # the same contents again, in a folder: copies taken by other processes
        (d / f"G{i:03d}.java").write_text(text(i % 60))
    (d / "dangling.java").symlink_to(tmp_path / "nowhere.java")
    read, listed = tmp_path / "read.txt", tmp_path / "listed.txt"
    a = write_corpus(iter_raw(str(d)), "kind-units", read, workers=1, progress=False, sources=[str(d)])
    b = write_corpus(iter_entries(str(d)), "kind-units", listed, workers=workers, progress=False, sources=[str(d)])
    assert read.read_bytes() == listed.read_bytes()
    assert [vars(s) for s in a.sources] == [vars(s) for s in b.sources]
    (s,) = b.sources
    assert (s.files, s.duplicates, s.skipped) == (60, 2 * n - 60, 2)


@pytest.mark.parametrize("sources, keep, held", [
    (["corpora"], False, True),
    (["corpora", "other"], False, True),       # corpora/ beside another source: still held out
    (["other"], False, False),
    (["corpora/"], True, False),              # --no-holdout
])
def test_jdk_modules_are_held_out_whenever_corpora_is_trained_on(tmp_path, sources, keep, held):
    from lm.build import HELD_OUT
    from lm.cli import held_out
    (tmp_path / "corpora").mkdir()
    (tmp_path / "other").mkdir()
    assert held_out([str(tmp_path / s) for s in sources], tmp_path / "corpora", keep) == (HELD_OUT if held else ())
