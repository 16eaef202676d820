"""ranker/learn.py: learning a repository's style (folder counts, a project model with the file under test
left out, or both), and bin/rank --adapt with each method. Real KenLM models built by lmplz on tiny corpora."""
import re
from pathlib import Path

import pytest
from conftest import TINY_JAVA, run_rank

from formats.files import read_source
from lm.corpus import fold_of
from lm.model import LanguageModel
from parsing.java import tokenize
from parsing.schemes import get_scheme
from ranker.learn import METHODS, LearnConfig, learn
from ranker.rank import Style, rank_text
from ranker.score import Scorer, score_stream


def repository(root, count=8):
    """`count` distinct Java files, tab-indented: a style the tiny model (4 spaces) never saw."""
    root.mkdir()
    paths = []
    for i in range(count):
        text = (f"package p;\n\nclass R{i} {{\n\tint v{i} = {i};\n\n\tint get{i}(int a) {{\n"
                + "".join(f"\t\tif (a > {j}) {{\n\t\t\ta = a + v{i};\n\t\t}}\n" for j in range(1 + i % 3))
                + "\t\treturn a;\n\t}\n}\n")
        (root / f"R{i}.java").write_text(text)
        paths.append(str(root / f"R{i}.java"))
    return paths


@pytest.mark.parametrize("kwargs, message", [
    ({"method": "everything"}, "unknown learning method"),
    ({"method": "project", "folds": 1}, "at least 2 folds"),
    ({"method": "project", "weight": 1.5}, "outside 0..1"),
])
def test_bad_configurations_are_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        LearnConfig(**kwargs)


@pytest.mark.parametrize("method, folder, project", [
    ("none", False, False), ("file", False, False), ("folder", True, False), ("folder-strict", True, False),
    ("project", False, True), ("folder+project", True, True)])
def test_methods_say_what_they_learn(method, folder, project):
    cfg = LearnConfig(method)
    assert (cfg.folder, cfg.project) == (folder, project)
    assert ("project" in dict(cfg.fields())) == project and dict(cfg.fields())["adapt"] == method


def test_file_and_none_learn_nothing(tiny_model, tmp_path):
    paths = repository(tmp_path / "repo")
    scorer = Scorer(LanguageModel(tiny_model))
    for method in ("file", "none"):
        learned = learn(paths, LanguageModel(tiny_model), LearnConfig(method), scorer)
        assert learned.scorer(paths[0]) is scorer and learned.style(paths[0]) == Style()
        assert learned.adapt == (method == "file")


