"""Import lines: which names a file uses that none of its lines imports, and the import lines that would
bring them in.

A real file's import block is a frequent middle (about one in six lines of CodRep 2018's files), and what
it must hold shows in the rest of the file: a name used below that no other import line binds and the file
does not declare. The lines that import such a name are found where the name is imported elsewhere: the
project's other files, the corpus (`fim.index.LineIndex.import_lines`), and, as a guess, the packages the
file already imports from. Imports are usually sorted, so a candidate is also judged by its order against
the import lines around the middle.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

# java.lang's types need no import (a name of these is never "missing")
JAVA_LANG = frozenset("""
    AbstractMethodError Appendable ArithmeticException ArrayIndexOutOfBoundsException ArrayStoreException
    AssertionError AutoCloseable Boolean Byte CharSequence Character Class ClassCastException ClassLoader
    ClassNotFoundException CloneNotSupportedException Cloneable Comparable Deprecated Double Enum Error
    Exception ExceptionInInitializerError Float FunctionalInterface IllegalAccessException
    IllegalArgumentException IllegalMonitorStateException IllegalStateException IncompatibleClassChangeError
    IndexOutOfBoundsException InheritableThreadLocal InstantiationException Integer InternalError
    InterruptedException Iterable LinkageError Long Math Module NegativeArraySizeException NoClassDefFoundError
    NoSuchFieldException NoSuchMethodException NullPointerException Number NumberFormatException Object
    OutOfMemoryError Override Package Process ProcessBuilder Readable Record ReflectiveOperationException
    Runnable Runtime RuntimeException SafeVarargs SecurityException SecurityManager Short StackOverflowError
    StackTraceElement StrictMath String StringBuffer StringBuilder StringIndexOutOfBoundsException
    SuppressWarnings System Thread ThreadDeath ThreadGroup ThreadLocal Throwable TypeNotPresentException
    UnsupportedOperationException VirtualMachineError Void
