"""check/fix.py: repairs applied only when they keep the tokens, diffs that real `git apply` and `patch -p1`
apply, and in-place writes that leave a file as it was when anything goes wrong (real read-only files and
folders, a real full disk)."""
import contextlib
import dataclasses
import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from conftest import TINY_JAVA, git_repo, unprivileged
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from check.findings import Finding
from check.fix import apply, rebuild, repairs_to_apply, unified_diff, write_fixed
from parsing.java import tokenize


def finding(text: str, start: int, original: str, replacement: str) -> Finding:
    line = text.count("\n", 0, start) + 1
    return Finding("A.java", line, start - (text.rfind("\n", 0, start) + 1) + 1, start + 1, "rule", "message",
                   0.9, 1.0, start, original, replacement)


def at(text: str, marker: str, original: str, replacement: str, skip: int = 0) -> Finding:
    """A finding of the gap that starts just after `marker` (its `skip`-th occurrence)."""
    start = -1
    for _ in range(skip + 1):
        start = text.index(marker, start + 1)
    return finding(text, start + len(marker), original, replacement)


# --- apply -----------------------------------------------------------------------------------------------------

SRC = "class A {\n  int x = a + +b;\n    int y = c / /* d */ e; // f\n  List<List<String> > z;\n}\n"
APPLY = [
    # (findings (as `at` arguments), expected text)
    ([("int x", " ", "  ")], SRC.replace("int x", "int x ")),
    ([("{\n", "  ", "    ")], SRC.replace("{\n  int x", "{\n    int x")),
    ([("\n", "    ", "  ", 1)], SRC.replace("    int y", "  int y")),                 # indentation
    ([("{", "\n  ", "\n\n  ")], SRC.replace("{\n", "{\n\n")),                         # a blank line
    ([("int x", " ", "")], SRC.replace("int x =", "int x=")),                       # `x=`: still two tokens
    ([("a +", " ", "")], SRC),                      # `a ++b`: joins two tokens into `++`: dropped
    ([("c /", " ", "")], SRC),                      # `c //* d */`: starts a line comment: dropped
    ([("// f", "\n", "")], SRC),                    # after a line comment: the next line would join it
    ([("class", " ", "")], SRC),                    # `classA`: dropped
    ([("int x", "  ", "")], SRC),                   # stale: the gap holds ' ', not '  '
    ([("int x", " ", "x")], SRC),                   # not whitespace
    ([("int x", " ", "\u00a0")], SRC),              # not Java's whitespace
    ([("int x", " ", " ")], SRC),                   # no change
    ([("int x", " ", "\t"), ("int x", " ", "  ")], SRC.replace("int x ", "int x\t")),  # overlap: the later dropped
    ([("a +", " ", ""), ("int x", " ", "\t")], SRC.replace("int x ", "int x\t")),      # the bad one dropped alone
    ([("}", "\n", "")], SRC[:-1]),                                                     # the file's last gap
    ([("String>", " ", "")], SRC.replace("> >", ">>")),   # tree-sitter still reads `>>` as two `>` here
]


@pytest.mark.parametrize("repairs, expected", APPLY)
def test_apply(repairs, expected):
    got = apply(SRC, [at(SRC, *r) for r in repairs])
    assert got == expected
    assert tokenize(got).token_texts() == tokenize(SRC).token_texts()


def test_apply_keeps_only_repairs_that_keep_the_tokens_and_reports_which():
    text = "package demo;\n\nclass A { int x; }\n"
    good, join = at(text, "int", " ", "  "), at(text, "package", " ", "")   # `packagedemo`: no repair at all
    assert repairs_to_apply(text, [join, good]) == [good]
    assert apply(text, [join, good]) == text.replace("int x", "int  x")
    assert apply(text, []) == text


@pytest.mark.parametrize("text, marker, original, replacement, expected", [
    ("class A {\r\n  int x;\r\n}\r\n", "{", "\r\n  ", "\r\n    ", "class A {\r\n    int x;\r\n}\r\n"),
    ("class A {\r  int x;\r}\r", "{", "\r  ", "\r    ", "class A {\r    int x;\r}\r"),
    ("\ufeffclass A {  int x; }", "{", "  ", " ", "\ufeffclass A { int x; }"),
    ("class A { String s = \"é\";  int x; }", ";", "  ", " ", "class A { String s = \"é\"; int x; }"),
])
def test_apply_with_any_line_ending_a_bom_and_non_ascii_text(text, marker, original, replacement, expected):
    assert apply(text, [at(text, marker, original, replacement)]) == expected


