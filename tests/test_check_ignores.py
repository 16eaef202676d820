"""The findings a user silences (check/ignores.py): rules turned off by --select, --ignore and the
configuration's select, ignore and per-file-ignores, and `// unnatural: ignore` comments; a silenced finding is
neither reported nor fixed, and the other findings are exactly those of a run without it. And display-only
fixes (check/rules.py), which --fix and --diff leave."""
import json
import shutil
import subprocess

import pytest
from conftest import ROOT, git_repo
from hypothesis import given
from hypothesis import strategies as st
from java_repo import CONSISTENT

from check.findings import CheckedFile, Finding
from check.ignores import RuleChoice, silence, suppressions
from check.rules import RULES

CHECK = ROOT / "bin" / "check"
DEFAULT_MODEL = ROOT / ".models" / "default-kind-units-o6.bin"


def _suppressions(text):
    found, problems = suppressions(text, "A.java")
    return [(s.line, s.lines, s.rules, s.every) for s in found], problems


@pytest.mark.parametrize("text, expected, problem", [
    ("class A {\n  int x = 1;  // unnatural: ignore[tab]\n}\n", [(2, (2,), ("tab",), False)], None),
    ("class A {\n  // unnatural: ignore[tab]\n  int x = 1;\n}\n", [(2, (2, 3), ("tab",), False)], None),
    ("class A {\n  // unnatural: ignore\n  int x = 1;\n}\n", [(2, (2, 3), (), True)], None),
    ("class A {\n  int x; // unnatural:ignore [tab, indent] a table\n}\n", [(2, (2,), ("tab", "indent"), False)], None),
    ("// unnatural: ignore[final-newline]\nclass A {}", [(1, (1, 2), ("final-newline",), False)], None),
    ("\ufeff// unnatural: ignore\nclass A {}\n", [(1, (1, 2), (), True)], None),                 # after a BOM
    ("class A {\r\n  int x;\r\n  int y; // unnatural: ignore\r\n}\r\n", [(3, (3,), (), True)], None),   # CRLF
    ("class A {\r  int x;\r  // unnatural: ignore\r  int y;\r}\r", [(3, (3, 4), (), True)], None),      # CR
    ('class A { String s = "// unnatural: ignore"; }\n', [], None),                             # a string
    ("class A { /* unnatural: ignore */ int x; }\n", [], None),                                 # a block comment
    ("class A { int x; // see unnatural: ignore in the docs\n}\n", [], None),                   # not at its start
    ("class A { int x; // unnatural: ignored\n}\n", [], "A.java:1: not a suppression: '// unnatural: ignored'"),
    ("class A { int x; // unnatural: ignore[tab]x\n}\n", [], "A.java:1: not a suppression"),
    ("class A {\n int x; // unnatural: ignore[tabs, indent]\n}\n", [(2, (2,), ("indent",), False)],
     "A.java:2: unknown rule 'tabs' in '// unnatural: ignore[tabs, indent]' (known: space-before, "),
    ("class A { int x; // unnatural: ignore[]\n}\n", [(1, (1,), (), False)], "A.java:1: '// unnatural: ignore[]' "
                                                                            "names no rule"),
])
def test_a_suppression_is_a_line_comment_that_names_its_rules(text, expected, problem):
    found, problems = _suppressions(text)
    assert found == expected
    if problem is None:
        assert problems == []
    else:
        assert len(problems) == 1 and problems[0].startswith(problem) and "\n" not in problems[0]


def _finding(rule: str, line: int) -> Finding:
    return Finding("A.java", line, 5, 1, rule, "m", 0.9, 5.0, 0, " ", "")


TEXT = ("class A {\n"                                   # 1
        "  int a ;  // unnatural: ignore[space-before]\n"   # 2
        "  // unnatural: ignore[tab, indent]\n"            # 3
        "  int b\t;\n"                                      # 4
        "  int c ;\n"                                       # 5
        "  int d ; // unnatural: ignore\n"                  # 6
        "}\n")


