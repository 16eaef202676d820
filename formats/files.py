"""Reading input files as every stage needs them (strict UTF-8, newlines untouched), the one input error,
and the one order of task files."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path


class InputError(ValueError):
    """Bad input (file, line or value); its message is one line that names where the problem is."""


def read_text(path: str | Path, what: str = "", newline: str | None = None) -> str:
    """A UTF-8 file's text, or an InputError naming it: `cannot read[ what] (why)` or `not UTF-8`."""
    try:
        with open(path, encoding="utf-8", newline=newline) as f:
            return f.read()
    except OSError as error:
        raise InputError(f"{path}: cannot read{' ' + what if what else ''} ({error.strerror})") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 ({error.reason} at byte {error.start})") from None


def decode(data: bytes, name: str) -> str:
    """Source bytes as text: strict UTF-8 with newlines untouched (every offset downstream depends on it);
    a NUL byte marks a binary file. InputError names `name`."""
    if b"\0" in data:
        raise InputError(f"{name}: binary file (NUL byte at {data.index(bytes(1))}); skipped")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{name}: not UTF-8 (byte 0x{data[e.start]:02x} at {e.start}); skipped") from None


def json_objects(text: str, source: str, what: str) -> list[dict]:
    """A JSON list of objects (`what`: 'task', 'record', for messages), or an InputError naming `source` and
    the first bad item."""
    import json
    try:
        items = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{source}:{error.lineno}: not JSON ({error.msg})") from None
    except RecursionError:
        raise InputError(f"{source}: JSON nested too deeply to read") from None
    if not isinstance(items, list):
        raise InputError(f"{source}: expected a JSON list of {what}s, got {type(items).__name__}")
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise InputError(f"{source}: {what} {index} is not an object")
    return items


def read_source(path: str | Path, max_bytes: int | None = None) -> str:
    """A source file's text (see `decode`); a regular file larger than `max_bytes` is an input error found
    before reading it, and a device or a pipe named as a file (`/dev/zero`, `<(git show ...)`) is read only
    that far (`/dev/zero` has no end)."""
    try:
        with open(path, "rb") as f:
            if max_bytes is None:
                data = f.read()
            else:
                info = os.fstat(f.fileno())
                regular = stat.S_ISREG(info.st_mode)
                if regular and info.st_size > max_bytes:
                    raise InputError(unfit_source(path, info, max_bytes))
                # a regular file is read as large as it is (a buffer of max_bytes, allocated and given back
                # for every file, cost three times the read), and further only if it grew meanwhile
                data = f.read(info.st_size + 1 if regular else max_bytes + 1)
                if regular and len(data) > info.st_size:
                    data += f.read(max_bytes + 1 - len(data))
                if len(data) > max_bytes:
                    raise InputError(f"{path}: {too_large(None, max_bytes)}; skipped")
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror}); skipped") from None
    return decode(data, str(path))


def unfit_source(name: str | Path, st: os.stat_result, max_bytes: int) -> str | None:
    """Why the file `name` whose status is `st` is not read as a source file (one line), or None: not a
    regular file (a fifo or a device would block or never end), or larger than `max_bytes`."""
    if not stat.S_ISREG(st.st_mode):
        return f"{name}: not a regular file; skipped"
    if st.st_size > max_bytes:
        return f"{name}: {too_large(st.st_size, max_bytes)}; skipped"
    return None


def too_large(size: int | None, max_bytes: int) -> str:
    """Why a file above --max-bytes is skipped (`size`: its size, None when not known)."""
    return f"{size:,} bytes, more than --max-bytes {max_bytes:,}" if size is not None else \
        f"more than --max-bytes {max_bytes:,} bytes"


def normalize_path(path: str | Path) -> str:
    """The key of a task: its absolute path (links not resolved), so relative and absolute spellings agree."""
    return os.path.abspath(path)


def user_path(path: str | Path, cwd: str | Path | None = None) -> str:
    """A path as the user would type it in messages: relative to the working folder when under it, else as
    given (links not resolved)."""
    cwd = os.path.abspath(cwd if cwd is not None else os.getcwd())
    absolute = os.path.abspath(os.path.join(cwd, path))
    if absolute == cwd or absolute.startswith(cwd.rstrip(os.sep) + os.sep):
        return os.path.relpath(absolute, cwd)
    return absolute if os.path.isabs(path) else os.path.normpath(path)


def task_number(path: str | Path) -> int | None:
    """N of a task file `N.txt` (or any `N.<suffix>`), None for other names."""
    return _stem_number(Path(path).stem)


def _stem_number(stem: str) -> int | None:
    return int(stem) if stem.isdecimal() else None


def sort_key(path: str | Path):
    """The one order of task and source files: by folder, then task number (other names first), then name."""
    p = Path(path)
    number = _stem_number(p.stem)   # not task_number(p): no second Path (bin/rank sorts every file before it starts)
    return str(p.parent), -1 if number is None else number, p.name


def read_records(path: Path, make, problems: list[str]) -> list:
    """The records of a JSON Lines file made by `make`; a line that is not a valid record goes to `problems`
    (one line naming the file and the line) and is left out."""
    out = []
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise TypeError("not a JSON object")
            out.append(make(record))
        except (json.JSONDecodeError, RecursionError):
            problems.append(f"{path}:{number}: not JSON; left out")
        except (KeyError, TypeError, ValueError) as e:
            problems.append(f"{path}:{number}: not a record of the set ({type(e).__name__}: {e}); left out")
    return out
