"""`--format sarif`: one SARIF 2.1.0 log (what GitHub code scanning, IDE viewers and review tools read),
written when the run finishes.

Each finding is a result with its rule, a warning level, the message, the gap's region (lines and columns
as editors count them, in Unicode code points, and the 0-based character offset and length) in a file
named relative to %SRCROOT% (the root: the repository's, bin/check tells it; else the current folder; a file
outside it is named relative to its own work tree's top, else with '../' from the root), and a fix that replaces the
gap's whitespace, so that SARIF tools can apply it. No local path is written: %SRCROOT% is left for the reader
to resolve (code scanning takes the checkout), and the tool has no informationUri until the project has a
public home. Files that could not be checked are the invocation's
toolExecutionNotifications. tests/test_check_output.py validates the log against the official schema.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

from parsing.offsets import Lines
from unnatural import __version__

from .findings import CheckedFile, Finding, Summary
from .paths import tree_relative
from .report import Reporter, gap_span, relative
from .rules import RULES

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
# a URL of the project's public home when it has one; never a local file (it names the user's folders)
INFORMATION_URI: str | None = None


class SarifReporter(Reporter):
    def __init__(self, out, options=None):
        super().__init__(out, options)
        self.base = self.options.base()
        self.rules = {rule: i for i, rule in enumerate(RULES)}
        self.results: list[dict] = []
        self.notifications: list[dict] = []

    def artifact(self, path: str) -> dict:
        rel = relative(path, self.base)
        if rel is None:   # outside the root: relative to its own repository, else to the root (no local path)
            rel = tree_relative(path) or Path(os.path.relpath(os.path.abspath(path), self.base)).as_posix()
        return {"uri": quote(os.fsencode(rel)), "uriBaseId": SRCROOT}

    def report(self, checked: CheckedFile) -> None:
        if checked.findings:
            lines = Lines(checked.text)
            artifact = self.artifact(checked.path)
            self.results.extend(self.result(f, lines, artifact) for f in checked.findings)

    def result(self, f: Finding, lines: Lines, artifact: dict) -> dict:
        (start_line, start_column), (end_line, end_column) = gap_span(lines, f)
        gap = {"startLine": start_line, "startColumn": start_column, "endLine": end_line, "endColumn": end_column,
               "charOffset": f.start, "charLength": len(f.observed)}
        # shown: the part of the gap on the finding's own line (the line the text output names: an indentation's
        # gap starts with the line break before it), or, when none of it is there, the spot's own character;
        # the fix still replaces the whole gap
        spot = f.offset - 1
        line, column = lines.position(spot)
        start, end = max(f.start, spot - (column - 1)), f.end
        if end <= start:
            start, end = spot, spot + 1
        (line, column), (end_line, end_column) = lines.position(start), lines.position(end)
        shown = {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column,
                 "charOffset": start, "charLength": end - start}
        index = self.rules.setdefault(f.rule, len(self.rules))
        return {
            "ruleId": f.rule, "ruleIndex": index, "level": "warning", "message": {"text": f.message},
            "locations": [{"physicalLocation": {"artifactLocation": artifact, "region": shown}}],
            "fixes": [{"description": {"text": f.message},
                       "artifactChanges": [{"artifactLocation": artifact,
                                            "replacements": [{"deletedRegion": gap,
                                                              "insertedContent": {"text": f.repaired}}]}]}],
            "rank": round(100 * f.confidence, 1),
            "properties": {"confidence": round(f.confidence, 4), "score": round(f.score, 4)},
        }

    def skipped(self, checked: CheckedFile) -> None:
        self.notifications.append({
            "level": "warning", "message": {"text": checked.error},
            "locations": [{"physicalLocation": {"artifactLocation": self.artifact(checked.path)}}]})

    def log(self, summary: Summary) -> dict:
        rules = [{"id": rule, "name": "".join(w.capitalize() for w in rule.split("-")),
                  "shortDescription": {"text": RULES[rule].summary if rule in RULES else rule},
                  "defaultConfiguration": {"level": "warning"}} for rule in self.rules]
        driver = {"name": "unnatural", "version": __version__, "semanticVersion": __version__, "rules": rules}
        if INFORMATION_URI:
            driver["informationUri"] = INFORMATION_URI
        invocation = {"executionSuccessful": not self.notifications}
        if self.notifications:
            invocation["toolExecutionNotifications"] = self.notifications
        run = {"tool": {"driver": driver}, "invocations": [invocation],
               "originalUriBaseIds": {SRCROOT: {"description": {"text": "the repository's root"}}},
               "columnKind": "unicodeCodePoints", "results": self.results,
               "properties": {"signature": summary.signature, "files": summary.files, "lines": summary.lines,
                              "skipped": summary.skipped, "seconds": summary.seconds}}
        return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}

    def finish(self, summary: Summary) -> None:
        json.dump(self.log(summary), self.out, indent=2)
        self.out.write("\n")
        super().finish(summary)
