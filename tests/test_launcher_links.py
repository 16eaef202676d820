"""bin/ launchers run through links: a link to one script on PATH (as users put `check` on their PATH), and
a link to the whole bin/ folder. Both run the checkout's own command, from any working folder."""
import os
import subprocess

import pytest
from conftest import ROOT

pytestmark = pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "python").exists(), reason="no .venv")


@pytest.mark.parametrize("link, to, run", [
    ("check", "bin/check", "check"),                  # one script linked into a folder on PATH
    ("rank", "bin/rank", "rank"),
    ("tools", "bin", "tools/check"),                  # the bin/ folder itself linked
    ("chain", "bin/check", "chain"),                  # a link to a link to the script
])
def test_a_launcher_runs_through_a_link(tmp_path, link, to, run):
    target = ROOT / to
    if link == "chain":
        (tmp_path / "first").symlink_to(target)
        target = tmp_path / "first"
    (tmp_path / link).symlink_to(target)
    elsewhere = tmp_path / "work"
    elsewhere.mkdir()
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    env.pop("UNNATURAL_HOME", None)
    argv = [run, "--help"] if "/" not in run else [str(tmp_path / run), "--help"]
    r = subprocess.run(argv, cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120)
    name = run.rsplit("/", 1)[-1] if link != "chain" else "check"
    assert r.returncode == 0 and r.stdout.startswith(f"usage: {name} ") and r.stderr == "", r.stderr
