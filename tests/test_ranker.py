import os
import time
from array import array

import pytest
from conftest import TINY_JAVA, run_rank
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_ranker import edit_offset

from lm.model import LanguageModel
from parsing.java import tokenize
from parsing.schemes import get_scheme
from ranker.rank import CHUNK_ROWS, rank_text, top_candidates
from ranker.repairs import FIRST, LAST, NEXT, gap_edits
from ranker.score import Scorer, score_stream


@pytest.mark.parametrize("gap, expected", [
    ("", {(" ", NEXT), ("\t", NEXT), ("\n", NEXT)}),
    ("  ", {(" ", LAST), ("\t ", FIRST), ("\n ", FIRST), (" \t", LAST), (" \n", LAST), ("   ", FIRST),
            ("\t  ", FIRST), ("\n  ", FIRST), ("   ", NEXT), ("  \t", NEXT), ("  \n", NEXT)}),
    (" ", {("", FIRST), ("\t", FIRST), ("\n", FIRST), ("  ", FIRST), ("\t ", FIRST), ("\n ", FIRST),
           ("  ", NEXT), (" \t", NEXT), (" \n", NEXT)}),
])
def test_gap_edits(gap, expected):
    assert set(gap_edits(gap)) == expected


def test_gap_edits_cover_first_and_last_character():
    edits = set(gap_edits("\n    "))
    assert ("    ", FIRST) in edits        # a newline was inserted
    assert ("\n   ", LAST) in edits         # a space was inserted before the token
    assert ("\n   \t", LAST) in edits       # a tab replaced a space
    assert ("\n    \n", NEXT) in edits      # a newline was deleted


@pytest.mark.parametrize("where, start, end, offset", [
    (FIRST, 10, 13, 11), (LAST, 10, 13, 13), (NEXT, 10, 13, 14), (FIRST, 10, 10, 11), (NEXT, 10, 10, 11),
])
def test_edit_offsets(where, start, end, offset):
    assert edit_offset(where, start, end) == offset


@pytest.mark.slow
@pytest.mark.parametrize("text, gap_text, repaired", [
    (TINY_JAVA["A.java"], " ", ""),                   # delete a space
    (TINY_JAVA["A.java"], "\n    ", "\n     "),       # deeper indentation changes the next newline gap
    (TINY_JAVA["B.java"], "\n        ", "        "),   # a newline deleted
    (TINY_JAVA["C.java"], "\n\n", "\n\n "),
])
@pytest.mark.parametrize("scheme_name", ["kind-units", "kind"])
def test_windowed_rescoring_equals_full_rescoring(tiny_corpus, lmplz_available, tmp_path, text, gap_text, repaired,
                                                  scheme_name):
    from parsing.schemes import walk
    lm = LanguageModel(model_for(scheme_name, tiny_corpus, tmp_path))
    scheme = get_scheme(scheme_name)
    scorer = Scorer(lm)
    stream = tokenize(text)
    scored = score_stream(scorer, scheme, stream)
    nxt = scored.next_newline_gap
    checked = 0
    for i in range(len(stream) + 1):
        if stream.gap_text(i) != gap_text:
            continue
        # the repair as the ranker plans it: its row in the plan table
        next_gap = stream.gap_text(nxt[i]) if nxt[i] >= 0 else None
        plan, = scorer.plans.plans([gap_text], [scored.indents[i]], [next_gap], scored.unit)
        table = scorer.plans.table
        row, = [r for r in range(table.start(plan), table.start(plan) + table.count(plan))
                if scorer.plans.repaired[r] == repaired]
        rows = array("q", [row])
        k2 = 2 * nxt[i] if table.column("second", rows)[0] else -1
        delta, first = scorer.rescore(scored, [2 * i], table.column("w1", rows), [k2], table.column("w2", rows))
        # the ranker keeps tokens fixed (a deleted separator does not merge them): so does this check
        # ... and keeps the file's indentation unit
        symbols = lambda st: walk(st, scheme.token_symbol, scored.unit)[0]
        full = lm.score(symbols(stream.with_gap(i, repaired))) - lm.score(symbols(stream))
        assert delta[0] == pytest.approx(full, abs=1e-4)
        checked += 1
    assert checked


