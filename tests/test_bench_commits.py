"""bench/commits.py (`bin/check-bench --commits`) and evaluation/committime.py: on a small commit-time set
written by the test (a real git bundle, two cases), the benchmark's runs of bin/check and its figures are the
reference's (`committime.py unpack`, `run` with bin/check as its checker, `score`); the scorer's rules on
hand-made runs; `gap_after_fix` finds a gap in a text whose whitespace changed."""
import json
import subprocess
import sys

import pytest
from conftest import ROOT, TINY_JAVA, git_repo
from hypothesis import given
from hypothesis import strategies as st

from evaluation.committime import CaseRun, gap_after_fix, matches, score, slip_key
from formats.committime import Slip, read_set

REFERENCE = ROOT.parent / "shared" / "data" / "committime" / "committime.py"
OLD = TINY_JAVA["A.java"].replace("x = a + b;", "x = a + b ;")   # an old anomaly the change does not touch
SLIPPED = "        x = b + a ;"                                  # the change's slip, which a later fix undid
UNLISTED = "        x = a - b ;"                                  # one no fix undid: a false finding


def with_lines(text: str, *lines: str) -> str:
    body = text.split("\n")
    at = body.index("    }") + 1
    return "\n".join(body[:at] + ["", "    void g(int a, int b) {", *lines, "    }"] + body[at:])


def slip_record(project, branch, path, text, line_text, slipped, fixed):
    """The truth.jsonl line of the gap `slipped` at the end of the line `line_text` of `text` (before ';')."""
    number = text.split("\n").index(line_text) + 1
    column = line_text.rindex(slipped + ";") + 1
    offset = sum(len(x) + 1 for x in text.split("\n")[:number - 1]) + column
    assert text[offset - 1:offset - 1 + len(slipped) + 1] == slipped + ";"
    return {"project": project, "branch": branch, "path": path, "kind": "space removed", "kinds": ["space removed"],
            "line": number, "column": column, "end_line": number, "end_column": column + len(slipped),
            "offset": offset, "slipped": slipped, "fixed": fixed}


@pytest.fixture
def small_set(tmp_path):
    """A set of one project, `demo`: case-1 adds a method with a slip the truth lists and one it does not;
    case-2 adds a comment to the file with the old anomaly."""
    src = tmp_path / "src"
    git = git_repo(src)
    cases, truth = [], []
    for n, change in ((1, with_lines(OLD, SLIPPED, UNLISTED)), (2, OLD.replace("class A {", "// a note\nclass A {"))):
        branch = f"case-{n}"
        git("checkout", "-q", "--orphan", branch)
        git("rm", "-rq", "--cached", "--ignore-unmatch", ".")
        (src / "p").mkdir(exist_ok=True)
        (src / "p" / "A.java").write_text(OLD)
        for name in ("B.java", "C.java"):
            (src / "p" / name).write_text(TINY_JAVA[name])
        git("add", "-A")
        git("commit", "-qm", "base")
        (src / "p" / "A.java").write_text(change)
        git("commit", "-qam", "change")
        added = int(git("diff", "--numstat", "HEAD~1", "HEAD").split("\t")[0])
        slips = [slip_record("demo", branch, "p/A.java", change, SLIPPED, " ", "")] if n == 1 else []
        truth += slips
        cases.append({"project": "demo", "branch": branch, "slips": len(slips), "lines_added": added,
                      "subject": "change"})
    folder = tmp_path / "set"
    folder.mkdir()
    git("bundle", "create", "-q", str(folder / "demo.bundle"), "--branches")
    (folder / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    (folder / "truth.jsonl").write_text("".join(json.dumps(s) + "\n" for s in truth))
    return folder


def test_the_benchmark_agrees_with_the_reference_scorer_and_its_run(small_set, tiny_model, tmp_path):
    from bench import commits as bench
    if not REFERENCE.exists():
        pytest.skip(f"no reference scorer at {REFERENCE}")
    args = ["--model", str(tiny_model), "--min-score", "2", "--workers", "1"]
    commits = read_set(small_set)
    result = bench.measure(commits, [("t", args)], work=tmp_path / "bench")["t"]
    a = result.all
    assert (a.cases, a.slips, a.found, a.cases_found, a.fix_exact) == (2, 1, 1, 1, 1)
    assert a.false >= 1 and a.other == 0   # the unlisted slip; nothing on the lines the changes did not touch
    assert bench.against_reference(commits, result, tmp_path / "bench" / "t") == []
    # the reference's own run, bin/check as its checker (`CMD check ARGS`), gives the same cases and figures
    shim = tmp_path / "unnatural"
    shim.write_text(f"#!/bin/sh\nshift\nexec {ROOT / 'bin' / 'check'} \"$@\"\n")
    shim.chmod(0o755)
    ref = [sys.executable, str(REFERENCE)]
    subprocess.run([*ref, "unpack", str(small_set), str(tmp_path / "ref")], check=True, capture_output=True)
    subprocess.run([*ref, "run", "--set", str(small_set), "--work", str(tmp_path / "ref"), "--checker", str(shim),
                    f"--args={' '.join(args)}", "--out", str(tmp_path / "ref.jsonl")], check=True, capture_output=True)
    theirs = [json.loads(line) for line in (tmp_path / "ref.jsonl").read_text().splitlines()]
    ours = [json.loads(line) for line in (tmp_path / "bench" / "t" / "findings.jsonl").read_text().splitlines()]
    for mine, other in zip(ours, theirs, strict=True):
        for key in ("project", "branch", "rc", "added_lines", "changed_lines", "findings"):
            assert mine[key] == other[key], key
    subprocess.run([*ref, "score", "--set", str(small_set), "--findings", str(tmp_path / "ref.jsonl"), "--json",
                    str(tmp_path / "ref.json")], check=True, capture_output=True)
    from evaluation.committime import disagreements
    assert disagreements(result.reference_view(), json.loads((tmp_path / "ref.json").read_text())) == []


def slip(**kw) -> Slip:
    fields = dict(project="p", branch="case-1", path="A.java", kind="space added", line=3, column=10, end_line=3,
                  end_column=11, offset=40, slipped=" ", fixed="")
    return Slip(**{**fields, **kw})


@pytest.mark.parametrize("finding, hit", [
    ({"path": "A.java", "line": 3, "column": 10}, True),
    ({"path": "A.java", "line": 3, "column": 11}, True),    # just after the gap
    ({"path": "A.java", "line": 3, "column": 12}, False),
    ({"path": "A.java", "line": 4, "column": 10}, False),
    ({"path": "B.java", "line": 3, "column": 10}, False),
])
def test_a_finding_matches_a_one_line_slip_on_its_columns(finding, hit):
    assert matches(finding, slip()) is hit


def test_a_slip_over_lines_matches_any_of_them():
    s = slip(line=3, end_line=5, end_column=9)
    assert [matches({"path": "A.java", "line": n, "column": 1}, s) for n in (2, 3, 4, 5, 6)] == [
        False, True, True, True, False]


def test_score_counts_found_false_other_and_fixes(tmp_path):
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "demo.bundle").write_bytes(b"")
    (folder / "cases.jsonl").write_text(
        '{"project": "demo", "branch": "case-1", "slips": 2, "lines_added": 500}\n'
        '{"project": "demo", "branch": "case-2", "slips": 0, "lines_added": 500}\n')
    slips = [dict(slip().__dict__, project="demo"), dict(slip().__dict__, project="demo", line=9, offset=90)]
    (folder / "truth.jsonl").write_text("".join(json.dumps(s) + "\n" for s in slips))
    commits = read_set(folder)
    first, second = commits.slips
    runs = {("demo", "case-1"): CaseRun("demo", "case-1", 1, 1.0, 500, {"A.java": ((1, 5),)}, (
        {"path": "A.java", "line": 3, "column": 10}, {"path": "A.java", "line": 4, "column": 1},
        {"path": "A.java", "line": 7, "column": 1}), {slip_key(first): "", slip_key(second): "  "}),
        ("demo", "case-2"): CaseRun("demo", "case-2", 0, 1.0, 500, {}, ())}
    result = score(commits, runs)
    a = result.all
    assert (a.found, a.cases_found, a.false, a.other, a.fix_exact, a.fix_other) == (1, 1, 1, 1, 1, 1)
    view = result.reference_view()["all"]
    assert (view["found_rate"], view["false_per_1000_added"], view["findings_per_case"]) == (0.5, 1.0, 1.5)


