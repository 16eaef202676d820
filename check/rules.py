"""bin/check's rules, each one unit (`Rule`): its id, what it checks, its documentation (the entry `bin/check
--explain-rule` prints and docs/rules*.md hold, check/rule_docs.py renders it), whether `--fix` may apply its
fixes, and whether it is checked by default. And the rule of a repair of one gap, told as a linter tells it:
`describe` names the rule of the kind of edit and a message a person acts on ("unexpected space before ';'",
"expected 8 spaces of indentation, found 6").

The ranker knows only gap texts; the rule follows from how the line breaks, the indentation after the last
one and the spaces between two tokens change. Each rule's example is a (gap, repaired gap, token before, token
after) that `describe` must name as that rule, in a small file holding that gap whose fix is the example's
diff (tests/test_rule_docs.py): the documentation cannot drift from the code.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# a rule's fix safety (ruff's words): `--fix` and `--diff` apply a safe fix; a display-only one is shown with
# its finding and never applied
SAFE = "safe"
DISPLAY_ONLY = "display-only"
SAFE_TEXT = ("Safe: a fix changes whitespace only, and is written only when the fixed file has exactly the "
             "original's tokens.")


@dataclass(frozen=True)
class Example:
    observed: str          # the gap's whitespace as written
    repaired: str          # the fix
    before: str            # the token before the gap
    after: str             # the token after it
    file: str              # a small Java file holding the slip: before + observed + after appears once

    def fixed(self) -> str:
        slip = self.before + self.observed + self.after
        return self.file.replace(slip, self.before + self.repaired + self.after, 1)


@dataclass(frozen=True)
class Rule:
    id: str
    summary: str           # what it checks, in a few words (SARIF's short description, the list of rules)
    flags: str             # what it flags
    why: str               # why it matters
    example: Example
    silent: str            # when it stays silent, beyond what every rule shares (check/rule_docs.py)
    false_alarms: str      # known false alarms
    group: str = "spacing"  # its page of docs/ (check/rule_docs.py GROUPS)
    fix: str = SAFE        # SAFE or DISPLAY_ONLY
    fix_text: str = SAFE_TEXT   # why, for its entry
    default: bool = True   # checked unless the configuration or --select chooses other rules
    # the least sensitivity at which bin/check reports the example in a small repository of consistent files
    # (tests/test_rule_docs.py runs it); None: not reported there today
    reported: str | None = "medium"

    @property
    def fixable(self) -> bool:
        """Whether --fix and --diff apply its findings' fixes."""
        return self.fix == SAFE


def _java(body: str) -> str:
    """A small class holding `body` (a method's statements, 8 spaces deep), in the JDK's style."""
    return ("package example;\n\npublic class Example {\n\n    private int count;\n\n"
            "    public int next(int step) {\n" + body + "    }\n}\n")


SPACE_BEFORE = Rule(
    "space-before", "no whitespace before this token",
    "Whitespace before a token that takes none in the repository's style: `;`, `,`, `.`, `)`, `]`, a "
    "postfix `++`/`--`, `::`, a closing `>`.",
    "A stray space before a separator is the most common typing slip; it breaks the line's rhythm and "
    "shows up in every later diff of the line.",
    Example(" ", "", "out", ".", _java("        System.out .println(step);\n        return count;\n")),
    "When the repository writes the space there itself (its other files' habit weighs against the "
    "finding), e.g. a project that writes `for (;;)` as `for ( ; ; )`.",
    "Real oddities of exactly this shape in clean code: `clone() ;`, `level .isPresent()`.")

SPACE_AFTER = Rule(
    "space-after", "no whitespace after this token",
    "Whitespace after a token that takes none after it: `(`, `[`, `.`, `@`, `!`, `~`, `::`, an opening `<`.",
    "`System. out` or `foo( x)` reads as a half-finished edit: Java's usual style has no space after these.",
    Example(" ", "", ".", "out", _java("        System. out.println(step);\n        return count;\n")),
    "In a repository that pads parentheses (`foo( x )`) throughout: its own counts outweigh the model's.",
    "Padded parentheses in one file of a repository that does not pad them elsewhere: "
    "`( short[] samples )`.")

MISSING_SPACE = Rule(
    "missing-space", "a space between these two tokens",
    "No whitespace where the repository writes one: around a binary operator, after a comma or a keyword, "
    "before a `{`. The two sides of one token (`a+b`, `key ,1`) are one slip: reported and fixed together, "
    "as confident as the likelier side.",
    "`x =0` or `if(` is either a slip or a style the rest of the repository does not share.",
    Example("", " ", "==", "0", _java("        count += step;\n        return count ==0 ? 1 : count;\n")),
    "Where the file or the repository writes the same pair of tokens without a space often (`x= y` as a "
    "project's habit). An emptied one-space gap is judged less confidently than a stray tab or line break: "
    "this example's confidence in a small repository is 0.60, under `medium`'s 0.80.",
    "A project's own habit in a file the learning pass saw little of: `this.x= y`, `typeName =CharOperation`.",
    reported="high")