BROKEN = [  # the tiny files with one formatting error each, of every kind
    TINY_JAVA["A.java"].replace("int x = 1;", "int x  = 1;"),
    TINY_JAVA["A.java"].replace("a + b", "a +b"),
    TINY_JAVA["B.java"].replace("    int g", "\tint g"),
    TINY_JAVA["B.java"].replace("        return", "         return"),
    TINY_JAVA["C.java"].replace("import java.util.List;\n", "import java.util.List;\n\n"),
    TINY_JAVA["C.java"].replace("names.add(\"c\");\n        }", "names.add(\"c\");        }"),
    "class Ü { String s = \"ä\";  }\r\n",
    # line endings: a lone-CR file, a CRLF file with one LF (ranker/habits.py's fourth variable)
    TINY_JAVA["A.java"].replace("\n", "\r").replace("int x = 1;", "int x = 1 ;"),
    TINY_JAVA["B.java"].replace("\n", "\r\n").replace("{\r\n", "{\n", 1),
    # what ranker/habits.py scores: trailing whitespace, whitespace on a blank line, mixed indentation
    TINY_JAVA["B.java"].replace("{\n", "{ \n", 1).replace("\n\n", "\n    \n", 1).replace("        for", "    \tfor"),
    TINY_JAVA["A.java"].replace("    ", "\t").replace("x = 1;", "x = 1;\t").replace("\t\t\t", "\t  \t"),
]


def model_for(scheme_name, tiny_corpus, tmp_path):
    """The tiny corpus's model in the scheme asked for (the tiny_model fixture has the default one)."""
    from lm.build import BuildConfig, build
    out = tmp_path / f"tiny-{scheme_name}.bin"
    build(BuildConfig((str(tiny_corpus),), order=4, scheme=scheme_name, output=out), progress=False)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("scheme_name", ["kind-units", "kind"])
@pytest.mark.parametrize("adapt", [False, True])
@pytest.mark.parametrize("project_weight", [0.0, 0.3])
def test_rankings_equal_the_plain_python_ranker(tiny_corpus, lmplz_available, tmp_path, adapt, project_weight,
                                                scheme_name):
    """The fast ranker (plan table, compiled rescoring, numpy style cache and habits) against the plain
    one (tests/reference_ranker.py): the same candidates, order and scores, to the last bit."""
    import reference_ranker

    from lm.build import BuildConfig, build
    general = LanguageModel(model_for(scheme_name, tiny_corpus, tmp_path))
    project = None
    if project_weight:
        (tmp_path / "proj").mkdir()
        (tmp_path / "proj" / "P.java").write_text("class P {\n\tint y = 2;\n\tvoid f() {\n\t}\n}\n")
        build(BuildConfig((str(tmp_path / "proj"),), order=3, scheme=scheme_name, output=tmp_path / "p.bin"),
              progress=False)
        project = LanguageModel(tmp_path / "p.bin")
    scorer = Scorer(general, project, project_weight)
    scheme = get_scheme(scheme_name)
    for text in BROKEN:
        ranked = rank_text(scorer, scheme, text, "t", adapt=adapt)
        before = reference_ranker.rank(scheme, text, general, project, project_weight, adapt=adapt)
        assert ranked.candidates.tolist() == [o for o, _ in before]
        assert ranked.scores.tolist() == [s for _, s in before]


@pytest.mark.slow
@pytest.mark.parametrize("scheme_name", ["kind-units", "kind"])
@pytest.mark.parametrize("adapt", [False, True])
def test_rankings_do_not_depend_on_the_chunk_size(tiny_corpus, lmplz_available, tmp_path, adapt, scheme_name):
    """Repairs are scored a chunk of gaps at a time (bounded memory): any chunk size ranks alike, bit for bit."""
    scorer = Scorer(LanguageModel(model_for(scheme_name, tiny_corpus, tmp_path)))
    scheme = get_scheme(scheme_name)
    for text in BROKEN:
        whole = rank_text(scorer, scheme, text, "t", adapt=adapt)
        for chunk_rows in (1, 7, 50):
            chunked = rank_text(scorer, scheme, text, "t", adapt=adapt, chunk_rows=chunk_rows)
            for column in ("candidates", "scores", "gaps", "observed", "repaired"):
                assert list(getattr(chunked, column)) == list(getattr(whole, column))