def test_folder_leaves_the_file_out_of_its_own_prior(tiny_model, tmp_path):
    import numpy as np
    from conftest import stream_counts

    from ranker.cache import evidence, folder_cache
    from ranker.counts import Counts
    from ranker.symbols import symbol_ids
    paths = repository(tmp_path / "repo")
    learned = learn(paths, LanguageModel(tiny_model), LearnConfig("folder"), Scorer(LanguageModel(tiny_model)))
    style = learned.style(paths[0])
    assert style.folder is not None and style.exclude is None and style.habits is not None
    # the file's own counts are taken off (folder_cache, exclude None): the evidence is the other files' alone
    scheme = get_scheme(LanguageModel(tiny_model).scheme)
    syms = [scheme.walk(tokenize(read_source(p)))[0] for p in paths]
    others = stream_counts(syms[1:])
    gaps = np.arange((len(syms[0]) + 1) // 2)
    for symbol in ("·", "↵", "↵⇥1"):
        ids = symbol_ids([symbol] * len(gaps))
        got = evidence(folder_cache(symbol_ids(syms[0]), style.folder, style.exclude), gaps, ids)
        expected = evidence(folder_cache(symbol_ids(syms[0]), others, Counts.empty()), gaps, ids)
        assert all(np.array_equal(g, e) for g, e in zip(got, expected))
    own = evidence(folder_cache(symbol_ids(syms[0]), others, Counts.empty()), gaps, symbol_ids(syms[0][0::2]))
    assert own[0][:, :-1].sum() > 0


@pytest.mark.slow
def test_project_models_never_saw_the_file_they_score(tiny_model, tmp_path):
    """Each file is scored by the general model mixed with a model of exactly the files of the other fold
    (by content hash): the same scores as a model bin/build-lm builds from those files (the learned models
    are mapped by KenLM from a temporary folder that is gone by now)."""
    from lm.build import BuildConfig, build
    paths = repository(tmp_path / "repo", count=12)
    general = LanguageModel(tiny_model)
    learned = learn(paths, general, LearnConfig("project", folds=2, order=3), Scorer(general), workers=1)
    assert set(learned.scorers) == {0, 1}
    scheme = get_scheme(general.scheme)
    folds = {p: fold_of(read_source(p).encode("utf-8"), 2) for p in paths}
    assert learned.fold == folds and 0 < sum(folds.values()) < len(paths)
    for f in (0, 1):
        others = tmp_path / f"not{f}"
        others.mkdir()
        for p in paths:
            if folds[p] != f:
                (others / Path(p).name).write_text(read_source(p))
        build(BuildConfig((str(others),), order=3, scheme=general.scheme, output=tmp_path / f"not{f}.bin"),
              progress=False)
        expected = Scorer(general, LanguageModel(tmp_path / f"not{f}.bin"), 0.1)
        for p in paths:
            if folds[p] == f:
                assert learned.scorer(p) is learned.scorers[f]
                assert learned.scorer(p).project.signature["held_out_fold"] == f
                stream = tokenize(read_source(p))
                assert score_stream(learned.scorer(p), scheme, stream).scores.tolist() == \
                    pytest.approx(score_stream(expected, scheme, stream).scores.tolist(), abs=1e-6)


@pytest.mark.slow
def test_a_file_alone_in_its_fold_gets_no_project_model_that_saw_it(tiny_model, tmp_path):
    paths = repository(tmp_path / "repo", count=1)
    (tmp_path / "repo" / "bad.java").write_bytes(b"class \xff {}\n")   # unreadable: skipped, not an error
    general = LanguageModel(tiny_model)
    scorer = Scorer(general)
    learned = learn(paths + [str(tmp_path / "repo" / "bad.java")], general, LearnConfig("project", order=3),
                    scorer, workers=1)
    assert learned.scorer(paths[0]) is scorer   # the only model there is was built from this very file


@pytest.mark.slow
@pytest.mark.parametrize("method", ["project", "folder+project"])
def test_learned_rankings_find_the_error(tiny_model, tmp_path, method):
    paths = repository(tmp_path / "repo")
    broken = read_source(paths[3]).replace("\t\treturn a;", "\t\treturn \ta;")
    (tmp_path / "repo" / "R3.java").write_text(broken)
    general = LanguageModel(tiny_model)
    learned = learn(paths, general, LearnConfig(method, order=3), Scorer(general), workers=1)
    ranked = rank_text(learned.scorer(paths[3]), get_scheme(general.scheme), broken, paths[3], learned.adapt,
                       learned.style(paths[3]))
    assert ranked.candidates[0] == broken.index("\ta;") + 1


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
def test_rank_adapt_ranks_every_file_and_signs_the_method(tiny_model, tmp_path, method):
    paths = repository(tmp_path / "repo")
    code, out, err = run_rank(["--model", str(tiny_model), "--adapt", method, "--workers", "2", str(tmp_path / "repo")])
    assert code == 0, err
    lines = out.splitlines()
    assert [l.split()[0] for l in lines] == sorted(paths)
    for line, p in zip(lines, sorted(paths)):
        assert sorted(int(x) for x in line.split()[1:]) == list(range(1, len(read_source(p)) + 1))
    assert f"|adapt:{method}|" in err
    assert bool(re.search(r"\|project:k2-o5@0\.1\|", err)) == method.endswith("project")


@pytest.mark.parametrize("extra, message", [
    (["--project-model", "x.bin"], "cannot take --project-model"),
    (["--cluster", "local:1"], "cannot rank with --cluster"),
    (["--project-weight", "2"], "must be in [0, 1)"),
])
def test_rank_adapt_project_refuses_what_it_cannot_do(tiny_model, tmp_path, extra, message):
    (tmp_path / "A.java").write_text(TINY_JAVA["A.java"])
    code, out, err = run_rank(["--model", str(tiny_model), "--adapt", "project", *extra, str(tmp_path / "A.java")])
    assert code == 2 and out == "" and message in err and "Traceback" not in err


@pytest.mark.parametrize("strict", [False, True])
def test_folder_counts_learned_in_worker_processes_are_the_same(tmp_path, strict):
    from conftest import stream_counts

    from ranker.folder import folder_style
    paths = repository(tmp_path / "repo")
    (tmp_path / "repo" / "R0 copy.java").write_text(read_source(paths[0]).replace("\t", "    "))
    (tmp_path / "repo" / "bad.java").write_bytes(b"\0binary")
    paths += [str(tmp_path / "repo" / "R0 copy.java"), str(tmp_path / "repo" / "bad.java")]
    scheme = get_scheme("kind-units")
    alone, forked = folder_style(paths, scheme, strict, workers=1), folder_style(paths, scheme, strict, workers=3)
    for p in paths:
        a, b = alone(p), forked(p)
        for level in range(len(a.folder.wide)):
            for x, y in ((a.folder, b.folder), (a.exclude, b.exclude)):
                if x is None:   # the file's own counts (folder_cache)
                    assert y is None and not strict and not p.endswith("bad.java")
                    continue
                assert x.wide[level][0].tolist() == y.wide[level][0].tolist()
                assert x.wide[level][1].tolist() == y.wide[level][1].tolist()
        assert a.habits.counts == b.habits.counts
    # strict: the copy (the same without whitespace) is left out with the file; loose: only the file (None:
    # folder_cache takes the file's own counts off); a file not read has nothing to take off
    own = sum(int(n.sum()) for _, n in stream_counts([scheme.walk(tokenize(read_source(paths[0])))[0]]).wide)
    if strict:
        assert sum(n.sum() for _, n in alone(paths[0]).exclude.wide) == 2 * own > 0
    else:
        assert alone(paths[0]).exclude is None
    assert sum(len(k) for k, _ in alone(paths[-1]).exclude.wide) == 0
