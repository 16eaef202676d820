"""The project: the other files of a task set, as a completion tool in an editor sees the rest of the
repository. Their lines are candidates too: those in the same context as a task's middle, those made only
of names the task's file uses (`lines_using`), their import lines (`fim.imports`), and the packages their
types are declared in.

A task's own file is never used for it: tasks are grouped into files by `path` (or, without one, by the
file's first and last 200 characters), and every task of the group is left out, since another task of the
same file holds this task's middle in its prefix or suffix.
"""
from __future__ import annotations

from collections import Counter, defaultdict

from parsing.languages import get_language

from .imports import ImportTable, declared_imports, is_import
from .index import context_lines, is_comment_line
from .tasks import LINE_BREAK, FimTask

IDENTIFIER_KINDS = frozenset({"identifier", "type_identifier"})


def file_key(task: FimTask) -> str:
    return task.path or f"{task.prefix[:200]}\0{task.suffix[-200:]}"


def line_names(text: str, language: str) -> list[frozenset]:
    """The identifiers on each line of `text` (by tree-sitter: not in strings or comments)."""
    stream = get_language(language).tokenize(text)
    starts = [0] + [m.end() for m in LINE_BREAK.finditer(text)]
    out = [set() for _ in starts]
    j = 0
    for kind, s, e in zip(stream.kinds, stream.starts, stream.ends):
        if kind in IDENTIFIER_KINDS:
            while j + 1 < len(starts) and starts[j + 1] <= s:
                j += 1
            out[j].add(text[s:e])
    return [frozenset(x) for x in out]


class ProjectLines:
    def __init__(self, tasks: list[FimTask], language: str):
        self.table: dict[tuple, Counter] = defaultdict(Counter)          # (context, key) -> line -> count
        self.by_file: dict[tuple, dict[str, Counter]] = defaultdict(dict)
        self.imports = ImportTable(language)      # the files' import lines by the name they bind
        self.packages: dict[str, dict] = defaultdict(dict)          # type name -> file key -> its package
        self.line_files: dict[str, set] = defaultdict(set)          # code line -> the files that hold it
        self.line_ids: dict[str, frozenset] = {}                    # code line -> its identifiers
        self.using: dict[str, list[str]] = defaultdict(list)        # identifier -> code lines using it
        texts = {}
        for t in tasks:
            texts.setdefault(file_key(t), t.prefix + t.middle + t.suffix)
        self.files = len(texts)
        for fkey, text in texts.items():
            raw = LINE_BREAK.split(text)
            names = line_names(text, language)
            for line, ids in zip(raw, names):
                line = line.strip()
                if line and ids and not is_import(line, language) and not is_comment_line(line, language):
                    if line not in self.line_ids:
                        self.line_ids[line] = ids
                        for name in ids:
                            self.using[name].append(line)
                    self.line_files[line].add(fkey)
            lines = [x.strip() for x in raw]
            lines = [x for x in lines if x]
            declared = declared_imports(lines, language)
            for line in [x for x in lines if is_import(x, language)] + declared:
                self.imports.add(line, 1, fkey)
            for line in declared:     # 'import a.b.C;': C is declared in package a.b
                package, _, name = line[len("import "):-1].rpartition(".")
                self.packages[name][fkey] = package
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

    def total(self, context: str, own_file: str, *lines: str) -> int:
        """How many lines the other files have in `context` of `lines`."""
        ctx = (context, *lines)
        own = self.by_file.get(ctx, {}).get(own_file)
        return sum(self.table.get(ctx, Counter()).values()) - (sum(own.values()) if own else 0)

    def lines_using(self, near: set, known: set, k: int, own_file: str) -> list[tuple[str, int]]:
        """Up to k lines of the other files that use a name of `near` and no name outside `known`, with
        the number of other files holding them; those using the most names of `near` first."""
        found = {}
        for name in near:
            for line in self.using.get(name, ()):
                if line not in found and self.line_ids[line] <= known:
                    files = len(self.line_files[line] - {own_file})
                    if files:
                        found[line] = (len(self.line_ids[line] & near), files)
        best = sorted(found.items(), key=lambda x: (-x[1][0], -x[1][1], x[0]))[:k]
        return [(line, files) for line, (_, files) in best]

    def package_of(self, name: str, own_file: str) -> Counter:
        """The packages the other files declare a type `name` in, with counts."""
        return Counter(p for f, p in self.packages.get(name, {}).items() if f != own_file)
