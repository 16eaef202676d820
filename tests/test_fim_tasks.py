"""bin/make-fim-tasks: the study's skip rules (case tables for Java and Python), one task per line at most,
prefix + middle + suffix is the file, determinism for a seed, and bad input (exit 2, nothing written)."""
import json

import pytest

from fim import tasks_cli
from fim.tasks import SkipRules, eligible_lines, line_spans, read_tasks
from formats.files import InputError
from parsing.languages import get_language

JAVA = """package p;

/**
 * A class.
 */
class A {
    // a comment
    int x = 1;  // trailing comment
    void f() {
        System.out.println("x");
        LOG.debug("y");
        e.printStackTrace();
        x = compute(x);
    }
}
"""
PYTHON = '''"""Module docstring,
over two lines."""
import os
# comment


def f(a):
    print(a)
    logging.info("x")
    return os.path.join(a, "b")
'''


@pytest.mark.parametrize("language, text, rules, expected", [
    ("java", JAVA, SkipRules(), ["package p;", "class A {", "int x = 1;  // trailing comment", "void f() {",
                                 "x = compute(x);"]),
    ("java", JAVA, SkipRules(prints=False), ["package p;", "class A {", "int x = 1;  // trailing comment",
                                             "void f() {", 'System.out.println("x");', 'LOG.debug("y");',
                                             "e.printStackTrace();", "x = compute(x);"]),
    ("java", JAVA, SkipRules(min_chars=1), ["package p;", "class A {", "int x = 1;  // trailing comment",
                                            "void f() {", "x = compute(x);", "}", "}"]),
    ("java", JAVA, SkipRules(comments=False), ["package p;", "* A class.", "class A {",   # '/**': short
                                               "// a comment", "int x = 1;  // trailing comment", "void f() {",
                                               "x = compute(x);"]),
    ("python", PYTHON, SkipRules(), ['"""Module docstring,', "import os", "def f(a):",
                                     'return os.path.join(a, "b")']),
    ("python", PYTHON, SkipRules(prints=False, min_chars=0), ['"""Module docstring,', "import os", "def f(a):",
                                                             "print(a)", 'logging.info("x")',
                                                             'return os.path.join(a, "b")']),
])
def test_skip_rules(language, text, rules, expected):
    spans = line_spans(text)
    lines = [text[spans[i][0]:spans[i][1]].strip() for i in eligible_lines(text, get_language(language), rules)]
    assert lines == expected


@pytest.mark.parametrize("text, lines", [
    ("a\nb\n", [(0, 1, 2), (2, 3, 4)]),
    ("a\r\nb", [(0, 1, 3), (3, 4, 4)]),
    ("a\rb\r\n\n", [(0, 1, 2), (2, 3, 5), (5, 5, 6)]),
])
def test_line_spans_count_cr_lf_crlf(text, lines):
    assert line_spans(text) == lines


def write_sources(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "A.java").write_text(JAVA)
    (src / "m.py").write_text(PYTHON)
    (src / "bad.java").write_bytes(b"class B {\n    int \xff = 1;\n}\n")
    return src


def test_tasks_cover_each_line_once_and_rebuild_the_file(tmp_path, capsys):
    src = write_sources(tmp_path)
    out = tmp_path / "t.json"
    assert tasks_cli.main([str(src), "--output", str(out), "--count", "100"]) == 1   # bad.java skipped: exit 1
    err = capsys.readouterr().err
    assert "bad.java: not UTF-8" in err and "9 tasks (all the usable lines: 9) from 2 files (java, python)" in err
    records = json.loads(out.read_text())
    assert len(records) == 9
    assert len({(r["path"], r["line"]) for r in records}) == 9
    for r in records:
        text = JAVA if r["path"].endswith(".java") else PYTHON
        assert r["prefix"] + r["middle"] + r["suffix"] == text
        assert text.split("\n")[r["line"] - 1] == r["middle"]
        assert r["prefix"] == "" or r["prefix"].endswith("\n")
    assert read_tasks(out.read_text(), "t.json")[0].middle == records[0]["middle"]


