"""bin/check judges a change (--staged, --since, the pre-commit hook's mode) with a real model in a real git
repository: findings, --diff and --fix only on the lines the change added or modified, never on an old
anomaly of a line it did not touch; `.` as the default PATH; a PATH that names nothing is exit 2."""
import json
import os
import subprocess

import pytest
from conftest import ROOT, TINY_JAVA, git_repo

OLD = TINY_JAVA["A.java"].replace("x = a + b;", "x = a + b ;")   # an old anomaly, line 8
# the change: a method added after f (lines 11-14), its line 13 slipped as the old one is
NEW_METHOD = "\n    void g(int a, int b) {\n        x = b + a ;\n    }\n"


def with_method(text: str, line: str) -> str:
    lines = text.split("\n")
    at = lines.index("    }") + 1   # after f's closing brace
    return "\n".join(lines[:at] + line.rstrip("\n").split("\n") + lines[at:])


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    git = git_repo(root)
    (root / "A.java").write_text(OLD)
    for name in ("B.java", "C.java"):
        (root / name).write_text(TINY_JAVA[name])
    git("add", "-A")
    git("commit", "-qm", "old code")
    return root, git


def check(root, model, *options, env=None, cwd=None):
    return subprocess.run([str(ROOT / "bin" / "check"), "--model", str(model), "--min-score", "2", "--workers", "1",
                           "--quiet", *options], cwd=cwd or root, capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


def lines_of(proc) -> list[tuple[str, int]]:
    assert proc.returncode in (0, 1), proc.stderr
    return [(f["path"], f["line"]) for f in map(json.loads, proc.stdout.splitlines())]


def test_the_change_is_judged_and_fixed_on_its_own_lines_only(repo, tiny_model):
    root, git = repo
    assert lines_of(check(root, tiny_model, "--format", "json")) == [("A.java", 8)]   # the old anomaly
    (root / "A.java").write_text(with_method(OLD, NEW_METHOD))
    assert sorted(lines_of(check(root, tiny_model, "--format", "json"))) == [("A.java", 8), ("A.java", 13)]
    assert lines_of(check(root, tiny_model, "--staged", "--format", "json", "A.java")) == []   # not staged yet
    git("add", "A.java")
    for mode in (["--staged"], ["--since", "HEAD"], ["--since", "main"]):
        assert lines_of(check(root, tiny_model, *mode, "--format", "json")) == [("A.java", 13)], mode
    diff = check(root, tiny_model, "--staged", "--diff").stdout
    assert [line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")] == [
        "-        x = b + a ;", "+        x = b + a;"]
    fixed = check(root, tiny_model, "--staged", "--fix")
    assert fixed.returncode == 1
    assert (root / "A.java").read_text() == with_method(OLD, NEW_METHOD.replace("a ;", "a;"))   # line 8 as it was
    git("add", "A.java")
    assert check(root, tiny_model, "--staged").returncode == 0   # the commit is clean; the old anomaly stays


def test_a_clean_edit_to_a_file_with_old_anomalies_passes(repo, tiny_model):
    root, git = repo
    (root / "A.java").write_text(OLD.replace("class A {", "// a comment\nclass A {"))
    git("add", "A.java")
    for mode in (["--staged"], ["--since", "HEAD"]):
        r = check(root, tiny_model, *mode)
        assert (r.returncode, r.stdout) == (0, ""), (mode, r.stdout, r.stderr)
    # a deletion alone touches no line: the old anomaly next to it is not the change's
    git("reset", "-q", "--hard")
    unwrapped = OLD.replace("        if (a > b) {\n", "").replace("a + b ;\n        }\n", "a + b ;\n")
    assert unwrapped.count("\n") == OLD.count("\n") - 2   # two lines deleted, around the old anomaly
    (root / "A.java").write_text(unwrapped)
    assert check(root, tiny_model, "--since", "HEAD").returncode == 0


def test_since_a_branch_judges_what_the_branch_changed(repo, tiny_model):
    """--since main on a topic branch: from where the branch left main. main fixed the old anomaly since; the
    branch's line 8 differs from main's now, but the branch did not touch it."""
    root, git = repo
    git("checkout", "-q", "-b", "topic")
    (root / "A.java").write_text(with_method(OLD, NEW_METHOD))
    git("commit", "-qam", "a method")
    git("checkout", "-q", "main")
    (root / "A.java").write_text(TINY_JAVA["A.java"])
    git("commit", "-qam", "main fixes the old anomaly")
    git("checkout", "-q", "topic")
    assert lines_of(check(root, tiny_model, "--since", "main", "--format", "json")) == [("A.java", 13)]


def test_pre_commit_from_ref_and_to_ref_judge_the_lines_between_them(repo, tiny_model):
    """`pre-commit run --from-ref A --to-ref B` (CI, pre-push) sets PRE_COMMIT_FROM_REF/TO_REF: the hook's
    --staged then judges the lines changed since A, as --since A does."""
    root, git = repo
    (root / "A.java").write_text(with_method(OLD, NEW_METHOD))
    git("commit", "-qam", "a method")
    assert lines_of(check(root, tiny_model, "--staged", "--format", "json")) == []   # nothing staged
    refs = {"PRE_COMMIT_FROM_REF": "HEAD~1", "PRE_COMMIT_TO_REF": "HEAD"}
    assert lines_of(check(root, tiny_model, "--staged", "--format", "json", env=refs)) == [("A.java", 13)]


def test_the_default_path_is_the_current_folder(repo, tiny_model):
    root, _ = repo
    assert check(root, tiny_model, "--format", "json").stdout == check(root, tiny_model, "--format", "json", ".").stdout
    sub = check(root, tiny_model, "--since", "HEAD~0", "--format", "json")
    assert sub.returncode == 0 and sub.stdout == ""


@pytest.mark.parametrize("options", [[], ["--skip-bad-files"]])
def test_a_path_that_does_not_exist_is_exit_2_and_the_rest_is_checked(repo, tiny_model, options):
    root, _ = repo
    r = check(root, tiny_model, *options, "--format", "json", "nowhere", "A.java")
    assert r.returncode == 2
    assert "check: error: nowhere: no such file or folder\n" in r.stderr
    assert [json.loads(line)["path"] for line in r.stdout.splitlines()] == ["A.java"]


def test_a_folder_with_nothing_to_check_says_so(repo, tiny_model):
    root, _ = repo
    (root / "docs").mkdir()
    (root / "docs" / "notes.txt").write_text("not java\n")
    r = check(root, tiny_model, "docs")
    assert (r.returncode, r.stderr) == (1, "check: warning: docs: no .java file in the folder; skipped\n")
    assert check(root, tiny_model, "--skip-bad-files", "docs").returncode == 0


@pytest.mark.parametrize("options, says", [
    (["--since", "nope"], "check: error: --since: unknown revision 'nope' in {root}\n"),
    (["--staged", "{plain}"], "check: error: --staged: {plain} is not inside a git work tree\n"),
    (["--since", "HEAD", "{plain}"], "check: error: --since: {plain} is not inside a git work tree\n"),
])
def test_bad_input_for_a_change_is_one_line_and_exit_2(repo, tiny_model, tmp_path, options, says):
    root, _ = repo
    plain = tmp_path / "plain"
    plain.mkdir()
    fill = dict(root=root.resolve(), plain=plain)
    r = check(root, tiny_model, *[o.format(**fill) for o in options])
    assert (r.returncode, r.stdout, r.stderr) == (2, "", says.format(**fill))


def test_an_unused_suppression_on_a_line_the_change_did_not_touch_does_not_fail_it(repo, tiny_model):
    root, git = repo
    (root / "B.java").write_text(TINY_JAVA["B.java"].replace("class B {", "class B {  // unnatural: ignore[tab]"))
    git("commit", "-qam", "an old suppression that silences nothing")
    whole = check(root, tiny_model, "--report-unused-suppressions", "B.java")
    assert whole.returncode == 1 and "B.java:3: unused suppression of 'tab'" in whole.stderr
    (root / "B.java").write_text((root / "B.java").read_text().replace("package p;", "package p;\n// a note"))
    git("add", "B.java")
    r = check(root, tiny_model, "--staged", "--report-unused-suppressions")
    assert (r.returncode, r.stderr) == (0, "")
    (root / "B.java").write_text((root / "B.java").read_text().replace("// a note", "// unnatural: ignore[tab]"))
    git("add", "B.java")
    r = check(root, tiny_model, "--staged", "--report-unused-suppressions")
    assert r.returncode == 1 and "B.java:2: unused suppression" in r.stderr and "B.java:4:" not in r.stderr