""".split())

_JAVA_IMPORT = re.compile(r"import\s+(static\s+)?([\w$]+(?:\s*\.\s*[\w$]+)*)(\s*\.\s*\*)?\s*;")
_PY_IMPORT = re.compile(r"import\s+(.+)")
_PY_FROM = re.compile(r"from\s+(\S+)\s+import\s+(.+)")
_DECLARES = {"java": frozenset({"class", "interface", "enum", "record"}), "python": frozenset({"class", "def"})}


def is_import(line: str, language: str) -> bool:
    """A stripped line that is an import statement (or starts one)."""
    if language == "python":
        return line.startswith("import ") or (line.startswith("from ") and " import " in line)
    return line.startswith("import ")


def bound_names(line: str, language: str) -> tuple[str, ...]:
    """The names a stripped import line binds (() for a wildcard import or another line)."""
    if language == "python":
        line = line.split("#", 1)[0].strip()
        m = _PY_FROM.fullmatch(line)
        if m:
            names = m.group(2).strip("()\\ ").split(",")
            return tuple(n.split(" as ")[-1].strip() for n in names if n.strip() and n.strip() != "*")
        m = _PY_IMPORT.fullmatch(line)
        if m:
            out = []
            for n in m.group(1).split(","):
                n = n.strip()
                out.append(n.split(" as ")[-1].strip() if " as " in n else n.split(".")[0].strip())
            return tuple(n for n in out if n.isidentifier())
        return ()
    m = _JAVA_IMPORT.fullmatch(line)
    if not m or m.group(3):
        return ()
    return (m.group(2).rsplit(".", 1)[-1].strip(),)


def import_package(line: str) -> str | None:
    """The package a Java single-type import line imports from ('import a.b.C;' -> 'a.b'), else None."""
    m = _JAVA_IMPORT.fullmatch(line)
    if not m or m.group(3) or m.group(1) or "." not in m.group(2):
        return None
    return re.sub(r"\s+", "", m.group(2)).rsplit(".", 1)[0]


_JAVA_TYPE = re.compile(r"(?:(?:public|protected|private|abstract|final|static|sealed|non-sealed|strictfp)\s+)*"
                        r"(?:class|interface|enum|record|@interface)\s+(\w+)")


def declared_imports(lines: list[str], language: str) -> list[str]:
    """The import lines another file would write for the types a Java file declares at the start of a
    line ('package a.b;' and 'public class C' -> 'import a.b.C;')."""
    if language != "java":
        return []
    package = next((x for x in lines if x.startswith("package ")), None)
    if package is None:
        return []
    package = re.sub(r"[\s;]", "", package[len("package "):])
    out = []
    for line in lines:
        m = _JAVA_TYPE.match(line)
        if m and f"import {package}.{m.group(1)};" not in out:
            out.append(f"import {package}.{m.group(1)};")
    return out


@dataclass
class FileNames:
    """What a file (prefix and suffix) says about names: used (not after a '.'), imported by its import
    lines, declared by it (types, Python's functions), and its Java package."""
    used: Counter = field(default_factory=Counter)
    imported: set = field(default_factory=set)
    declared: set = field(default_factory=set)
    packages: list = field(default_factory=list)     # the packages its Java imports import from, in order
    package: str | None = None

    def missing(self, language: str) -> list[str]:
        """Names used but neither imported nor declared (java.lang's left out), most used first."""
        out = [n for n, _ in self.used.most_common() if n not in self.imported and n not in self.declared]
        return [n for n in out if n not in JAVA_LANG] if language == "java" else out


def file_names(token_lists, lines: list[str], language: str) -> FileNames:
    """`token_lists`: the prefix's and the suffix's tokens ((gap, kind, text)...); `lines`: the file's
    stripped lines."""
    names = FileNames()
    declares = _DECLARES.get(language, frozenset())
    for line in lines:
        if is_import(line, language):
            names.imported.update(bound_names(line, language))
            package = import_package(line) if language == "java" else None
            if package and package not in names.packages:
                names.packages.append(package)
        elif language == "java" and line.startswith("package ") and names.package is None:
            names.package = re.sub(r"[\s;]", "", line[len("package "):])
    for tokens in token_lists:
        statement = False      # inside an import or package statement
        before = ("", "")      # the previous token's kind and text
        for i, (gap, kind, text) in enumerate(tokens):
            if language == "python" and "\n" in gap:
                statement = False
            if kind in ("import", "package") or (language == "python" and kind == "from" and "\n" in gap):
                statement = True
            elif text == ";":
                statement = False
            elif kind in ("identifier", "type_identifier") and not statement:
                after = tokens[i + 1][2] if i + 1 < len(tokens) else ""
                if before[1] in declares or (language == "java" and _declares_java(before, after)):
                    names.declared.add(text)
                elif before[1] != ".":
                    names.used[text] += 1
            before = (kind, text)
    return names


_JAVA_TYPE_END = frozenset({"type_identifier", "identifier", ">", "]", "int", "long", "short", "byte", "char",
                            "boolean", "float", "double", "void_type"})


def _declares_java(before: tuple[str, str], after: str) -> bool:
    """An identifier after a type and before '=', ';', ',', ')', ':' or '(' is being declared (a variable,
    parameter, field or method: `int x = 0`, `Foo foo)`, `void run(`)."""
    return before[0] in _JAVA_TYPE_END and after in ("=", ";", ",", ")", ":", "(")


class ImportTable:
    """Import lines by the name they bind, with counts, and per file (so a task's own file is left out)."""

    def __init__(self, language: str):
        self.language = language
        self.lines: dict[str, Counter] = defaultdict(Counter)
        self.by_file: dict[str, dict[str, Counter]] = defaultdict(dict)

    def add(self, line: str, count: int = 1, file: str | None = None) -> None:
        for name in bound_names(line, self.language):
            self.lines[name][line] += count
            if file is not None:
                self.by_file[name].setdefault(file, Counter())[line] += count

    def lookup(self, name: str, k: int, own_file: str | None = None) -> list[tuple[str, int]]:
        counts = self.lines.get(name)
        if not counts:
            return []
        own = self.by_file.get(name, {}).get(own_file) if own_file is not None else None
        if own:
            counts = counts - own
        return counts.most_common(k)


def order_agreement(line: str, before: str | None, after: str | None) -> float:
    """+1 for each neighbouring import line (the nearest one above, below; None: none) the line sorts
    after / before, -1 for each it does not."""
    score = 0.0
    if before is not None:
        score += 1.0 if before <= line else -1.0
    if after is not None:
        score += 1.0 if line <= after else -1.0
    return score
