"""check/discover.py: which files bin/check checks (real folders, links, fifos and git work trees)."""
import os
from pathlib import Path

import pytest
from conftest import git_repo, unprivileged

from check.discover import files_to_check
from formats.files import user_path
from unnatural.cli import MAX_BYTES


def write(root: Path, *names: str) -> None:
    for name in names:
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"class {p.stem.replace('.', '_')} {{}}\n")


def check(paths, cwd, **kwargs):
    files, problems = files_to_check(paths, cwd=cwd, **kwargs)
    return files, [(p.severity, p.message) for p in problems]


# (files written, files expected) for a plain folder (no git)
WALKS = [
    (["A.java", "b/B.java", "b/c/C.java"], ["A.java", "b/B.java", "b/c/C.java"]),
    (["A.java", "notes.txt", "A.java.orig", "Ajava"], ["A.java"]),
    (["A.java", ".hidden/H.java", "b/.cache/X.java", ".B.java"], ["A.java"]),
    (["A.java", "target/T.java", "build/B.java", "out/O.java", "m/target/T.java", ".git/G.java"], ["A.java"]),
    (["targets/T.java", "output/O.java", "builder/B.java"], ["builder/B.java", "output/O.java", "targets/T.java"]),
    (["z/Z.java", "a/10.java", "a/9.java", "a/A.java"], ["a/A.java", "a/9.java", "a/10.java", "z/Z.java"]),
]


@pytest.mark.parametrize("written, expected", WALKS)
def test_a_folder_is_walked_for_java_files(tmp_path, written, expected):
    write(tmp_path / "p", *written)
    assert check(["p"], tmp_path) == ([f"p/{e}" for e in expected], [])
    assert check(["."], tmp_path / "p") == (expected, [])


def test_a_java_file_named_is_checked_wherever_it_is_and_another_file_is_skipped(tmp_path):
    write(tmp_path, "Notes.txt", "target/T.java", ".hidden/H.java")
    assert check(["Notes.txt", "target/T.java", ".hidden/H.java"], tmp_path) == (
        [".hidden/H.java", "target/T.java"], [("warning", "Notes.txt: not a .java file; skipped")])


def test_a_missing_path_is_one_error_and_the_rest_is_checked(tmp_path):
    write(tmp_path, "A.java")
    assert check(["missing", "A.java", "gone/X.java"], tmp_path) == (
        ["A.java"], [("error", "gone/X.java: no such file or folder"), ("error", "missing: no such file or folder")])


def test_a_folder_with_no_java_file_says_so(tmp_path):
    write(tmp_path, "docs/notes.txt", "src/A.java")
    (tmp_path / "empty").mkdir()
    assert check(["docs", "empty", "src"], tmp_path) == (
        ["src/A.java"], [("warning", "docs: no .java file in the folder; skipped"),
                         ("warning", "empty: no .java file in the folder; skipped")])


def test_each_file_once(tmp_path):
    write(tmp_path, "p/A.java", "p/q/B.java")
    os.link(tmp_path / "p/A.java", tmp_path / "p/Hard.java")
    files, problems = check(["p", "p/A.java", str(tmp_path / "p"), "p/q", "./p/q/B.java", "p/../p/q"], tmp_path)
    assert files == ["p/A.java", "p/q/B.java"] and problems == []


def test_link_loops_end_and_each_real_folder_is_walked_once(tmp_path):
    write(tmp_path, "p/a/A.java", "p/b/B.java", "other/O.java")
    (tmp_path / "p/a/up").symlink_to("..")                # a loop
    (tmp_path / "p/a/self").symlink_to(".")               # another
    (tmp_path / "p/b/to_other").symlink_to(tmp_path / "other")   # a linked folder outside: followed
    (tmp_path / "p/b/Link.java").symlink_to("B.java")     # a linked file: its target is already checked
    files, problems = check(["p"], tmp_path)
    assert files == ["p/a/A.java", "p/b/B.java", "p/b/to_other/O.java"] and problems == []


