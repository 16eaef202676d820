"""check/since.py: the lines changed since a git revision, in a real temporary repository."""
from pathlib import Path

import pytest
from conftest import git_repo

from check.since import SinceError, changed_lines, is_changed, parse_diff

BASE = "".join(f"line {i}\n" for i in range(1, 11))


@pytest.fixture
def repo(tmp_path):
    """A repository with one commit (tag `base`) of a few files; returns (folder, git)."""
    root = tmp_path / "r"
    git = git_repo(root)
    for name in ("src/A.java", "src/B.java", "src/Gone.java", "src/Same.java", "other/O.java"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(BASE)
    (root / ".gitignore").write_text("*.gen.java\n")
    git("add", "-A")
    git("commit", "-qm", "base")
    git("tag", "base")
    return root.resolve(), git


def edit(path: Path, change) -> None:
    lines = path.read_text().split("\n")
    change(lines)
    path.write_text("\n".join(lines))


@pytest.mark.parametrize("change, expected", [
    (lambda ls: ls.__setitem__(2, "line  3"), {3}),                     # a line changed
    (lambda ls: ls.insert(4, ""), {5}),                                 # a line added
    (lambda ls: ls.__delitem__(4), set()),                              # a line removed: no line is the change's
    (lambda ls: ls.__delitem__(0), set()),                              # the first line removed
    (lambda ls: (ls.__delitem__(4), ls.__setitem__(6, "line  8")), {7}),   # removed, and one modified
    (lambda ls: (ls.__setitem__(0, " line 1"), ls.__setitem__(8, "line 9 ")), {1, 9}),
    (lambda ls: ls.__setitem__(slice(3, 5), ["x", "y", "z"]), {4, 5, 6}),
])
def test_changed_lines_of_an_edited_file(repo, change, expected):
    root, _ = repo
    edit(root / "src/A.java", change)
    assert changed_lines([root], "base") == ({root / "src/A.java": expected} if expected else {})


def test_commits_staged_changes_new_untracked_and_deleted_files(repo):
    root, git = repo
    edit(root / "src/A.java", lambda ls: ls.__setitem__(1, "line  2"))
    git("commit", "-qam", "committed after base")
    edit(root / "src/B.java", lambda ls: ls.__setitem__(6, "line  7"))
    git("add", "src/B.java")                                          # staged
    edit(root / "src/B.java", lambda ls: ls.__setitem__(8, "line  9"))   # and unstaged
    (root / "src/Added.java").write_text(BASE)
    git("add", "src/Added.java")                                      # added since base: new as a whole
    (root / "src/Untracked.java").write_text(BASE)                    # untracked: new as a whole
    (root / "src/X.gen.java").write_text(BASE)                        # ignored: not reported
    (root / "src/Gone.java").unlink()                                 # deleted: nothing to report
    assert changed_lines([root / "src"], "base") == {
        root / "src/A.java": {2}, root / "src/B.java": {7, 9}, root / "src/Added.java": None,
        root / "src/Untracked.java": None}
    assert changed_lines([root / "src"], "HEAD") == {
        root / "src/B.java": {7, 9}, root / "src/Added.java": None, root / "src/Untracked.java": None}


def test_only_under_the_paths_given(repo):
    root, _ = repo
    for name in ("src/A.java", "other/O.java"):
        edit(root / name, lambda ls: ls.__setitem__(0, "line  1"))
    assert set(changed_lines([root / "other"], "base")) == {root / "other/O.java"}
    assert set(changed_lines([root / "src/A.java"], "base")) == {root / "src/A.java"}
    assert set(changed_lines([root / "src/A.java", root / "other"], "base")) == {root / "src/A.java",
                                                                              root / "other/O.java"}


def test_relative_paths_links_and_is_changed(repo, monkeypatch, tmp_path):
    root, _ = repo
    edit(root / "src/A.java", lambda ls: ls.__setitem__(3, "line  4"))
    (tmp_path / "link").symlink_to(root)
    monkeypatch.chdir(tmp_path / "link")   # the user works through a link to the repository
    changes = changed_lines(["src"], "base")
    assert changes == {root / "src/A.java": {4}}
    assert is_changed(changes, "src/A.java", 4) and not is_changed(changes, "src/A.java", 5)
    assert not is_changed(changes, "src/B.java", 4)
    (root / "src/New.java").write_text(BASE)
    assert is_changed(changed_lines(["src"], "base"), "src/New.java", 7)


def test_file_names_git_quotes(repo):
    root, git = repo
    names = ["src/My File.java", "src/É ü.java", 'src/q"uote.java', "src/t\tab.java", "src/back\\slash.java"]
    for name in names:
        (root / name).write_text(BASE)
    git("add", "-A")
    git("commit", "-qm", "names")
    for name in names:
        edit(root / name, lambda ls: ls.__setitem__(1, "line  2"))
    assert changed_lines([root], "HEAD") == {root / name: {2} for name in names}


def test_lines_are_counted_as_editors_count_them(repo):
    """git ends lines at LF only; a Finding counts CR and CRLF too."""
    root, git = repo
    (root / "src/Cr.java").write_bytes(b"a\rb\rc\rd\r")
    (root / "src/Crlf.java").write_bytes(b"a\r\nb\r\nc\r\n")
    (root / "src/Mixed.java").write_bytes(b"a\nb\rc\r\nd\n")
    git("add", "-A")
    git("commit", "-qm", "line endings")
    (root / "src/Cr.java").write_bytes(b"a\r b\rc\rd\r")       # git: its one line changed
    (root / "src/Crlf.java").write_bytes(b"a\r\n b\r\nc\r\n")
    (root / "src/Mixed.java").write_bytes(b"a\nb\rc\r\n d\n")  # git's line 3 is our line 4
    assert changed_lines([root], "HEAD") == {root / "src/Cr.java": {1, 2, 3, 4, 5},
                                             root / "src/Crlf.java": {2}, root / "src/Mixed.java": {4}}


@pytest.mark.parametrize("rev", ["no-such-branch", "HEAD~5", "--output=/tmp/x", "", "base..HEAD"])
def test_an_unknown_revision_is_one_line(repo, rev):
    root, _ = repo
    with pytest.raises(SinceError) as e:
        changed_lines([root], rev)
    assert str(e.value) == f"--since: unknown revision {rev!r} in {root}"


def test_outside_a_git_work_tree_is_one_line(tmp_path, repo):
    root, _ = repo
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain/A.java").write_text(BASE)
    for path in (tmp_path / "plain", tmp_path / "plain/A.java", root / ".git"):
        with pytest.raises(SinceError, match=f"^--since: {path} is not inside a git work tree$"):
            changed_lines([root, path], "base")


def test_a_repository_without_commits(tmp_path):
    git_repo(tmp_path / "empty")
    with pytest.raises(SinceError, match="unknown revision 'HEAD'"):
        changed_lines([tmp_path / "empty"], "HEAD")


def test_since_a_branch_is_since_its_merge_base_as_on_a_pull_request(repo):
    """--since main on a branch: what the branch changed since it left main, not what main did since."""
    root, git = repo
    git("checkout", "-q", "-b", "topic")
    edit(root / "src/A.java", lambda ls: ls.__setitem__(1, "line  2"))
    git("commit", "-qam", "the branch's change")
    git("checkout", "-q", "main")
    edit(root / "src/B.java", lambda ls: ls.__setitem__(4, "line  5"))
    edit(root / "src/A.java", lambda ls: ls.__setitem__(8, "line  9"))
    git("commit", "-qam", "main moves on")
    git("checkout", "-q", "topic")
    assert changed_lines([root], "main") == {root / "src/A.java": {2}}
    assert changed_lines([root], "topic~1") == {root / "src/A.java": {2}}   # an ancestor: itself
    assert changed_lines([root], "HEAD") == {}


def test_a_revision_without_common_history_is_one_line(repo):
    root, git = repo
    git("checkout", "-q", "--orphan", "other")
    git("commit", "-qm", "unrelated")
    git("checkout", "-q", "main")
    with pytest.raises(SinceError) as e:
        changed_lines([root], "other")
    assert str(e.value) == f"--since: 'other' and HEAD have no commit in common in {root}"


def test_a_missing_path_is_left_to_the_checker(repo):
    root, _ = repo
    assert changed_lines([root / "missing/X.java", root / "nope"], "base") == {}


DIFF = b"""diff --git a/src/A.java b/src/A.java
index 1..2 100644
--- a/src/A.java
+++ b/src/A.java
@@ -3 +3 @@ class A {
-x
+y
@@ -7,2 +6,0 @@
-a
-b
@@ -0,0 +1,2 @@
+c
+d
diff --git a/"q\\"uote \\303\\211.java" b/"q\\"uote \\303\\211.java"
new file mode 100644
--- /dev/null
+++ "b/q\\"uote \\303\\211.java"
@@ -0,0 +1 @@
+x
diff --git a/Gone.java b/Gone.java
deleted file mode 100644
--- a/Gone.java
+++ /dev/null
@@ -1 +0,0 @@
-x
"""


def test_parse_diff():
    assert parse_diff(DIFF) == {"src/A.java": {1, 2, 3}, 'q"uote \u00c9.java': None}   # (lines 7-8 only deleted)
    assert parse_diff(b"") == {}


def test_bin_check_since_reports_only_what_changed(tmp_path, tiny_model):
    """bin/check --since with a real model: the findings of a committed file go, an untracked file's stay; an
    unknown revision or a folder outside git is one error line and exit 2."""
    import json
    import subprocess

    from conftest import ROOT, TINY_JAVA
    repo = tmp_path / "repo"
    git = git_repo(repo)
    broken = TINY_JAVA["A.java"].replace("x = a + b;", "x = a + b ;")
    (repo / "A.java").write_text(broken)
    git("add", "-A")
    git("commit", "-qm", "old code")
    (repo / "B.java").write_text(broken.replace("class A", "class B"))

    def check(*options, path="."):
        return subprocess.run([str(ROOT / "bin" / "check"), "--model", str(tiny_model), "--min-score", "2",
                               "--format", "json", "--quiet", *options, path], cwd=repo, capture_output=True,
                              text=True, timeout=300)

    everything = [json.loads(line) for line in check().stdout.splitlines()]
    assert {f["path"] for f in everything} == {"A.java", "B.java"}
    r = check("--since", "HEAD")
    assert r.returncode == 1, r.stderr
    assert [json.loads(line) for line in r.stdout.splitlines()] == [f for f in everything if f["path"] == "B.java"]
    r = check("--since", "no-such-rev")
    assert (r.returncode, r.stderr) == (
        2, f"check: error: --since: unknown revision 'no-such-rev' in {repo.resolve()}\n")
    (tmp_path / "plain").mkdir()
    r = check("--since", "HEAD", path=str(tmp_path / "plain"))
    assert (r.returncode, r.stderr) == (
        2, f"check: error: --since: {tmp_path / 'plain'} is not inside a git work tree\n")
