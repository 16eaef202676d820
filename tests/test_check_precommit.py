"""The repository as a pre-commit hook (.pre-commit-hooks.yaml), run by the real pre-commit tool (test extra):
on a temporary git repository of 200 Java files configured as the README says, pre-commit installs the package
into its own environment (language: python), a staged one-line slip stops the commit, goes through when
.unnatural.toml ignores its rule or a `// unnatural: ignore[tab]` comment silences its line, and a clean change
goes through, with no UNNATURAL_* environment variable; on a copy of a real commit of the commit-time set that
made a slip, the hook stops that commit and passes a clean edit of a file that holds old anomalies. Also
bin/_run in a checkout that was not set up."""
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


def pre_commit_home(tmp_path):
    """Where pre-commit keeps the hook's environment (built once per commit of this repository):
    .cache/pre-commit when the checkout has a .cache folder, else a temporary one (built each time)."""
    cache = ROOT / ".cache"
    return cache / "pre-commit" if cache.is_dir() else tmp_path / "pre-commit-home"


def hooked_repository(repo, env, rev, install=True) -> None:
    """`repo` configured with this repository's hook at `rev`, as the README says, and `pre-commit install`ed."""
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - {{repo: {ROOT}, rev: {rev}, hooks: [{{id: unnatural-check}}]}}\n")
    if install:
        assert pre_commit(repo, env, "install").returncode == 0


def committed_hooks(rev) -> None:
    """Skip unless `rev`'s .pre-commit-hooks.yaml is the one the tests mean (commit it first)."""
    for needed in ("language: python", "entry: unnatural check --staged"):
        if subprocess.run(["git", "grep", "-q", needed, rev, "--", ".pre-commit-hooks.yaml"], cwd=ROOT).returncode:
            pytest.skip(f"HEAD's .pre-commit-hooks.yaml has no '{needed}' yet (commit it)")


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
    committed_hooks(rev)
    env = environment(tmp_path, home=None)
    env["PRE_COMMIT_HOME"] = str(pre_commit_home(tmp_path))
    assert not [k for k in env if k.startswith("UNNATURAL_")]
    repo = tmp_path / "repo"
    paths = write_repository(repo)
    git(repo, "init", "-q")
    hooked_repository(repo, env, rev)

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


def _found_case(commits, work):
    """A small case of the commit-time set whose slip `bin/check --since HEAD~1` finds (bench/commits.py's
    run), as (case, its work tree, the slip found); None when none of the first few is found."""
    from bench.commits import run_case, unpack
    from evaluation.committime import matches
    trees = unpack(commits, work)
    small = sorted((c for c in commits.cases if c.lines_added <= 50), key=lambda c: c.lines_added)
    for case in small[:12]:
        run = run_case(commits, case, trees[case.project], [])
        hit = [s for s in commits.slips_of(case) if any(matches(f, s) for f in run.findings)]
        if hit:
            return case, trees[case.project], hit[0]
    return None


@pytest.mark.slow
@pytest.mark.data
def test_the_hook_stops_a_real_slipped_commit_and_passes_a_clean_edit_of_a_file_with_old_anomalies(tmp_path):
    """A real commit that made a slip (the commit-time set), replayed in a fresh repository holding the tree
    before it, with this repository's hook installed: `git commit` of the commit's change is stopped, naming
    the slip; a comment added to a file whose old whitespace a whole-file check reports goes through."""
    from conftest import data_path

    from formats.committime import read_set
    commits = read_set(data_path("committime"))
    found = _found_case(commits, tmp_path / "cases")
    if found is None:
        pytest.skip("bin/check finds no slip of the set's smallest cases")
    case, tree, slipped = found
    rev = git(ROOT, "rev-parse", "HEAD").strip()
    committed_hooks(rev)
    env = environment(tmp_path, home=None)
    env["PRE_COMMIT_HOME"] = str(pre_commit_home(tmp_path))
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    subprocess.run(f"git -C {tree} archive HEAD~1 | tar -x -C {repo}", shell=True, check=True)
    hooked_repository(repo, env, rev, install=False)
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "the tree before the commit")
    assert pre_commit(repo, env, "install").returncode == 0   # from here on, as the project's developers have it

    def commit(message):   # the first builds the hook's environment (once per rev)
        return subprocess.run(["git", "commit", "-q", "-m", message], cwd=repo, env=env, capture_output=True,
                              text=True, timeout=3600)
    patch = subprocess.run(["git", "diff", "--binary", "HEAD~1", "HEAD"], cwd=tree, check=True,
                           capture_output=True).stdout
    subprocess.run(["git", "apply", "--index"], cwd=repo, input=patch, check=True)
    stopped = commit(case.subject or "the commit")
    out = stopped.stdout + stopped.stderr
    assert stopped.returncode != 0 and "Failed" in out, out
    # named on a line the slip's gap spans (the set's rule for a gap over several lines)
    assert any(f"{slipped.path}:{n}:" in out for n in range(slipped.line, slipped.end_line + 1)), out
    assert git(repo, "log", "--format=%s") == "the tree before the commit\n"
    git(repo, "reset", "-q", "--hard")
    # a file with old anomalies: what bin/check reports on the whole tree
    import json
    whole = subprocess.run([str(ROOT / "bin" / "check"), "--format", "json", "--quiet", "."], cwd=repo,
                           capture_output=True, text=True, timeout=1800)
    anomalous = sorted({json.loads(line)["path"] for line in whole.stdout.splitlines()})
    if not anomalous:
        pytest.skip(f"{case.project}'s tree before {case.branch} has no old anomaly bin/check reports")
    path = repo / anomalous[0]
    text = path.read_bytes()
    newline = b"\r\n" if b"\r\n" in text else b"\n"
    path.write_bytes(b"// a note" + newline + text)
    git(repo, "add", anomalous[0])
    assert subprocess.run([str(ROOT / "bin" / "check"), "--quiet", anomalous[0]], cwd=repo).returncode == 1
    clean = commit("a note")
    assert clean.returncode == 0, clean.stdout[-3000:] + clean.stderr[-3000:]
    assert git(repo, "log", "--format=%s") == "a note\nthe tree before the commit\n"