SPACE = st.text(alphabet=" \t\r\n", max_size=4)
TOKEN = st.text(alphabet="ab;{}(=", min_size=1, max_size=3)


@given(st.lists(st.tuples(TOKEN, SPACE, SPACE), min_size=1, max_size=8), st.data())
def test_gap_after_fix_finds_the_gap_wherever_whitespace_moved(pieces, data):
    """Tokens with gaps between them; every gap's whitespace replaced: each gap is found as it is now."""
    before = "".join(t + old for t, old, _ in pieces)
    after = "".join(t + new for t, _, new in pieces)
    k = data.draw(st.integers(0, len(pieces) - 1))
    start = sum(len(t) + len(old) for t, old, _ in pieces[:k]) + len(pieces[k][0])
    assert gap_after_fix(before, after, start + 1, len(pieces[k][1])) == pieces[k][2]


def test_gap_after_fix_is_none_when_more_than_whitespace_changed():
    assert gap_after_fix("a ;", "b;", 2, 1) is None
    assert gap_after_fix("a ;", "a;", 1, 1) is None   # not a gap: 'a' is not whitespace
    assert gap_after_fix("a  ;", "a;", 3, 1) is None  # not the whole gap


def test_disagreements_name_each_figure_that_differs_at_3_decimals():
    from evaluation.committime import disagreements
    ours = {"all": {"found_rate": 0.1234, "cases": 3}, "kinds": {"tab": {"found": 1}},
            "seconds_per_case": {"mean": 1.0}}
    theirs = {"all": {"found_rate": 0.123, "cases": 4}, "kinds": {}, "seconds_per_case": {"mean": 2.0}}
    assert disagreements(ours, theirs) == ["all.cases: 3 here, 4 by the reference scorer",
                                           "kinds.tab.found: 1 here, None by the reference scorer"]


@pytest.mark.parametrize("kind, plain", [
    ("tab<->space", True), ("trailing whitespace removed", True), ("end of file: line break added", True),
    ("indentation change", True), ("space added", True),
    ("line break added", False), ("blank line removed", False), ("blank line added", False),
])
def test_a_kind_of_slip_is_one_whatever_the_taste_unless_projects_differ_there(kind, plain):
    from bench.commits import any_taste
    assert any_taste(kind) is plain