WHITESPACE = Rule(
    "whitespace", "the amount or kind of whitespace between two tokens on a line",
    "The amount or kind of whitespace between two tokens on one line: two spaces where one is written.",
    "Doubled spaces are invisible in review and survive until a formatter rewrites the line.",
    Example("  ", " ", "return", "count", _java("        count += step;\n        return  count;\n")),
    "Nearly always at the default sensitivity: a run of spaces made one is rarely a slip in the calibration "
    "sets (real slips and injected ones), so it needs a very high score. Alignment runs (`int x    = 1;` "
    "under a longer name) are a habit the repository's counts recognise.",
    "`return  true;` and `case X   ->` in clean code: real oddities, usually a project's habit.",
    reported=None)

TAB = Rule(
    "tab", "tabs where the file uses spaces (or the reverse)",
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
    "eclipse); the JDK's continuation lines with a space after the indentation's tabs.")

INDENT = Rule(
    "indent", "the indentation of a line",
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
    group="lines")

BLANK_LINES = Rule(
    "blank-lines", "the number of blank lines between two tokens",
    "More or fewer blank lines between two tokens than the repository writes there.",
    "A stray blank line splits a block that reads as one; a missing one runs two members together.",
    Example("\n        \n", "\n        ", ";", "return",
            _java("        count += step;\n        \nreturn count;\n")),
    "Between statements where the repository's files group code with blank lines themselves.",
    "Blank lines grouping statements by hand in a file of a repository that writes few.",
    group="lines")

LINE_BREAK = Rule(
    "line-break", "whether two tokens are on one line or on two",
    "Two tokens on two lines that the repository writes on one, or the reverse.",
    "A line broken inside an expression (`count\\n= step`) or two statements joined on one line hide the "
    "code's structure.",
    Example(" \n", " ", "count", "+=", _java("        count \n+= step;\n        return count;\n")),
    "For long expressions the repository wraps itself (operator and separator wrap as its files do).",
    "A wrapped argument list in a file whose repository wraps few.",
    group="lines")

TRAILING_SPACE = Rule(
    "trailing-space", "whitespace at the end of a line or on a blank line",
    "Whitespace at the end of a line, or on a blank line, where the repository writes none.",
    "Trailing whitespace is invisible, and shows as a change in every diff that touches the line.",
    Example(" \n        ", "\n        ", ";", "return",
            _java("        count += step; \n        return count;\n")),
    "Where the repository's other files write it too, and in a file that writes it on other lines: it "
    "is reported as a break of the repository's habit (check/breaks.py), believed by how rarely the "
    "repository and the file write trailing whitespace (or whitespace on blank lines) and how few other "
    "breaks the file has, as measured on slips made by hand in repositories whose CI enforces a formatter "
    "(docs/habits.md). In a repository that writes almost none, one is reported at the default sensitivity.",
    "Whitespace on blank lines in a repository whose editor indents them, where its other files rarely "
    "show it.",
    group="lines")

LINE_ENDING = Rule(
    "line-ending", "line endings (LF, CRLF or CR) as the rest of the file has them",
    "A line ending (LF, CRLF or CR) unlike the rest of the file's.",
    "Mixed line endings make whole-file diffs and confuse tools that read the file line by line.",
    Example("\r\n        ", "\n        ", ";", "return",
            _java("        count += step;\r\n        return count;\n")),
    "In a file that mixes endings throughout (no ending is the file's), and where the repository's files "
    "mix them as this one does.",
    "A file converted in part by an editor, in a repository whose other files use the other ending.",
    reported=None,
    group="lines")

FINAL_NEWLINE = Rule(
    "final-newline", "the line break that ends the file, and no blank lines or whitespace after it",
    "A file that does not end with a line break, or ends with blank lines or whitespace after its last one.",
    "POSIX tools read a last line without its line break as incomplete; `git diff` marks it (`\\ No newline "
    "at end of file`), and the next line appended to the file changes the old last line too.",
    Example("", "\n", "}", "", "package example;\n\npublic class Example {\n}"),
    "In a repository whose files end without a line break as this one does (its other files' habit weighs "
    "against the finding).",
    "A file generated or kept byte for byte from elsewhere (a vendored source).",
    reported=None,
    group="lines")

# id -> rule, in the order of the docs and of SARIF's rule list
RULES: dict[str, Rule] = {rule.id: rule for rule in (
    SPACE_BEFORE, SPACE_AFTER, MISSING_SPACE, WHITESPACE, TAB, INDENT, BLANK_LINES, LINE_BREAK, TRAILING_SPACE,
    LINE_ENDING, FINAL_NEWLINE)}

# Tokens that take no space before them in Java's usual style, and tokens after which none follows.
_TIGHT_BEFORE = {";", ",", ".", ")", "]", "++", "--", "::", "...", ">"}
_TIGHT_AFTER = {"(", "[", ".", "@", "!", "~", "::", "<"}
_BREAK = re.compile(r"\r\n|\r|\n")