@pytest.mark.slow
@pytest.mark.parametrize("scheme_name", ["kind-units", "kind"])
def test_top_and_least_are_the_full_rankings_head(tiny_corpus, lmplz_available, tmp_path, scheme_name):
    """Repairs whose bound cannot reach what is asked are not rescored in full, yet the top K and the
    offsets whose gain reaches `least` are exactly the full ranking's (offsets, scores and repairs), whatever
    the chunk size; anything more given is exact too."""
    scorer = Scorer(LanguageModel(model_for(scheme_name, tiny_corpus, tmp_path)))
    scheme = get_scheme(scheme_name)
    texts = sorted(TINY_JAVA.values()) + BROKEN

    @settings(max_examples=80, deadline=None)
    @given(st.sampled_from(texts), st.integers(0, 10 ** 6), st.sampled_from(["", " ", "\t", "\n", "  \n"]),
           st.integers(1, 12), st.floats(-8, 3), st.booleans(), st.sampled_from([5, 60, CHUNK_ROWS]))
    def check(text, at, insert, top, least, adapt, chunk_rows):
        at %= len(text) + 1
        text = text[:at] + insert + text[at:]
        full = rank_text(scorer, scheme, text, "t", adapt=adapt)
        assert full.complete
        pairs = list(zip(full.candidates, full.scores, full.gaps, full.rows))
        best = rank_text(scorer, scheme, text, "t", adapt=adapt, chunk_rows=chunk_rows, top=top)
        got = list(zip(best.candidates, best.scores, best.gaps, best.rows))
        assert got == pairs[:len(got)] and len(got) >= min(top, len(pairs))
        assert best.line(top) == full.line(top)
        reaching = rank_text(scorer, scheme, text, "t", adapt=adapt, chunk_rows=chunk_rows, least=least)
        assert list(zip(reaching.candidates, reaching.scores, reaching.gaps, reaching.rows)) == \
            [p for p in pairs if p[1] >= least]
        assert reaching.complete == all(p[1] >= least for p in pairs)
        assert top_candidates(scorer, scheme, text, "t", top, adapt) == full.exact_best(text, top)
    check()


@pytest.mark.slow
def test_an_incomplete_ranking_prints_only_its_top(tiny_model):
    """A ranking asked for its top K prints at most K offsets; asking it for more is a mistake, not a
    wrong line."""
    scorer = Scorer(LanguageModel(tiny_model))
    text = BROKEN[0]
    best = rank_text(scorer, get_scheme("kind-units"), text, "t", top=2)
    assert not best.complete and len(best.line(2).split()) == 3
    with pytest.raises(ValueError, match="only the best"):
        best.line()
    with pytest.raises(ValueError, match="only the best"):
        best.offsets()


@pytest.mark.slow
@pytest.mark.parametrize("scheme_name", ["kind-units", "kind"])
def test_folder_rankings_equal_the_plain_python_ranker(tiny_corpus, lmplz_available, tmp_path, scheme_name):
    import reference_ranker

    from ranker.folder import folder_style
    scheme = get_scheme(scheme_name)
    tiny_model = model_for(scheme_name, tiny_corpus, tmp_path)
    paths = []
    for i, text in enumerate(BROKEN):
        paths.append(tmp_path / f"{i}.java")
        paths[-1].write_text(text, newline="")
    styles = folder_style([str(p) for p in paths], scheme, strict=False)
    folder = reference_ranker.StyleCounts([scheme.symbols(tokenize(t)) for t in BROKEN], wide=True)
    lm = LanguageModel(tiny_model)
    for path, text in zip(paths, BROKEN):
        ranked = rank_text(Scorer(lm), scheme, text, str(path), style=styles(str(path)))
        own = reference_ranker.StyleCounts([scheme.symbols(tokenize(text))], wide=True)
        others = [reference_ranker.Habits(tokenize(t).gap_texts, scheme.unit(tokenize(t))).counts
                  for t in BROKEN if t is not text]
        folder_habits = [[sum(c[j][v] for c in others) for v in range(len(reference_ranker.PRIORS[j]))]
                         for j in range(len(reference_ranker.PRIORS))]
        before = reference_ranker.rank(scheme, text, lm, folder=folder, exclude=own, folder_habits=folder_habits)
        assert ranked.candidates.tolist() == [o for o, _ in before]
        assert ranked.scores.tolist() == [s for _, s in before]


