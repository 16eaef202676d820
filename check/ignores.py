"""The findings a user silences, after they are found: the rules turned off (--select, --ignore, and `select`,
`ignore` and `per-file-ignores` in the configuration, check/config.py) and the lines a suppression comment
names:

    int[] table = {1,   2};   // unnatural: ignore[whitespace]
    // unnatural: ignore
    x  = y;

A Java line comment `// unnatural: ignore[RULE, ...]` silences the findings of those rules, and a bare
`// unnatural: ignore` every finding, on its own line (the line bin/check reports a finding on) and, when the
comment is alone on its line, on the next line. Text after the comment's rules is a reason and is left alone
(`// unnatural: ignore[tab] generated`). A silenced finding is neither reported nor fixed; the others are
exactly those of a run without it (the engine found them as before). A suppression that silences nothing
can be reported (`unused`: --report-unused-suppressions). The regions a comment turns checking off for
(`@formatter:off`, `CHECKSTYLE:OFF`, ...) are check/suppress.py's: the engine judges nothing there.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from parsing.java import tokenize
from parsing.offsets import Lines, has_line_break

from .config import excluded
from .findings import CheckedFile
from .rules import RULES

MARKER = "unnatural:"   # a cheap test before tokenizing: only a text holding it may have a suppression
_COMMENT = re.compile(r"//\s*unnatural:\s*ignore(?:\s*\[([^\]\n]*)\])?(?=\s|$)")
_LOOKS_LIKE = re.compile(r"//\s*unnatural:")


@dataclass(frozen=True)
class RuleChoice:
    """The rules checked: `select` (None: every rule checked by default) less `ignore`, and less a
    per-file-ignores' rules in the files its glob matches (relative to the root, as excludes are)."""
    select: frozenset[str] | None = None
    ignore: frozenset[str] = frozenset()
    per_file: tuple[tuple[str, frozenset[str]], ...] = ()

    def rules(self, rel: str) -> frozenset[str]:
        """The rules checked in the file at `rel` ('/'-separated, relative to the root)."""
        chosen = self.select if self.select is not None else frozenset(r.id for r in RULES.values() if r.default)
        off = set(self.ignore)
        for glob, rules in self.per_file:
            if excluded(rel, [glob]):
                off |= rules
        return chosen - off

    @property
    def all(self) -> bool:
        """Whether every rule is checked everywhere (nothing to filter)."""
        return self.select is None and not self.ignore and not self.per_file and all(r.default for r in RULES.values())


@dataclass(frozen=True)
class Suppression:
    line: int                  # the comment's line (1-based)
    lines: tuple[int, ...]     # the lines it silences: its own, and the next when it is alone on its line
    rules: tuple[str, ...]     # the rules it silences (known ones); () with `every`
    every: bool                # a bare `// unnatural: ignore`
    text: str                  # the comment as written, for messages


@dataclass(frozen=True)
class Silenced:
    """A file's findings once the rules off and the suppression comments are taken out, and what a person is
    told of its comments (`problems`: unknown rules, malformed comments; `unused`: suppressions that silenced
    nothing), each one line naming the file and line."""
    checked: CheckedFile
    problems: tuple[str, ...] = ()
    unused: tuple[str, ...] = ()
    unused_at: tuple[int, ...] = ()   # the line of each unused suppression's comment (a change's are judged alone)


def suppressions(text: str, path: str = "") -> tuple[list[Suppression], list[str]]:
    """The suppression comments of Java `text`, and a line per problem with one (naming `path`)."""
    if MARKER not in text:
        return [], []
    stream = tokenize(text)
    lines = Lines(text)
    found, problems = [], []
    for i, kind in enumerate(stream.kinds):
        if kind != "line_comment":
            continue
        comment = stream.token_text(i)
        if MARKER not in comment:
            continue
        line = lines.position(stream.starts[i])[0]
        m = _COMMENT.match(comment)
        if m is None:
            if _LOOKS_LIKE.match(comment):
                problems.append(f"{path}:{line}: not a suppression: {comment.strip()!r} (write '// unnatural: "
                                "ignore' or '// unnatural: ignore[RULE, ...]')")
            continue
        alone = i == 0 or has_line_break(stream.gap_texts[i]) or (i == 1 and stream.kinds[0] == "bom")
        every = m.group(1) is None
        names = [] if every else [name.strip() for name in m.group(1).split(",") if name.strip()]
        if not every and not names:
            problems.append(f"{path}:{line}: {m.group(0)!r} names no rule (a bare '// unnatural: ignore' "
                            "silences every rule)")
        rules = []
        for name in names:
            if name in RULES:
                rules.append(name)
            else:
                problems.append(f"{path}:{line}: unknown rule {name!r} in {m.group(0)!r} "
                                f"(known: {', '.join(RULES)})")
        found.append(Suppression(line, (line, line + 1) if alone else (line,), tuple(rules), every, m.group(0)))
    return found, problems


def silence(checked: CheckedFile, rules: frozenset[str] | None) -> Silenced:
    """`checked` without the findings of rules not in `rules` (None: every rule) and those its suppression
    comments silence."""
    if checked.text is None or not checked.findings and MARKER not in checked.text:
        return Silenced(checked)
    kept = [f for f in checked.findings if rules is None or f.rule in rules]
    comments, problems = suppressions(checked.text, checked.path)
    used: set[tuple[int, str | None]] = set()   # (comment line, rule; None for a bare one)
    out = []
    for f in kept:
        by = next((s for s in comments if f.line in s.lines and (s.every or f.rule in s.rules)), None)
        if by is None:
            out.append(f)
        else:
            used.add((by.line, None if by.every else f.rule))
    unused, at = [], []
    for s in comments:
        if s.every and (s.line, None) not in used:
            unused.append(f"{checked.path}:{s.line}: unused suppression {s.text!r}: no finding on its line"
                          + (" or the next" if len(s.lines) > 1 else ""))
            at.append(s.line)
        for rule in s.rules:
            if (s.line, rule) not in used:
                unused.append(f"{checked.path}:{s.line}: unused suppression of {rule!r} in {s.text!r}")
                at.append(s.line)
    return Silenced(replace(checked, findings=tuple(out)), tuple(problems), tuple(unused), tuple(at))
