import math
import pickle
import re
from array import array

import numpy as np
import pytest
from conftest import TINY_JAVA, data_path, run_rank, stream_counts
from hypothesis import given, settings
from hypothesis import strategies as st

from lm.model import LanguageModel
from parsing.java import tokenize
from parsing.offsets import line_col
from parsing.schemes import get_scheme
from ranker._native import StyleCache
from ranker.cache import REACHES, evidence, folder_cache
from ranker.counts import Counts
from ranker.explain import show_gap
from ranker.folder import folder_style
from ranker.score import Scorer, score_stream
from ranker.symbols import symbol_ids

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


@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_adapted_scores_asked_again_are_the_formulas_bit_for_bit(alpha):
    """StyleCache.adapted remembers its results for the process (keyed by score, alpha and evidence): asked
    again, and for the same evidence with another score or alpha, each answer is still the formula's."""
    text = "class A { void g() { f( x ); f( x ); f( x ); f(x); } }"
    s = syms(text)
    cache = StyleCache(symbol_ids(s))
    gaps = [k // 2 for k in range(2, len(s) - 1, 2) if (s[k - 1], s[k + 1]) == ("(", "ID")]
    odd, usual = gaps[-1], gaps[0]
    for lm in (math.log10(0.01), math.log10(0.02)):
        for _ in range(2):
            got = cache.adapted(array("q", [odd, usual]), symbol_ids(["·s1", "·s1"]), array("d", [lm, lm]), alpha)
            p = 10 ** lm
            assert list(got) == [math.log10((3 + alpha * p) / (3 + alpha)), math.log10((2 + alpha * p) / (3 + alpha))]


def wide(text, before, after, reach):
    """The wide context (`reach` tokens a side) of the first gap between token symbols `before` and `after`."""
    s = syms(text)
    k = next(k for k in range(2, len(s) - 1, 2) if (s[k - 1], s[k + 1]) == (before, after))
    return tuple(s[j] if 0 <= j < len(s) else "|" for j in range(k - 2 * reach + 1, k + 2 * reach, 2))


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
    own_a = stream_counts([syms(a)])
    for reach in REACHES:
        ctx = wide(a, "(", "ID", reach)
        assert ctx == wide(b, "(", "ID", reach)   # the same construct, written apart in b
        assert loose.folder.count(ctx, "·") == 2 and loose.folder.count(ctx, "·s1") == 1
        # loose: the folder minus a itself (folder_cache counts it: exclude None) = a_copy + b; strict: minus a
        # and a_copy = b only
        assert loose.exclude is None
        assert loose.folder.count(ctx, "·") - own_a.count(ctx, "·") == 1
        assert strict.folder.count(ctx, "·") - strict.exclude.count(ctx, "·") == 0
        assert strict.folder.count(ctx, "·s1") - strict.exclude.count(ctx, "·s1") == 1
    # the narrow context is the file's own business: the folder does not count it
    with pytest.raises(ValueError):
        loose.folder.count(("(", "ID"), "·")


def test_shared_folder_counts_drop_only_contexts_seen_once():
    """A context seen once in the whole folder is only ever the gap under test's own (left out of its
    evidence): dropping it changes no evidence, with the file itself excluded as folder_cache does by default."""
    texts = ["class A { void g() { f( x ); } int y; }", "class B { void g() { f( x ); } long z; }",
             "class C { void g() { f(x); } }"]
    full, shared = stream_counts([syms(t) for t in texts]), stream_counts([syms(t) for t in texts], shared=True)
    assert sum(len(k) for k, _ in shared.wide) < sum(len(k) for k, _ in full.wide)
    ctx = wide(texts[0], "(", "ID", REACHES[0])
    assert shared.count(ctx, "·s1") == full.count(ctx, "·s1") == 2
    ctx = wide(texts[0], "ID", ";", REACHES[-1])   # 'int y;' only A has
    assert full.count(ctx, "·") == 1 and shared.count(ctx, "·") == 0
    for text in texts:
        s = syms(text)
        gaps = np.arange(len(s) // 2)
        for symbol in ("·", "·s1", "∅"):
            ids = symbol_ids([symbol] * len(gaps))
            expected = evidence(folder_cache(symbol_ids(s), full, stream_counts([s])), gaps, ids)
            got = evidence(folder_cache(symbol_ids(s), shared, None), gaps, ids)
            assert all(np.array_equal(e, g) for e, g in zip(expected, got))


def test_a_file_with_a_bom_is_learned_as_it_is_ranked(tmp_path):
    """rank_text ranks a file without its BOM, and takes that text's counts off the folder's: the folder
    learns it without the BOM too, so that nothing of the file is left in its own evidence."""
    texts = ["\ufeffclass A { void g() { f( x ); } }", "class B { void g() { f( x ); } }"]
    paths = []
    for i, text in enumerate(texts):
        (tmp_path / f"{i}.java").write_text(text)
        paths.append(str(tmp_path / f"{i}.java"))
    style = folder_style(paths, KIND, strict=False)(paths[0])
    s = syms(texts[0][1:])
    gaps = np.arange((len(s) + 1) // 2)
    ids = symbol_ids(s[0::2])
    got = evidence(folder_cache(symbol_ids(s), style.folder, style.exclude), gaps, ids)
    expected = evidence(folder_cache(symbol_ids(s), stream_counts([syms(texts[1])]), Counts.empty()),
                        gaps, ids)
    assert all(np.array_equal(g, e) for g, e in zip(got, expected))


def test_folder_counts_are_the_prior_of_the_files_own(tmp_path):
    """Level by level: the folder's wide counts (the file itself left out) move the n-gram probability,
    widest context last, then the file's own narrow counts (its observed gap left out) move that."""
    import reference_ranker
    texts = ["class A { void g() { f( x ); } void k() { f( x ); } void m() { f( x ); } }",
             "class B { void g() { f( x ); } }",
             "class C { void g() { f(x); } void k() { f(x); } void m() { f(x); } }"]
    paths = []
    for i, text in enumerate(texts):
        (tmp_path / f"{i}.java").write_text(text)
        paths.append(str(tmp_path / f"{i}.java"))
    style = folder_style(paths, KIND, strict=False)(paths[2])
    s = syms(texts[2])
    others = reference_ranker.StyleCounts([syms(t) for t in texts[:2]], wide=True)
    probes = symbol_ids(["·", "·s1"])   # interned before the cache: it takes every symbol's hash then
    cache = folder_cache(symbol_ids(s), style.folder, style.exclude)
    k = [k for k in range(2, len(s) - 1, 2) if (s[k - 1], s[k + 1]) == ("(", "ID")][-1]   # the last f(x)
    p = 0.01
    adapted = np.asarray(cache.adapted(np.array([k // 2] * 2), probes, np.full(2, math.log10(p)), 1.0))
    expected = []
    for symbol, own in (("·", 2), ("·s1", 0)):    # the file's other two f(x) write '·'
        q = p
        seen = []
        for ctx in others.contexts(s, k):
            seen.append(others.count(ctx, symbol))
            q = (seen[-1] + q) / (others.totals[ctx] + 1)
        expected.append((own + q) / (2 + 1))
        # the other files write f( x ): all four in the last f(x)'s 4-token context, the last call of each
        # file in its 6-token one (the file ends after it), only A's last in its 8-token one
        assert REACHES == (4, 6, 8)
        assert seen == ([0, 0, 0] if symbol == "·" else [4, 2, 1])
    assert (10 ** adapted).tolist() == pytest.approx(expected)


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
    # a space added to a space is not one of CodRep 2019's kinds of error: '--edits any' ranks it by its gain
    code, out, err = run_rank(["--model", str(tiny_model), "--edits", "any", "--explain", "--top", "2", str(f)])
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2
    assert lines[0].startswith(f"{f}:4:11: '␣␣' -> '␣' (")
    assert all(re.fullmatch(rf"{re.escape(str(f))}:\d+:\d+: '\S+' -> '\S+' \(-?\d+\.\d\d, gain -?\d+\.\d\d\)", l)
               for l in lines)
    assert "adapt:file" in err and "edits:any" in err and "score:gain-0.5xbackground" in err


@pytest.mark.slow
@pytest.mark.parametrize("adapt", ["none", "file", "folder", "folder-strict"])
def test_every_adaptation_gives_a_full_ranking(tiny_model, tmp_path, adapt):
    texts = [text.replace(" {\n", " \t{\n", 1) for text in TINY_JAVA.values()]
    for i, text in enumerate(texts):
        (tmp_path / f"{i}.txt").write_text(text)
    (tmp_path / "out.txt").write_text("1\n1\n1\n")
    code, out, err = run_rank(["--model", str(tiny_model), "--adapt", adapt, "--workers", "1", str(tmp_path)])
    assert code == 0 and len(out.splitlines()) == 3
    for line, text in zip(out.splitlines(), texts):
        offsets = [int(x) for x in line.split()[1:]]
        assert sorted(offsets) == list(range(1, len(text) + 1))
        assert offsets[0] == text.index("\t{\n") + 1    # the inserted tab is found


def wide_contexts_numpy(ids):
    """ranker/cache.py's wide_contexts as it was written with numpy, before the folder's and the file's
    contexts shared ranker/native.cpp's."""
    from ranker.cache import _SYMBOL_PART, symbol_hashes
    from ranker.symbols import PAD
    tokens = symbol_hashes(np.asarray(ids, dtype=np.int64)[1::2])
    pad = symbol_hashes(np.array([PAD]))[0]
    out = []
    with np.errstate(over="ignore"):
        for reach in REACHES:
            padded = np.concatenate((np.full(reach, pad), tokens, np.full(reach, pad)))
            h = np.full(len(tokens) + 1, np.uint64(reach))
            for j in range(2 * reach):
                h = h * np.uint64(0x9E3779B97F4A7C15) + padded[j:j + len(tokens) + 1]
            out.append((h & ~_SYMBOL_PART).view(np.int64))
    return out


@pytest.mark.parametrize("text", ["", "x", "class A {}", "class A { int x; }", *TINY_JAVA.values()])
def test_wide_contexts_are_the_numpy_ones(text):
    from ranker.cache import wide_contexts
    ids = symbol_ids(syms(text))
    for fast, plain in zip(wide_contexts(ids), wide_contexts_numpy(ids), strict=True):
        assert fast.tolist() == plain.tolist() and len(fast) == len(ids) // 2 + 1


def test_wide_contexts_are_the_numpy_ones_on_real_files():
    from ranker.cache import wide_contexts
    folder = data_path("codrep2019", "validation")
    for n in range(0, 1000, 50):   # 20 files, of the split's different base files
        ids = symbol_ids(get_scheme("kind-units").symbols(tokenize((folder / f"{n}.txt").read_text())))
        assert [a.tolist() for a in wide_contexts(ids)] == [a.tolist() for a in wide_contexts_numpy(ids)]


def test_the_narrow_counts_count_each_gap_between_its_two_tokens():
    """bin/check's narrow counts (ranker/cache.py narrow_keys): the gap symbol between the token before it and
    the one after it, over every stream added, whatever the wider context."""
    from ranker.cache import narrow_key
    a = syms("class A { int x = 1 ; int y = 2; }")
    b = syms("class B { void f() { g(x = 3 ;); } }")
    counts = stream_counts([a, b])
    assert counts.narrow_count(narrow_key("NUM", "·s1", ";")) == 2
    assert counts.narrow_count(narrow_key("NUM", "·", ";")) == 1
    assert counts.narrow_count(narrow_key("ID", "·s1", "=")) == 3
    assert counts.narrow_count(narrow_key("|", "·", "class")) == 2   # the file's first gap: '|' before it
    assert counts.narrow_count(narrow_key("NUM", "·s2", ";")) == 0
    # pickled (bin/rank --cluster) with the rest
    assert pickle.loads(pickle.dumps(counts)).narrow_count(narrow_key("ID", "·s1", "=")) == 3


def _evidence_by_hand(ids, table, gaps, symbols):
    """The folder levels' (count, total) of StyleCache.evidence, from the table (keys, counts) of every level,
    with the file's own keys taken off: numpy, key by key."""
    from ranker.cache import _wide_keys, symbol_hashes, wide_contexts
    keys, counts = table
    total_of = {}
    for k, c in zip(keys.tolist(), counts.tolist()):
        total_of[k >> 24] = total_of.get(k >> 24, 0) + c
    count_of = dict(zip(keys.tolist(), counts.tolist()))
    out_counts, out_totals = [], []
    for contexts in wide_contexts(ids):
        own = _wide_keys(contexts, symbol_hashes(ids[0::2])).tolist()
        own_keys = {k: own.count(k) for k in own}
        own_totals = {}
        for k in own:
            own_totals[k >> 24] = own_totals.get(k >> 24, 0) + 1
        asked = _wide_keys(contexts[gaps], symbol_hashes(symbols)).tolist()
        level_totals = [max(total_of.get(k >> 24, 0) - own_totals.get(k >> 24, 0), 0) for k in asked]
        out_totals.append(level_totals)
        out_counts.append([max(count_of.get(k, 0) - own_keys.get(k, 0), 0) if t > 0 else 0
                           for k, t in zip(asked, level_totals)])
    return np.array(out_counts).T, np.array(out_totals).T


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(["even", "clustered", "few"]))
def test_folder_evidence_is_the_tables_whatever_their_size_and_spread(seed, spread):
    """The style cache searches a long table from where an even spread of its keys would put a key: the
    evidence is the table's, for tables of hashed keys, of keys bunched in a few places, and short ones."""
    from ranker.cache import _wide_keys, all_symbol_hashes, symbol_hashes, wide_contexts
    rng = np.random.default_rng(seed)
    s = syms(TINY_JAVA[sorted(TINY_JAVA)[seed % len(TINY_JAVA)]])
    ids = np.asarray(symbol_ids(s), dtype=np.int64)
    repairs = np.asarray(symbol_ids(["·", "·s1", "·s2"]), dtype=np.int64)
    own = [k for c in wide_contexts(ids) for k in _wide_keys(c, symbol_hashes(ids[0::2])).tolist()]
    mine = own + [k & ~0xFFFFFF | int(h) & 0xFFFFFF for k in own[::3] for h in symbol_hashes(repairs)]
    if spread == "even":
        filler = rng.integers(-2**63, 2**63 - 1, 5000, dtype=np.int64)
    elif spread == "clustered":   # most keys bunched around a few points, far from an even spread
        centres = rng.integers(-2**62, 2**62, 3, dtype=np.int64)
        filler = (centres[rng.integers(0, 3, 5000)] + rng.integers(0, 2**30, 5000, dtype=np.int64)).astype(np.int64)
    else:
        filler = rng.integers(-2**63, 2**63 - 1, 20, dtype=np.int64)
    keys, counts = np.unique(np.concatenate([np.array(mine, np.int64), filler]), return_counts=True)
    counts = counts + rng.integers(0, 4, len(counts))
    table = (keys, counts.astype(np.int64))
    cache = StyleCache(ids, all_symbol_hashes().view(np.int64), list(REACHES), [table] * len(REACHES), None)
    gaps = np.repeat(np.arange(len(ids) // 2 + 1), len(repairs))
    symbols = np.tile(repairs, len(ids) // 2 + 1)
    got_counts, got_totals = evidence(cache, gaps, symbols)
    want_counts, want_totals = _evidence_by_hand(ids, table, gaps, symbols)
    assert np.array_equal(got_counts[:, :len(REACHES)], want_counts)
    assert np.array_equal(got_totals[:, :len(REACHES)], want_totals)
