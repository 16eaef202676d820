"""The one command-line convention of every `bin/` command.

- errors: one line `<command>: error: <message>` on stderr; warnings `<command>: warning: <message>`;
- exit statuses: EXIT_OK 0; EXIT_FINDINGS 1 (findings reported, or inputs skipped); EXIT_USAGE 2 (usage and
  fatal errors); EXIT_INTERRUPTED 130 (Ctrl-C);
- shared options: --model, --workers, --output, --top, with one spelling and one meaning;
- default paths (models, corpora) are relative to the repository, whatever the working folder; paths a
  user types are relative to the working folder, as in every other program.

- Ctrl-C: one line `<command>: interrupted`, exit EXIT_INTERRUPTED, whatever the command was doing (the
  launcher, unnatural/run.py, covers the imports too); a closed pipe (`| head`) ends the command quietly;
  an output that cannot be written (`> /dev/full`, a closed stdout) is an error line; anything unexpected is
  one line too (`internal error: ...`), never a traceback;
- --max-bytes: the largest input file read (bigger ones are skipped with a warning: memory is per byte);
- files written by a command appear whole or not at all (`atomic_output`).

Only the standard library is imported here: `bin/rank`'s start-up time matters.
"""
from __future__ import annotations

import _thread
import argparse
import contextlib
import errno
import functools
import math
import os
import re
import signal
import stat
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from . import ROOT

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
# The default --max-bytes: ranking holds about 100 bytes of memory per byte of input, so a 10 MB file takes
# about 1 GB; real source files are far smaller (the JDK's largest is 0.4 MB), bigger ones are generated.
MAX_BYTES = 10_000_000


class CommandError(Exception):
    """A fatal error for the user, printed as `<command>: error: <message>` (exit EXIT_USAGE)."""


def error(command: str, message: object) -> None:
    print(f"{command}: error: {message}", file=sys.stderr)


def warning(command: str, message: object) -> None:
    print(f"{command}: warning: {message}", file=sys.stderr)


_running: list[str] = []   # the command being run (for library code that warns on its behalf)


def running_command() -> str:
    """The name of the command being run (`command`), or the program's name outside one."""
    return _running[-1] if _running else Path(sys.argv[0]).name


class ArgumentParser(argparse.ArgumentParser):
    """argparse whose usage errors follow the convention (argparse's usage line, then the error line, exit
    2); subcommand parsers are of this class too, and report under the command's name."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        error(self.prog.split()[0], message)
        sys.exit(EXIT_USAGE)

    def _get_formatter(self):
        # argparse's formatter asks shutil for the terminal's width, and importing shutil (with bz2 and lzma) was
        # 2 ms of every command's start-up: the same width (shutil.get_terminal_size's), found without it
        return self.formatter_class(prog=self.prog, width=_terminal_columns() - 2)


def _terminal_columns() -> int:
    """shutil.get_terminal_size().columns: $COLUMNS, else the terminal's, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


EXIT_STATUSES = (f"exit status: {EXIT_OK} success; {EXIT_FINDINGS} findings, or inputs skipped (each named on "
                 f"stderr); {EXIT_USAGE} usage or fatal error; {EXIT_INTERRUPTED} interrupted (Ctrl-C). "
                 "docs/errors.md")


def parser(command: str, description: str, **kwargs) -> ArgumentParser:
    """The argument parser of `bin/<command>`; its help ends with the exit statuses."""
    kwargs.setdefault("epilog", EXIT_STATUSES)
    return ArgumentParser(prog=command, description=description, **kwargs)


def interrupted(command: str) -> None:
    print(f"{command}: interrupted", file=sys.stderr)


_interrupts = 0


def _on_interrupt(signum, frame):
    global _interrupts
    _interrupts += 1
    if _in_finalizer(frame):
        # raised in a __del__ (the garbage collector can run one anywhere, a progress bar's say), the interrupt
        # would be printed as "Exception ignored in ..." and dropped: deliver it again once the finalizer is done
        _thread.start_new_thread(_interrupt_soon, ())   # (not threading: bin/rank's start-up does not import it)
        return
    raise KeyboardInterrupt