@pytest.mark.parametrize("start", [-1, len(SRC) + 1, 10_000])
def test_a_finding_outside_the_text_is_dropped(start):
    assert apply(SRC, [dataclasses.replace(finding(SRC, 0, "", " "), start=start)]) == SRC


# Java files the properties start from: every kind of token (comments, strings, text blocks, generics,
# annotations, lambdas), CRLF and a BOM.
BASES = [*TINY_JAVA.values(),
         '@Deprecated\npublic class T<K extends Comparable<K>> {\n    /** doc */\n'
         '    private final String s = "a  b"; // c\n'
         '    String t = """\n        x  y\n        """;\n    int f(int a) { return a >> 1 >>> 2 - -a + +a; }\n'
         '    Runnable r = () -> { }; char c = \' \';\n}\n',
         TINY_JAVA["A.java"].replace("\n", "\r\n"),
         "\ufeff" + TINY_JAVA["B.java"]]
STREAMS = [tokenize(t) for t in BASES]


@st.composite
def repairs(draw, safe: bool):
    """A base file and findings of its gaps: `safe` ones change a gap to other whitespace with as many line
    breaks present or absent (never joining tokens or ending a line comment early); the others anything,
    overlapping, stale or joining tokens."""
    k = draw(st.integers(0, len(BASES) - 1))
    text, stream = BASES[k], STREAMS[k]
    gaps = draw(st.lists(st.integers(0, len(stream)), max_size=8, unique=safe))
    out = []
    for i in gaps:
        start, original = stream.gap_start(i), stream.gap_texts[i]
        if safe:
            if not original:
                continue
            choices = ["\n", "\n\n", "\r\n", "\n    ", "\n\t\t"] if "\n" in original else [" ", "  ", "\t", " \t"]
            out.append(finding(text, start, original, draw(st.sampled_from(choices))))
        else:
            if draw(st.booleans()) and original:   # a stale finding: the gap holds something else now
                original = original[1:]
            out.append(finding(text, start, original, draw(st.sampled_from(["", " ", "\n", "\t", "\r\n", "  \n  "]))))
    return text, out


@settings(max_examples=150, deadline=None)
@given(repairs(safe=True))
def test_property_token_preserving_repairs_are_all_applied(case):
    text, findings = case
    got = apply(text, findings)
    assert got == rebuild(text, [f for f in findings if f.observed != f.repaired])
    assert tokenize(got).token_texts() == tokenize(text).token_texts()


@settings(max_examples=150, deadline=None)
@given(repairs(safe=False))
def test_property_applied_repairs_keep_the_tokens_and_change_only_whitespace(case):
    text, findings = case
    kept = repairs_to_apply(text, findings)
    got = apply(text, findings)
    assert got == rebuild(text, kept) and all(f in findings for f in kept)
    assert tokenize(got).token_texts() == tokenize(text).token_texts()
    assert "".join(got.split()) == "".join(text.split())   # only whitespace changed
    spans = sorted((f.start, f.end) for f in kept)
    assert all(a[1] < b[0] for a, b in zip(spans, spans[1:]))   # no two repairs touch


# --- unified diffs ---------------------------------------------------------------------------------------------

def test_unified_diff_format():
    old = "".join(f"line {i}\n" for i in range(1, 21))
    new = old.replace("line 2\n", "line  2\n").replace("line 19\n", "line 19\n\n")
    assert unified_diff("src/A.java", old, new) == (
        "--- a/src/A.java\n+++ b/src/A.java\n"
        "@@ -1,5 +1,5 @@\n line 1\n-line 2\n+line  2\n line 3\n line 4\n line 5\n"
        "@@ -17,4 +17,5 @@\n line 17\n line 18\n line 19\n+\n line 20\n")   # as GNU diff -u writes it
    assert unified_diff("A.java", old, old) == ""
    # changes closer than two contexts share a hunk
    near = old.replace("line 2\n", "line  2\n").replace("line 9\n", "line  9\n")
    assert unified_diff("A.java", old, near).count("@@ -") == 1
    assert unified_diff("A.java", "a\nb", "a\nb\n") == (
        "--- a/A.java\n+++ b/A.java\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n")


