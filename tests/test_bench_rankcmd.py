"""bench.rankcmd: which bin/rank the measuring tools run (working tree or a commit's snapshot)."""
import subprocess

import pytest
from conftest import ROOT

from bench import rankcmd
from bench.compare import main as compare_main


def test_worktree_runs_bin_rank():
    cmd = rankcmd.rank_command(None)
    assert cmd.argv == (str(ROOT / "bin" / "rank"),) and cmd.env is None
    assert cmd.label.startswith("worktree(")


def test_snapshot_of_head(tmp_path):
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    if not head:
        pytest.skip("not a git checkout")
    cmd = rankcmd.snapshot("HEAD", cache=tmp_path)
    snap = tmp_path / head[:12]
    assert cmd.label == f"commit({head[:12]})"
    assert cmd.env["PYTHONPATH"] == str(snap)
    assert (snap / "ranker" / "cli.py").is_file() and (snap / ".complete").read_text().strip() == head
    assert cmd.args("--top", "1") == [rankcmd.python(), "-m", "ranker.cli", "--top", "1"]
    stamp = (snap / ".complete").stat().st_mtime_ns
    rankcmd.snapshot("HEAD", cache=tmp_path)            # extracted once
    assert (snap / ".complete").stat().st_mtime_ns == stamp
    assert cmd.root == snap and not (snap / "ranker" / "__pycache__").exists()
    rankcmd.compile_bytecode(cmd)   # what bin/bench does first, whatever PYTHONDONTWRITEBYTECODE says
    for package in ("ranker", "parsing", "lm", "formats", "unnatural"):
        assert list((snap / package / "__pycache__").glob("__init__.*.pyc")), package


@pytest.mark.parametrize("rev", ["no-such-branch", "0" * 40])
def test_unknown_revision(rev):
    with pytest.raises(rankcmd.RankerError, match="not a commit"):
        rankcmd.rank_command(rev)


def test_compare_orders_unknown_revision_exits_2(capsys, tmp_path, tiny_corpus):
    from conftest import TINY_JAVA

    from evaluation.tasks import TaskConfig, make_tasks
    make_tasks(sorted(TINY_JAVA.items()), tmp_path / "eval", TaskConfig(count=2, seed=0))
    code = compare_main(["--train", str(tiny_corpus), "--eval", str(tmp_path / "eval"), "--ranker", "nope"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("compare-orders: error: --ranker nope")


@pytest.mark.slow
def test_a_snapshot_ranks_like_the_working_tree(tmp_path, tiny_model):
    """The snapshot imports its own code and has the compiled modules it needs: on a clean checkout its
    rankings are the working tree's."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    if not head:
        pytest.skip("not a git checkout")
    from conftest import TINY_JAVA
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    for i, text in enumerate(TINY_JAVA.values()):
        (tasks / f"{i}.txt").write_text(text.replace(" = ", "  = ", 1))
    (tasks / "out.txt").write_text("1\n" * len(TINY_JAVA))   # a task folder has its answers beside it
    snap = rankcmd.snapshot("HEAD", cache=tmp_path / "snapshots")
    argv = ["--model", str(tiny_model), "--workers", "1", str(tasks)]
    # run from a folder holding another `ranker` package: the snapshot must not import the working folder's
    decoy = tmp_path / "decoy" / "ranker"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("")
    (decoy / "cli.py").write_text("raise SystemExit('the working folder was imported')\n")
    got = subprocess.run(snap.args(*argv), env=snap.env, capture_output=True, text=True, cwd=decoy.parent)
    assert got.returncode == 0, got.stderr
    assert [line.split()[0] for line in got.stdout.splitlines()] == [str(tasks / f"{i}.txt") for i in range(3)]
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", *rankcmd.CODE_PATHS],
                           cwd=ROOT, capture_output=True, text=True).stdout.strip()
    if not dirty:
        mine = subprocess.run(rankcmd.worktree().args(*argv), capture_output=True, text=True)
        assert got.stdout == mine.stdout
