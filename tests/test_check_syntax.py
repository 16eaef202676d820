"""A file the Java grammar cannot parse: its first syntax error's line, and bin/check's warning naming it."""
import pytest

from parsing.java import GRAMMAR
from parsing.units import walk_units
from tests.test_check_ignores import EXAMPLE, MIN_SCORE, check, needs_model, repo  # noqa: F401 (a fixture)


@pytest.mark.parametrize("text, line", [
    ("class A {\n  void f() {\n    int x = 1;\n  }\n}\n", None),
    ("class A {\n  void f() {\n    int x = 1\n    foo(;\n  }\n}\n", 3),
    ("class A {\n  void f() {\n  }\n", 3),
    ("class A {\n\n\n  int x = ;\n}\n", 4),
])
def test_the_first_syntax_error_line(text, line):
    assert GRAMMAR.first_error_line(text) == line
    # bin/check's walk tells it from its own parse, and from the leaves it kept of it
    walked = walk_units(text, keep=True)
    assert walked.error_line == (line or 0)
    assert walk_units(text, parsed=walked.parsed).error_line == (line or 0)


@needs_model
def test_a_file_that_does_not_parse_is_named_with_its_line(repo):   # noqa: F811 (the imported fixture)
    broken = EXAMPLE.replace("{first}", "").replace("count += step; ", "count += ;")
    (repo / "src" / "Example.java").write_text(broken)
    out = check(repo, *MIN_SCORE, "src/Example.java")
    line = broken.splitlines().index("        count += ;") + 1
    assert out.returncode == 1
    assert f"check: warning: src/Example.java:{line}: the Java grammar cannot parse this line" in out.stderr
    (repo / "src" / "Example.java").write_text(EXAMPLE.replace("{first}", ""))
    assert "cannot parse" not in check(repo, *MIN_SCORE, "src/Example.java").stderr


# the broken line holds no whitespace to fix: a check of the whole file reports nothing there
CLEAN = EXAMPLE.replace("{first}", "").replace("\t.", ".").replace("step; \n", "step;\n")
BROKEN = CLEAN.replace("count += step;", "count += ;")
BROKEN_LINE = BROKEN.splitlines().index("        count += ;") + 1


@needs_model
def test_a_file_that_does_not_parse_is_named_whatever_its_findings(repo):   # noqa: F811
    (repo / "src" / "Example.java").write_text(BROKEN)
    out = check(repo, "--sensitivity", "low", "src/Example.java")
    assert "src/Example.java:" not in out.stdout   # no finding
    assert f"check: warning: src/Example.java:{BROKEN_LINE}: the Java grammar cannot parse this line" in out.stderr


@needs_model
def test_a_changed_file_that_does_not_parse_is_named_whatever_its_findings(repo):   # noqa: F811
    import subprocess
    subprocess.run(["git", "commit", "-q", "-m", "base"], cwd=repo, check=True, capture_output=True)
    (repo / "src" / "Example.java").write_text(BROKEN)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    out = check(repo, "--staged", "--sensitivity", "low", ".")
    assert f"check: warning: src/Example.java:{BROKEN_LINE}: the Java grammar cannot parse this line" in out.stderr
