"""Every rule of check/rules.py documented as a linter documents its rules, from the rule itself: what it
flags, why it matters, an example and its fix (the diff `bin/check --diff` prints, made here from the
example), when it stays silent, its known false alarms and whether `--fix` applies it. `bin/check
--explain-rule RULE` prints an entry; docs/rules*.md are `python -m check.rule_docs docs`
(tests/test_rule_docs.py keeps them the generated pages)."""
from __future__ import annotations

import sys
from pathlib import Path

from .fix import unified_diff
from .rules import RULES, SAFE_TEXT, Example, describe

# What every entry shares (check.md, "How a finding is made"; calibration.md).
ALWAYS_SILENT = ("below the sensitivity's confidence; inside a region a comment turns checking off "
                 "(`@formatter:off`, `spotless:off`, `CHECKSTYLE:OFF`); where the repair would change a token")
SUPPRESSED = ("where `--ignore`, `--select` or the configuration turns the rule off, and on a line an "
              "`// unnatural: ignore` comment silences ([configuration.md](configuration.md))")


def _visible(ws: str) -> str:
    return ws.replace(" ", "·").replace("\t", "→").replace("\r", "␍").replace("\n", "↵") or "∅"


def example_diff(x: Example, path: str = "Example.java") -> str:
    """The example's fix as `bin/check --diff` prints it."""
    return unified_diff(path, x.file, x.fixed())


def entry_text(rule: str, shared: bool = True) -> str:
    """The entry of `rule` as `bin/check --explain-rule` prints it (Markdown, readable as plain text); without
    `shared`, the text every entry shares is left out (docs/rules.md says it once)."""
    r = RULES[rule]
    x = r.example
    found, message = describe(x.observed, x.repaired, x.before, x.after)
    reported = ("" if r.reported == "medium" else
                " At the default sensitivity a finding of this rule is rare; `--sensitivity high` reports more.")
    shown = ("The fix, as `bin/check --diff` prints it:" if r.fixable else
             "The fix the finding shows (`--diff` leaves it out):")
    return "\n".join([
        f"## `{rule}`: {r.summary}",
        "",
        f"**What it flags.** {r.flags}",
        "",
        f"**Why.** {r.why}",
        "",
        f"**Example.** `{_visible(x.observed)}` between `{x.before}` and `{x.after}`: `{found.id}`, \"{message}\". "
        + shown,
        "",
        "```diff",
        example_diff(x).rstrip("\n").replace("\r", "␍"),   # a carriage return shown, not obeyed
        "```",
        "",
        f"**When it stays silent.** {r.silent}" + (f" Always: {ALWAYS_SILENT}; and {SUPPRESSED}." if shared else "")
        + reported,
        "",
        f"**Known false alarms.** {r.false_alarms}",
        "",
        f"**`--fix`.** {r.fix_text}" if shared or r.fix_text != SAFE_TEXT else "**`--fix`.** Safe.",
        *(["", f"**Default.** {'Checked' if r.default else 'Not checked'} unless the configuration or "
               "`--select` chooses the rules."] if shared or not r.default else []),
    ]) + "\n"


def known_rules() -> str:
    """Every rule and what it checks, a line each (after an unknown rule's error)."""
    return "".join(f"  {rule.id:<16}{rule.summary}\n" for rule in RULES.values())


def unknown_rule_text(name: str) -> str:
    return f"unknown rule '{name}'; the rules:\n" + known_rules()


# page -> (title, what it holds); each entry is on its group's page
GROUPS = {
    "spacing": ("rules-spacing.md", "Whitespace within a line"),
    "lines": ("rules-lines.md", "Line breaks, blank lines, indentation and line endings"),
}


def _defaults() -> str:
    off = [f"`{rule.id}`" for rule in RULES.values() if not rule.default]
    return "Every rule is checked by default." if not off else f"Every rule but {', '.join(off)} is checked by default."


def pages() -> dict[str, str]:
    """docs/rules.md (the list and what every rule shares) and one page per group of rules: file name -> text."""
    out = {}
    index = ["# `bin/check`'s rules", "",
             "Every rule a finding can have, as `bin/check --explain-rule RULE` prints it. The pages are generated "
             "from the rules of check/rules.py (`python -m check.rule_docs docs`); tests/test_rule_docs.py checks "
             "that they are and that each example is named by its rule. How a finding is made and how "
             "confident it is: [check.md](check.md), [calibration.md](calibration.md); turning rules off: "
             "[configuration.md](configuration.md).", "",
             f"Every rule stays silent {ALWAYS_SILENT}; and {SUPPRESSED}. `--fix` and `--diff` apply a rule's fixes "
             f"when its entry says they are safe: {SAFE_TEXT[len('Safe: '):]} A display-only fix is shown with its "
             "finding and never applied. " + _defaults() + " A carriage return in an example is shown as ␍.", ""]
    for group, (name, title) in GROUPS.items():
        rules = [rule.id for rule in RULES.values() if rule.group == group]
        index += [f"## {title}", ""] + [f"- [`{rule}`]({name}#{rule}): {RULES[rule].summary}" for rule in rules] \
            + [""]
        out[name] = f"# `bin/check`'s rules: {title.lower()}\n\nThe list of every rule: [rules.md](rules.md).\n\n" + \
            "\n".join(entry_text(rule, shared=False).replace(f"## `{rule}`:", f'<a id="{rule}"></a>\n## `{rule}`:', 1)
                      for rule in rules)
    out["rules.md"] = "\n".join(index)
    return out


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    for name, text in pages().items():
        (folder / name).write_text(text, encoding="utf-8")
