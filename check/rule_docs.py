"""Every rule of check/rules.py documented as a linter documents its rules: what it flags, why it matters, an
example and its fix (the diff `bin/check --diff` prints, made here from the example), when it stays silent,
its known false alarms and whether `--fix` is safe for it. `bin/check --explain-rule RULE` prints an entry;
docs/rules*.md are `python -m check.rule_docs docs` (tests/test_rule_docs.py keeps both in step with RULES).

Kept as data beside the code so that it cannot drift: each example is a (gap, replacement, token before,
token after) that `rules.describe` must name as the entry's rule, and a small file holding that gap whose
fix is the example's diff.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from .fix import unified_diff
from .rules import RULES, describe

# What every entry shares (check.md, "How a finding is made"; calibration.md).
ALWAYS_SILENT = ("below the sensitivity's confidence; inside a region a comment turns checking off "
                 "(`@formatter:off`, `spotless:off`, `CHECKSTYLE:OFF`); where the repair would change a token")
FIX_SAFE = ("Safe: a fix changes whitespace only, and is written only when the fixed file has exactly the "
            "original's tokens.")


@dataclass(frozen=True)
class Example:
    original: str          # the gap's whitespace as written
    replacement: str       # the fix
    before: str            # the token before the gap
    after: str             # the token after it
    file: str              # a small Java file holding the slip: before + original + after appears once

    def fixed(self) -> str:
        slip = self.before + self.original + self.after
        return self.file.replace(slip, self.before + self.replacement + self.after, 1)

    def diff(self, path: str = "Example.java") -> str:
        return unified_diff(path, self.file, self.fixed())


@dataclass(frozen=True)
class RuleDoc:
    rule: str
    flags: str             # what it flags
    why: str               # why it matters
    example: Example
    silent: str            # when it stays silent, beyond ALWAYS_SILENT
    false_alarms: str      # known false alarms
    group: str = "spacing"  # its page: GROUPS
    fix: str = FIX_SAFE    # whether --fix is safe for it
    # the least sensitivity at which bin/check reports the example in a small repository of consistent files
    # (tests/test_rule_docs.py runs it); None: not reported there today
    reported: str | None = "medium"


def _java(body: str) -> str:
    """A small class holding `body` (a method's statements, 8 spaces deep), in the JDK's style."""
    return ("package example;\n\npublic class Example {\n\n    private int count;\n\n"
            "    public int next(int step) {\n" + body + "    }\n}\n")


ENTRIES = (
    RuleDoc(
        "space-before",
        "Whitespace before a token that takes none in the repository's style: `;`, `,`, `.`, `)`, `]`, a "
        "postfix `++`/`--`, `::`, a closing `>`.",
        "A stray space before a separator is the most common typing slip; it breaks the line's rhythm and "
        "shows up in every later diff of the line.",
        Example(" ", "", "out", ".", _java("        System.out .println(step);\n        return count;\n")),
        "When the repository writes the space there itself (its other files' habit weighs against the "
        "finding), e.g. a project that writes `for (;;)` as `for ( ; ; )`.",
        "Real oddities of exactly this shape in clean code: `clone() ;`, `level .isPresent()`."),
    RuleDoc(
        "space-after",
        "Whitespace after a token that takes none after it: `(`, `[`, `.`, `@`, `!`, `~`, `::`, an opening `<`.",
        "`System. out` or `foo( x)` reads as a half-finished edit: Java's usual style has no space after these.",
        Example(" ", "", ".", "out", _java("        System. out.println(step);\n        return count;\n")),
        "In a repository that pads parentheses (`foo( x )`) throughout: its own counts outweigh the model's.",
        "Padded parentheses in one file of a repository that does not pad them elsewhere: "
        "`( short[] samples )`."),
    RuleDoc(
        "missing-space",
        "No whitespace where the repository writes one: around a binary operator, after a comma or a keyword, "
        "before a `{`.",
        "`x =0` or `if(` is either a slip or a style the rest of the repository does not share.",
        Example("", " ", "==", "0", _java("        count += step;\n        return count ==0 ? 1 : count;\n")),
        "Where the file or the repository writes the same pair of tokens without a space often (`x= y` as a "
        "project's habit). An emptied one-space gap is judged less confidently than a stray tab or line break: "
        "this example's confidence in a small repository is 0.60, under `medium`'s 0.80.",
        "A project's own habit in a file the learning pass saw little of: `this.x= y`, `typeName =CharOperation`.",
        reported="high"),
    RuleDoc(
        "whitespace",
        "The amount or kind of whitespace between two tokens on one line: two spaces where one is written.",
        "Doubled spaces are invisible in review and survive until a formatter rewrites the line.",
        Example("  ", " ", "return", "count", _java("        count += step;\n        return  count;\n")),
        "Nearly always at the default sensitivity: a run of spaces made one is rarely a slip in the calibration "
        "sets (real slips and injected ones), so it needs a very high score. Alignment runs (`int x    = 1;` "
        "under a longer name) are a habit the repository's counts recognise.",
        "`return  true;` and `case X   ->` in clean code: real oddities, usually a project's habit.",
        reported=None),
    RuleDoc(
        "tab",
        "A tab where the file uses spaces (or a space where it uses tabs), inside a line or in an "
        "indentation that mixes the two.",
        "A tab renders at a different width in every editor and review tool, so a stray one misaligns the "
        "code for everyone but its author.",
        Example("\t", "", "out", ".", _java("        System.out\t.println(step);\n        return count;\n")),
        "In a tab-indented repository, for tabs in the indentation; for a tab before a trailing comment where "
        "the repository writes those. An indentation mixing a tab into a space-indented file is also a break of "
        "the repository's habit (check/breaks.py): its repair writes the tab as wide as the unit or to the next "
        "8-column stop, whichever the repository's indentation there says.",
        "A tab after a space inside a line as a project writes it (`int \\tPOST_RECONCILE`, `return\\tthis` in "
        "eclipse); the JDK's continuation lines with a space after the indentation's tabs."),
    RuleDoc(
        "indent",
        "A line indented by a different amount than the repository's unit and the code around it ask for; in "
        "particular a line that starts a statement (or closes a block, or is a `case` label) indented from its "
        "block's header otherwise than the file indents its other lines of that kind (check/structure.py: a "
        "line one level too deep, a `}` that does not line up), where the repository writes the repaired line "
        "between the same two kinds of tokens far more often.",
        "Indentation is how a reader sees the block structure; one line off misleads about where a block "
        "ends.",
        Example("\n      ", "\n        ", ";", "return",
                _java("        count += step;\n      return count;\n")),
        "For continuation lines and hand-aligned code the repository writes alike elsewhere; inside "
        "`@formatter:off` regions (the JDK's aligned tables). A continuation line is never flattened to its "
        "statement's indentation (check/safety.py). The structure judges no continuation, array element or "
        "comment, no line whose indentation (or its header's) mixes tabs and spaces (`tab` reports those), and "
        "no kind of line the file writes at no one offset 5 times or more.",
        "Continuation lines aligned by hand under an opening parenthesis (`addEOS (tmpRoot,` under `addChar(`) "
        "in a repository that rarely does it; a block a file leaves flat on purpose (a labelled "
        "`JDK: while (true) {` whose body sits at the label's level).",
        reported=None,
        group="lines"),
    RuleDoc(
        "blank-lines",
        "More or fewer blank lines between two tokens than the repository writes there.",
        "A stray blank line splits a block that reads as one; a missing one runs two members together.",
        Example("\n        \n", "\n        ", ";", "return",
                _java("        count += step;\n        \nreturn count;\n")),
        "Between statements where the repository's files group code with blank lines themselves.",
        "Blank lines grouping statements by hand in a file of a repository that writes few.",
        group="lines"),
    RuleDoc(
        "line-break",
        "Two tokens on two lines that the repository writes on one, or the reverse.",
        "A line broken inside an expression (`count\\n= step`) or two statements joined on one line hide the "
        "code's structure.",
        Example(" \n", " ", "count", "+=", _java("        count \n+= step;\n        return count;\n")),
        "For long expressions the repository wraps itself (operator and separator wrap as its files do).",
        "A wrapped argument list in a file whose repository wraps few.",
        group="lines"),
    RuleDoc(
        "trailing-space",
        "Whitespace at the end of a line, or on a blank line, where the repository writes none.",
        "Trailing whitespace is invisible, and shows as a change in every diff that touches the line.",
        Example(" \n        ", "\n        ", ";", "return",
                _java("        count += step; \n        return count;\n")),
        "Where the repository's other files write it too, and in a file that writes it on other lines: it "
        "is reported as a break of the repository's habit (check/breaks.py), believed by how rarely the "
        "repository and the file write trailing whitespace (or whitespace on blank lines) and how few other "
        "breaks the file has, as measured on real slips (docs/habits.md). Most such "
        "whitespace stays unreported at the default sensitivity: clean files hold it as often as slipped ones.",
        "Whitespace on blank lines in a repository whose editor indents them, where its other files rarely "
        "show it.",
        group="lines"),
    RuleDoc(
        "line-ending",
        "A line ending (LF, CRLF or CR) unlike the rest of the file's.",
        "Mixed line endings make whole-file diffs and confuse tools that read the file line by line.",
        Example("\r\n        ", "\n        ", ";", "return",
                _java("        count += step;\r\n        return count;\n")),
        "In a file that mixes endings throughout (no ending is the file's), and where the repository's files "
        "mix them as this one does.",
        "A file converted in part by an editor, in a repository whose other files use the other ending.",
        reported=None,
        group="lines"),
    RuleDoc(
        "final-newline",
        "A file that does not end with a line break, or ends with blank lines or whitespace after its last one.",
        "POSIX tools read a last line without its line break as incomplete; `git diff` marks it (`\\ No newline "
        "at end of file`), and the next line appended to the file changes the old last line too.",
        Example("", "\n", "}", "", "package example;\n\npublic class Example {\n}"),
        "In a repository whose files end without a line break as this one does (its other files' habit weighs "
        "against the finding).",
        "A file generated or kept byte for byte from elsewhere (a vendored source).",
        reported=None,
        group="lines"),
)

BY_RULE = {entry.rule: entry for entry in ENTRIES}


def _visible(ws: str) -> str:
    return ws.replace(" ", "·").replace("\t", "→").replace("\r", "␍").replace("\n", "↵") or "∅"


def entry_text(rule: str, shared: bool = True) -> str:
    """The entry of `rule` as `bin/check --explain-rule` prints it (Markdown, readable as plain text); without
    `shared`, the text every entry shares is left out (docs/rules.md says it once)."""
    e = BY_RULE[rule]
    x = e.example
    found, message = describe(x.original, x.replacement, x.before, x.after)
    reported = ("" if e.reported == "medium" else
                " At the default sensitivity a finding of this rule is rare; `--sensitivity high` reports more.")
    return "\n".join([
        f"## `{rule}`: {RULES[rule]}",
        "",
        f"**What it flags.** {e.flags}",
        "",
        f"**Why.** {e.why}",
        "",
        f"**Example.** `{_visible(x.original)}` between `{x.before}` and `{x.after}`: `{found}`, \"{message}\". "
        "The fix, as `bin/check --diff` prints it:",
        "",
        "```diff",
        x.diff().rstrip("\n").replace("\r", "␍"),   # a carriage return shown, not obeyed
        "```",
        "",
        f"**When it stays silent.** {e.silent}" + (f" Always: {ALWAYS_SILENT}." if shared else "") + reported,
        "",
        f"**Known false alarms.** {e.false_alarms}",
        "",
        f"**`--fix`.** {e.fix}" if shared or e.fix != FIX_SAFE else "**`--fix`.** Safe.",
    ]) + "\n"


def unknown_rule_text(name: str) -> str:
    return (f"unknown rule '{name}'; the rules:\n"
            + "".join(f"  {rule:<16}{what}\n" for rule, what in RULES.items()))


# page -> (title, what it holds); each entry is on its group's page
GROUPS = {
    "spacing": ("rules-spacing.md", "Whitespace within a line"),
    "lines": ("rules-lines.md", "Line breaks, blank lines, indentation and line endings"),
}


def pages() -> dict[str, str]:
    """docs/rules.md (the list and what every rule shares) and one page per group of rules: file name -> text."""
    out = {}
    index = ["# `bin/check`'s rules", "",
             "Every rule a finding can have, as `bin/check --explain-rule RULE` prints it. The pages are generated "
             "from check/rule_docs.py (`python -m check.rule_docs docs`); tests/test_rule_docs.py checks that every "
             "rule has an entry and that each example is named by its rule. How a finding is made and how "
             "confident it is: [check.md](check.md), [calibration.md](calibration.md).", "",
             f"Every rule stays silent {ALWAYS_SILENT}. `--fix` is safe for a rule when its entry says so: "
             f"{FIX_SAFE[len('Safe: '):]} A carriage return in an example is shown as ␍.", ""]
    for group, (name, title) in GROUPS.items():
        rules = [rule for rule in RULES if rule in BY_RULE and BY_RULE[rule].group == group]
        index += [f"## {title}", ""] + [f"- [`{rule}`]({name}#{rule}): {RULES[rule]}" for rule in rules] + [""]
        out[name] = f"# `bin/check`'s rules: {title.lower()}\n\nThe list of every rule: [rules.md](rules.md).\n\n" + \
            "\n".join(entry_text(rule, shared=False).replace(f"## `{rule}`:", f'<a id="{rule}"></a>\n## `{rule}`:', 1)
                      for rule in rules)
    out["rules.md"] = "\n".join(index)
    return out


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    for name, text in pages().items():
        (folder / name).write_text(text, encoding="utf-8")
