"""Fill-in-the-middle tasks, as the study made them: a random line of a source file (the *middle*) that is
not a comment, not a print or logging call and not a short line, each line used once, with the text
before it (*prefix*) and after it (*suffix*).

A task's prefix ends with the line break before the middle (or is empty: the first line); the middle is
the whole line, indentation included, without its line break; the suffix starts with that line break.
So prefix + middle + suffix is the file exactly. The task file is the study's format: a JSON list of
objects with `prefix`, `middle`, `suffix`, plus `path` and `line` (1-based) saying where it came from.
"""
from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass

from formats.files import InputError, json_objects
from parsing.languages import Language

LINE_BREAK = re.compile(r"\r\n|\r|\n")
# print and logging calls (the study left them out: their text is free-form and says nothing of the code)
PRINT_CALL = re.compile(
    r"^(System\s*\.\s*(out|err)\s*\.\s*print|print\s*\(|\w+\s*\.\s*printStackTrace\s*\("
    r"|(\w+\s*\.\s*)*(log|logger|LOG|LOGGER|Log|Logger|logging|_log|_logger)\s*\.\s*"
    r"(trace|debug|info|warn|warning|error|severe|fine|finer|finest|config|log|exception|critical|fatal)\s*\()")
DEFAULT_MIN_CHARS = 4   # a line shorter than this, spaces at the ends not counted (`}`, `});`), is short


class TaskError(InputError):
    """Bad input for making or reading tasks; the message is one line naming the file."""


@dataclass(frozen=True)
class FimTask:
    prefix: str
    middle: str
    suffix: str
    path: str = ""
    line: int = 0      # 1-based line of the middle (0: unknown)


@dataclass(frozen=True)
class SkipRules:
    comments: bool = True          # skip lines holding only comments (tree-sitter decides)
    prints: bool = True            # skip print and logging calls
    min_chars: int = DEFAULT_MIN_CHARS


def line_spans(text: str) -> list[tuple[int, int, int]]:
    """(start, end without the line break, end with it) of every line, as editors count them (CR, LF,
    CRLF); a final line without a break counts, an empty text after the last break does not."""
    spans, start = [], 0
    for m in LINE_BREAK.finditer(text):
        spans.append((start, m.start(), m.end()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text), len(text)))
    return spans


def code_lines(text: str, language: Language, spans=None) -> set[int]:
    """0-based lines on which a token that is not a comment starts (so not blank lines, comment lines, or
    the inside of a multi-line comment, string or text block)."""
    spans = spans if spans is not None else line_spans(text)
    stream = language.tokenize(text)
    starts = [s for s, _, _ in spans]
    lines, j = set(), 0
    for kind, s in zip(stream.kinds, stream.starts):
        while j + 1 < len(starts) and starts[j + 1] <= s:
            j += 1
        if kind not in language.comment_kinds:
            lines.add(j)
    return lines


def eligible_lines(text: str, language: Language, rules: SkipRules = SkipRules()) -> list[int]:
    """0-based lines that can be a task's middle under `rules`, in file order."""
    spans = line_spans(text)
    code = code_lines(text, language, spans) if rules.comments else None
    out = []
    for i, (s, e, _) in enumerate(spans):
        line = text[s:e].strip()
        if not line or len(line) < rules.min_chars:
            continue
        if code is not None and i not in code:
            continue
        if rules.prints and PRINT_CALL.match(line):
            continue
        out.append(i)
    return out


def task_at(text: str, line: int, path: str = "", spans=None) -> FimTask:
    """The task whose middle is 0-based `line` of `text`."""
    s, e, _ = (spans or line_spans(text))[line]
    return FimTask(text[:s], text[s:e], text[e:], path, line + 1)


def sample_tasks(files: list[tuple[str, str, list[int]]], count: int, seed: int) -> list[FimTask]:
    """`count` tasks from (path, text, eligible lines) files, deterministic for a seed: the files in a
    shuffled order, one random unused line from each in turn, so that every line is used at most once and
    the tasks spread over the files."""
    rng = random.Random(seed)
    order = list(range(len(files)))
    rng.shuffle(order)
    pools = {i: list(files[i][2]) for i in order}
    tasks: list[FimTask] = []
    spans = {}
    while len(tasks) < count and pools:
        for i in list(order):
            if i not in pools:
                continue
            pool = pools[i]
            line = pool.pop(rng.randrange(len(pool)))
            if not pool:
                del pools[i]
            path, text, _ = files[i]
            if i not in spans:
                spans[i] = line_spans(text)
            tasks.append(task_at(text, line, path, spans[i]))
            if len(tasks) == count:
                break
        order = [i for i in order if i in pools]
    return tasks


def task_records(tasks: list[FimTask]) -> list[dict]:
    return [asdict(t) for t in tasks]


def read_tasks(text: str, source: str) -> list[FimTask]:
    """Tasks from the study's JSON (a list of objects with string `prefix` and `suffix`; `middle` is
    optional, for tasks whose answer is not known)."""
    records = json_objects(text, source, "task")
    if not records:
        raise TaskError(f"{source}: no tasks")
    tasks = []
    for i, r in enumerate(records):
        for key in ("prefix", "suffix"):
            if not isinstance(r.get(key), str):
                raise TaskError(f"{source}: task {i} has no string {key!r}")
        if not isinstance(r.get("middle", ""), str):
            raise TaskError(f"{source}: task {i} has a non-string 'middle'")
        line = r.get("line", 0)
        tasks.append(FimTask(r["prefix"], r.get("middle", ""), r["suffix"], str(r.get("path", "")),
                             line if isinstance(line, int) else 0))
    return tasks
