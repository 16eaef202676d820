"""The `unnatural` command of the installed package (unnatural/command.py): its subcommands are bin/'s
launchers, `--version` and `--help` work, an unknown command is one error line, and the default model shipped in
models/ is the one the research set-up builds."""
import hashlib
import lzma
import re
import subprocess
import sys

import pytest
from conftest import ROOT

from unnatural import __version__, cli
from unnatural.command import COMMANDS, RESEARCH_ONLY

LAUNCHERS = {p.name: re.search(r'_run" (\S+)', p.read_text()).group(1)
             for p in (ROOT / "bin").iterdir() if not p.name.startswith("_") and p.name != "setup-debian"}


def unnatural(*argv):
    return subprocess.run([sys.executable, "-m", "unnatural.command", *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_every_launcher_is_a_subcommand_or_research_only():
    assert set(COMMANDS) | set(RESEARCH_ONLY) == set(LAUNCHERS)
    assert not set(COMMANDS) & set(RESEARCH_ONLY)
    assert {name: module for name, (module, _) in COMMANDS.items()} == {
        name: LAUNCHERS[name] for name in COMMANDS}


@pytest.mark.parametrize("argv, code, out, err", [
    (["--version"], 0, f"unnatural {__version__}\n", ""),
    (["-V"], 0, f"unnatural {__version__}\n", ""),
    (["bench"], 2, "", "unnatural: error: unknown command 'bench' (only in a checkout of the repository (bin/))\n"),
    (["lint"], 2, "", "unnatural: error: unknown command 'lint' (choose from check, rank, "),
])
def test_version_and_unknown_commands(argv, code, out, err):
    r = unnatural(*argv)
    assert (r.returncode, r.stdout) == (code, out) and r.stderr.startswith(err)


def test_the_version_is_x_y_z_and_a_release_tag_names_it():
    """A release is tagged vX.Y.Z (docs/install.md): a v* tag on the checked-out commit is the version's."""
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    tags = subprocess.run(["git", "tag", "--points-at", "HEAD", "--list", "v*"], cwd=ROOT, capture_output=True,
                          text=True).stdout.split()
    assert all(tag == f"v{__version__}" for tag in tags), (tags, __version__)


@pytest.mark.parametrize("argv, stream", [(["--help"], "stdout"), ([], "stderr")])
def test_help_lists_every_command(argv, stream):
    r = unnatural(*argv)
    text = getattr(r, stream)
    assert r.returncode == (0 if argv else 2) and text.startswith("usage: unnatural ")
    assert all(re.search(rf"^  {re.escape(name)} ", text, re.M) for name in COMMANDS)


@pytest.mark.parametrize("name", ["check", "rank", "build-lm", "stamina"])
def test_a_subcommand_is_its_launcher(name):
    r = unnatural(name, "--help")
    launcher = subprocess.run([str(ROOT / "bin" / name), "--help"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout == launcher.stdout and r.stdout.startswith(f"usage: {name} ")


def test_a_usage_error_is_the_commands_own():
    r = unnatural("check", "--sensitivity", "loud", ".")
    assert r.returncode == 2 and r.stderr.splitlines()[-1].startswith("check: error: argument --sensitivity")


@pytest.mark.parametrize("library", sorted(cli.RESEARCH_LIBRARIES))
def test_a_missing_research_library_names_the_extra(library, capsys):
    e = ModuleNotFoundError(f"No module named '{library}'", name=f"{library}.sub")
    assert cli.failed("rank-lines", e) == cli.EXIT_USAGE
    assert capsys.readouterr().err == f"rank-lines: error: needs {library}: pip install 'unnatural[research]'\n"


@pytest.mark.parametrize("name", ["default-kind-units-o6.bin", "default-kind-units-o6.bin.ceilings"])
def test_the_shipped_model_is_the_one_the_research_set_up_builds(name):
    """models/ holds the default model for pip builds (the package ships it); after a change of the tokenizer
    or the corpus, `make setup`'s model differs: compress it into models/ again (xz -c .models/X > models/X.xz)."""
    built = ROOT / ".models" / name
    if not built.exists():
        pytest.skip(f"no {built} (the default model is built by `make demo` or bin/rank)")
    with lzma.open(ROOT / "models" / f"{name}.xz") as f:
        shipped = hashlib.sha256(f.read()).hexdigest()
    assert shipped == hashlib.sha256(built.read_bytes()).hexdigest()


def test_an_installation_without_the_default_model_says_so(tmp_path, monkeypatch):
    """Installed from a source without models/, the default model cannot be built (no corpora/, no lmplz):
    one error line, not an attempt to build it."""
    from ranker import cli as rank_cli
    monkeypatch.setattr(rank_cli.cli, "repo_path", lambda relative: tmp_path / relative)
    with pytest.raises(cli.CommandError, match=r"this installation has no default model .*pass --model"):
        rank_cli.ensure_default_model(tmp_path / rank_cli.DEFAULT_MODEL)
