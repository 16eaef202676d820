"""check/repostyle.py: a git work tree's whole style, learned once, cached by content and updated by the
difference; bin/check on a few files of the tree judges them as a run on the whole tree does."""
import json
import os
import shutil
import subprocess

import numpy as np
import pytest
from conftest import ROOT, git_repo
from hypothesis import assume, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

BODY = """package p;

public class {name} {{
{indent}private int count{n};

{indent}public int next(int step) {{
{indent}{indent}if (step > {n}) {{
{indent}{indent}{indent}return count{n} + step;
{indent}{indent}}}
{indent}{indent}return count{n}{sep}- step;
{indent}}}
}}
"""


def java(name: str, n: int, indent: str = "    ", sep: str = " ") -> str:
    return BODY.format(name=name, n=n, indent=indent, sep=sep)


def make_tree(root, count=8):
    git = git_repo(root)
    for i in range(count):
        folder = root / ("a" if i % 2 else "b")
        folder.mkdir(exist_ok=True)
        (folder / f"C{i}.java").write_text(java(f"C{i}", i, "\t" if i == 3 else "    "))
    (root / "README.md").write_text("not java\n")
    git("add", "-A")
    git("commit", "-qm", "files")
    return git


def tables(counts) -> list[tuple[list, list]]:
    return [(k.tolist(), n.tolist()) for k, n in (*counts.wide, counts.narrow)]


def learned_styles(root, cache):
    from check.discover import files_to_check
    from check.repostyle import tree_style
    from parsing.schemes import get_scheme
    files, _ = files_to_check(["."], cwd=root)
    return tree_style(root, files, get_scheme("kind-units"), None, 1, cache_dir=cache), files


def folder_styles(root, files):
    from parsing.schemes import get_scheme
    from ranker.folder import folder_style
    return folder_style([str(root / f) for f in files], get_scheme("kind-units"), False)


def assert_same_style(root, tree, files):
    """The cached tree's Style of each file is ranker/folder.py's for the whole tree."""
    reference = folder_styles(root, files)
    styles = tree.styles()
    for f in files:
        mine, theirs = styles(str(root / f)), reference(str(root / f))
        assert tables(mine.folder) == tables(theirs.folder)
        assert mine.exclude is None and theirs.exclude is None
        assert mine.habits == theirs.habits


@pytest.mark.parametrize("cached", [True, False])
def test_tree_style_is_the_folder_style_of_the_whole_tree(tmp_path, cached):
    root = tmp_path / "repo"
    make_tree(root)
    tree, files = learned_styles(root, tmp_path / "cache" if cached else None)
    assert len(files) == 8 and tree.relearned == 8
    assert_same_style(root, tree, files)


def test_changes_are_learned_incrementally_and_give_the_same_style(tmp_path):
    root, cache = tmp_path / "repo", tmp_path / "cache"
    make_tree(root)
    first, files = learned_styles(root, cache)
    again, _ = learned_styles(root, cache)
    assert again.relearned == 0
    assert tables(again.styles()(str(root / files[0])).folder) == tables(first.styles()(str(root / files[0])).folder)
    # one file changed, one added, one removed, one duplicated: only the new contents are learned
    (root / "a" / "C1.java").write_text(java("C1", 1, sep="  "))
    (root / "b" / "New.java").write_text(java("New", 42, "\t"))
    (root / "b" / "C2.java").unlink()
    shutil.copy(root / "b" / "C4.java", root / "a" / "Copy.java")
    changed, files = learned_styles(root, cache)
    assert changed.relearned == 2   # C1's and New's new contents; Copy's is C4's, cached
    assert_same_style(root, changed, files)
    # and back: every content is cached
    (root / "a" / "C1.java").write_text(java("C1", 1))
    back, files = learned_styles(root, cache)
    assert back.relearned == 0
    assert_same_style(root, back, files)


def test_a_damaged_cache_is_learned_again(tmp_path):
    root, cache = tmp_path / "repo", tmp_path / "cache"
    make_tree(root)
    learned_styles(root, cache)
    for f in cache.rglob("*.npy"):
        f.write_bytes(b"\x93NUMPY garbage")
    tree, files = learned_styles(root, cache)
    assert tree.relearned == len(files)
    assert_same_style(root, tree, files)