@pytest.mark.parametrize("found, rules, kept, unused", [
    ([("space-before", 2), ("tab", 4), ("space-before", 5), ("tab", 6), ("indent", 6)], None,
     [("space-before", 5)], ["A.java:3: unused suppression of 'indent' in '// unnatural: ignore[tab, indent]'"]),
    ([("tab", 2), ("space-before", 4), ("tab", 5)], None, [("tab", 2), ("space-before", 4), ("tab", 5)],
     ["A.java:2: unused suppression of 'space-before'", "A.java:3: unused suppression of 'tab'",
      "A.java:3: unused suppression of 'indent'", "A.java:6: unused suppression '// unnatural: ignore': no finding"]),
    # a rule turned off is not reported, and a suppression of it silences nothing
    ([("space-before", 2), ("tab", 4), ("space-before", 5)], frozenset({"tab"}), [],
     ["A.java:2: unused suppression of 'space-before'", "A.java:3: unused suppression of 'indent'",
      "A.java:6: unused"]),
])
def test_a_suppression_silences_its_rules_on_its_lines_only(found, rules, kept, unused):
    out = silence(CheckedFile("A.java", TEXT, tuple(_finding(r, line) for r, line in found)), rules)
    assert [(f.rule, f.line) for f in out.checked.findings] == kept
    assert len(out.unused) == len(unused) and all(u.startswith(want) for u, want in zip(out.unused, unused))
    assert out.problems == ()


@given(st.lists(st.tuples(st.sampled_from(sorted(RULES)), st.integers(1, 9)), max_size=12),
       st.none() | st.frozensets(st.sampled_from(sorted(RULES))))
def test_without_comments_only_the_rules_off_go_and_the_rest_keep_their_order(found, rules):
    findings = tuple(_finding(r, line) for r, line in found)
    out = silence(CheckedFile("A.java", "class A {\n  int x;\n}\n", findings), rules)
    assert out.checked.findings == tuple(f for f in findings if rules is None or f.rule in rules)
    assert (out.problems, out.unused) == ((), ())


@pytest.mark.parametrize("choice, rel, rules", [
    (RuleChoice(), "A.java", set(RULES)),
    (RuleChoice(ignore=frozenset({"tab"})), "A.java", set(RULES) - {"tab"}),
    (RuleChoice(select=frozenset({"tab", "indent"})), "src/A.java", {"tab", "indent"}),
    (RuleChoice(select=frozenset({"tab", "indent"}), ignore=frozenset({"tab"})), "A.java", {"indent"}),  # ignore wins
    (RuleChoice(per_file=(("src/test/**", frozenset({"indent"})),)), "src/test/A.java", set(RULES) - {"indent"}),
    (RuleChoice(per_file=(("src/test/**", frozenset({"indent"})),)), "src/main/A.java", set(RULES)),
    (RuleChoice(per_file=(("*Gen.java", frozenset({"tab"})), ("gen", frozenset({"indent"})))), "gen/AGen.java",
     set(RULES) - {"tab", "indent"}),
])
def test_the_rules_checked_in_a_file(choice, rel, rules):
    assert choice.rules(rel) == rules
    assert choice.all is (choice == RuleChoice())


# ---- bin/check, with the default model ---------------------------------------------------------------------

needs_model = pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no default model (make demo builds it)")
# a tab before '.' on lines 8 and 16 (with --min-score 1 the default model reports both, blank-lines and
# missing-space findings too)
EXAMPLE = ("package example;\n\npublic class Example {\n\n    private int count;\n\n"
           "    public int next(int step) {\n        System.out\t.println(step);{first}\n        count += step; \n\n\n"
           "        return count;\n    }\n\n    public int last() {\n        System.err\t.println(count);\n"
           "        return count;\n    }\n}\n")
MIN_SCORE = ["--min-score", "1"]


