"""Every rule bin/check can report (check/rules.py) is documented by its own entry, its example is named by
the rule, `bin/check --explain-rule` prints it, docs/rules*.md are the generated pages, and where the checker
reports the example today, it reports it with that rule and fix."""
import json
import subprocess

import pytest
from conftest import ROOT
from java_repo import CONSISTENT

from check.rule_docs import GROUPS, entry_text, example_diff, pages
from check.rules import DISPLAY_ONLY, RULES, SAFE, describe

CHECK = ROOT / "bin" / "check"
DEFAULT_MODEL = ROOT / ".models" / "default-kind-units-o6.bin"
ENTRIES = list(RULES.values())


def test_every_rule_is_listed_once_under_its_id():
    assert all(rule_id == rule.id for rule_id, rule in RULES.items())
    assert len({rule.id for rule in ENTRIES}) == len(ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.id)
def test_the_example_is_named_by_its_rule(entry):
    x = entry.example
    assert describe(x.observed, x.repaired, x.before, x.after)[0] is entry


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.id)
def test_the_example_file_holds_the_slip_once_and_its_fix_changes_only_whitespace(entry):
    x = entry.example
    assert x.file.count(x.before + x.observed + x.after) == 1
    fixed = x.fixed()
    assert fixed != x.file and "".join(fixed.split()) == "".join(x.file.split())
    assert example_diff(x).startswith("--- a/Example.java\n+++ b/Example.java\n@@ ")


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.id)
def test_an_entry_has_every_part(entry):
    text = entry_text(entry.id)
    for part in ("**What it flags.**", "**Why.**", "**Example.**", "```diff", "**When it stays silent.**",
                 "**Known false alarms.**", "**`--fix`.**", "**Default.**"):
        assert part in text
    assert all(field.strip() for field in (entry.summary, entry.flags, entry.why, entry.silent, entry.false_alarms,
                                           entry.fix_text))
    assert entry.reported in (None, "low", "medium", "high")


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.id)
def test_the_fix_safety_line_says_the_rules_fix_safety(entry):
    """A safe rule's entry says 'Safe', a display-only one's says so and why; the rule pages say it too."""
    assert entry.fix in (SAFE, DISPLAY_ONLY) and entry.fixable is (entry.fix == SAFE)
    line = next(line for line in entry_text(entry.id).splitlines() if line.startswith("**`--fix`.**"))
    assert line.startswith("**`--fix`.** Safe" if entry.fixable else "**`--fix`.** Display only")
    page = pages()[GROUPS[entry.group][0]]
    assert ("**`--fix`.** Safe" if entry.fixable else "**`--fix`.** Display only") in \
        page[page.index(f'<a id="{entry.id}">'):]


@pytest.mark.parametrize("name, text", sorted(pages().items()))
def test_docs_rules_pages_are_the_generated_ones(name, text):
    with open(ROOT / "docs" / name, encoding="utf-8", newline="") as f:
        assert f.read() == text, f"docs/{name} is stale: python -m check.rule_docs docs"


def test_every_entry_is_on_a_page():
    assert {entry.group for entry in ENTRIES} <= set(GROUPS)


def test_explain_rule_prints_the_entry():
    out = subprocess.run([str(CHECK), "--explain-rule", "tab"], capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stdout, out.stderr) == (0, entry_text("tab"), "")


def test_an_unknown_rule_lists_the_rules():
    out = subprocess.run([str(CHECK), "--explain-rule", "tabs"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("check: error: --explain-rule: unknown rule 'tabs'")
    assert all(rule in out.stderr for rule in RULES) and "Traceback" not in out.stderr


@pytest.mark.slow
@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no default model (make demo builds it)")
@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.reported], ids=lambda e: e.id)
def test_the_checker_reports_the_example(entry, tmp_path):
    for name, text in CONSISTENT.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "Example.java").write_bytes(entry.example.file.encode())
    run = [str(CHECK), "--quiet", "--workers", "1", "--sensitivity", entry.reported]
    found = subprocess.run([*run, "--format", "json", "."], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    findings = [json.loads(line) for line in found.stdout.splitlines() if line.strip()]
    assert [f["rule"] for f in findings if f["path"].endswith("Example.java")] == [entry.id], found.stderr
    diff = subprocess.run([*run, "--diff", "."], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert (example_diff(entry.example) in diff.stdout) is entry.fixable
