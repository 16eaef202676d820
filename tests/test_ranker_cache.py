import math
import re
from array import array

import pytest

from lm.model import LanguageModel
from parsing.java import tokenize
from parsing.offsets import line_col
from parsing.schemes import get_scheme
from ranker._native import StyleCache
from ranker.symbols import symbol_ids
from ranker.cache import StyleCounts
from ranker.explain import show_gap
from ranker.folder import folder_style
from ranker.score import Scorer, score_stream

from conftest import TINY_JAVA, run_rank

KIND = get_scheme("kind")


def syms(text):
    return KIND.symbols(tokenize(text))


def test_cache_leaves_the_observed_gap_out():
    # three calls written f( x ) and one f(x): the odd one gets no support from itself
    text = "class A { void g() { f( x ); f( x ); f( x ); f(x); } }"
    s = syms(text)
    cache = StyleCache(symbol_ids(s))
    gaps = [k // 2 for k in range(2, len(s) - 1, 2) if (s[k - 1], s[k + 1]) == ("(", "ID")]
    assert len(gaps) == 4
    lm_p = math.log10(0.01)
    odd, usual = gaps[-1], gaps[0]
    adapted = cache.adapted(array("q", [odd, odd, usual]), symbol_ids(["·", "·s1", "·s1"]), array("d", [lm_p] * 3), 1.0)
    # for the odd gap: P(observed '·') = (0 + a p) / (3 + a); P('·s1') = (3 + a p) / (3 + a);
    # for a usual gap, the other two f( x ) and the one f(x) count
    assert [10 ** a for a in adapted] == pytest.approx([0.01 / 4, 3.01 / 4, 2.01 / 4])


def test_folder_counts_add_evidence_and_strict_drops_near_duplicates(tmp_path):
    a = "class A { void g() { f(x); } }"
    a_copy = "class A {  void g() { f(x); } }"   # a near-duplicate of a (whitespace only)
    b = "class B { void h() { f( x ); } }"
    paths = []
    for name, text in (("a.java", a), ("a2.java", a_copy), ("b.java", b)):
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    loose = folder_style(paths, KIND, strict=False)(paths[0])
    strict = folder_style(paths, KIND, strict=True)(paths[0])
    ctx = ("(", "ID")
    # loose: the folder minus a itself = a_copy + b (a's own counts: StyleCache counts the file itself);
    # strict: minus a and a_copy = b only
    assert loose.exclude is None
    own = StyleCounts([KIND.symbols(tokenize(a))], wide=True)
    assert loose.folder.count(ctx, "·") - own.count(ctx, "·") == 1
    assert strict.folder.count(ctx, "·") - strict.exclude.count(ctx, "·") == 0
    assert strict.folder.count(ctx, "·s1") - strict.exclude.count(ctx, "·s1") == 1


@pytest.mark.parametrize("gap, shown", [("", "∅"), (" ", "␣"), ("\n\t  ", "↵⇥␣␣"), ("\r\n", "␍↵")])
def test_show_gap(gap, shown):
    assert show_gap(gap) == shown


@pytest.mark.parametrize("text, offset, expected", [
    ("abc", 1, (1, 1)), ("abc\ndef", 5, (2, 1)), ("abc\ndef", 7, (2, 3)), ("ä\nö", 3, (2, 1)),
    # as editors count: CRLF and a lone CR are one line break each, a BOM is no column
    ("ab\r\ncd", 5, (2, 1)), ("ab\r\ncd", 3, (1, 3)), ("ab\r\ncd", 4, (1, 4)), ("ab\rcd\re", 7, (3, 1)),
    ("ab\rcd", 4, (2, 1)), ("a\r\rb", 4, (3, 1)), ("\ufeffab\ncd", 3, (1, 2)), ("\ufeffab\ncd", 5, (2, 1)),
    ("\ufeffab", 1, (1, 1)),
])
def test_line_col(text, offset, expected):
    assert line_col(text, offset) == expected


@pytest.mark.slow
def test_project_mixture_is_the_interpolated_probability(tiny_model, tmp_path, lmplz_available):
    from lm.build import BuildConfig, build
    proj_dir = tmp_path / "proj"
    proj_dir.mkdir()
    (proj_dir / "P.java").write_text("class P {\n\tint y;\n}\n")
    proj = tmp_path / "proj.bin"
    build(BuildConfig((str(proj_dir),), order=3, output=proj), progress=False)
    g, p = LanguageModel(tiny_model), LanguageModel(proj)
    stream = tokenize("class P {\n\tint y;\n}\n")
    mixed = score_stream(Scorer(g, p, 0.25), KIND, stream).scores.tolist()
    symbols = KIND.symbols(stream)
    expected = [math.log10(0.75 * 10 ** a + 0.25 * 10 ** b)
                for a, b in zip(g.symbol_scores(symbols), p.symbol_scores(symbols))]
    assert mixed == pytest.approx(expected) and len(mixed) == len(symbols) + 1



@pytest.mark.slow
def test_explain_reports_like_a_linter(tiny_model, tmp_path):
    f = tmp_path / "x.java"
    f.write_text(TINY_JAVA["A.java"].replace("int x = 1;", "int x  = 1;"))
    code, out, err = run_rank(["--model", str(tiny_model), "--explain", "--top", "2", str(f)])
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2
    assert lines[0] == f"{f}:4:11: '␣␣' -> '␣' ({float(lines[0].rsplit('(')[1][:-1]):.2f})"
    assert all(re.fullmatch(rf"{re.escape(str(f))}:\d+:\d+: '\S+' -> '\S+' \(-?\d+\.\d\d\)", l) for l in lines)
    assert "adapt:file" in err


@pytest.mark.slow
@pytest.mark.parametrize("adapt", ["none", "file", "folder", "folder-strict"])
def test_every_adaptation_gives_a_full_ranking(tiny_model, tmp_path, adapt):
    texts = [text.replace(" {\n", "  {\n", 1) for text in TINY_JAVA.values()]
    for i, text in enumerate(texts):
        (tmp_path / f"{i}.txt").write_text(text)
    (tmp_path / "out.txt").write_text("1\n1\n1\n")
    code, out, err = run_rank(["--model", str(tiny_model), "--adapt", adapt, "--workers", "1", str(tmp_path)])
    assert code == 0 and len(out.splitlines()) == 3
    for line, text in zip(out.splitlines(), texts):
        offsets = [int(x) for x in line.split()[1:]]
        assert sorted(offsets) == list(range(1, len(text) + 1))
        assert offsets[0] == text.index("  {\n") + 2    # the inserted space is found