DIFFS = [
    # (name, old, new)
    ("lf", "class A {\n  int x;\n}\n", "class A {\n    int x;\n}\n"),
    ("crlf", "class A {\r\n  int x;\r\n}\r\n", "class A {\r\n    int x;\r\n\r\n}\r\n"),
    ("crlf to lf in one line", "a\r\nb\r\nc\r\n", "a\r\nb\nc\r\n"),
    ("cr only", "class A {\r  int x;\r}\r", "class A {\r    int x;\r}\r"),
    ("mixed", "a\nb\r\nc\rd\n", "a\n b\r\nc\r d\n"),
    ("no newline at the end", "class A {\n  int x;\n}", "class A {\n    int x;\n}"),
    ("newline added at the end", "class A {}", "class A {}\n"),
    ("newline removed at the end", "class A {}\n\n", "class A {}"),
    ("bom", "\ufeffclass A {\n  int x;\n}\n", "\ufeffclass A {\n    int x;\n}\n"),
    ("lines added and removed", "".join(f"{i};\n" for i in range(30)),
     "".join(f"{i};\n" + ("\n" if i % 7 == 0 else "") for i in range(30) if i != 12)),
    ("empty to something", "", "class A {}\n"),
    ("blank lines only", "\n\n\n", "\n"),
]
NAMES = ["A.java", "src/main/My File.java", "dir with space/É ü.java", 'q"uo\\te.java', "t\tab.java"]


def _apply(tool: str, repo: Path, name: str, old: str, new: str) -> None:
    target = repo / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(old.encode())
    if old == new:
        assert unified_diff(name, old, new) == ""
        return
    cmd = ["git", "apply", "--whitespace=nowarn", "-"] if tool == "git" else ["patch", "-p1", "-s", "-f",
                                                                              "--no-backup-if-mismatch"]
    done = subprocess.run(cmd, cwd=repo, input=unified_diff(name, old, new).encode(), capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    assert target.read_bytes() == new.encode()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("case, old, new", DIFFS, ids=[d[0] for d in DIFFS])
def test_git_apply_makes_the_new_text_exactly(tmp_path, case, old, new, name):
    git_repo(tmp_path)
    _apply("git", tmp_path, name, old, new)


@pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")
@pytest.mark.parametrize("case, old, new", DIFFS, ids=[d[0] for d in DIFFS])
def test_patch_p1_makes_the_new_text_exactly(tmp_path, case, old, new):
    _apply("patch", tmp_path, "src/My File.java", old, new)


def test_git_apply_from_a_subfolder_takes_paths_relative_to_it(tmp_path):
    git_repo(tmp_path)
    _apply("git", tmp_path / "sub", "A.java", "a\nb\n", "a\n b\n")


LINE_ENDS = st.sampled_from(["\n", "\r\n", "\r"])
LINE = st.text(st.sampled_from("ab{}; \t"), max_size=6)


@st.composite
def text_pairs(draw):
    """A text of lines with any endings (the last maybe none), and an edit of it: lines re-indented,
    inserted, removed, their endings changed."""
    lines = draw(st.lists(st.tuples(LINE, LINE_ENDS), max_size=25))
    old = "".join(a + b for a, b in lines)
    if lines and draw(st.booleans()):
        old = old.removesuffix(lines[-1][1])
    new_lines = []
    for text, end in lines:
        action = draw(st.sampled_from(["keep"] * 4 + ["indent", "drop", "insert", "ending"]))
        if action == "indent":
            text = draw(st.sampled_from([" ", "\t", "    "])) + text.lstrip()
        elif action == "insert":
            new_lines.append((draw(LINE), draw(LINE_ENDS)))
        elif action == "ending":
            end = draw(LINE_ENDS)
        if action != "drop":
            new_lines.append((text, end))
    new = "".join(a + b for a, b in new_lines)
    if new_lines and draw(st.booleans()):
        new = new.removesuffix(new_lines[-1][1])
    return old, new


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text_pairs())
def test_property_git_apply_of_the_diff_makes_the_new_text(tmp_path, pair):
    old, new = pair
    if not (tmp_path / ".git").exists():
        git_repo(tmp_path)
    _apply("git", tmp_path, "d/A B.java", old, new)


