"""The package as a Java developer installs it: the wheel setup.py builds (as `make wheel` does), installed into a
fresh virtual environment, gives `unnatural --version` and `unnatural check DIR`, with the same JSON findings as
bin/check on the same files, and claims no generic top-level name in site-packages.

Slow: building the wheel compiles the native modules. The wheel is kept under .cache/package-test/, keyed by
the packaged files (a second run with the same files reuses it), compiled objects under .cache/native-build
(setup.py), and pip's downloads under .cache/pip."""
import hashlib
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT
from java_repo import slip, write_repository

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "python").exists(), reason="no .venv (make setup)")]

STAGES = ["parsing", "formats", "lm", "ranker", "lines", "automata", "fim", "check", "evaluation", "bench"]
CACHE = ROOT / ".cache"


def pip_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UNNATURAL_", "PIP_", "PYTHON"))}
    return {**env, "PIP_CACHE_DIR": str(CACHE / "pip"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


# what goes into the wheel (docs, tests and bin/ do not)
PACKAGED = ["setup.py", "pyproject.toml", "MANIFEST.in", "constraints.txt", "models", "unnatural", *STAGES]


def checkout_key() -> str:
    """A hash of the packaged files (tracked, or new and not ignored): the wheel is built again when one changes."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *PACKAGED],
                            cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    digest = hashlib.sha256()
    for name in sorted(n for n in listed if n):
        path = ROOT / os.fsdecode(name)
        if path.is_file() and not path.is_symlink():
            digest.update(name + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


@pytest.fixture(scope="module")
def wheel():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    folder = CACHE / "package-test" / checkout_key()
    if not list(folder.glob("unnatural-*.whl")):
        building = folder.with_name(folder.name + f".{os.getpid()}")
        shutil.rmtree(building, ignore_errors=True)
        r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(building), str(ROOT)],
                           env=pip_env(), capture_output=True, text=True, timeout=3600)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        shutil.rmtree(folder, ignore_errors=True)
        building.rename(folder)
    return next(folder.glob("unnatural-*.whl"))


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory):
    v = tmp_path_factory.mktemp("venv") / "V"
    subprocess.run([sys.executable, "-m", "venv", str(v)], check=True, timeout=600)
    r = subprocess.run([str(v / "bin" / "pip"), "install", "-q", "-c", str(ROOT / "constraints.txt"), str(wheel)],
                       env=pip_env(), capture_output=True, text=True, timeout=3600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return v


def run(argv, cwd):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UNNATURAL_", "PYTHON"))}
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_version(venv, tmp_path):
    from unnatural import __version__
    r = run([venv / "bin" / "unnatural", "--version"], tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, f"unnatural {__version__}\n", "")


def test_no_generic_top_level_names_in_site_packages(venv):
    site = next(venv.glob("lib/python*/site-packages"))
    assert not [name for name in STAGES if (site / name).exists()]
    assert (site / "unnatural" / "repo" / "check" / "calibration.json").is_file()
    assert (site / "unnatural" / "repo" / ".models" / "default-kind-units-o6.bin").is_file()


def test_the_installed_check_finds_what_bin_check_finds(venv, tmp_path):
    repo = tmp_path / "repo"
    paths = write_repository(repo, count=30)
    slip(paths[10])
    argv = ["check", "--format", "json", "--workers", "1", "."]
    installed = run([venv / "bin" / "unnatural", *argv], repo)
    research = run([ROOT / "bin" / argv[0], *argv[1:]], repo)
    assert installed.returncode == research.returncode == 1, installed.stderr + research.stderr
    assert '"message": "unexpected tab before \';\'"' in installed.stdout
    assert installed.stdout == research.stdout
    assert installed.stderr.splitlines()[0] == research.stderr.splitlines()[0]   # the run's signature line
