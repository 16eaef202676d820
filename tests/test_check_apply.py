"""Outputs that apply: bin/check's --diff taken by `git apply` at the repository's root however the files were
named and wherever bin/check ran, SARIF with every region on its finding's line and no local path, --fix
naming what it wrote. Real git, a real model trained here."""
import json
import shutil
import subprocess

import pytest
from conftest import ROOT, git_repo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

CLEAN = """package demo;

public class Names {
    private int count;

    public int next(int step) {
        if (step > 0) {
            return count + step;
        }
        return count - step;
    }
}
"""
BROKEN = CLEAN.replace("class Names", "class Broken").replace("return count - step;", "return count - step ;") \
    .replace("        if (step", "      if (step")


@pytest.fixture(scope="module")
def sarif_validator():
    from test_check_output import sarif_validator as official
    return official.__wrapped__()


@pytest.fixture
def repo(tmp_path, tiny_corpus, lmplz_available):
    """A repository with a clean file and a broken one in a sub-folder, and a model that sees the errors."""
    from lm.build import BuildConfig, build
    (tiny_corpus / "Names.java").write_text(CLEAN)
    model = tmp_path / "m.bin"
    build(BuildConfig((str(tiny_corpus),), order=4, output=model), progress=False)
    root = tmp_path / "repo"
    git = git_repo(root)
    (root / "src" / "demo").mkdir(parents=True)
    (root / "src" / "demo" / "Names.java").write_text(CLEAN)
    (root / "src" / "demo" / "Broken.java").write_text(BROKEN)
    git("add", "-A")
    git("commit", "-qm", "files")
    return root, model, git


def check(cwd, model, *args):
    return subprocess.run([str(ROOT / "bin" / "check"), "--model", str(model), "--min-score", "2", "--workers", "1",
                           *args], cwd=cwd, capture_output=True, text=True)


@pytest.mark.parametrize("where, path", [
    ("root", "src/demo/Broken.java"),
    ("root", "."),
    ("sub", "Broken.java"),
    ("sub", "../.."),
    ("sub", "ABSOLUTE"),
    ("outside", "repo/src/demo/Broken.java"),
    ("outside", "ABSOLUTE"),
    ("elsewhere", "ABSOLUTE"),
])
def test_diff_applies_at_the_repository_root(tmp_path, repo, where, path):
    root, model, git = repo
    cwd = {"root": root, "sub": root / "src" / "demo", "outside": tmp_path, "elsewhere": tmp_path / "x"}[where]
    cwd.mkdir(exist_ok=True)
    path = str(root / "src" / "demo" / "Broken.java") if path == "ABSOLUTE" else path
    proc = check(cwd, model, "--quiet", "--diff", path)
    assert proc.returncode == 1, proc.stderr
    assert "--- a/src/demo/Broken.java\n+++ b/src/demo/Broken.java\n" in proc.stdout
    subprocess.run(["git", "apply", "-"], cwd=root, input=proc.stdout, text=True, check=True)
    fixed = (root / "src" / "demo" / "Broken.java").read_text()
    assert fixed != BROKEN and "step ;" not in fixed


def test_sarif_regions_are_on_the_findings_lines_and_name_no_local_path(tmp_path, repo, sarif_validator):
    root, model, _ = repo
    sub = root / "src" / "demo"
    lines = [json.loads(line) for line in check(sub, model, "--quiet", "--format", "json", ".").stdout.splitlines()]
    assert "space-before" in {f["rule"] for f in lines}
    assert any("\n" in f["original"] for f in lines)   # an indentation's gap: it starts on the line before
    proc = check(sub, model, "--quiet", "--format", "sarif", ".")
    log = json.loads(proc.stdout)
    assert not list(sarif_validator.iter_errors(log))
    (run,) = log["runs"]
    assert "informationUri" not in run["tool"]["driver"]
    assert str(tmp_path) not in proc.stdout and "file:" not in proc.stdout
    results = run["results"]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results] == [f["line"] for f in lines]
    for r in results:   # relative to the repository's root, not to the folder bin/check ran in
        assert r["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "src/demo/Broken.java",
                                                                             "uriBaseId": "%SRCROOT%"}


def test_fix_names_the_files_it_wrote(repo):
    root, model, _ = repo
    proc = check(root / "src", model, "--fix", ".")
    assert proc.returncode == 1
    assert "check: wrote demo/Broken.java\n" in proc.stderr and "Names.java" not in proc.stderr
    assert check(root / "src", model, "--quiet", ".").returncode == 0