# --- writing in place -------------------------------------------------------------------------------------------

OLD = "class A {\n  int x;\n}\n"
NEW = "class A {\n    int x;\n}\n"


def folder_state(folder: Path) -> dict[str, bytes]:
    """Every file of `folder` (a temporary file left behind shows here)."""
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.fixture
def java_file(tmp_path) -> Path:
    p = tmp_path / "d" / "A.java"
    p.parent.mkdir()
    p.write_text(OLD)
    return p


def test_write_fixed_writes_atomically_keeping_mode_and_owner(java_file):
    os.chmod(java_file, 0o754)
    if os.geteuid() == 0:
        os.chown(java_file, 1234, 5678)
    inode = java_file.stat().st_ino
    assert write_fixed(java_file, OLD.encode(), NEW) is None
    st_ = java_file.stat()
    assert java_file.read_text() == NEW and stat.S_IMODE(st_.st_mode) == 0o754
    assert st_.st_ino != inode   # a new file renamed over the old one, not the old one rewritten
    if os.geteuid() == 0:
        assert (st_.st_uid, st_.st_gid) == (1234, 5678)
    assert set(folder_state(java_file.parent)) == {"A.java"}


def test_write_fixed_keeps_line_endings_and_a_bom(java_file):
    old = "\ufeffclass A {\r\n  int x;\r}"
    java_file.write_bytes(old.encode())
    assert write_fixed(java_file, old.encode(), old.replace("  int", "    int")) is None
    assert java_file.read_bytes() == "\ufeffclass A {\r\n    int x;\r}".encode()


def test_write_fixed_writes_through_a_link(java_file):
    link = java_file.parent / "Link.java"
    link.symlink_to("A.java")
    assert write_fixed(link, OLD.encode(), NEW) is None
    assert link.is_symlink() and java_file.read_text() == NEW


@pytest.mark.parametrize("case", ["changed since read", "read-only", "not whitespace only", "nothing to change"])
def test_write_fixed_leaves_the_file_as_it_was(java_file, case):
    read, new = OLD.encode(), NEW
    if case == "changed since read":
        java_file.write_text(OLD + "// edited meanwhile\n")
    elif case == "read-only":
        os.chmod(java_file, 0o444)
    elif case == "not whitespace only":
        new = NEW.replace("x", "y")
    elif case == "nothing to change":
        new = OLD
    before = java_file.read_bytes(), java_file.stat().st_ino, java_file.stat().st_mtime_ns
    message = write_fixed(java_file, read, new)
    if case == "nothing to change":
        assert message is None
    else:
        assert message.startswith(f"{java_file}: not fixed: ") and "\n" not in message
    assert (java_file.read_bytes(), java_file.stat().st_ino, java_file.stat().st_mtime_ns) == before
    assert set(folder_state(java_file.parent)) == {"A.java"}


def fix(path: str, old: str, new: str):
    """write_fixed with literal arguments (see conftest.unprivileged)."""
    return write_fixed(path, old.encode(), new)


def test_write_fixed_in_a_read_only_folder_reports_and_leaves_the_file(java_file):
    java_file.parent.chmod(0o555)
    try:
        message = unprivileged("test_check_fix:fix", str(java_file), OLD, NEW)
    finally:
        java_file.parent.chmod(0o755)
    assert message == f"{java_file}: not fixed: cannot write it (Permission denied); left as it was"
    assert folder_state(java_file.parent) == {"A.java": OLD.encode()}


def test_write_fixed_on_a_read_only_file_without_privileges(java_file):
    java_file.chmod(0o444)
    assert unprivileged("test_check_fix:fix", str(java_file), OLD, NEW) == (
        f"{java_file}: not fixed: the file is read-only")
    assert folder_state(java_file.parent) == {"A.java": OLD.encode()}


@contextlib.contextmanager
def immutable(path: Path):
    """`chattr +i path` (the file or folder cannot be changed, even by root), undone after; skips the test
    where that is impossible (not root, a file system without the flag)."""
    if shutil.which("chattr") is None:
        pytest.skip("chattr is not installed")
    done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"chattr +i is not possible here: {done.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@pytest.mark.parametrize("what", ["file", "folder"])