@pytest.mark.slow
@pytest.mark.parametrize("clean, broken, answer_of, edits", [
    # a space added to a space: not one of CodRep 2019's kinds of error, found by its gain alone
    ("int x = 1;", "int x  = 1;", lambda b: b.index("x  =") + 3, "any"),   # inserted space -> its offset
    ("x = a + b;", "x = a +b;", lambda b: b.index("+b") + 2, "codrep2019"),   # deleted space -> next token
    ("        }\n    }", "        }\n    \t}", lambda b: b.index("\t") + 1, "codrep2019"),   # tab before a token
])
def test_injected_error_is_ranked_first(tiny_model, clean, broken, answer_of, edits):
    text = TINY_JAVA["A.java"].replace(clean, broken)
    assert text != TINY_JAVA["A.java"]
    ranked = rank_text(Scorer(LanguageModel(tiny_model), edits=edits), get_scheme("kind"), text, "t", adapt=False)
    offsets = ranked.offsets().tolist()
    assert sorted(offsets) == list(range(1, len(text) + 1))   # a full ranking of 1..n
    assert offsets[0] == answer_of(text)



@pytest.mark.slow
def test_rank_cli_bad_inputs_continue(tmp_path, tiny_model):
    tmp_path = tmp_path / "inputs"
    tmp_path.mkdir()
    good = tmp_path / "good.java"
    good.write_text(TINY_JAVA["A.java"])
    (tmp_path / "empty.java").write_text("")
    (tmp_path / "latin1.java").write_bytes("class Å {}".encode("latin-1"))
    (tmp_path / "junk.java").write_bytes(b"\x00\x01\x02binary")
    (tmp_path / "bom.java").write_bytes(b"\xef\xbb\xbfclass A {}\n")
    code, out, err = run_rank(["--model", str(tiny_model), "--workers", "2", str(tmp_path), str(tmp_path / "nope")])
    assert code == 1   # inputs skipped, each named: the others are ranked
    lines = out.splitlines()
    assert [l.split()[0] for l in lines] == sorted(str(p) for p in [good, tmp_path / "empty.java",
                                                                    tmp_path / "bom.java"])
    assert lines[[l.split()[0] for l in lines].index(str(tmp_path / "empty.java"))] == str(tmp_path / "empty.java")
    assert "latin1.java: not UTF-8" in err and "junk.java: binary file" in err and "nope: no such file" in err
    assert "bom.java: starts with a UTF-8 BOM" in err


