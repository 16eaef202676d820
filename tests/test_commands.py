"""Every bin/ command follows the one CLI convention (unnatural/cli.py): `--help` works, a usage error is
argparse's usage line then `<command>: error: <message>` with exit 2, and the shared options are spelled
alike. bin/ scripts are run as users run them, through bin/_run."""
import re
import subprocess
import sys

import pytest
from conftest import ROOT

COMMANDS = sorted(p.name for p in (ROOT / "bin").iterdir() if not p.name.startswith("_") and p.name != "setup-debian")
HAVE_VENV = (ROOT / ".venv" / "bin" / "python").exists()


def run(*argv, cwd=ROOT):
    return subprocess.run([str(ROOT / "bin" / argv[0]), *map(str, argv[1:])], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


@pytest.mark.skipif(not HAVE_VENV, reason="no .venv")
@pytest.mark.parametrize("name", COMMANDS)
def test_help(name):
    r = run(name, "--help")
    assert r.returncode == 0 and r.stdout.startswith(f"usage: {name} ") and r.stderr == ""


@pytest.mark.parametrize("columns", ["40", "80", "123", "", "wide"])
def test_help_is_as_wide_as_argparse_makes_it(columns, monkeypatch):
    """unnatural.cli hands argparse's formatter the terminal's width (argparse would import shutil for it): the
    same help, wrapped at the same width, with $COLUMNS set, unset (no terminal in tests: 80) or not a number."""
    import argparse

    from unnatural import cli
    monkeypatch.setenv("COLUMNS", columns)
    ours = cli.parser("x", "A command.")
    theirs = argparse.ArgumentParser(prog="x", description="A command.", epilog=cli.EXIT_STATUSES)
    for p in (ours, theirs):
        p.add_argument("--workers", type=int, default=2, help="processes to rank with, one a core " * 3)
        p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    assert ours.format_help() == theirs.format_help()


@pytest.mark.skipif(not HAVE_VENV, reason="no .venv")
@pytest.mark.parametrize("name", COMMANDS)
def test_usage_error(name):
    r = run(name, "--no-such-option")
    lines = r.stderr.splitlines()
    assert r.returncode == 2 and r.stdout == ""
    assert lines[0].startswith(f"usage: {name} ") and lines[-1].startswith(f"{name}: error: "), r.stderr


@pytest.mark.skipif(not HAVE_VENV, reason="no .venv")
@pytest.mark.parametrize("name", COMMANDS)
def test_shared_options_are_spelled_alike(name):
    """--output, never --out or -o alone; --top, never --top-k or --top_n alone; --workers takes N."""
    helps = run(name, "--help").stdout
    if name == "stamina":
        helps += run(name, "learn", "--help").stdout + run(name, "generate", "--help").stdout
    if name == "evaluate":
        helps += run(name, "plur", "--help").stdout
    assert not re.search(r"--out\b(?!put)", helps) and "--top-k" not in helps
    assert "--top_n" not in helps or "--top " in helps or "--top N" in helps


@pytest.mark.skipif(not HAVE_VENV, reason="no .venv")
def test_bad_input_is_one_error_line(tmp_path):
    """A fatal error, from a few commands: one line in the convention, exit 2."""
    for argv in (["rank", "--model", tmp_path / "none.bin", tmp_path], ["rank-lines", "--model", tmp_path, tmp_path],
                 ["build-lm", tmp_path / "missing"], ["make-tasks", "--output", tmp_path / "o", tmp_path / "missing"],
                 ["evaluate", "codrep2019", "-p", tmp_path / "absent"],
                 ["stamina", "label", tmp_path / "m", tmp_path / "t"],
                 ["analyze-errors", tmp_path, "--predictions", tmp_path / "absent"]):
        r = run(*argv)
        assert r.returncode == 2 and r.stderr.startswith(f"{argv[0]}: error: "), (argv, r.stderr)
        assert r.stderr.count("\n") == 1, (argv, r.stderr)


@pytest.mark.skipif(not HAVE_VENV, reason="no .venv")
def test_default_model_is_found_from_any_working_folder(tmp_path):
    """Default paths are the repository's, whatever the working folder."""
    r = run("rank-lines", "--help", cwd=tmp_path)
    assert r.returncode == 0 and "(default .models/lines)" in " ".join(r.stdout.split())
    r = run("rank-lines", tmp_path, cwd=tmp_path)
    assert r.returncode == 2 and str(ROOT / ".models" / "lines") in r.stderr


def test_make_tasks_cli_bad_input(tmp_path, capsys):
    from evaluation.make_tasks_cli import main as make_tasks_main
    assert make_tasks_main([str(tmp_path / "missing"), "--output", str(tmp_path / "out")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_ctrl_c_in_a_finalizer_is_not_lost(tmp_path):
    """An interrupt that lands in a __del__ (the garbage collector runs one anywhere: a progress bar's) would
    be printed as 'Exception ignored in ...' and dropped; it is delivered again once the finalizer is done."""
    script = tmp_path / "del.py"
    script.write_text(
        "import os, signal, sys, time\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from unnatural import cli\n"
        "cli.handle_interrupts()\n"
        "class Slow:\n"
        "    def __del__(self):\n"
        "        os.kill(os.getpid(), signal.SIGINT)\n"
        "        time.sleep(0.05)\n"
        "try:\n"
        "    x = Slow()\n"
        "    del x\n"
        "    time.sleep(2)\n"
        "    print('lost')\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', cli.was_interrupted())\n")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=30)
    assert r.stdout == "interrupted True\n" and r.stderr == "", r.stderr