@pytest.fixture
def repo(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "repo"
    git = git_repo(root)
    (root / "src").mkdir()
    for name, text in CONSISTENT.items():
        (root / "src" / name).write_text(text)
    (root / "src" / "Example.java").write_text(EXAMPLE.replace("{first}", ""))
    git("add", "-A")
    return root


def check(root, *args):
    return subprocess.run([str(CHECK), "--quiet", "--workers", "1", "--no-cache", *args], cwd=root,
                          capture_output=True, text=True, timeout=300)


def findings(root, *args) -> list[dict]:
    out = check(root, "--format", "json", *args)
    assert out.returncode in (0, 1) and "Traceback" not in out.stderr, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def _without(found, rule):
    return [f for f in found if f["rule"] != rule]


@needs_model
@pytest.mark.parametrize("how", ["--ignore", "--ignore=", "--select", ".unnatural.toml", "pyproject.toml",
                                 "per-file-ignores"])
def test_ignore_blank_lines_silences_exactly_that_rule(repo, how):
    everything = findings(repo, *MIN_SCORE, ".")
    assert "blank-lines" in {f["rule"] for f in everything} and len({f["rule"] for f in everything}) >= 3
    args = []
    if how == "--ignore":
        args = ["--ignore", "blank-lines"]
    elif how == "--ignore=":
        args = ["--ignore=tab,blank-lines", "--ignore", "tab"]
    elif how == "--select":
        args = ["--select", ",".join(r for r in RULES if r != "blank-lines")]
    elif how == ".unnatural.toml":
        (repo / ".unnatural.toml").write_text('ignore = ["blank-lines"]\n')
    elif how == "pyproject.toml":
        (repo / "pyproject.toml").write_text('[tool.unnatural]\nignore = "blank-lines"\n')
    else:
        (repo / ".unnatural.toml").write_text('[per-file-ignores]\n"src/*.java" = ["blank-lines"]\n"x/**" = ["tab"]\n')
    expected = _without(everything, "blank-lines")
    if how == "--ignore=":
        expected = _without(expected, "tab")
    assert findings(repo, *MIN_SCORE, *args, ".") == expected
    # from a sub-folder and on one named file too: the configuration is the repository's
    assert findings(repo / "src", *MIN_SCORE, *args, "Example.java") == \
        [dict(f, path=f["path"].removeprefix("src/")) for f in expected if f["path"] == "src/Example.java"]


@needs_model
def test_each_rule_ignored_takes_out_its_findings_only(repo):
    everything = findings(repo, *MIN_SCORE, ".")
    for rule in {f["rule"] for f in everything}:
        assert findings(repo, *MIN_SCORE, "--ignore", rule, ".") == _without(everything, rule)
        assert findings(repo, *MIN_SCORE, "--select", rule, ".") == [f for f in everything if f["rule"] == rule]


@needs_model
def test_the_command_line_selects_instead_of_the_configuration_and_ignores_add_up(repo):
    everything = findings(repo, *MIN_SCORE, ".")
    (repo / ".unnatural.toml").write_text('select = ["tab"]\nignore = ["missing-space"]\n')
    assert findings(repo, *MIN_SCORE, ".") == [f for f in everything if f["rule"] == "tab"]
    assert findings(repo, *MIN_SCORE, "--select", "tab,missing-space,blank-lines", "--ignore", "blank-lines", ".") == \
        [f for f in everything if f["rule"] == "tab"]


@needs_model
@pytest.mark.parametrize("option", ["--ignore", "--select"])
def test_an_unknown_rule_is_one_error_line_listing_the_rules(repo, option):
    out = check(repo, option, "tab,tabs", ".")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == f"check: error: {option}: unknown rule 'tabs' (known: {', '.join(RULES)})\n"


def _example(repo, first: str) -> None:
    (repo / "src" / "Example.java").write_text(EXAMPLE.replace("{first}", first))


def _padded(comment: str, width: int) -> str:
    """`comment` with a reason after it to `width` characters (findings after it keep their columns)."""
    return comment + " " + "x" * (width - len(comment) - 1)


@needs_model
@pytest.mark.parametrize("comment, silenced", [
    ("  // unnatural: ignore[tab]", {"tab"}),
    ("  // unnatural: ignore", {"tab", "missing-space"}),
    ("  // unnatural: ignore[missing-space, tab]", {"tab", "missing-space"}),
    ("  // unnatural: ignore[indent]", set()),   # another rule: nothing silenced
])
def test_a_suppression_comment_silences_one_finding_on_its_line_and_nothing_else(repo, comment, silenced):
    width = 48
    _example(repo, _padded("  // unnatural: ignore[indent]", width))   # a comment that silences nothing
    reference = findings(repo, *MIN_SCORE, ".")
    on_the_line = [f for f in reference if f["path"] == "src/Example.java" and f["line"] == 8]
    assert sorted(f["rule"] for f in on_the_line) == ["missing-space", "tab"]
    assert any(f["rule"] == "tab" and f["line"] == 16 for f in reference)   # the other tab stays
    _example(repo, _padded(comment, width))
    assert findings(repo, *MIN_SCORE, ".") == [f for f in reference if f not in on_the_line or
                                               f["rule"] not in silenced]


@needs_model
def test_a_suppression_on_the_line_before_and_unused_ones_reported_when_asked(repo):
    text = EXAMPLE.replace("{first}", "").replace("        System.out\t", "        // unnatural: ignore[tab]\n"
                                                                         "        System.out\t")
    (repo / "src" / "Example.java").write_text(text)
    found = findings(repo, *MIN_SCORE, "src/Example.java")
    assert not any(f["rule"] == "tab" and f["line"] == 9 for f in found)
    assert any(f["rule"] == "tab" and f["line"] == 17 for f in found)
    quiet = check(repo, *MIN_SCORE, "--select", "tab", "src/Example.java")
    assert quiet.returncode == 1 and "unused" not in quiet.stderr
    # with the tab off, the comment silences nothing: a warning when asked, and exit 1 even with no finding
    (repo / ".unnatural.toml").write_text('ignore = ["tab"]\n')
    out = check(repo, *MIN_SCORE, "--select", "tab", "--report-unused-suppressions", "src/Example.java")
    assert (out.returncode, out.stdout) == (1, "")
    assert out.stderr == "check: warning: src/Example.java:8: unused suppression of 'tab' in " \
                         "'// unnatural: ignore[tab]'\n"
    assert check(repo, *MIN_SCORE, "--select", "tab", "src/Example.java").returncode == 0


def _fixed(text: str, found: list[dict]) -> str:
    """`text` with the gaps of JSON findings `found` replaced by their fixes."""
    for f in sorted(found, key=lambda f: -f["gap_offset"]):
        start = f["gap_offset"] - 1
        assert text[start:start + len(f["original"])] == f["original"]
        text = text[:start] + f["replacement"] + text[start + len(f["original"]):]
    return text


@needs_model
def test_a_silenced_finding_is_not_fixed_and_the_others_are(repo):
    example = repo / "src" / "Example.java"
    _example(repo, "  // unnatural: ignore[tab]")
    before = example.read_text()
    everything = findings(repo, *MIN_SCORE, "--select", "tab,blank-lines,missing-space,trailing-space",
                          "src/Example.java")
    kept = findings(repo, *MIN_SCORE, "--ignore", "blank-lines", "src/Example.java")
    assert kept == _without(everything, "blank-lines") != everything   # (the comment's tab is in neither)
    expected = _fixed(before, kept)
    assert "out\t.println(step)" in expected and "\n\n\n        return" in expected   # the two silenced
    diff = check(repo, *MIN_SCORE, "--ignore", "blank-lines", "--diff", "src/Example.java")
    added = [line for line in diff.stdout.splitlines() if line.startswith("+") and "println" in line]
    assert diff.returncode == 1 and added and all("println(count)" in line or "out\t.println(step)" in line
                                                  for line in added)
    assert check(repo, *MIN_SCORE, "--ignore", "blank-lines", "--fix", "src/Example.java").returncode == 1
    assert example.read_text() == expected != before