@pytest.mark.slow
def test_rank_output_is_the_same_for_any_worker_count(tmp_path, tiny_model):
    tmp_path = tmp_path / "tasks"
    tmp_path.mkdir()
    for i, text in enumerate(TINY_JAVA.values()):
        (tmp_path / f"{i}.txt").write_text(text.replace(" = ", "  = ", 1))
    (tmp_path / "out.txt").write_text("1\n1\n1\n")
    one = run_rank(["--model", str(tiny_model), "--workers", "1", str(tmp_path)])
    two = run_rank(["--model", str(tiny_model), "--workers", "2", str(tmp_path)])
    assert one[1] == two[1] and one[1].count("\n") == 3 and "out.txt" not in one[1]


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2"])
def test_rank_output_is_the_same_in_batches_of_any_size(tmp_path, tiny_model, monkeypatch, workers):
    """Files read and walked a batch at a time, then ranked (ranker/cli.py's _rank_batch): the same lines and
    warnings, in the same order, as one file at a time, bad files among them."""
    import ranker.cli
    tmp_path = tmp_path / "inputs"
    tmp_path.mkdir()
    for i, text in enumerate(TINY_JAVA.values()):
        for j in range(4):
            (tmp_path / f"f{i}{j}.java").write_text(text.replace(" = ", " " * (j + 1) + "= ", 1))
    (tmp_path / "f05.java").write_bytes("class Å {}".encode("latin-1"))
    (tmp_path / "f06.java").write_bytes(b"\xef\xbb\xbfclass A {}\n")
    (tmp_path / "f07.java").write_text("")
    argv = ["--model", str(tiny_model), "--workers", workers, str(tmp_path)]
    monkeypatch.setattr(ranker.cli, "_batches", lambda files, workers: [[f] for f in files])
    one = run_rank(argv)
    batched = []
    for chars in (1, 200, 10**6):   # one file a batch, a few, all
        monkeypatch.undo()
        monkeypatch.setattr(ranker.cli, "BATCH_CHARS", chars)
        batched.append(run_rank(argv))
    assert one[0] == 1 and one[1].count("\n") == 14 and "f05.java: not UTF-8" in one[2]
    assert all(b == one for b in batched)
    explain = [run_rank(["--explain", "--top", "2", *argv])]
    monkeypatch.setattr(ranker.cli, "BATCH_CHARS", 1)
    explain.append(run_rank(["--explain", "--top", "2", *argv]))
    assert explain[0] == explain[1] and explain[0][1].count("\n") >= 12


@pytest.mark.parametrize("sizes, workers, most", [
    ([], 2, 10), ([5], 2, 1), ([1] * 100, 2, 10), ([1] * 100, 1, 10), ([3, 40, 2, 2, 2, 50, 1], 2, 8),
    ([10] * 1000, 4, 1000), ([0, 0, 0], 2, 10),
])
def test_batches_cover_every_item_once_in_order_and_shrink_at_the_end(sizes, workers, most):
    _check_batches(sizes, workers, most)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 5000), max_size=200), st.integers(1, 8), st.integers(1, 20000),
       st.none() | st.integers(1, 5000))
def test_batches_property(sizes, workers, most, first):
    _check_batches(sizes, workers, most, first)


def test_first_batches_grow():
    from unnatural.parallel import batches
    assert [len(b) for b in batches([1] * 100, 1, 16, first=1)][:6] == [1, 2, 4, 8, 16, 16]


