"""The repository as a pre-commit hook (.pre-commit-hooks.yaml), run by the real pre-commit tool (test extra)
on a temporary git repository with a clean and a broken Java file: `pre-commit run` and a real `git commit`
through the installed hook, with a model built here. pre-commit's clone of this repository is not set up, so
it runs the installation UNNATURAL_HOME names (bin/_run), as docs/check.md tells users to."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = [
    pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "python").exists(), reason="no .venv (make setup)"),
    pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git checkout"),
]

CLEAN = """package demo;

import java.util.ArrayList;
import java.util.List;

public class Names {
    private final List<String> names = new ArrayList<>();

    public void add(String name) {
        if (name == null) {
            throw new IllegalArgumentException("name");
        }
        names.add(name);
    }

    public int count() {
        int n = 0;
        for (String name : names) {
            if (!name.isEmpty()) {
                n++;
            }
        }
        return n;
    }
}
"""
# the same file with a space before a ';' and one before a ')': formatting errors nobody writes on purpose
BROKEN = CLEAN.replace("class Names", "class Broken").replace("int n = 0;", "int n = 0 ;").replace(
    'Exception("name");', 'Exception("name" );')


def git(cwd, *args) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def java_repo(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "Names.java").write_text(CLEAN)
    (repo / "Broken.java").write_text(BROKEN)
    (repo / "Broken.txt").write_text(BROKEN)   # not Java to pre-commit (types: [java]): never checked
    return repo


@pytest.fixture
def hook_model(tmp_path, tiny_corpus, lmplz_available):
    """A real KenLM model small enough to build here (the default one is built from the JDK): trained on the
    clean file and the tiny corpus, it scores the broken file's two errors near 4 (log10 gain) and nothing in
    the clean file above 1, so the hooks run with --min-score 2."""
    from lm.build import BuildConfig, build
    (tiny_corpus / "Names.java").write_text(CLEAN)
    out = tmp_path / "hook.bin"
    build(BuildConfig((str(tiny_corpus),), order=4, output=out), progress=False)
    return out


def environment(tmp_path, home=ROOT) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT", "UNNATURAL_"))}
    env.update(PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t", NO_COLOR="1")
    if home is not None:
        env["UNNATURAL_HOME"] = str(home)
    return env


def pre_commit(repo, env, *args):
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=600)


def test_the_manifest_is_valid_for_pre_commit():
    r = subprocess.run([sys.executable, "-m", "pre_commit", "validate-manifest", ".pre-commit-hooks.yaml"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_checkout_that_is_not_set_up_runs_the_installation_unnatural_home_names(tmp_path):
    """bin/_run of a checkout without .venv (as pre-commit's clone is): UNNATURAL_HOME's installation runs
    the command; without it, or with a folder that is not set up, one line says what to do, exit 2."""
    clone = tmp_path / "clone"
    shutil.copytree(ROOT / "bin", clone / "bin")
    check = [str(clone / "bin" / "check"), "--help"]
    r = subprocess.run(check, env=environment(tmp_path), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("usage: check ")
    for home, says in ((None, f"check: error: no virtual environment at {clone}/.venv; run 'make setup' there, or "
                              "set UNNATURAL_HOME"),
                       (tmp_path, f"check: error: UNNATURAL_HOME={tmp_path} is not a set-up checkout"),
                       (clone, f"check: error: UNNATURAL_HOME={clone} is not a set-up checkout")):
        r = subprocess.run(check, env=environment(tmp_path, home), capture_output=True, text=True, timeout=120)
        assert r.returncode == 2 and r.stdout == "" and r.stderr.startswith(says) and r.stderr.count("\n") == 1


@pytest.mark.slow
def test_try_repo_without_an_installation_says_what_to_do(java_repo, tmp_path):
    """`pre-commit try-repo` on this checkout (uncommitted changes included): its clone is not set up."""
    r = pre_commit(java_repo, environment(tmp_path, home=None), "try-repo", str(ROOT), "unnatural-check",
                   "--files", "Names.java")
    assert r.returncode == 1 and "- hook id: unnatural-check" in r.stdout
    assert "check: error: no virtual environment at" in r.stdout and "UNNATURAL_HOME" in r.stdout


@pytest.mark.slow
def test_the_hook_passes_a_clean_file_and_stops_the_commit_of_a_broken_one(java_repo, tmp_path, hook_model):
    """As users have it: .pre-commit-config.yaml naming this repository at a commit (this checkout's HEAD:
    commit .pre-commit-hooks.yaml first), `pre-commit run`, then `pre-commit install` and `git commit`."""
    rev = git(ROOT, "rev-parse", "HEAD").strip()
    if subprocess.run(["git", "cat-file", "-e", f"{rev}:.pre-commit-hooks.yaml"], cwd=ROOT).returncode:
        pytest.skip("HEAD has no .pre-commit-hooks.yaml yet (commit it)")
    env = environment(tmp_path)
    (java_repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {rev}\n    hooks:\n      - id: unnatural-check\n"
        f"        args: [--model, {hook_model}, --min-score, '2']\n")
    clean = pre_commit(java_repo, env, "run", "--files", "Names.java", "Broken.txt")
    assert clean.returncode == 0 and "Passed" in clean.stdout, clean.stdout + clean.stderr
    broken = pre_commit(java_repo, env, "run", "--files", "Names.java", "Broken.java")
    assert broken.returncode == 1 and "Failed" in broken.stdout, broken.stdout + broken.stderr
    assert "Broken.java:17:18: space-before unexpected space before ';'" in broken.stdout
    assert "Names.java:" not in broken.stdout

    assert pre_commit(java_repo, env, "install").returncode == 0
    commit = ["git", "commit", "-q", "-m", "first"]
    git(java_repo, "add", ".pre-commit-config.yaml", "Names.java", "Broken.txt")
    ok = subprocess.run(commit, cwd=java_repo, env=env, capture_output=True, text=True, timeout=600)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    git(java_repo, "add", "Broken.java")
    stopped = subprocess.run([*commit[:-1], "second"], cwd=java_repo, env=env, capture_output=True, text=True,
                             timeout=600)
    assert stopped.returncode != 0 and "Broken.java:17:18: space-before" in stopped.stdout + stopped.stderr
    assert git(java_repo, "log", "--format=%s") == "first\n"   # the broken file's commit was stopped
