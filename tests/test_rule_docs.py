"""Every rule bin/check can report has its documented entry (check/rule_docs.py), every entry names a rule,
each entry's example is named by its rule, `bin/check --explain-rule` prints it, docs/rules.md is the
generated page, and where the checker reports the example today, it reports it with that rule and fix."""
import json
import subprocess

import pytest

from check.rule_docs import BY_RULE, ENTRIES, GROUPS, entry_text, pages
from check.rules import RULES, describe
from conftest import ROOT

CHECK = ROOT / "bin" / "check"
DEFAULT_MODEL = ROOT / ".models" / "default-kind-units-o6.bin"
# Files in one style (the JDK's, 4 spaces), beside which an example's slip stands alone.
CONSISTENT = {
    "Counter.java": "package example;\n\npublic class Counter {\n\n    private int total;\n\n"
                    "    public void add(int value) {\n        total += value;\n    }\n\n"
                    "    public int total() {\n        return total;\n    }\n}\n",
    "Range.java": "package example;\n\npublic class Range {\n\n    private final int low;\n"
                  "    private final int high;\n\n    public Range(int low, int high) {\n        this.low = low;\n"
                  "        this.high = high;\n    }\n\n    public boolean contains(int x) {\n"
                  "        return x >= low && x <= high;\n    }\n}\n",
    "Names.java": "package example;\n\nimport java.util.ArrayList;\nimport java.util.List;\n\n"
                  "public class Names {\n\n    private final List<String> names = new ArrayList<>();\n\n"
                  "    public void add(String name) {\n        if (name != null && !name.isEmpty()) {\n"
                  "            names.add(name);\n        }\n    }\n\n    public int size() {\n"
                  "        return names.size();\n    }\n}\n",
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_every_rule_has_an_entry(rule):
    assert rule in BY_RULE, f"rule '{rule}' has no entry in check/rule_docs.py: add one (what it flags, why, " \
                            "an example, when it stays silent, false alarms, fix safety)"


def test_every_entry_names_a_rule_once():
    names = [entry.rule for entry in ENTRIES]
    assert len(names) == len(set(names))
    assert set(names) <= set(RULES), sorted(set(names) - set(RULES))


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.rule)
def test_the_example_is_named_by_its_rule(entry):
    x = entry.example
    assert describe(x.original, x.replacement, x.before, x.after)[0] == entry.rule


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.rule)
def test_the_example_file_holds_the_slip_once_and_its_fix_changes_only_whitespace(entry):
    x = entry.example
    assert x.file.count(x.before + x.original + x.after) == 1
    fixed = x.fixed()
    assert fixed != x.file and "".join(fixed.split()) == "".join(x.file.split())
    assert x.diff().startswith("--- a/Example.java\n+++ b/Example.java\n@@ ")


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.rule)
def test_an_entry_has_every_part(entry):
    text = entry_text(entry.rule)
    for part in ("**What it flags.**", "**Why.**", "**Example.**", "```diff", "**When it stays silent.**",
                 "**Known false alarms.**", "**`--fix`.**"):
        assert part in text
    assert all(field.strip() for field in (entry.flags, entry.why, entry.silent, entry.false_alarms, entry.fix))
    assert entry.reported in (None, "low", "medium", "high")


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
@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.reported], ids=lambda e: e.rule)
def test_the_checker_reports_the_example(entry, tmp_path):
    for name, text in CONSISTENT.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "Example.java").write_bytes(entry.example.file.encode())
    run = [str(CHECK), "--quiet", "--workers", "1", "--sensitivity", entry.reported]
    found = subprocess.run([*run, "--format", "json", "."], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    findings = [json.loads(line) for line in found.stdout.splitlines() if line.strip()]
    assert [f["rule"] for f in findings if f["path"].endswith("Example.java")] == [entry.rule], found.stderr
    diff = subprocess.run([*run, "--diff", "."], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert entry.example.diff() in diff.stdout
