"""bin/fim with the n-gram predictor on tiny real KenLM models (Java `text`, Python `python`) that the tests
build: exact predictions where the file shows the line in the same context, the study's records in task
order, the symbols of pieces agreeing with the whole file's, and bad input (exit 2, nothing written)."""
import io
import json
from contextlib import redirect_stdout

import pytest
from conftest import run_fim
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation import cli as evaluate_cli
from fim.layout import feed, new_layout, pieces
from fim.tasks import line_spans, task_at
from parsing.schemes import get_scheme

JAVA_FILE = """class D {
    void a(int x) {
        if (x > 0) {
            x = x + 1;
        }
    }

    void b(int x) {
        if (x > 0) {
            x = x + 1;
        }
    }
}
"""
PY_CORPUS = {
    "a.py": "def f(x):\n    if x:\n        return x + 1\n    return 0\n",
    "b.py": "import os\n\n\ndef g(path):\n    if os.path.exists(path):\n        return path\n    return None\n",
}
PY_FILE = ("def h(y):\n    if y:\n        return y + 1\n    return 0\n\n\n"
           "def k(y):\n    if y:\n        return y + 1\n    return 0\n")


def build_model(out, corpus, scheme):
    from lm.build import BuildConfig, build
    build(BuildConfig((str(corpus),), order=4, scheme=scheme, output=out), progress=False)
    return out


@pytest.fixture
def text_model(tmp_path, tiny_corpus, lmplz_available):
    return build_model(tmp_path / "text.bin", tiny_corpus, "text")


@pytest.fixture
def python_model(tmp_path, lmplz_available):
    corpus = tmp_path / "pycorpus"
    corpus.mkdir()
    for name, text in PY_CORPUS.items():
        (corpus / name).write_text(text)
    return build_model(tmp_path / "py.bin", corpus, "python")


def write_tasks(tmp_path, name, text, lines):
    spans = line_spans(text)
    records = [vars(task_at(text, i, name, spans)) for i in lines]
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(records))
    return path, records


@pytest.mark.slow
def test_java_line_in_the_same_context_is_predicted_exactly(tmp_path, text_model):
    tasks, given_tasks = write_tasks(tmp_path, "D.java", JAVA_FILE, [9, 1])
    code, out, err = run_fim(["--model", str(text_model), "--workers", "1", "--quiet", str(tasks)])
    assert code == 0, err
    records = json.loads(out)
    assert [r["middle"] for r in records] == [t["middle"] for t in given_tasks]   # task order
    first = records[0]
    assert first["fill"] == "            x = x + 1;"        # indentation included
    assert first["original_code"] == JAVA_FILE and first["correct"] == ""
    assert first["generated_code"] == given_tasks[0]["prefix"] + first["fill"] + given_tasks[0]["suffix"]
    assert "fim|order:4|scheme:text|" in err
    # bin/evaluate fim reads the records as they are
    (tmp_path / "pred.json").write_text(out)
    eout = io.StringIO()
    with redirect_stdout(eout):
        assert evaluate_cli.main(["fim", str(tmp_path / "pred.json")]) == 0
    assert "examples: 2" in eout.getvalue()


@pytest.mark.slow
def test_python_tasks_with_a_python_model(tmp_path, python_model):
    tasks, _ = write_tasks(tmp_path, "k.py", PY_FILE, [8, 9])
    code, out, err = run_fim(["--model", str(python_model), "--workers", "2", "--quiet", str(tasks)])
    assert code == 0, err
    records = json.loads(out)
    assert records[0]["fill"] == "        return y + 1" and records[1]["fill"] == "    return 0"
    assert "scheme:python" in err and "tree-sitter-python" in err