def test_cache_files_are_written_whole_and_pruned(tmp_path):
    from check.repostyle import Cache
    root, cache = tmp_path / "repo", tmp_path / "cache"
    make_tree(root)
    learned_styles(root, cache)
    assert not [p for p in cache.rglob("*") if p.name.startswith(".tmp-")]
    (root / "a" / "C1.java").write_text(java("C1", 1, sep="  "))
    learned_styles(root, cache)
    loose = list((cache / "files").iterdir())
    assert len(loose) == 1
    (root / "a" / "C1.java").write_text(java("C1", 1))   # the loose entry is no longer listed
    learned_styles(root, cache)
    old = 1_000_000_000
    os.utime(loose[0], (old, old))
    Cache(cache).prune()
    assert not loose[0].exists()
    assert list((cache / "packs").iterdir())   # the listed pack stays


def test_the_cache_lives_under_the_git_directory(tmp_path):
    from check.repostyle import cache_folder
    root = tmp_path / "repo"
    make_tree(root)
    assert cache_folder(root) == root / ".git" / "unnatural"


@pytest.mark.parametrize("paths, tree", [
    (["a/C1.java"], True), (["a", "b/C2.java"], True), (["."], True), (["ignored/X.java"], False),
])
def test_learning_tree(tmp_path, monkeypatch, paths, tree):
    from check.repostyle import learning_tree
    root = tmp_path / "repo"
    make_tree(root)
    (root / ".gitignore").write_text("ignored/\n")
    (root / "ignored").mkdir()
    (root / "ignored" / "X.java").write_text(java("X", 1))
    monkeypatch.chdir(root)
    assert (learning_tree(paths) == root.resolve()) is tree


def test_outside_a_work_tree_no_tree(tmp_path):
    from check.repostyle import learning_tree
    (tmp_path / "X.java").write_text(java("X", 1))
    assert learning_tree([str(tmp_path / "X.java")]) is None


# ---- bin/check with a real model -------------------------------------------------------------------------

def run_check(cwd, model, *args):
    return subprocess.run([str(ROOT / "bin" / "check"), "--model", str(model), "--min-score", "0.5", "--workers",
                           "1", "--format", "json", "--quiet", *args], cwd=cwd, capture_output=True, text=True)


def findings(proc, name):
    assert proc.returncode in (0, 1), proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    return [{k: v for k, v in f.items() if k != "path"} for f in lines if f.get("path", "").endswith(name)]


def test_a_file_checked_alone_gets_the_whole_tree_findings(tmp_path, tiny_model):
    root = tmp_path / "repo"
    git = make_tree(root, 12)
    (root / "a" / "C5.java").write_text(java("C5", 5, sep="  ").replace("return count5 +", "return  count5 +"))
    whole = findings(run_check(root, tiny_model, "."), "C5.java")
    assert whole   # the slips are found
    alone = findings(run_check(root / "a", tiny_model, "C5.java"), "C5.java")
    assert alone == whole   # same findings, same confidences and scores
    # from outside the tree, by an absolute path, and through --since / --staged (the file is changed as a whole)
    assert findings(run_check(tmp_path, tiny_model, str(root / "a" / "C5.java")), "C5.java") == whole
    assert findings(run_check(root, tiny_model, "--since", "HEAD", "."), "C5.java") == whole
    assert findings(run_check(root, tiny_model, "--staged", "."), "C5.java") == []   # nothing staged
    git("add", "a/C5.java")
    assert findings(run_check(root, tiny_model, "--staged", "a/C5.java"), "C5.java") == whole
    assert findings(run_check(root / "a", tiny_model, "--no-cache", "C5.java"), "C5.java") == whole
    # checked with its own style only (outside the tree), the same file gets other scores: what the tree is for
    (tmp_path / "alone").mkdir()
    shutil.copy(root / "a" / "C5.java", tmp_path / "alone")
    assert findings(run_check(tmp_path / "alone", tiny_model, "C5.java"), "C5.java") != whole


