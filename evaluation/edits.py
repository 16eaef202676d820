"""What whitespace edit turned a base file into a task, found by comparing their token streams."""
from __future__ import annotations

from dataclasses import dataclass

from parsing.java import tokenize


@dataclass(frozen=True)
class Edit:
    kind: str        # insert / delete / replace / unknown
    char: str        # the whitespace character inserted, deleted or written ('' when unknown)
    gap: int         # gap index in the task's stream
    observed: str    # the gap in the task
    original: str    # the gap in the base file
    before: str      # text of the token before the gap ('' at the start)
    after: str       # text of the token after it ('' at the end)


def find_edit(task: str, base: str) -> Edit | None:
    """The one gap where task and base differ (None when identical or when tokens differ)."""
    t, b = tokenize(task), tokenize(base)
    if len(t) != len(b):
        return None
    for i in range(len(t) + 1):
        og, bg = t.gap_text(i), b.gap_text(i)
        if og == bg:
            continue
        before = t.token_text(i - 1) if i > 0 else ""
        after = t.token_text(i) if i < len(t) else ""
        if len(og) == len(bg) + 1:
            kind, char = "insert", _diff_char(og, bg)
        elif len(og) + 1 == len(bg):
            kind, char = "delete", _diff_char(bg, og)
        elif len(og) == len(bg):
            kind, char = "replace", next(a for a, c in zip(og, bg) if a != c)
        else:
            kind, char = "unknown", ""
        return Edit(kind, char, i, og, bg, before, after)
    return None


def _diff_char(longer: str, shorter: str) -> str:
    for i, c in enumerate(shorter):
        if longer[i] != c:
            return longer[i]
    return longer[-1]


CHAR_NAMES = {" ": "space", "\t": "tab", "\n": "newline", "\r": "CR"}


def describe(edit: Edit) -> str:
    return f"{edit.kind} {CHAR_NAMES.get(edit.char, repr(edit.char))}"
