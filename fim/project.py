"""The project: the other files of a task set, as a completion tool in an editor sees the rest of the
repository. Their lines in the same context as a task's middle are candidates too.

A task's own file is never used for it: tasks are grouped into files by `path` (or, without one, by the
file's first and last 200 characters), and every task of the group is left out, since another task of the
same file holds this task's middle in its prefix or suffix.
"""
from __future__ import annotations

from collections import Counter, defaultdict

from .index import context_lines
from .tasks import LINE_BREAK, FimTask


def file_key(task: FimTask) -> str:
    return task.path or f"{task.prefix[:200]}\0{task.suffix[-200:]}"


class ProjectLines:
    def __init__(self, tasks: list[FimTask], language: str):
        self.table: dict[tuple, Counter] = defaultdict(Counter)          # (context, key) -> line -> count
        self.by_file: dict[tuple, dict[str, Counter]] = defaultdict(dict)
        texts = {}
        for t in tasks:
            texts.setdefault(file_key(t), t.prefix + t.middle + t.suffix)
        self.files = len(texts)
        for fkey, text in texts.items():
            lines = [x.strip() for x in LINE_BREAK.split(text)]
            lines = [x for x in lines if x]
            for prev, line, nxt, prev2 in context_lines(lines, language):
                for ctx in (("prev", prev), ("next", nxt), ("pair", prev, nxt), ("prev2", prev2, prev)):
                    self.table[ctx][line] += 1
                    self.by_file[ctx].setdefault(fkey, Counter())[line] += 1

    def lookup(self, context: str, k: int, own_file: str, *lines: str) -> list[tuple[str, int]]:
        ctx = (context, *lines)
        counts = self.table.get(ctx)
        if not counts:
            return []
        own = self.by_file[ctx].get(own_file)
        if own:
            counts = counts - own    # Counter subtraction keeps positive counts only
        return counts.most_common(k)