def _check_batches(sizes, workers, most, first=None):
    from unnatural.parallel import batches
    out = batches(sizes, workers, most, first)
    if first is not None:   # the k-th batch of several holds at most first x 2^k
        assert all(len(b) == 1 or sum(sizes[i] for i in b) <= first << k for k, b in enumerate(out))
    assert [i for b in out for i in b] == list(range(len(sizes)))
    assert all(len(b) == 1 or sum(sizes[i] for i in b) <= most for b in out)
    # guided: a batch of several is at most a (2 x workers)-th of what is left from it on
    size = [sum(sizes[i] for i in b) for b in out]
    assert all(len(b) == 1 or size[k] <= max(1, sum(size[k:]) // (2 * workers)) for k, b in enumerate(out))


_PARENT = os.getpid()   # pytest's process: ordered_map's parent; forked workers have other ids


def _square_or_fail(x):
    if x < 0:
        raise ValueError("negative")
    return x * x


def _square_or_fail_in(where: str):
    """_square_or_fail where `where` is this process ('parent' or 'worker'); elsewhere a plain square, slowly (so
    that the process `where` names claims most items)."""
    def square(x):
        if ("parent" if os.getpid() == _PARENT else "worker") != where:
            time.sleep(0.01)
            return x * x
        return _square_or_fail(x)
    return square


def _square_slowly_in_workers(x):
    if os.getpid() != _PARENT:   # the parent maps its own ahead while it waits for them
        time.sleep(0.002)
    return x * x


def _square_and_who(x):
    if os.getpid() == _PARENT:   # the parent has more to do: it takes fewer items
        time.sleep(0.005)
    return x * x, os.getpid()


@pytest.mark.parametrize("parent", [False, True])
@pytest.mark.parametrize("workers, n", [(1, 5), (2, 7), (3, 20), (8, 3), (2, 0)])
def test_ordered_map_keeps_input_order(workers, n, parent):
    from unnatural.parallel import ordered_map
    assert list(ordered_map(_square_or_fail, range(n), workers, parent=parent)) == [x * x for x in range(n)]


def test_ordered_map_keeps_input_order_while_the_parent_maps_ahead():
    from unnatural.parallel import ordered_map
    assert list(ordered_map(_square_slowly_in_workers, range(40), 3, parent=True)) == [x * x for x in range(40)]


def test_ordered_map_gives_a_busier_process_fewer_items():
    from unnatural.parallel import ordered_map
    out = list(ordered_map(_square_and_who, range(60), 2, parent=True))
    assert [square for square, _ in out] == [x * x for x in range(60)]
    assert sum(pid == _PARENT for _, pid in out) <= 20   # dealt round-robin, it took 30


@pytest.mark.parametrize("count", [0, 1, 7, 300_000])
def test_ordered_map_claims_take_every_item_once_in_order(count):
    from unnatural.parallel import _Claims
    claims = _Claims(count)
    try:
        taken = []
        while claim := claims.next():
            taken.extend(claim)
    finally:
        claims.close()
    assert taken == list(range(count))
    assert claims.size == 1 or count > 1000   # a pipe holds a thousand claims at least


@pytest.mark.parametrize("parent", [False, True])
def test_ordered_map_reports_a_worker_failure(parent):
    from unnatural.parallel import WorkerError, ordered_map
    with pytest.raises(WorkerError, match="negative"):
        list(ordered_map(_square_or_fail_in("worker"), [1, 2, 3, -4, -5, -6, -7], 2, parent=parent))


def test_ordered_map_raises_the_parents_own_failure_and_reaps_the_workers():
    from unnatural.parallel import ordered_map
    with pytest.raises(ValueError, match="negative"):
        list(ordered_map(_square_or_fail_in("parent"), [-1, -2, -3, -4, -5, -6], 2, parent=True))
    try:
        assert os.waitpid(-1, os.WNOHANG) == (0, 0)   # no finished child left unreaped (a zombie)
    except ChildProcessError:   # no child at all
        pass


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2"])
def test_rank_stops_quietly_when_the_reader_closes_the_pipe(tiny_model, tmp_path, workers):
    import subprocess

    from conftest import ROOT
    body = TINY_JAVA["A.java"].split("{", 1)[1].rsplit("}", 1)[0]
    for i in range(3):   # rankings of about 100 KB each: more than a pipe holds
        (tmp_path / f"{i}.java").write_text("class A {" + body * 150 + "}\n")
    proc = subprocess.Popen([str(ROOT / "bin" / "rank"), "--model", str(tiny_model), "--workers", workers,
                             str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(100)
    proc.stdout.close()   # as `bin/rank ... | head -c 100` does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert "Traceback" not in err and "Error" not in err


@pytest.mark.slow
def test_ranking_a_file_imports_neither_numpy_nor_kenlm(tiny_model, tmp_path):
    """bin/rank on one file, --explain too: their imports were most of the time to rank one small file (and
    shutil's, typing's, importlib.resources' and the tree_sitter binding's a tenth of what was left)."""
    import subprocess
    import sys

    from conftest import ROOT
    f = tmp_path / "A.java"
    f.write_text(BROKEN[0])
    code = ("import sys\nfrom ranker.cli import main\n"
            f"for extra in ([], ['--explain']):\n    main(['--model', {str(tiny_model)!r}, *extra, {str(f)!r}])\n"
            "print(sorted(m for m in ('numpy', 'kenlm', 'tqdm', 'shutil', 'tempfile', 'typing', 'importlib.resources',"
            " 'tree_sitter') if m in sys.modules), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stderr.strip().splitlines()[-1] == "[]" and str(f) in out.stdout


@pytest.mark.slow
@pytest.mark.parametrize("edits, first", [
    ("any", "x  ="),           # the double space, by its gain alone
    ("codrep2019", "+b"),      # the deleted space: CodRep 2019 never adds a space to a space
])
def test_error_model_ranks_codrep_kinds_first(tiny_model, edits, first):
    """A file with two oddities, a double space (not one of CodRep 2019's kinds of error) and a deleted
    space (one of them): the error model decides which is blamed first."""
    text = TINY_JAVA["A.java"].replace("int x = 1;", "int x  = 1;").replace("a + b", "a +b")
    ranked = rank_text(Scorer(LanguageModel(tiny_model), edits=edits), get_scheme("kind"), text, "t", adapt=False)
    answer = text.index(first) + (3 if first == "x  =" else 2)
    assert ranked.offsets()[0] == answer


@pytest.mark.parametrize("wrong, error", [
    ("capsule", ValueError),    # another module's C interface
    ("mixture", TypeError),     # not an lm._native Mixture
    ("scored", TypeError),      # not the stream it scored
])
def test_a_file_ranker_takes_only_the_rescoring_of_lm_native(tiny_model, wrong, error):
    """FileRanker.rank runs its rounds through lm._native's capsule: anything else is refused with an error,
    not followed."""
    import datetime

    import ranker.rank as rank
    from lm._native import rescoring
    scorer, scheme = Scorer(LanguageModel(tiny_model)), get_scheme("kind-units")
    text = TINY_JAVA["A.java"]
    native, _, _, gaps, ids = rank._walked_columns(scorer, rank.walk_units(text), True)
    ranker = rank._file_ranker(scorer, scheme, gaps, ids, len(text), True, rank.Style(), rank.CACHE_ALPHA, None, None)
    args = {"capsule": rescoring, "mixture": scorer.native, "scored": native}
    args[wrong] = datetime.datetime_CAPI if wrong == "capsule" else object()
    with pytest.raises(error):
        ranker.rank(args["capsule"], args["mixture"], args["scored"], CHUNK_ROWS)
    ranker.rank(rescoring, scorer.native, native, CHUNK_ROWS)   # the ranker is still whole
    with pytest.raises(RuntimeError, match="once"):   # its offsets are kept: a second run would add them again
        ranker.rank(rescoring, scorer.native, native, CHUNK_ROWS)
    assert len(ranker.finish()[0]) > 0


@pytest.mark.slow
def test_real_files_of_several_chunks_rank_as_in_one(tiny_model, monkeypatch):
    """Real files whose repairs are more than one chunk (CHUNK_ROWS) rank exactly as in one chunk: the full
    ranking, the top 3 and the offsets reaching a least gain, scores and repairs included."""
    from conftest import data_path

    import ranker.rank as rank
    folder = data_path("codrep2019", "validation")
    texts = sorted({p.read_text() for p in folder.glob("*.txt") if p.name != "out.txt"}, key=len)[-4:]
    scorer, scheme = Scorer(LanguageModel(tiny_model)), get_scheme("kind-units")
    chunks = []
    made = rank._file_ranker

    def counted(*args, **kwargs):   # how many chunks each ranking takes
        ranker = made(*args, **kwargs)
        chunks.append(len(ranker.chunks(CHUNK_ROWS)))
        return ranker
    monkeypatch.setattr(rank, "_file_ranker", counted)
    for text in texts:
        for ask in ({}, {"top": 3}, {"least": 0.0}):
            one = rank_text(scorer, scheme, text, "t", chunk_rows=1 << 30, **ask)
            several = rank_text(scorer, scheme, text, "t", chunk_rows=CHUNK_ROWS, **ask)
            for column in ("candidates", "scores", "gaps", "observed", "repaired"):
                assert list(getattr(several, column)) == list(getattr(one, column))
    assert min(chunks) >= 2