@pytest.mark.slow
@pytest.mark.parametrize("case, message", [
    ("python-task", "a java model ('text' scheme), but k.py is python"),
    ("kind-model", "a 'kind-units' model; fill-in-the-middle needs identifiers kept"),
    ("empty", "tasks.json: no tasks"),
    ("no-suffix", "task 0 has no string 'suffix'"),
    ("no-model", "absent.bin: no such model"),
    ("hf-missing", "absent-dir: no such model folder"),
    ("output-exists", "kept.json: exists (use --force to overwrite it)"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, text_model, tiny_model, case, message):
    tasks, _ = write_tasks(tmp_path, "k.py", PY_FILE, [8])
    model = text_model
    extra = []
    if case == "kind-model":
        tasks, _ = write_tasks(tmp_path, "D.java", JAVA_FILE, [9])
        model = tiny_model
    elif case == "empty":
        tasks.write_text("[]")
    elif case == "no-suffix":
        tasks.write_text(json.dumps([{"prefix": "x\n", "middle": "y"}]))
    elif case == "no-model":
        model = tmp_path / "absent.bin"
    argv = ["--model", str(model), "--quiet", str(tasks)]
    if case == "hf-missing":
        argv = ["--hf-model", str(tmp_path / "absent-dir"), "--quiet", str(tasks)]
    if case == "output-exists":
        tasks, _ = write_tasks(tmp_path, "D.java", JAVA_FILE, [9])
        argv = ["--model", str(model), "--quiet", str(tasks)]
        (tmp_path / "kept.json").write_text("annotated")
        extra = ["--output", str(tmp_path / "kept.json")]
    code, out, err = run_fim(argv + extra)
    assert code == 2 and out == ""
    assert err.startswith("fim: error: ") and message in err and err.count("\n") == 1, err
    if case == "output-exists":
        assert (tmp_path / "kept.json").read_text() == "annotated"
        assert run_fim(argv + extra + ["--force"])[0] == 0 and json.loads((tmp_path / "kept.json").read_text())


JAVA_LINES = ["class A {", "    int x = 1;", "    /** doc", "     * more */", "    void f() {", "\tg(\"s\");",
              "    }", "", "}", "  // c"]
PY_LINES = ["def f(a,", "      b):", "    if a:", "        return [", "            1]", "    x = '''s", "t'''",
            "", "  y = 2", "# c", "class C:", "    pass"]


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_pieces_say_the_same_symbols_as_the_whole_file(data):
    """Prefix and suffix tokenized apart, the middle line on its own, the gaps said by the layout: the same
    symbols as the scheme gives the whole file (when no token spans the cuts)."""
    scheme_name, pool = data.draw(st.sampled_from([("text", JAVA_LINES), ("python", PY_LINES)]))
    scheme = get_scheme(scheme_name)
    lines = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=8))
    text = "\n".join(lines) + "\n"
    i = data.draw(st.integers(0, len(lines) - 1))
    task = task_at(text, i)
    middle = task.middle.strip()
    whole = scheme.tokenize(text)
    cut_a, cut_b = len(task.prefix), len(task.prefix) + len(task.middle)
    if not middle or any(s < cut_a < e or s < cut_b < e for s, e in zip(whole.starts, whole.ends)):
        return     # a token spans a cut (a multi-line comment or string): pieces cannot agree
    pre_tokens, pre_gap = pieces(scheme.tokenize(task.prefix))
    mid_tokens, _ = pieces(scheme.tokenize(middle))
    suf_tokens, suf_end = pieces(scheme.tokenize(task.suffix))
    if any(k in ("ERROR", "error") for _, k, _ in pre_tokens + mid_tokens + suf_tokens):
        return
    layout = new_layout(scheme)
    symbols: list[str] = []
    feed(layout, scheme, pre_tokens, symbols)
    indent = task.middle[: len(task.middle) - len(task.middle.lstrip())]
    feed(layout, scheme, mid_tokens, symbols, first_gap=pre_gap + indent)
    if suf_tokens:
        feed(layout, scheme, suf_tokens, symbols)
    symbols.append(layout.gap(suf_end))
    expected = scheme.symbols(whole)
    if [s for s in symbols if not s.startswith("·")] != [s for s in expected if not s.startswith("·")]:
        return     # the pieces parse to other tokens (e.g. a line that is not a statement alone)
    assert symbols == expected