def test_same_seed_same_tasks(tmp_path):
    src = write_sources(tmp_path)
    runs = []
    for seed, name in ((7, "a.json"), (7, "b.json"), (8, "c.json")):
        tasks_cli.main([str(src), "--output", str(tmp_path / name), "--count", "4", "--seed", str(seed)])
        runs.append(json.loads((tmp_path / name).read_text()))
    assert runs[0] == runs[1] and runs[0] != runs[2] and len(runs[0]) == 4


def test_a_source_whose_files_are_all_skipped_is_warned_about_not_fatal(tmp_path, capsys):
    (tmp_path / "A.java").write_text(JAVA)
    (tmp_path / "bad.java").write_bytes(b"class B {\n    int \xff = 1;\n}\n")
    out = tmp_path / "t.json"
    assert tasks_cli.main([str(tmp_path / "bad.java"), str(tmp_path / "A.java"), "--output", str(out)]) == 1
    err = capsys.readouterr().err
    assert "bad.java: not UTF-8" in err and "error" not in err and json.loads(out.read_text())
    # alone, it leaves no usable line: the warning, then the error
    assert tasks_cli.main([str(tmp_path / "bad.java"), "--output", str(tmp_path / "u.json")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "not UTF-8" in err[0] and err[1].startswith("make-fim-tasks: error: ")
    assert "bad.java: no usable line" in err[1] and not (tmp_path / "u.json").exists()


def test_a_count_below_1_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "A.java").write_text(JAVA)
    with pytest.raises(SystemExit) as e:
        tasks_cli.main([str(tmp_path / "A.java"), "--output", str(tmp_path / "o.json"), "--count", "0"])
    assert e.value.code == 2 and "--count: must be at least 1" in capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("setup, argv, message", [
    (lambda d: (d / "c.java").write_text("// only a comment\n}\n"), ["{d}/c.java", "--output", "{d}/o.json"],
     "c.java: no usable line"),
    (lambda d: (d / "empty").mkdir(), ["{d}/empty", "{d}/A.java", "--output", "{d}/o.json"], "empty: no usable line"),
    (lambda d: (d / "o.json").write_text("keep"), ["{d}/A.java", "--output", "{d}/o.json"], "o.json: exists"),
    (lambda d: None, ["{d}/absent", "--output", "{d}/o.json"], "absent: no such file or folder"),
])
def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, setup, argv, message):
    (tmp_path / "A.java").write_text(JAVA)
    setup(tmp_path)
    before = (tmp_path / "o.json").read_text() if (tmp_path / "o.json").exists() else None
    assert tasks_cli.main([a.format(d=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("make-fim-tasks: error: ") and err.count("\n") == 1
    after = (tmp_path / "o.json").read_text() if (tmp_path / "o.json").exists() else None
    assert after == before


@pytest.mark.parametrize("text, message", [
    ("[]", "t.json: no tasks"),
    ("{", "t.json:1: not JSON"),
    ('{"prefix": ""}', "expected a JSON list"),
    ('[{"prefix": "a\\n", "middle": "b"}]', "task 0 has no string 'suffix'"),
    ('[{"prefix": "a", "suffix": "", "middle": 3}]', "task 0 has a non-string 'middle'"),
    ('[1]', "task 0 is not an object"),
])
def test_read_tasks_errors(text, message):
    with pytest.raises(InputError, match=message):   # TaskError is one
        read_tasks(text, "t.json")


def test_one_version_keeps_one_file_per_package_and_type(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a1.java").write_text(JAVA)
    (src / "a2.java").write_text(JAVA.replace("x = compute(x);", "x = compute(x + 1);"))   # another version
    (src / "b.java").write_text(JAVA.replace("class A", "class B"))
    for flag, files in (([], 3), (["--one-version"], 2)):
        out = tmp_path / f"t{len(flag)}.json"
        assert tasks_cli.main([str(src), "--output", str(out), "--count", "100", *flag]) == 0
        assert len({r["path"] for r in json.loads(out.read_text())}) == files
