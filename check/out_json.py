"""`--format json`: JSON Lines, one object per finding, written as each file completes.

    {"path": "src/A.java", "line": 3, "column": 14, "offset": 52, "rule": "space-before",
     "message": "unexpected space before ';'", "confidence": 0.93, "score": 2.1, "original": " ",
     "replacement": "", "gap_offset": 52, "start_line": 3, "start_column": 14, "end_line": 3, "end_column": 15}

line, column: the spot, 1-based, as editors count (LF, CRLF and CR each end a line); offset: the spot as the
1-based character offset of the file (the CodRep convention); original/replacement: the gap's whitespace
before and after the fix (the finding's `observed` and `repaired`); gap_offset (1-based character offset),
start_line/start_column and end_line/end_column (just past it): where that whitespace is, what a fix replaces;
evidence: what the engine weighed beside the score, by name (the finding's `evidence`, plain values: the rest
of the file's ranking, the repository's and the file's counts; for a habit break, check/breaks.py, its `habit`
and the file's other `breaks`, and its score is 0), what the benchmark calibrates on. The spot is the gap's
first character, or the character after the gap (an empty gap, or one blamed on the token after it), or for a
habit break the first character its repair changes.
"""
from __future__ import annotations

import json

from parsing.offsets import Lines

from .findings import CheckedFile, Finding
from .report import Reporter, gap_span


def finding_object(f: Finding, lines: Lines) -> dict:
    (start_line, start_column), (end_line, end_column) = gap_span(lines, f)
    return {"path": f.path, "line": f.line, "column": f.column, "offset": f.offset, "rule": f.rule,
            "message": f.message, "confidence": round(f.confidence, 4), "score": round(f.score, 4),
            "original": f.observed, "replacement": f.repaired, "gap_offset": f.start + 1,
            "start_line": start_line, "start_column": start_column, "end_line": end_line, "end_column": end_column,
            "evidence": {k: round(v, 4) if isinstance(v, float) else v for k, v in f.evidence.items()}}


class JsonReporter(Reporter):
    def report(self, checked: CheckedFile) -> None:
        if checked.findings:
            lines = Lines(checked.text)
            for f in checked.findings:
                # ASCII-escaped: a file name that is not UTF-8 (surrogates) is still written
                self.out.write(json.dumps(finding_object(f, lines)) + "\n")