def test_broken_links_fifos_and_devices_are_skipped_with_a_line(tmp_path):
    write(tmp_path, "p/A.java")
    (tmp_path / "p/Dangling.java").symlink_to("nowhere.java")
    os.mkfifo(tmp_path / "p/Fifo.java")
    (tmp_path / "p/Loop.java").symlink_to("Loop.java")
    files, problems = check(["p", "/dev/zero", "p/Fifo.java"], tmp_path)   # a fifo read would block forever
    assert files == ["p/A.java"]
    assert problems == [("error", "/dev/zero: not a regular file; skipped"),
                        ("warning", "p/Dangling.java: broken link; skipped"),
                        ("error", "p/Fifo.java: not a regular file; skipped"),   # named: an error
                        ("warning", "p/Loop.java: broken link; skipped")]


def test_files_above_the_size_limit_are_skipped_with_a_warning(tmp_path):
    write(tmp_path, "p/Small.java")
    with open(tmp_path / "p/Big.java", "wb") as f:   # sparse: 10 MB and one byte, nothing written
        f.truncate(MAX_BYTES + 1)
    big = f"p/Big.java: {MAX_BYTES + 1:,} bytes, more than --max-bytes {MAX_BYTES:,}; skipped"
    assert check(["p"], tmp_path) == (["p/Small.java"], [("warning", big)])
    files, problems = check(["p"], tmp_path, max_bytes=MAX_BYTES + 1)
    assert files == ["p/Big.java", "p/Small.java"] and problems == []
    assert check(["p/Small.java"], tmp_path, max_bytes=5)[0] == []


@pytest.mark.parametrize("path, cwd, expected", [
    ("A.java", "/w", "A.java"),
    ("./a/../b/A.java", "/w", "b/A.java"),
    ("/w/b/A.java", "/w", "b/A.java"),
    ("/w", "/w", "."),
    ("/elsewhere/A.java", "/w", "/elsewhere/A.java"),
    ("../x/A.java", "/w", "../x/A.java"),
    ("/w2/A.java", "/w", "/w2/A.java"),   # a sibling whose name starts alike is not under /w
])
def test_user_path(path, cwd, expected):
    assert user_path(path, cwd) == expected


def test_paths_are_named_as_the_user_would_type_them(tmp_path):
    write(tmp_path, "w/p/A.java", "x/X.java")
    cwd = tmp_path / "w"
    assert check([str(tmp_path / "w/p"), "../x", str(tmp_path / "x/X.java")], cwd) == (
        ["../x/X.java", "p/A.java"], [])


# --- git work trees ---------------------------------------------------------------------------------------------

def test_a_git_work_tree_checks_tracked_and_untracked_not_ignored_java_files(tmp_path):
    git = git_repo(tmp_path / "r")
    r = tmp_path / "r"
    write(r, "src/A.java", "src/Gone.java", "target/Tracked.java", ".mvn/Hidden.java", "src/notes.txt")
    (r / ".gitignore").write_text("ignored/\n*.gen.java\n")
    git("add", "-A")
    git("commit", "-qm", "first")
    write(r, "src/New.java", "ignored/I.java", "src/X.gen.java", "build/Untracked.java")
    (r / "src/Gone.java").unlink()   # tracked but deleted: not checked, no error
    files, problems = check(["r"], tmp_path)
    # git decides, not the folder walk: tracked and not-ignored files in hidden or build folders are checked
    assert files == ["r/.mvn/Hidden.java", "r/build/Untracked.java", "r/src/A.java", "r/src/New.java",
                     "r/target/Tracked.java"]
    assert problems == []
    assert check(["src"], r) == (["src/A.java", "src/New.java"], [])   # under that path only
    assert check(["src/X.gen.java"], r) == (["src/X.gen.java"], [])    # named: checked though ignored


