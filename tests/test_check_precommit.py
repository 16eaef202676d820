"""The repository as a pre-commit hook (.pre-commit-hooks.yaml), run by the real pre-commit tool (test extra):
on a temporary git repository of 200 Java files configured as the README says, pre-commit installs the package
into its own environment (language: python), a staged one-line slip stops the commit, goes through when
.unnatural.toml ignores its rule or a `// unnatural: ignore[tab]` comment silences its line, and a clean change
goes through, with no UNNATURAL_* environment variable. Also bin/_run in a checkout that was not set up."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from java_repo import slip, write_repository

pytestmark = [
    pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "python").exists(), reason="no .venv (make setup)"),
    pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git checkout"),
]


def git(cwd, *args) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


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
    """bin/_run of a checkout without .venv (a clone that was not set up): UNNATURAL_HOME's installation runs
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
def test_the_hook_stops_a_slip_and_passes_a_clean_change_in_a_200_file_repository(tmp_path):
    """As users have it: the two lines of the README's configuration naming this repository at a commit (this
    checkout's HEAD: commit .pre-commit-hooks.yaml first), `pre-commit install`, then `git commit`. pre-commit's
    environments are kept in .cache/pre-commit (built once per commit of this repository)."""
    rev = git(ROOT, "rev-parse", "HEAD").strip()
    if subprocess.run(["git", "grep", "-q", "language: python", rev, "--", ".pre-commit-hooks.yaml"],
                      cwd=ROOT).returncode:
        pytest.skip("HEAD's .pre-commit-hooks.yaml does not install the package yet (commit it)")
    env = environment(tmp_path, home=None)
    env["PRE_COMMIT_HOME"] = str(ROOT / ".cache" / "pre-commit")
    assert not [k for k in env if k.startswith("UNNATURAL_")]
    repo = tmp_path / "repo"
    paths = write_repository(repo)
    git(repo, "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - {{repo: {ROOT}, rev: {rev}, hooks: [{{id: unnatural-check}}]}}\n")
    assert pre_commit(repo, env, "install").returncode == 0

    def commit(message):
        git(repo, "add", "-A")
        return subprocess.run(["git", "commit", "-q", "-m", message], cwd=repo, env=env, capture_output=True,
                              text=True, timeout=3600)

    first = commit("200 classes")   # the hook's environment is built here (the package compiled, once per rev)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    slip(paths[10])
    stopped = commit("a slip")
    out = stopped.stdout + stopped.stderr
    assert stopped.returncode != 0 and "Failed" in out, out
    assert f"{paths[10].relative_to(repo)}:56:17: tab unexpected tab before ';'" in out
    assert git(repo, "log", "--format=%s") == "200 classes\n"
    # the rule turned off in the repository's configuration (docs/configuration.md): the same slip goes through
    (repo / ".unnatural.toml").write_text('ignore = ["tab"]\n')
    ignored = commit("a slip, tab ignored")
    assert ignored.returncode == 0, ignored.stdout + ignored.stderr
    # or silenced on its line alone, the configuration gone: it goes through, a second slip on another line not
    (repo / ".unnatural.toml").unlink()
    paths[10].write_text(paths[10].read_text().replace("return n\t;", "return n\t;  // unnatural: ignore[tab]"))
    assert commit("a slip, silenced on its line").returncode == 0
    slip(paths[11])
    second = commit("another slip")
    out = second.stdout + second.stderr
    assert second.returncode != 0 and f"{paths[11].relative_to(repo)}:56:17: tab unexpected tab before ';'" in out
    assert str(paths[10].relative_to(repo)) not in out, out
    paths[11].write_text(paths[11].read_text().replace("return n\t;", "return n;"))
    paths[10].write_text(paths[10].read_text().replace("return n\t;  // unnatural: ignore[tab]", "return n;"))
    paths[20].write_text(paths[20].read_text().replace("int n = 0;", "int n = 0;\n        int unused = 1;"))
    clean = commit("a clean change")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert git(repo, "log", "--format=%s") == ("a clean change\na slip, silenced on its line\na slip, tab ignored\n"
                                               "200 classes\n")
