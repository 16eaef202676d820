import io
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT / ".data"


def data_path(*parts) -> Path:
    """A shared data set folder, or skip the test when it has not been unpacked (make data)."""
    p = DATA.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"{p} not unpacked (run 'make data')")
    return p


@pytest.fixture
def lmplz_available():
    from lm.kenlm_tools import KenlmError, tool
    try:
        tool("lmplz")
    except KenlmError as e:
        pytest.skip(str(e))


TINY_JAVA = {
    "A.java": ("package p;\n\nclass A {\n    int x = 1;\n\n    void f(int a, int b) {\n        if (a > b) {\n"
               "            x = a + b;\n        }\n    }\n}\n"),
    "B.java": ("package p;\n\nclass B {\n    String s = \"b\";\n\n    int g(int[] v) {\n"
               "        for (int i = 0; i < v.length; i++) {\n            s = s + v[i];\n        }\n"
               "        return v.length;\n    }\n}\n"),
    "C.java": ("package q;\n\nimport java.util.List;\n\nclass C {\n    List<String> names;\n\n    void h() {\n"
               "        while (names.isEmpty()) {\n            names.add(\"c\");\n        }\n    }\n}\n"),
}


@pytest.fixture
def tiny_corpus(tmp_path) -> Path:
    """A few clean Java files written by the test itself."""
    d = tmp_path / "corpus"
    d.mkdir()
    for name, text in TINY_JAVA.items():
        (d / name).write_text(text)
    return d


@pytest.fixture
def tiny_model(tmp_path, tiny_corpus, lmplz_available) -> Path:
    """A real order-4 KenLM model trained by lmplz on the tiny corpus."""
    from lm.build import BuildConfig, build
    out = tmp_path / "tiny.bin"
    build(BuildConfig((str(tiny_corpus),), order=4, output=out), progress=False)
    return out


def run_fim(argv):
    """bin/fim in-process: (exit status, stdout, stderr)."""
    from fim.cli import main as fim_main
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = fim_main(argv)
    return code, out.getvalue(), err.getvalue()


def make_dataset(root: Path, name: str, programs: list[tuple[int, int]]) -> Path:
    """A CodRep 2018 data set whose task N has a program of `lines` lines and the solution `solution`."""
    bodies = ["".join(f"line {i};\n" for i in range(1, lines + 1)) for lines, _ in programs]
    return make_bodies_dataset(root, name, bodies, [solution for _, solution in programs])


def make_bodies_dataset(root: Path, name: str, bodies: list[str], solutions: list[int] | None = None) -> Path:
    """A CodRep 2018 data set whose task N holds the file body `bodies[N - 1]` (solutions: line 1)."""
    dataset = root / name
    (dataset / "Tasks").mkdir(parents=True)
    (dataset / "Solutions").mkdir()
    for number, body in enumerate(bodies, start=1):
        (dataset / "Tasks" / f"{number}.txt").write_text(f"int replaced;\n\n{body}")
        (dataset / "Solutions" / f"{number}.txt").write_text(f"{solutions[number - 1] if solutions else 1}")
    return dataset


def make_folder(root: Path, name: str, answers: list[int]) -> Path:
    """A CodRep 2019 task folder of trivial tasks with these answers."""
    folder = root / name
    folder.mkdir()
    for number in range(len(answers)):
        (folder / f"{number}.txt").write_text("class A {}\n")
    (folder / "out.txt").write_text("".join(f"{answer}\n" for answer in answers))
    return folder


def run_rank(argv):
    """bin/rank in-process: (exit status, stdout, stderr)."""
    from ranker.cli import main as rank_main
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = rank_main(argv)
        except SystemExit as e:   # argparse's usage errors
            code = e.code
    return code, out.getvalue(), err.getvalue()


def run_evaluate(argv, stdin_text, monkeypatch, capsys):
    """bin/evaluate in-process with `stdin_text` as standard input: (exit status, stdout, stderr)."""
    from evaluation import cli
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin_text))
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def git_repo(path: Path):
    """A real git repository at `path` (created), with a committer set; returns `git(*args) -> stdout`, run
    in it (failures raise)."""
    import subprocess
    path.mkdir(parents=True, exist_ok=True)

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=path, check=True, capture_output=True, text=True).stdout

    git("init", "-q", "-b", "main")
    git("config", "user.name", "Test")
    git("config", "user.email", "test@example.com")
    git("config", "commit.gpgsign", "false")
    return git


def unprivileged(function: str, *args):
    """`module:function(*args)` (a module of the checkout or of tests/, with a result `repr` writes as a
    literal) called where file permissions hold: as root, in a child process without the capabilities that
    override them (setpriv drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH); else here."""
    import ast
    import importlib
    import os
    import shutil
    import subprocess
    module, name = function.split(":")
    if os.geteuid() != 0:
        return getattr(importlib.import_module(module), name)(*args)
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv is not installed: as root, permissions cannot be tested")
    caps = "-dac_override,-dac_read_search"
    code = f"import sys; sys.path[:0] = ['.', 'tests']; import {module} as m; print(repr(m.{name}(*{args!r})))"
    done = subprocess.run(["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}", sys.executable, "-c", code],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    if done.returncode != 0 and "setpriv:" in done.stderr:
        pytest.skip(f"cannot drop capabilities here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    return ast.literal_eval(done.stdout)


def stream_counts(streams, shared: bool = False):
    """ranker/counts.py's Counts of symbol streams (2n+1 symbols each): their wide and narrow keys counted (no
    gap texts: no habits, nothing learned beside the narrow keys); with `shared`, as a folder keeps them."""
    import numpy as np

    from ranker.cache import narrow_keys, wide_keys
    from ranker.counts import Counts, counted, total
    from ranker.habits import HabitCounts
    from ranker.symbols import symbol_ids
    parts = []
    for syms in streams:
        ids = np.asarray(symbol_ids(syms), dtype=np.int64)
        parts.append(Counts(tuple(map(counted, wide_keys(ids))), counted(narrow_keys(ids)), HabitCounts.of_values(())))
    out = total(parts)
    return out.shared() if shared else out