def _interrupt_soon() -> None:
    time.sleep(0.01)
    _thread.interrupt_main()


def _in_finalizer(frame, depth: int = 30) -> bool:
    while frame is not None and depth > 0:
        if frame.f_code.co_name == "__del__":
            return True
        frame, depth = frame.f_back, depth - 1
    return False


def handle_interrupts() -> None:
    """Ctrl-C raises KeyboardInterrupt, and is remembered: a library that turns it into another error (numpy's
    import does) still ends the command as interrupted. Unblocks Ctrl-C (bin/_run starts Python with it
    blocked)."""
    signal.signal(signal.SIGINT, _on_interrupt)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def was_interrupted() -> bool:
    return _interrupts > 0


@contextlib.contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Ctrl-C during the block takes effect when it ends: for what must not stop half-way (renaming a model
    and its signature into place, removing a temporary folder). The main thread only (signals go there)."""
    import threading  # (here and below: bin/rank's start-up imports none of these)
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught and previous is not signal.SIG_IGN:
            global _interrupts
            _interrupts += 1
            raise KeyboardInterrupt


@contextlib.contextmanager
def temporary_folder(prefix: str, dir: str | Path | None = None) -> Iterator[Path]:
    """A temporary folder, removed when the block ends, however it ends (Ctrl-C included)."""
    import shutil
    import tempfile
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=dir))
    try:
        yield path
    finally:
        with deferred_interrupts():
            shutil.rmtree(path, ignore_errors=True)


def ignore_interrupts(*_) -> None:
    """In a worker process: Ctrl-C is the parent's to handle (it stops its workers and reports it once)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def command(name: str) -> Callable:
    """Decorate a command's `main(argv) -> int`: a CommandError becomes the error line and EXIT_USAGE,
    Ctrl-C the line `<name>: interrupted` and EXIT_INTERRUPTED; standard output is flushed before returning,
    so that a failure to write it is reported here (see the module's docstring)."""
    def wrap(main: Callable[..., int]) -> Callable[..., int]:
        @functools.wraps(main)
        def run(argv=None) -> int:
            if sys.stdout is None:   # started with stdout closed (`>&-`): writing it is the error
                sys.stdout = _ClosedOutput()
            _running.append(name)
            try:
                code = main(argv)
                sys.stdout.flush()
                return code
            except SystemExit:   # argparse: --help, or a usage error already reported
                if not was_interrupted():
                    raise
                interrupted(name)
                return EXIT_INTERRUPTED
            except BaseException as e:   # noqa: B036 (every failure ends as one line)
                return failed(name, e)
            finally:
                _running.pop()
        run.command = name   # for the launcher (unnatural/run.py)
        return run
    return wrap


def failed(name: str, e: BaseException) -> int:
    """Report why command `name` stopped, in one line; its exit status."""
    if isinstance(e, KeyboardInterrupt) or was_interrupted():
        interrupted(name)
        return EXIT_INTERRUPTED
    if isinstance(e, CommandError):
        error(name, e)
    elif isinstance(e, BrokenPipeError):   # the reader (e.g. `head`) closed the pipe: not an error of ours
        _discard_stdout()
        return EXIT_OK
    elif isinstance(e, OSError):
        if e.filename is None and e.errno in _OUTPUT_ERRORS:
            _discard_stdout()
            error(name, f"cannot write the output ({e.strerror})")
        else:
            error(name, f"{str(e.filename) + ': ' if e.filename else ''}{e.strerror or e}")
    elif isinstance(e, ModuleNotFoundError) and (e.name or "").partition(".")[0] in RESEARCH_LIBRARIES:
        error(name, f"needs {e.name.partition('.')[0]}: pip install 'unnatural[research]'")
    elif isinstance(e, RecursionError):
        error(name, "input nested too deeply to read")
    elif isinstance(e, MemoryError):
        error(name, "out of memory (a smaller input, or --max-bytes, may help)")
    elif isinstance(e, Exception):   # a bug: still one line, with what to report
        error(name, f"internal error: {type(e).__name__}: {e} ({_where(e)}); please report it")
    else:
        raise e
    return EXIT_USAGE