def test_a_folder_git_ignores_is_walked_when_named(tmp_path):
    git = git_repo(tmp_path / "r")
    write(tmp_path / "r", "A.java", "gen/G.java", "gen/sub/H.java")
    (tmp_path / "r/.gitignore").write_text("gen/\n")
    git("add", "-A")
    assert check(["r"], tmp_path) == (["r/A.java"], [])
    assert check(["r/gen"], tmp_path) == (["r/gen/G.java", "r/gen/sub/H.java"], [])


def test_git_file_names_with_spaces_and_unicode(tmp_path):
    git = git_repo(tmp_path / "r")
    write(tmp_path / "r", "my dir/A B.java", "é/Ü.java", 'q"uote/T\tab.java')
    git("add", "-A")
    files, problems = check(["r"], tmp_path)
    assert sorted(files) == sorted(["r/my dir/A B.java", "r/é/Ü.java", 'r/q"uote/T\tab.java']) and problems == []
    assert all((tmp_path / f).is_file() for f in files)


def test_without_git_a_work_tree_is_walked(tmp_path, monkeypatch):
    git = git_repo(tmp_path / "r")
    write(tmp_path / "r", "A.java", "ignored/I.java", ".hidden/H.java")
    (tmp_path / "r/.gitignore").write_text("ignored/\n")
    git("add", "-A")
    assert check(["r"], tmp_path)[0] == ["r/A.java", "r/.hidden/H.java"]
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))   # git is not installed
    assert check(["r"], tmp_path)[0] == ["r/A.java", "r/ignored/I.java"]


def listed(paths, cwd):
    """`check` with its results as literals (see conftest.unprivileged)."""
    return check(paths, cwd)


def test_a_folder_that_cannot_be_listed_is_one_line_and_the_rest_is_checked(tmp_path):
    write(tmp_path, "p/A.java", "p/locked/X.java", "p/z/Z.java")
    (tmp_path / "p/locked").chmod(0)
    try:
        assert unprivileged("test_check_discover:listed", ["p"], str(tmp_path)) == (
            ["p/A.java", "p/z/Z.java"], [("warning", "p/locked: cannot list (Permission denied); skipped")])
    finally:
        (tmp_path / "p/locked").chmod(0o755)


def test_links_in_a_work_tree_are_checked_under_their_target_and_not_followed_out_of_it(tmp_path):
    git = git_repo(tmp_path / "r")
    r = tmp_path / "r"
    write(r, "src/Z.java", "lib/L.java")
    write(tmp_path, "other/O.java")
    (r / "src/A.java").symlink_to("Z.java")
    (r / "src/Up.java").symlink_to("../lib/L.java")
    (r / "src/Out.java").symlink_to(tmp_path / "other/O.java")
    (r / "linked").symlink_to(tmp_path / "other")   # a folder out of the tree: git lists the link, not its files
    git("add", "-A")
    git("commit", "-qm", "links")
    out = ("warning", "r/src/Out.java: a link out of the work tree, not followed; skipped")
    assert check(["r"], tmp_path) == (["r/lib/L.java", "r/src/Z.java"], [out])
    assert check(["src/A.java"], r) == (["src/Z.java"], [])
    assert check(["A.java", "Z.java"], r / "src") == (["Z.java"], [])
    assert check(["Up.java"], r / "src") == (["../lib/L.java"], [])
    assert check([str(r / "src/A.java")], tmp_path) == (["r/src/Z.java"], [])
    assert check(["src/Out.java"], r) == ([], [("warning", "src/Out.java: a link out of the work tree, not "
                                                           "followed; skipped")])
    # a folder linked from outside the tree, named: not followed into the other project
    assert check(["linked"], r) == ([], [("warning", "linked: a link out of the work tree, not followed; skipped")])
    assert check([str(tmp_path / "other")], r) == ([str(tmp_path / "other/O.java")], [])   # named as itself: checked