def line_breaks(gap: str) -> int:
    """Line breaks in a gap, as editors count them (CRLF is one)."""
    return len(_BREAK.findall(gap))


def show_token(text: str) -> str:
    """A token quoted for a message: its first line, at most 24 characters."""
    first = _BREAK.split(text, 1)[0]
    return "'" + (first if len(first) <= 24 else first[:21] + "...") + "'"


def amount(ws: str) -> str:
    """'8 spaces', '1 tab', '2 tabs and 1 space', 'none'."""
    tabs, spaces = ws.count("\t"), ws.count(" ")
    parts = [f"{n} {word}{'s' if n != 1 else ''}" for n, word in ((tabs, "tab"), (spaces, "space")) if n]
    return " and ".join(parts) or "none"


def _tail(gap: str) -> str:
    """The whitespace after a gap's last line break (the next line's indentation)."""
    parts = _BREAK.split(gap)
    return parts[-1]


def _head(gap: str) -> str:
    """The whitespace before a gap's first line break (trailing whitespace of the line before)."""
    return _BREAK.split(gap, 1)[0]


def _ending(gap: str) -> str:
    """The name of the first line ending in `gap`."""
    m = _BREAK.search(gap)
    return {"\r\n": "CRLF", "\r": "CR"}.get(m.group(0), "LF") if m else "no"


def _file_end(nb_o: int, nb_r: int) -> str:
    """The message of a repair of the file's last gap, from its line breaks before and after."""
    if not nb_o and nb_r:
        return "no line break at the end of the file"
    if nb_o > nb_r and nb_r:
        return f"{_blank_lines(nb_o - nb_r)} at the end of the file"
    if nb_o and not nb_r:
        return "line break at the end of the file"
    if nb_o < nb_r:
        return f"expected {_blank_lines(nb_r - 1)} at the end of the file"
    return "whitespace at the end of the file"


def _mixed(ws: str) -> bool:
    return "\t" in ws and " " in ws


def _blank_lines(n: int) -> str:
    return "no blank line" if n == 0 else "1 blank line" if n == 1 else f"{n} blank lines"


def describe(observed: str, repaired: str, before: str, after: str, by: str = "") -> tuple[Rule, str]:
    """(rule, message) of replacing gap text `observed` by `repaired` between tokens `before` and
    `after` ('' at the start or end of the file). `by`: who writes the repaired text in this place, for the
    message ('the repository'; '': nobody said)."""
    if observed != repaired and _BREAK.sub("\n", observed) == _BREAK.sub("\n", repaired):
        return LINE_ENDING, f"{_ending(observed)} line ending where the file uses {_ending(repaired)}"
    nb_o, nb_r = line_breaks(observed), line_breaks(repaired)
    prev = show_token(before) if before else "the start of the file"
    nxt = show_token(after) if after else "the end of the file"
    if before and not after:
        return FINAL_NEWLINE, _file_end(nb_o, nb_r)
    if nb_o and nb_o == nb_r:
        if _head(observed) != _head(repaired):
            return TRAILING_SPACE, f"trailing whitespace after {prev}"
        o, r = _tail(observed), _tail(repaired)
        if o != r:
            if _mixed(o) and not _mixed(r):
                return TAB, f"indentation mixes tabs and spaces: expected {amount(r)}, found {amount(o)}"
            if "\t" in o and "\t" not in r:
                return TAB, f"tab in a space-indented file: expected {amount(r)} of indentation, found {amount(o)}"
            if "\t" in r and "\t" not in o:
                return TAB, f"spaces in a tab-indented file: expected {amount(r)} of indentation, found {amount(o)}"
            return INDENT, f"expected {amount(r)} of indentation before {nxt}, found {amount(o)}"
        return TRAILING_SPACE, f"whitespace on a blank line before {nxt}"
    if nb_o and nb_r:
        found, expected = _blank_lines(nb_o - 1), str(nb_r - 1) if nb_r > 1 else "none"
        told = f"{by} uses {expected} here" if by else f"expected {expected}"
        return BLANK_LINES, f"{found} before {nxt}, {told}"
    if nb_o:
        return LINE_BREAK, f"unexpected line break between {prev} and {nxt}"
    if nb_r:
        return LINE_BREAK, f"expected a line break before {nxt}"
    if not observed:
        return MISSING_SPACE, f"missing space between {prev} and {nxt}"
    if not repaired:
        what = "tab" if "\t" in observed else "space" if len(observed) == 1 else "whitespace"
        if after in _TIGHT_BEFORE or before not in _TIGHT_AFTER:
            return (TAB if "\t" in observed else SPACE_BEFORE), f"unexpected {what} before {nxt}"
        return (TAB if "\t" in observed else SPACE_AFTER), f"unexpected {what} after {prev}"
    if ("\t" in observed) != ("\t" in repaired):
        return TAB, f"expected {amount(repaired)} between {prev} and {nxt}, found {amount(observed)}"
    return WHITESPACE, f"expected {amount(repaired)} between {prev} and {nxt}, found {amount(observed)}"