# what the research commands import beyond a plain `pip install unnatural` (pyproject.toml's `research` extra)
RESEARCH_LIBRARIES = {"lightgbm", "pysat", "sacrebleu", "rapidfuzz", "nltk", "matplotlib", "scipy"}
_OUTPUT_ERRORS = {errno.ENOSPC, errno.EBADF, errno.EIO, errno.EFBIG, errno.EDQUOT, errno.EPIPE}


class _ClosedOutput:
    """Standard output when the command was started without one."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed")

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


def _discard_stdout() -> None:
    """Send what is left in stdout's buffer nowhere, so that the exit does not report the same failure again."""
    try:
        fd = sys.__stdout__.fileno() if sys.__stdout__ is not None else -1
        if fd >= 0:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, fd)
            os.close(null)
    except (OSError, ValueError):
        pass


def _where(e: BaseException) -> str:
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return f"{Path(tb.tb_frame.f_code.co_filename).name}:{tb.tb_lineno}" if tb else "?"


def repo_path(relative: str | Path) -> Path:
    """A default path, relative to the repository (not to the working folder)."""
    return ROOT / relative


def _int_at_least(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be at least {least}: {value}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    return _int_at_least(text, 1)


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    return _int_at_least(text, 0)


def fraction(text: str) -> float:
    """argparse type: a number in (0, 1] (an interpolation weight)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(value) and 0 < value <= 1):
        raise argparse.ArgumentTypeError(f"must be in (0, 1]: {text}")
    return value


def weight(text: str) -> float:
    """argparse type: an interpolation weight of a second model, a number in [0, 1) (at 1 the first model
    would be left out; nan and inf are not numbers a mixture can use)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value < 1:   # false for nan too
        raise argparse.ArgumentTypeError(f"must be in [0, 1): {text}")
    return value


def byte_count(text: str) -> int:
    """argparse type: a size in bytes, >= 1, with an optional k, M or G suffix (powers of 1000)."""
    match = re.fullmatch(r"(\d+(?:\.\d*)?)([kKMG]?)", text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"not a size in bytes: {text!r} (e.g. 10M)")
    value = int(float(match.group(1)) * {"": 1, "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9}[match.group(2)])
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 byte: {text}")
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


def add_max_bytes(p: argparse.ArgumentParser) -> None:
    """--max-bytes N: input files larger than this are skipped with a warning."""
    p.add_argument("--max-bytes", type=byte_count, default=MAX_BYTES, metavar="N",
                   help=f"skip input files larger than N bytes (k, M, G suffixes; default {MAX_BYTES // 10**6}M)")


@contextlib.contextmanager
def atomic_output(path: str | Path, mode: str = "w", like: os.stat_result | None = None, **kwargs) -> Iterator:
    """Open `path` for writing as a temporary file beside it, flushed to disk and renamed to `path` when the
    block ends without an exception (Ctrl-C included): a reader never sees a half-written file, and a failure
    leaves the old one in place. `like`: the status of the file replaced, whose mode and owner (when this
    process may set it) the new one keeps."""
    import tempfile
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    try:
        with os.fdopen(fd, mode, **kwargs) as f:
            if like is not None:
                with contextlib.suppress(PermissionError):   # another user's file: only root keeps its owner
                    os.fchown(fd, like.st_uid, like.st_gid)
                os.fchmod(fd, stat.S_IMODE(like.st_mode))   # after chown, which clears set-user-ID bits
            yield f
            f.flush()
            os.fsync(fd)
        with deferred_interrupts():
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def add_cluster(p: argparse.ArgumentParser, help: str) -> None:
    """--cluster ADDRESS: a Dask scheduler address or local:N (unnatural.cluster; Dask is imported only then)."""
    p.add_argument("--cluster", metavar="ADDRESS", default=None, help=help)
