"""bin/fim-fit: the conditional-logit fit of the n-gram predictor's feature weights, on candidate tables whose
answer is known, and the command end to end on a tiny real model."""
import io
import json
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
from conftest import ROOT
from test_fim_predict import JAVA_FILE, build_model, write_tasks

from fim import fit
from fim.ngram import FEATURES

COLUMN = {f: 1 + i for i, f in enumerate(FEATURES)}


def synthetic(feature: str, marks_true: bool, tasks: int = 60, seed: int = 0) -> list[fit.Candidates]:
    """Tasks of four candidates whose log10 probabilities favour the true line a little; `feature` is 1 on
    the true line (or on a false one) and a second feature is noise."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(tasks):
        table = np.zeros((4, 1 + len(FEATURES)))
        table[:, 0] = rng.normal(-10, 1, 4)
        table[:, COLUMN["sim_prev"]] = rng.random(4)
        true = np.zeros(4, dtype=bool)
        true[rng.integers(4)] = True
        table[true, 0] += 1.0
        table[true if marks_true else np.roll(true, 1), COLUMN[feature]] = 1.0
        out.append(fit.Candidates(table, true))
    return out


@pytest.mark.parametrize("feature, marks_true, sign", [
    ("file_after_prev", True, 1), ("project_pair", True, 1), ("repeats_neighbour", False, -1),
])
def test_a_feature_that_tells_the_true_line_gets_the_weight_that_picks_it(feature, marks_true, sign):
    train, valid = synthetic(feature, marks_true), synthetic(feature, marks_true, tasks=200, seed=1)
    w = fit.fit(train, l2=1.0)
    assert w[0] == 1.0                                   # relative to the log10 probability
    assert np.sign(w[COLUMN[feature]]) == sign and abs(w[COLUMN[feature]]) > 3 * abs(w[COLUMN["sim_prev"]])
    lm_only = fit.exact_match(valid, np.r_[1.0, np.zeros(len(FEATURES))])
    assert lm_only < 0.8 and fit.exact_match(valid, w) > (0.9 if marks_true else lm_only)


def test_a_stronger_penalty_gives_smaller_weights():
    train = synthetic("file_after_prev", True)
    assert abs(fit.fit(train, 100.0)[COLUMN["file_after_prev"]]) < abs(fit.fit(train, 1.0)[COLUMN["file_after_prev"]])


def test_tasks_without_their_line_among_the_candidates_count_as_misses():
    train = synthetic("file_after_prev", True, tasks=10)
    missed = fit.Candidates(np.zeros((2, 1 + len(FEATURES))), np.zeros(2, dtype=bool))
    w = fit.fit(train + [missed], 1.0)
    assert fit.exact_match(train + [missed], w) == pytest.approx(10 / 11)
    with pytest.raises(fit.InputError, match="nothing to fit"):
        fit.fit([missed], 1.0)


def test_the_literal_of_the_default_weights_is_how_fim_ngram_writes_them():
    from fim.ngram import DEFAULT_WEIGHTS
    weights = dict(DEFAULT_WEIGHTS)
    literal = fit.weights_literal(np.r_[1.0, [weights.get(f, 0.0) for f in FEATURES]])
    source = (ROOT / "fim" / "ngram.py").read_text()
    assert literal in source


@pytest.mark.parametrize("value", [136.0, -0.472, 1e-3])
def test_no_pair_is_cut_across_lines(value):
    literal = fit.weights_literal(np.r_[1.0, np.full(len(FEATURES), value)])
    body = literal.splitlines()[1:-1]
    assert all(len(x) <= 110 and x.startswith('    ("') and x.endswith("),") for x in body)


def test_the_literal_is_what_default_weights_looks_like():
    w = np.r_[1.0, np.zeros(len(FEATURES))]
    w[COLUMN["neighbour_sim"]], w[COLUMN["import_needed"]] = 33.1234, -0.5
    namespace = {}
    exec(fit.weights_literal(w), namespace)
    assert namespace["DEFAULT_WEIGHTS"] == (("neighbour_sim", 33.1), ("import_needed", -0.5))


@pytest.mark.slow
def test_fim_fit_end_to_end(tmp_path, tiny_corpus, lmplz_available):
    model = build_model(tmp_path / "text.bin", tiny_corpus, "text")
    tasks, _ = write_tasks(tmp_path, "D.java", JAVA_FILE, [1, 2, 3, 8, 9, 10])
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = fit.main(["--model", str(model), "--workers", "1", "--quiet", "--l2", "1,10", "--valid", str(tasks),
                         str(tasks)])
    assert code == 0, err.getvalue()
    lines = out.getvalue().splitlines()
    assert lines[0] == "l2\ttrain\tvalid" and [x.split("\t")[0] for x in lines[1:3]] == ["1", "10"]
    assert lines[3].startswith("# l2 ") and "6 training tasks, 6 validation tasks" in err.getvalue()
    namespace = {}
    exec("\n".join(lines[4:]), namespace)
    assert all(name in FEATURES for name, _ in namespace["DEFAULT_WEIGHTS"])


@pytest.mark.parametrize("extra, message", [([], "none.bin: no such model"), (["--l2", "1,x"], "--l2 1,x: not")])
def test_fim_fit_bad_input(tmp_path, extra, message):
    tasks = tmp_path / "t.json"
    tasks.write_text(json.dumps([{"prefix": "a\n", "suffix": "\nb"}]))
    err = io.StringIO()
    with redirect_stderr(err):
        code = fit.main(["--model", str(tmp_path / "none.bin"), "--quiet", *extra, str(tasks)])
    assert code == 2 and err.getvalue().startswith("fim-fit: error: ") and err.getvalue().count("\n") == 1
    assert message in err.getvalue()
