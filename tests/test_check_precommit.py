"""The repository as a pre-commit hook (.pre-commit-hooks.yaml), run by the real pre-commit tool (test extra)
on a temporary git repository with a clean and a broken Java file: `pre-commit try-repo` (this checkout,
uncommitted changes included) and a real `git commit` through the installed hook. pre-commit's clone of this
repository is not set up, so it runs the installation UNNATURAL_HOME names (bin/_run), as docs/check.md tells
users to."""
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


def environment(tmp_path, home=ROOT) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT", "UNNATURAL_"))}
    env.update(PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t", NO_COLOR="1")
    if home is not None:
        env["UNNATURAL_HOME"] = str(home)
    return env


def pre_commit(repo, env, *args):
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=900)


def try_repo(repo, env, *files):
    return pre_commit(repo, env, "try-repo", str(ROOT), "unnatural-check", "--files", *files)


def test_the_manifest_is_valid_for_pre_commit():
    r = subprocess.run([sys.executable, "-m", "pre_commit", "validate-manifest", ".pre-commit-hooks.yaml"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.slow
def test_try_repo_fails_on_the_broken_file_and_passes_the_clean_one(java_repo, tmp_path):
    env = environment(tmp_path)
    clean = try_repo(java_repo, env, "Names.java", "Broken.txt")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout
    broken = try_repo(java_repo, env, "Names.java", "Broken.java")
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "Failed" in broken.stdout and "Broken.java:17:18: space-before" in broken.stdout
    assert "Names.java:" not in broken.stdout


@pytest.mark.slow
def test_the_hook_without_an_installation_says_what_to_do(java_repo, tmp_path):
    r = try_repo(java_repo, environment(tmp_path, home=None), "Names.java")
    assert r.returncode == 1
    assert "check: error: no virtual environment at" in r.stdout and "UNNATURAL_HOME" in r.stdout
    r = try_repo(java_repo, environment(tmp_path, home=tmp_path), "Names.java")
    assert r.returncode == 1
    assert f"check: error: UNNATURAL_HOME={tmp_path} is not a set-up checkout" in r.stdout


@pytest.mark.slow
def test_an_installed_hook_blocks_the_commit_of_a_broken_file(java_repo, tmp_path):
    """As users have it: .pre-commit-config.yaml naming this repository at a commit, `pre-commit install`,
    `git commit`. The commit must hold .pre-commit-hooks.yaml (this checkout's HEAD, once committed)."""
    rev = git(ROOT, "rev-parse", "HEAD").strip()
    if subprocess.run(["git", "cat-file", "-e", f"{rev}:.pre-commit-hooks.yaml"], cwd=ROOT).returncode:
        pytest.skip("HEAD has no .pre-commit-hooks.yaml yet (commit it)")
    env = environment(tmp_path)
    (java_repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {rev}\n    hooks:\n      - id: unnatural-check\n")
    r = pre_commit(java_repo, env, "install")
    assert r.returncode == 0, r.stdout + r.stderr
    commit = ["git", "commit", "-q", "-m", "x"]
    git(java_repo, "add", ".pre-commit-config.yaml", "Names.java", "Broken.txt")
    ok = subprocess.run(commit, cwd=java_repo, env=env, capture_output=True, text=True, timeout=900)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    git(java_repo, "add", "Broken.java")
    blocked = subprocess.run(commit, cwd=java_repo, env=env, capture_output=True, text=True, timeout=900)
    assert blocked.returncode != 0 and "Broken.java:17:18: space-before" in blocked.stdout + blocked.stderr
    assert git(java_repo, "log", "--format=%s") == "x\n"   # only the first commit went in