def _learn_in_child(root, cache, queue):
    from ranker.counts import Counts  # noqa: F401  (imported before the race)
    tree, files = learned_styles(root, cache)
    queue.put(tables(tree.styles()(str(root / files[0])).folder))


def test_concurrent_runs_on_one_cache_agree(tmp_path):
    """Four processes learning a cold cache at once, then a fifth reading it: every one gets the style of the
    whole tree, and no temporary file is left."""
    import multiprocessing
    root, cache = tmp_path / "repo", tmp_path / "cache"
    make_tree(root)
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    children = [ctx.Process(target=_learn_in_child, args=(root, cache, queue)) for _ in range(4)]
    for c in children:
        c.start()
    results = [queue.get(timeout=120) for _ in children]
    for c in children:
        c.join()
    tree, files = learned_styles(root, cache)
    assert tree.relearned == 0
    assert all(r == tables(tree.styles()(str(root / files[0])).folder) for r in results)
    assert_same_style(root, tree, files)
    assert not [p for p in cache.rglob(".tmp-*")]


def test_pruning_keeps_what_a_listing_uses_and_removes_gone_trees(tmp_path):
    from check.repostyle import Cache
    root, cache = tmp_path / "repo", tmp_path / "cache"
    make_tree(root)
    learned_styles(root, cache)
    every = [p for p in cache.rglob("*") if p.is_file()]
    old = 1_000_000_000
    for p in every:
        os.utime(p, (old, old))
    for p in (cache / "trees").glob("*.json"):
        os.utime(p)   # used recently
    Cache(cache).prune()
    assert all(p.exists() for p in every)
    shutil.rmtree(root)   # the tree is gone: its listing, sum and pack go
    for p in (cache / "trees").glob("*.json"):
        os.utime(p, (old, old))
    Cache(cache).prune()
    assert not [p for p in cache.rglob("*") if p.is_file()]


def test_staged_before_the_first_commit(tmp_path, tiny_model):
    root = tmp_path / "repo"
    git = git_repo(root)
    (root / "A.java").write_text(java("A", 1).replace("return count1 +", "return count1  +"))
    proc = run_check(root, tiny_model, "--staged", ".")
    assert proc.returncode == 0 and proc.stdout == ""   # nothing staged
    git("add", "A.java")
    assert findings(run_check(root, tiny_model, "--staged", "."), "A.java") == \
        findings(run_check(root, tiny_model, "."), "A.java")


def _counts(draw_keys):
    from ranker.counts import Counts
    from ranker.habits import HabitCounts
    keys, counts = np.unique(np.asarray(draw_keys, dtype=np.int64), return_counts=True)
    pair = (keys, counts.astype(np.int64))
    return Counts((pair, pair, pair), pair, HabitCounts.of_values(()))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-2**40, 2**40), max_size=60), st.lists(st.integers(-2**40, 2**40), max_size=20),
       st.lists(st.integers(-2**40, 2**40), max_size=20))
def test_merging_a_difference_is_summing_again(base, plus, minus):
    """The incremental update (a sorted merge) gives exactly the sum computed from scratch."""
    from ranker.counts import total
    minus = [k for k in minus if k in base]
    assume(all(base.count(k) >= minus.count(k) for k in set(minus)))   # a file taken off was in the sum
    base_counts, p, m = _counts(base), _counts(plus), _counts(minus)
    delta = total([p, m], [1, -1])
    fast, slow = base_counts.merged(delta), total([base_counts, p, m], [1, 1, -1])
    for (fk, fc), (sk, sc) in zip(fast.wide + (fast.narrow,), slow.wide + (slow.narrow,)):
        assert fk.tolist() == sk.tolist() and fc.tolist() == sc.tolist()


def test_a_tree_without_java_files_has_an_empty_style(tmp_path):
    from check.repostyle import tree_style
    from parsing.schemes import get_scheme
    root = tmp_path / "repo"
    git_repo(root)
    for cache in (tmp_path / "cache", tmp_path / "cache", None):
        tree = tree_style(root, [], get_scheme("kind-units"), None, 1, cache_dir=cache)
        style = tree.styles()(str(root / "X.java"))
        assert [len(k) for k, _ in style.folder.wide] == [0, 0, 0] and tree.relearned == 0