def test_write_fixed_reports_an_immutable_file_or_folder(java_file, what):
    with immutable(java_file if what == "file" else java_file.parent):
        message = write_fixed(java_file, OLD.encode(), NEW)
        assert message is not None and message.startswith(f"{java_file}: not fixed: ")
        assert folder_state(java_file.parent) == {"A.java": OLD.encode()}


@contextlib.contextmanager
def tmpfs(folder: Path, size: str):
    """A real tiny tmpfs mounted at `folder`, unmounted after; skips the test where mounting is not allowed."""
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_write_fixed_on_a_full_disk_reports_and_leaves_the_file(tmp_path):
    with tmpfs(tmp_path / "disk", "256k") as disk:
        target = disk / "A.java"
        target.write_text(OLD * 100)
        with contextlib.suppress(OSError), open(disk / "filler", "wb") as f:   # fill the disk: ENOSPC
            while True:
                f.write(b"x" * 4096)
                f.flush()
        message = write_fixed(target, (OLD * 100).encode(), NEW * 100)
        assert message == f"{target}: not fixed: cannot write it (No space left on device); left as it was"
        assert target.read_text() == OLD * 100
        assert sorted(p.name for p in disk.iterdir()) == ["A.java", "filler"]   # no temporary file left


def test_write_fixed_on_a_read_only_file_system_reports_and_leaves_the_file(tmp_path):
    with tmpfs(tmp_path / "disk", "64k") as disk:
        target = disk / "A.java"
        target.write_text(OLD)
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        message = write_fixed(target, OLD.encode(), NEW)
        assert message is not None and message.startswith(f"{target}: not fixed: ")
        assert target.read_text() == OLD and [p.name for p in disk.iterdir()] == ["A.java"]


# --- bin/check --diff and --fix -------------------------------------------------------------------------------

def test_bin_check_diff_applies_and_fix_writes_the_same_and_reports_what_it_cannot(tmp_path, tiny_model):
    """bin/check itself with a real model trained on the clean files: its --diff applies with git apply and
    gives the clean file back, --fix writes the same, an immutable file is reported (exit 2) and left."""
    from conftest import ROOT
    repo = tmp_path / "repo"
    git = git_repo(repo)
    clean, other = TINY_JAVA["A.java"], TINY_JAVA["C.java"]
    broken = clean.replace("x = a + b;", "x = a + b ;")
    (repo / "A.java").write_text(broken)
    (repo / "C.java").write_text(other)
    (repo / "Big.java").write_text("// " + "x" * 2000 + "\n")
    git("add", "-A")
    git("commit", "-qm", "broken")

    def check(*options):
        return subprocess.run([str(ROOT / "bin" / "check"), "--model", str(tiny_model), "--min-score", "2",
                               "--max-bytes", "1k", "--workers", "1", *options, "."],
                              cwd=repo, capture_output=True, text=True, timeout=300)

    r = check("--diff")
    assert r.returncode == 1, r.stderr   # findings; the big file is only a warning
    assert "check: warning: Big.java: 2,004 bytes, more than --max-bytes 1,000; skipped" in r.stderr.splitlines()
    assert r.stdout.startswith("--- a/A.java\n+++ b/A.java\n@@ ")
    subprocess.run(["git", "apply", "-"], cwd=repo, input=r.stdout, text=True, check=True)
    assert (repo / "A.java").read_text() == clean and (repo / "C.java").read_text() == other
    git("checkout", "A.java")

    r = check("--fix", "--quiet")
    assert r.returncode == 1, r.stderr
    assert (repo / "A.java").read_text() == clean and (repo / "C.java").read_text() == other
    git("checkout", "A.java")

    with immutable(repo / "A.java"):
        r = check("--fix", "--quiet")
        assert r.returncode == 2 and "check: error: A.java: not fixed: the file is read-only" in r.stderr
        assert (repo / "A.java").read_text() == broken


