"""What fill-in-the-middle knows of names and import lines (fim.imports), of the project (fim.project) and
of the corpus index's lines (fim.index): case tables, and the candidates they give on tiny real models."""
import json

import pytest
from conftest import run_fim
from test_fim_predict import text_model  # noqa: F401 (a fixture: a tiny Java 'text' model)

from fim.imports import (
    ImportTable,
    bound_names,
    declared_imports,
    file_names,
    import_package,
    is_import,
    order_agreement,
)
from fim.index import LineIndex, build_index
from fim.layout import pieces
from fim.project import ProjectLines, line_names
from fim.tasks import FimTask, line_spans, task_at
from parsing.languages import get_language
from parsing.schemes import get_scheme


@pytest.mark.parametrize("language, line, names", [
    ("java", "import java.util.List;", ("List",)),
    ("java", "import static org.junit.Assert.assertEquals;", ("assertEquals",)),
    ("java", "import java.util.*;", ()),
    ("java", "import static java.lang.Math.*;", ()),
    ("java", "import  java . util . Map ;", ("Map",)),
    ("java", "int x = 1;", ()),
    ("python", "import os", ("os",)),
    ("python", "import os.path", ("os",)),
    ("python", "import numpy as np, sys", ("np", "sys")),
    ("python", "from a.b import c, d as e  # why", ("c", "e")),
    ("python", "from . import (x, y)", ("x", "y")),
    ("python", "from m import *", ()),
    ("python", "from_here = 1", ()),
])
def test_bound_names(language, line, names):
    assert bound_names(line, language) == names
    assert is_import(line, language) == line.startswith(("import ", "from "))


@pytest.mark.parametrize("line, package", [
    ("import a.b.C;", "a.b"), ("import a.b.*;", None), ("import static a.B.c;", None), ("import C;", None),
])
def test_import_package(line, package):
    assert import_package(line) == package


@pytest.mark.parametrize("line, before, after, agreement", [
    ("import b.B;", "import a.A;", "import c.C;", 2.0),
    ("import b.B;", "import c.C;", "import a.A;", -2.0),
    ("import b.B;", None, "import c.C;", 1.0),
    ("import b.B;", "import a.A;", "import a.Z;", 0.0),
    ("import b.B;", None, None, 0.0),
])
def test_order_agreement(line, before, after, agreement):
    assert order_agreement(line, before, after) == agreement


JAVA = """package p.q;

import java.util.List;
import static org.junit.Assert.assertEquals;

public class Holder extends Base<Item> {
    private List<Item> items;
    Holder(Item first) { items = new ArrayList<>(); items.add(first); }
    int count() { assertEquals(1, Util.size(items)); return items.size(); }
}
"""


def java_names(text):
    tokens, _ = pieces(get_scheme("text").tokenize(text))
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    return file_names([tokens], lines, "java")


def test_java_file_names():
    names = java_names(JAVA)
    assert names.package == "p.q" and names.packages == ["java.util"]
    assert names.imported == {"List", "assertEquals"}
    assert {"Holder", "items", "first", "count"} <= names.declared      # a type, a field, a parameter, a method
    assert names.used["items"] == 4 and "size" not in names.used       # 'x.size()': a member, not a name
    # used, neither imported nor declared, not java.lang: what an import line could bring in
    assert names.missing("java") == ["Item", "Base", "ArrayList", "Util"]


def test_python_file_names():
    text = "import os\nfrom a import b as c\n\n\ndef f(x):\n    return os.path.join(c(x), Path(x))\n"
    tokens, _ = pieces(get_scheme("python").tokenize(text))
    names = file_names([tokens], [x.strip() for x in text.splitlines() if x.strip()], "python")
    assert names.imported == {"os", "c"} and "f" in names.declared
    assert "Path" in names.missing("python") and "os" not in names.missing("python")


def test_declared_imports():
    lines = ["package a.b;", "import x.Y;", "public final class Foo extends Bar {", "interface Baz {",
             "Foo other = null;"]
    assert declared_imports(lines, "java") == ["import a.b.Foo;", "import a.b.Baz;"]
    assert declared_imports(lines[1:], "java") == [] and declared_imports(lines, "python") == []


