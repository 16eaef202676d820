"""The word ceilings beside a model (lm/native.cpp's write_ceilings) and the ranker's bounds made with them: a
repair's bound must be at least its rescored gain, or the rankings would change."""
import shutil
from array import array

import pytest
from conftest import ROOT, TINY_JAVA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lm.model import LanguageModel, ceilings_path
from parsing.java import tokenize
from parsing.schemes import get_scheme
from ranker.score import Scorer, score_stream

DEFAULT_MODEL = ROOT / ".models" / "default-kind-units-o6.bin"
needs_default = pytest.mark.skipif(not ceilings_path(DEFAULT_MODEL).exists(),
                                   reason="no default model with its ceilings (make demo builds them)")
# real files, small: the tiny corpus's and a few of the shapes CodRep's validation files have
FILES = [*TINY_JAVA.values(),
         "class T {\n\tpublic static void main(String[] args) {\n"
         "\t\tSystem.out.println(\"x\" + args.length);\n\t}\n}\n",
         "import java.util.*;\n"
         "public class U{private Map<String,Integer> m=new HashMap<>();int f(){return m.size();}}\n"]


def streams(scorer: Scorer):
    """Per file: its scored stream (lm._native.Scored) and its symbols' ids (one row per symbol)."""
    out = []
    for text in FILES:
        scored = score_stream(scorer, get_scheme(scorer.scheme), tokenize(text))
        out.append((scored.native, scorer.ids(scored.symbols)))
    return out


@pytest.fixture(params=["tiny", "default"])
def model_scorer(request):
    """A scorer and the files' streams: of a tiny model bin/build-lm builds here (with its ceilings: runs
    everywhere lmplz does), and of the default model where `make demo` built it."""
    if request.param == "default":
        if not ceilings_path(DEFAULT_MODEL).exists():
            pytest.skip("no default model with its ceilings (make demo builds them)")
        model = DEFAULT_MODEL
    else:
        model = request.getfixturevalue("tiny_model")
        assert ceilings_path(model).exists()
    scorer = Scorer(LanguageModel(model))
    return scorer, streams(scorer)


@st.composite
def repairs(draw, n_files: int):
    """A file, and repairs of it: a gap (symbol 2i) changed to any symbol the files have, and perhaps a later
    gap too (as the next newline gap's change)."""
    f = draw(st.integers(0, n_files - 1))
    return f, draw(st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 10 ** 6), st.booleans(),
                                      st.integers(0, 10 ** 6), st.integers(0, 10 ** 6)), min_size=1, max_size=40))


def check_bounds(scorer: Scorer, scored, ids, draws) -> None:
    m = scorer.native.models
    n = len(scored)   # symbols, '</s>' included
    gaps = (n - 1 + 1) // 2   # symbols 0, 2, ..., n - 2 are gaps
    k1, w1, k2, w2 = array("q"), array("I"), array("q"), array("I")
    for g, a, second, g2, b in draws:
        k = 2 * (g % gaps)
        k1.append(k)
        w1.extend(ids[(a % (n - 1)) * m:(a % (n - 1)) * m + m])
        later = [2 * x for x in range(k // 2 + 1, gaps)]
        k2.append(later[g2 % len(later)] if second and later else -1)
        w2.extend(ids[(b % (n - 1)) * m:(b % (n - 1)) * m + m])
    rescorer = scorer.native.rescorer(scored, k1, w1, k2, w2)
    first, bound = rescorer.bounds()
    gain, first_again = rescorer.rescore()
    for i in range(len(k1)):
        assert bound[i] + 1e-9 >= gain[i], (i, k1[i], k2[i], bound[i], gain[i])
        assert first[i] == first_again[i]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=repairs(len(FILES)))
def test_the_bound_is_at_least_the_rescored_gain(model_scorer, data):
    f, draws = data
    scorer, files = model_scorer
    check_bounds(scorer, *files[f], draws)


def test_every_score_is_at_most_its_ceiling(model_scorer):
    """On real files, each symbol's score is at most its word's ceiling after the two words before it."""
    scorer, files = model_scorer
    m = scorer.native.models
    for scored, ids in files:
        scores = scored.scores
        row = lambda t: ids[t * m:(t + 1) * m] if t >= 0 else scorer.ids(["<s>"])
        tight = 0
        for t in range(len(scores)):
            ceiling = scorer.native.ceiling(row(t - 2), row(t - 1), row(t))
            assert scores[t] <= ceiling + 1e-6
            tight += ceiling < 0
        assert tight > len(scores) // 2   # most ceilings are below log10 1: the bound is tighter than 0


@pytest.mark.slow
def test_the_mixtures_bound_is_at_least_its_gain(tiny_model):
    """With a project model mixed in (its ceilings from bin/build-lm too), and with one model's ceilings gone."""
    if not ceilings_path(DEFAULT_MODEL).exists():
        pytest.skip("no default model with its ceilings")
    assert ceilings_path(tiny_model).exists()
    scorer = Scorer(LanguageModel(DEFAULT_MODEL), LanguageModel(tiny_model), weight=0.3)
    for f, (scored, ids) in enumerate(streams(scorer)):
        check_bounds(scorer, scored, ids, [(g, 7 * g + f, g % 3 == 0, g, 11 * g) for g in range(60)])
    ceilings_path(tiny_model).unlink()
    scorer = Scorer(LanguageModel(DEFAULT_MODEL), LanguageModel(tiny_model), weight=0.3)
    for f, (scored, ids) in enumerate(streams(scorer)):
        check_bounds(scorer, scored, ids, [(g, 5 * g + f, g % 2 == 0, g, 3 * g) for g in range(60)])


@pytest.mark.slow
def test_build_writes_the_ceilings_and_another_models_are_ignored(tiny_model, tmp_path):
    """bin/build-lm writes the ceilings beside the model; another model's (a stale file: another size, or
    another vocabulary) is not used: every ceiling is log10 1 = 0 then."""
    data = ceilings_path(tiny_model).read_bytes()
    head = data.split(b"\n", 1)[0].decode()
    assert head == f"# unnatural word ceilings 2, model bytes {tiny_model.stat().st_size}"
    scorer = Scorer(LanguageModel(tiny_model))
    ids = scorer.ids(["ID", "(", ")"])
    assert scorer.native.ceiling(ids[0:1], ids[1:2], ids[2:3]) < 0
    other = tmp_path / "other.bin"
    shutil.copy(tiny_model, other)
    shutil.copy(tiny_model.with_name("tiny.bin.json"), other.with_name("other.bin.json"))
    ceilings_path(other).write_bytes(data)
    assert Scorer(LanguageModel(other)).native.ceiling(ids[0:1], ids[1:2], ids[2:3]) < 0   # the same model
    ceilings_path(other).write_bytes(data.replace(b"model bytes ", b"model bytes 1", 1))
    assert Scorer(LanguageModel(other)).native.ceiling(ids[0:1], ids[1:2], ids[2:3]) == 0
    ceilings_path(other).write_bytes(data.replace(b"ID", b"XY"))   # a word the model does not know
    assert Scorer(LanguageModel(other)).native.ceiling(ids[0:1], ids[1:2], ids[2:3]) == 0
    ceilings_path(other).write_bytes(data[:-3])   # cut short
    assert Scorer(LanguageModel(other)).native.ceiling(ids[0:1], ids[1:2], ids[2:3]) == 0