@pytest.mark.parametrize("learn", ["file", "folder", "project", "folder+project"])
def test_bin_check_learns_the_repository_with_each_method(tmp_path, tiny_model, learn):
    """bin/check --learn METHOD (ranker/learn.py's) on a tab-indented repository the tiny model (4 spaces)
    never saw: the method is in the signature line, the odd space is found and fixed; a project model is
    not shipped to a cluster."""
    from conftest import ROOT
    repo = tmp_path / "repo"
    repo.mkdir()
    for i in range(6):
        (repo / f"R{i}.java").write_text(f"class R{i} {{\n\tint f{i}(int a) {{\n\t\tint x = a + {i};\n\t\treturn "
                                         f"x;\n\t}}\n}}\n")
    broken = (repo / "R0.java").read_text().replace("x = a", "x  = a")
    (repo / "R0.java").write_text(broken)

    def check(*options):
        return subprocess.run([str(ROOT / "bin" / "check"), "--model", str(tiny_model), "--min-score", "1",
                               "--workers", "1", "--learn", learn, *options, "."],
                              cwd=repo, capture_output=True, text=True, timeout=300)

    r = check("--format", "json")
    assert r.returncode == 1, r.stderr
    assert f"learn:{learn}" in r.stderr.splitlines()[0] and "|edits:real|" in r.stderr.splitlines()[0]
    assert ("project:k2" in r.stderr.splitlines()[0]) == learn.endswith("project")
    findings = [json.loads(line) for line in r.stdout.splitlines()]
    assert any(f["path"] == "R0.java" and f["original"] == "  " and f["replacement"] == " " for f in findings)
    if learn.endswith("project"):
        r = check("--cluster", "local:1")
        assert r.returncode == 2 and "cannot check with --cluster" in r.stderr


def test_bin_check_says_when_a_file_reaches_the_most_findings(tmp_path, tiny_model):
    """A file in no one style gets at most --max-findings findings, and a warning that says so."""
    from conftest import ROOT
    (tmp_path / "A.java").write_text("class A {\n\tint f(int a) {\n  int x  = a ;\n\t\t return x ;\n }\n}\n")
    r = subprocess.run([str(ROOT / "bin" / "check"), "--model", str(tiny_model), "--min-score", "0", "--workers", "1",
                        "--max-findings", "2", "--format", "json", "A.java"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    assert len(r.stdout.splitlines()) == 2
    assert "check: warning: A.java: 2 findings, the most a file gets (--max-findings)" in r.stderr


def _gaps(text: str) -> tuple[list[str], list[str]]:
    from parsing.java import tokenize
    stream = tokenize(text)
    return stream.token_texts(), list(stream.gap_texts)


@pytest.mark.slow
@pytest.mark.parametrize("learn", ["file", "folder"])
def test_bin_check_fix_is_a_fixpoint(tmp_path, tiny_model, learn):
    """Slips of any size fixed together: the fix keeps the tokens, changes whitespace only, and a second run
    reports nothing at a gap the first fix wrote."""
    from conftest import ROOT
    repo = tmp_path / "repo"
    repo.mkdir()
    for i in range(5):
        (repo / f"R{i}.java").write_text(f"class R{i} {{\n    int f{i}(int a) {{\n        int x = a + {i};\n"
                                         "        return x;\n    }\n}\n")
    slipped = ("class R0 {\n    int f0(int a) {  \n            int x = a + 0;\n\n\n        return x ;\n"
               "\t}\n}")
    (repo / "R0.java").write_text(slipped)

    def check(*options):
        return subprocess.run([str(ROOT / "bin" / "check"), "--model", str(tiny_model), "--min-score", "1",
                               "--workers", "1", "--learn", learn, *options, "."],
                              cwd=repo, capture_output=True, text=True, timeout=300)

    assert check("--fix", "--quiet").returncode in (0, 1)
    fixed = (repo / "R0.java").read_text()
    (tokens, before), (fixed_tokens, after) = _gaps(slipped), _gaps(fixed)
    assert fixed_tokens == tokens and fixed != slipped
    written = {sum(len(after[k]) + len(fixed_tokens[k]) for k in range(i)) + 1
               for i, (b, a) in enumerate(zip(before, after)) if b != a}
    assert len(written) >= 2
    again = [json.loads(line) for line in check("--format", "json").stdout.splitlines()]
    assert not [f for f in again if f["path"] == "R0.java" and f["gap_offset"] in written]