def test_import_table_leaves_out_the_own_file():
    table = ImportTable("java")
    table.add("import a.List;", 1, "A.java")
    table.add("import a.List;", 1, "B.java")
    table.add("import b.List;", 1, "A.java")
    assert table.lookup("List", 5) == [("import a.List;", 2), ("import b.List;", 1)]
    assert table.lookup("List", 5, "A.java") == [("import a.List;", 1)]
    assert table.lookup("Map", 5) == []


def test_line_names_skip_strings_and_comments():
    text = 'int a = b; // c d\nString s = "e f";\n\nfoo(g);'
    assert line_names(text, "java") == [{"a", "b"}, {"String", "s"}, set(), {"foo", "g"}]


def project_of(files: dict[str, str]) -> ProjectLines:
    tasks = []
    for path, text in files.items():
        spans = line_spans(text)
        tasks.append(task_at(text, len(spans) - 1, path, spans))
    return ProjectLines(tasks, "java")


def test_project_lines_using_the_files_names():
    project = project_of({
        "A.java": "package p;\nclass A {\n    void f() {\n        writer.close();\n        other.go();\n    }\n}\n",
        "B.java": "package p;\nclass B {\n    void g() {\n        writer.close();\n    }\n}\n",
    })
    # names near the middle: writer; names the file knows: writer and close, not other or go
    assert project.lines_using({"writer"}, {"writer", "close"}, 5, "C.java") == [("writer.close();", 2)]
    assert project.lines_using({"writer"}, {"writer", "close"}, 5, "B.java") == [("writer.close();", 1)]
    assert project.lines_using({"writer"}, {"writer"}, 5, "C.java") == []
    assert project.package_of("A", "C.java") == {"p": 1} and project.package_of("A", "A.java") == {}
    assert project.imports.lookup("B", 3, "A.java") == [("import p.B;", 1)]


def test_corpus_index_counts_and_totals(tmp_path, tiny_corpus):
    out = tmp_path / "lines.npz"
    build_index([str(tiny_corpus)], (), get_language("java"), out, progress=False)
    index = LineIndex(out)
    assert index.lines_starting("import ") == [("import java.util.List;", 1)]
    assert dict(index.lines_starting("package "))["package p;"] == 2
    assert index.total("prev", "package p;") == 2        # 'class A {' and 'class B {'
    assert sum(n for _, n in index.lookup("prev", 5, "package p;")) == 2


JAVA_USES_MAP = """package app;

import java.util.List;
import java.util.Map;

class Uses {
    Map<String, List<String>> index;
}
"""
JAVA_OTHER = """package app;

import java.util.HashMap;
import java.util.Map;

class Other {
    Map<String, String> names = new HashMap<>();
}
"""


@pytest.mark.slow
@pytest.mark.parametrize("line, middle", [(3, "import java.util.Map;"), (0, "package app;")])
def test_missing_import_and_package_lines_are_predicted(tmp_path, text_model, line, middle):   # noqa: F811 (the imported fixture)
    """The file uses Map without importing it, and another file of the project imports it; the file has no
    package line, and the other file is in package app and is used by it, unimported."""
    records = []
    for path, text, i in (("Uses.java", JAVA_USES_MAP.replace("Map<String, List<String>>", "Map<String, Other>"),
                           line), ("Other.java", JAVA_OTHER, 6)):
        records.append(vars(task_at(text, i, path)))
    assert records[0]["middle"] == middle
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps(records))
    for beam in ("0", "2"):        # the beam search's lines compete too, and lose
        code, out, err = run_fim(["--model", str(text_model), "--workers", "1", "--quiet", "--beam", beam,
                                  str(tasks)])
        assert code == 0, err
        assert json.loads(out)[0]["fill"] == middle


def test_a_file_without_a_project_proposes_no_project_lines():
    task = FimTask("class A {\n", "    int x;", "\n}\n", "A.java")
    assert project_of({"A.java": task.prefix + task.middle + task.suffix}).lines_using({"x"}, {"x"}, 5,
                                                                                       "A.java") == []
