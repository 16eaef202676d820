"""What bin/_run runs: `python -m unnatural.run MODULE ARGS...` calls MODULE's `main(ARGS)` and exits with
its status.

bin/_run starts Python with Ctrl-C blocked: an interrupt while the interpreter starts would otherwise print
a traceback. Here it is unblocked first thing (an interrupt that came meanwhile is delivered then), and an
interrupt at any point, the imports of numpy, tree-sitter and KenLM included, ends the command with one line
`<command>: interrupted` and EXIT_INTERRUPTED (unnatural/cli.py).
"""
from __future__ import annotations

import atexit
import importlib
import os
import signal
import sys
from typing import NoReturn

from . import ROOT, cli


def command_name(module: str) -> str:
    """The bin/ script that runs `module` (for messages before the module is imported)."""
    if not (ROOT / "bin").is_dir():   # installed by pip: the `unnatural` command names its subcommand itself
        return module
    for script in sorted((ROOT / "bin").iterdir()):
        try:
            if f'_run" {module} ' in script.read_text(errors="replace"):
                return script.name
        except OSError:
            continue
    return module


def main() -> int:
    return run_module(sys.argv[1], sys.argv[2:])


def run_module(module: str, args: list[str], name: str | None = None) -> int:
    """`module`'s main(args), its exit status; whatever stops it is one line under `name` (or the command's)."""
    try:
        cli.handle_interrupts()
        run = importlib.import_module(module).main
        name = getattr(run, "command", None) or name
        code = run(args)
    except BaseException as e:   # noqa: B036 (before main runs: an interrupt, or a broken installation)
        if isinstance(e, SystemExit) and not cli.was_interrupted():
            raise
        code = cli.failed(name or command_name(module), e)
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # exiting takes a moment: no traceback from it either
    return code if isinstance(code, int) else cli.EXIT_OK


def leave(code: int) -> NoReturn:
    """Exit with `code` as Python's exit does (the exit handlers run, the output is flushed), without
    Python's finalization, which frees every object and module one by one: 10-15 ms of every bin/rank, a
    sixth of one small file's time, for nothing a command leaves behind (its files are written and closed
    by then). Also where an interrupt ended the command: a library that met it may have reported it as
    unhandled, and Python would then end by SIGINT rather than with the status. While another thread runs,
    Python's own exit, which waits for it."""
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1 and not cli.was_interrupted():
        sys.exit(code)
    try:
        atexit._run_exitfuncs()
    except Exception:   # noqa: BLE001 (exiting anyway)
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(code)


if __name__ == "__main__":
    leave(main())
