"""evaluation/tasks.py and bin/make-tasks: task sets in CodRep 2019's mix, Checkstyle-verified, clean files beside."""
import json
import shutil
from collections import Counter

import pytest

from evaluation.checkstyle import SHIPPED, Checkstyle, properties
from evaluation.injection import quotas
from evaluation.make_tasks_cli import main as make_tasks_main
from evaluation.tasks import TaskConfig, distinct, make_tasks
from formats.codrep2019 import read_answers, read_jsonl
from parsing.java import tokenize
from parsing.style import SPACES

needs_checkstyle = pytest.mark.skipif(shutil.which("checkstyle") is None,
                                      reason="checkstyle not installed (make setup)")


def java_files(n: int, indent: str = "    ") -> list[tuple[str, str]]:
    """n distinct small Java files (written by the test, in one indentation style)."""
    out = []
    for i in range(n):
        body = (f"package p{i % 3};\n\nimport java.util.List;\n\npublic class C{i} {{\n"
                f"{indent}private int x{i} = {i};\n\n"
                f"{indent}int f(int a, List<String> b) {{\n"
                f"{indent}{indent}if (a > {i}) {{\n"
                f"{indent}{indent}{indent}return b.size() + a * {i};\n"
                f"{indent}{indent}}}\n"
                f"{indent}{indent}for (int k = 0; k < a; k++) {{\n"
                f"{indent}{indent}{indent}x{i} += k;\n"
                f"{indent}{indent}}}\n"
                f"{indent}{indent}return x{i};\n{indent}}}\n}}\n")
        out.append((f"src/C{i}.java", body))
    return out


def tokens(text):
    return [t.text for t in tokenize(text).tokens]


def test_distinct_keeps_one_file_per_whitespace_free_content():
    files = [("b", "class A { }"), ("a", "class  A {\n}"), ("c", "class B { }")]
    assert distinct(files) == [("a", "class  A {\n}"), ("c", "class B { }")]


def test_tasks_follow_the_mix_one_per_file_with_clean_files_beside(tmp_path):
    files = java_files(40)
    out = tmp_path / "tasks"
    summary = make_tasks(files, out, TaskConfig(count=20, clean=15, seed=4, project="demo"))
    assert summary.tasks == 20 and summary.clean == 15
    assert summary.kinds == Counter(quotas(20))
    truth = read_jsonl(out / "truth.jsonl")
    sources = [t["source"] for t in truth]
    clean = read_jsonl(out / "clean.jsonl")
    assert len(set(sources)) == 20 and not set(sources) & {c["source"] for c in clean}
    answers = read_answers(str(out))
    originals = dict(files)
    for t in truth:
        text = (out / t["task"]).read_text()
        assert answers[str(out / t["task"])] == t["answer"] and t["project"] == "demo"
        assert tokens(text) == tokens(originals[t["source"]])
        lo = t["gap_start"] - 1
        assert text[:lo] + t["original"] + text[lo + len(t["edited"]):] == originals[t["source"]]
    for c in clean:
        assert (out / c["file"]).read_text() == originals[c["source"]]


def test_the_same_seed_makes_the_same_tasks(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    make_tasks(java_files(12), a, TaskConfig(count=6, seed=1))
    make_tasks(java_files(12), b, TaskConfig(count=6, seed=1))
    assert [(a / f"{n}.txt").read_text() for n in range(6)] == [(b / f"{n}.txt").read_text() for n in range(6)]


def test_the_any_mix_inserts_deletes_and_replaces(tmp_path):
    summary = make_tasks(java_files(30), tmp_path / "t", TaskConfig(seed=0, mix="any"))
    assert summary.tasks == 30 and set(summary.kinds) <= {"insert", "delete", "replace"} and len(summary.kinds) == 3


@needs_checkstyle
def test_checkstyle_keeps_only_edits_it_flags(tmp_path):
    out = tmp_path / "tasks"
    cs = Checkstyle(SHIPPED["whitespace"], properties(SPACES[4]))
    summary = make_tasks(java_files(16), out, TaskConfig(count=10, clean=3, seed=2, checkstyle=cs))
    assert summary.tasks == 10
    truth = read_jsonl(out / "truth.jsonl")
    assert all(t["checkstyle"] and t["checkstyle"].endswith("]") for t in truth)


@needs_checkstyle
def test_make_tasks_command_end_to_end(tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    for name, text in java_files(12):
        (src / name.split("/")[1]).write_text(text)
    out = tmp_path / "out"
    assert make_tasks_main(["--checkstyle", "whitespace", "--count", "5", "--clean", "4", "--quiet", str(src),
                            str(out)]) == 0
    err = capsys.readouterr().err
    assert "5 tasks" in err and "4 clean files" in err and "4sp indentation" in err
    assert len(list((out / "clean").glob("*.java"))) == 4 and len(read_answers(str(out))) == 5
    assert {json.loads(l)["project"] for l in (out / "truth.jsonl").read_text().splitlines()} == {"src"}


@pytest.mark.parametrize("config, message", [
    ("missing.xml", "no such Checkstyle configuration"),
    ("bad", "checkstyle failed on"),
])
def test_a_bad_configuration_is_one_line_and_writes_nothing(tmp_path, capsys, config, message):
    if config == "bad":
        if shutil.which("checkstyle") is None:
            pytest.skip("checkstyle not installed")
        (tmp_path / "bad").write_text("not a configuration\n")
        config = str(tmp_path / "bad")
    src = tmp_path / "src"
    src.mkdir()
    (src / "A.java").write_text(java_files(1)[0][1])
    out = tmp_path / "out"
    assert make_tasks_main(["--checkstyle", config, "--quiet", str(src), "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("make-tasks: error: ") and message in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_make_tasks_needs_an_output(tmp_path, capsys):
    with pytest.raises(SystemExit) as code:
        make_tasks_main([str(tmp_path)])
    assert code.value.code == 2 and "make-tasks: error: give the task folder" in capsys.readouterr().err
