"""The one command-line convention of every `bin/` command.

- errors: one line `<command>: error: <message>` on stderr; warnings `<command>: warning: <message>`;
- exit statuses: EXIT_OK 0; EXIT_FINDINGS 1 (findings reported, or inputs skipped); EXIT_USAGE 2 (usage and
  fatal errors); EXIT_INTERRUPTED 130 (Ctrl-C);
- shared options: --model, --workers, --output, --top, with one spelling and one meaning;
- default paths (models, corpora) are relative to the repository, whatever the working folder; paths a
  user types are relative to the working folder, as in every other program.

Only the standard library is imported here: `bin/rank`'s start-up time matters.
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path
from typing import Callable

from . import ROOT

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class CommandError(Exception):
    """A fatal error for the user, printed as `<command>: error: <message>` (exit EXIT_USAGE)."""


def error(command: str, message: object) -> None:
    print(f"{command}: error: {message}", file=sys.stderr)


def warning(command: str, message: object) -> None:
    print(f"{command}: warning: {message}", file=sys.stderr)


class ArgumentParser(argparse.ArgumentParser):
    """argparse whose usage errors follow the convention (argparse's usage line, then the error line, exit
    2); subcommand parsers are of this class too, and report under the command's name."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        error(self.prog.split()[0], message)
        sys.exit(EXIT_USAGE)


def parser(command: str, description: str, **kwargs) -> ArgumentParser:
    """The argument parser of `bin/<command>`."""
    return ArgumentParser(prog=command, description=description, **kwargs)


def command(name: str) -> Callable:
    """Decorate a command's `main(argv) -> int`: a CommandError becomes the error line and EXIT_USAGE,
    Ctrl-C exits EXIT_INTERRUPTED without a traceback."""
    def wrap(main: Callable[..., int]) -> Callable[..., int]:
        @functools.wraps(main)
        def run(argv=None) -> int:
            try:
                return main(argv)
            except CommandError as e:
                error(name, e)
                return EXIT_USAGE
            except KeyboardInterrupt:
                return EXIT_INTERRUPTED
        return run
    return wrap


def repo_path(relative: str | Path) -> Path:
    """A default path, relative to the repository (not to the working folder)."""
    return ROOT / relative


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {value}")
    return value


def add_model(p: argparse.ArgumentParser, default: str | None, help: str, **kwargs) -> None:
    """--model PATH; `default` is relative to the repository (help: `help` plus the default)."""
    if default is not None:
        help = f"{help} (default {default})"
    p.add_argument("--model", type=Path, default=repo_path(default) if default is not None else None,
                   help=help, **kwargs)


def add_workers(p: argparse.ArgumentParser, help: str = "processes", default: int | None = None) -> None:
    """--workers N (default: every core)."""
    p.add_argument("--workers", type=positive_int, default=default or os.cpu_count() or 1, metavar="N",
                   help=f"{help} (default {default if default else 'all cores'})")


def add_output(p: argparse.ArgumentParser, help: str, default: str | Path | None = None,
               required: bool = False) -> None:
    """--output PATH (a file or folder the command writes); `default` is relative to the repository."""
    if default is not None:
        help = f"{help} (default {default})"
    p.add_argument("--output", type=Path, default=repo_path(default) if default is not None else None,
                   required=required, help=help)


def add_top(p: argparse.ArgumentParser, help: str, default: int | None = None, aliases: tuple[str, ...] = (),
            metavar: str = "K") -> None:
    """--top K: how many of the best to keep (other spellings, such as an official tool's, as aliases)."""
    if default is not None:
        help = f"{help} (default {default})"
    p.add_argument("--top", *aliases, type=positive_int, default=default, metavar=metavar, help=help)


def add_cluster(p: argparse.ArgumentParser, help: str) -> None:
    """--cluster ADDRESS: a Dask scheduler address or local:N (unnatural.cluster; Dask is imported only then)."""
    p.add_argument("--cluster", metavar="ADDRESS", default=None, help=help)
