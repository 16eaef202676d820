"""evaluation/realslips.py: the real-slip figures, counted as the reference scorer counts them. A tiny set of
two projects is written here, with findings and --fix outputs written by the test, scored by the project's
code and by `../shared/data/realslips/realslips.py score` (skipped when the shared script is absent)."""
import json
import subprocess
import sys
from dataclasses import replace

import pytest
from conftest import ROOT
from hypothesis import given
from hypothesis import strategies as st

from evaluation.realslips import (
    Counts,
    GapCounts,
    Outputs,
    disagreements,
    figures,
    labels,
    levenshtein,
    read_outputs,
    reference_figures,
    score_project,
    score_set,
    total,
)
from formats.realslips import changed_gaps, gap_record, read_set

REFERENCE = ROOT.parent / "shared" / "data" / "realslips" / "realslips.py"

# (project, file, before, after, the text --fix leaves): each a case of the fix's outcome
CHANGES = [
    ("alpha", "b1.java", "class A {\n    int x = 1;\n  int y= 2;\n}\n",
     "class A {\n    int x = 1;\n    int y = 2;\n}\n", "class A {\n    int x = 1;\n    int y = 2;\n}\n"),  # exact
    ("alpha", "b2.java", "class B {\n    void f() {   \n    }\n}\n",
     "class B {\n    void f() {\n    }\n}\n", "class B {\n    void f() {   \n    }\n    int z;\n}\n"),  # broken
    ("alpha", "b3.java", "class E {\n    int q; }\n", "class E {\n    int q;\n}\n",
     "class E {\n    int q; }\n"),  # same
    ("beta", "b1.java", "class C {\n\tint a;\n\n\n\n\tint b; \n}\n", "class C {\n\tint a;\n\n\tint b;\n}\n",
     "class C {\n\tint a;\n\n\tint b; \n}\n"),                                                            # closer
    ("beta", "b2.java", "class D {\n    int a;\n\tint b;\n}\n", "class D {\n\tint a;\n\tint b;\n}\n",
     "class D {\n    int a;\n\tint  b;\n}\n"),                                                            # further
]
CLEAN = [("alpha", "c1.java", "class F {\n    int f;\n}\n", "class F {\n    int f;\n}\n"),
         ("beta", "c1.java", "class G {\n\tint g;\n}\n", "class G {\n\tint g ;\n}\n"),                  # changed
         ("beta", "c2.java", "class H {\n\n\tint h;\n}\n", "class H {\n\n\tint h;\n}\n")]


def finding(path, gap_offset, line, original, replacement, start_line=None):
    return {"path": path, "line": line, "column": 1, "offset": gap_offset, "rule": "whitespace", "message": "m",
            "confidence": 0.9, "score": 3.0, "original": original, "replacement": replacement,
            "gap_offset": gap_offset, "start_line": start_line or line, "start_column": 1, "end_line": line,
            "end_column": 2}


def gap(project, file, index=0):
    change = next(c for c in CHANGES if c[:2] == (project, file))
    return changed_gaps(change[2], change[3])[index]


def findings():
    """Per project: a finding that is exact, one at another gap (other), one on the gap's line only, one
    toward but not exact, one found but not toward, and false findings in clean files."""
    a1 = gap("alpha", "b1.java", 0)
    b1 = gap("beta", "b1.java", 0)
    b2 = gap("beta", "b2.java", 0)
    return {
        "alpha": [finding("/x/alpha/b1.java", a1.offset, a1.end_line, a1.old, a1.new),            # exact
                  finding("/x/alpha/b1.java", 2, 1, "", " "),                                     # other
                  finding("alpha/b2.java", 99, 2, " ", ""),                                       # line only
                  finding("c1.java", 5, 1, " ", "  ")],                                           # false
        "beta": [finding("beta/b1.java", b1.offset, b1.line, b1.old, "\n\n\n\t"),                 # toward
                 finding("beta/b2.java", b2.offset, b2.line, b2.old, b2.old + " "),               # found only
                 finding("beta/c1.java", 20, 2, " ", ""), finding("beta/c1.java", 21, 2, " ", ""),
                 finding("beta/c2.java", 12, 3, "\n\n\t", "\n\t", start_line=2)],
    }


@pytest.fixture
def tiny(tmp_path):
    """The set (tmp/set), bin/check's outputs as the test writes them (tmp/out/<project>.jsonl and the fixed
    files in tmp/out/<project>/)."""
    root, out = tmp_path / "set", tmp_path / "out"
    truth = []
    for project, file, before, after, fixed in CHANGES:
        for folder, text in ((root / project, before), (out / project, fixed)):
            folder.mkdir(parents=True, exist_ok=True)
            (folder / file).write_text(text)
        truth.append({"project": project, "file": file, "repo": project, "commit": "c", "parent": "p",
                      "path": file, "time": 0, "subject": "s", "lines": before.count("\n") + 1,
                      "gaps": [gap_record(g) for g in changed_gaps(before, after)], "before": before, "after": after})
    clean = []
    for project, file, text, fixed in CLEAN:
        (root / project / file).write_text(text)
        (out / project / file).write_text(fixed)
        clean.append({"project": project, "file": file, "repo": project, "commit": "c", "path": file, "blob": "b",
                      "lines": text.count("\n") + 1})
    (root / "truth.jsonl").write_text("".join(json.dumps(r) + "\n" for r in truth))
    (root / "clean.jsonl").write_text("".join(json.dumps(r) + "\n" for r in clean))
    for project, fs in findings().items():
        (out / f"{project}.jsonl").write_text("".join(json.dumps(f) + "\n" for f in fs))
    return root, out


def test_the_tiny_case_counts(tiny):
    root, out = tiny
    per, problems = score_set(read_set(root), out, out)
    assert problems == []
    a, b = per["alpha"], per["beta"]
    assert a.gaps == GapCounts(gaps=4, found=1, toward=1, exact=1, line=3)
    assert b.gaps == GapCounts(gaps=3, found=2, toward=1, exact=0, line=2)
    assert (a.files, a.files_found, a.other, a.clean_findings, a.clean_lines) == (3, 2, 2, 1, 4)
    assert (b.clean_findings, b.clean_files_flagged, b.clean_changed, b.clean_files) == (3, 2, 1, 2)
    assert (a.fix_exact, a.fix_broken, a.fix_same, b.fix_closer, b.fix_further) == (1, 1, 1, 1, 1)
    all_ = total(per.values())
    assert all_.gaps.gaps == 7 and all_.kinds["indentation change"] == GapCounts(1, 1, 1, 1, 1)
    assert all_.group(True).gaps + all_.group(False).gaps == 7


def test_the_figures_agree_with_the_reference_scorer(tiny, tmp_path):
    if not REFERENCE.exists():
        pytest.skip(f"{REFERENCE} absent")
    root, out = tiny
    scores = tmp_path / "scores.json"
    subprocess.run([sys.executable, str(REFERENCE), "score", "--set", str(root), "--findings", str(out),
                    "--fixed", str(out), "--out", str(scores)], check=True, capture_output=True, text=True)
    reference = json.loads(scores.read_text())
    per, _ = score_set(read_set(root), out, out)
    assert disagreements(per, reference) == []
    assert len(figures(total(per.values()))) == 12 + 6 and len(reference_figures(reference["ALL"])) == 12 + 6
    wrong = {**per, "beta": replace(per["beta"], other=per["beta"].other + 1)}
    assert disagreements(wrong, reference) == ["beta: other per file: 0.5 here, 0.0 by the reference scorer",
                                               "ALL: other per file: 0.6 here, 0.4 by the reference scorer"]


@pytest.mark.parametrize("match, right", [("found", [True, False, False, False]),
                                          ("toward", [True, False, False, False]),
                                          ("exact", [True, False, False, False])])
def test_labels_for_a_calibration(tiny, match, right):
    s = read_set(tiny[0])
    got = labels([c for c in s.changes if c.project == "alpha"], [c for c in s.clean if c.project == "alpha"],
                 findings()["alpha"] + [finding("elsewhere.java", 1, 1, " ", "")], match)
    assert [r for _, r, _ in got] == right and [c for _, _, c in got] == [False, False, False, True]


def test_labels_tell_toward_from_found(tiny):
    s = read_set(tiny[0])
    beta = ([c for c in s.changes if c.project == "beta"], [c for c in s.clean if c.project == "beta"])
    fs = findings()["beta"]
    assert [r for _, r, _ in labels(*beta, fs, "found")] == [True, True, False, False, False]
    assert [r for _, r, _ in labels(*beta, fs, "toward")] == [True, False, False, False, False]
    assert [r for _, r, _ in labels(*beta, fs, "exact")] == [False] * 5
    with pytest.raises(ValueError, match="unknown match"):
        labels(*beta, fs, "close")


def test_outputs_that_are_missing_or_bad(tmp_path):
    (tmp_path / "p.jsonl").write_text('check|signature\n{"path": "b1.java"}\n{broken\n\n')
    outputs = read_outputs(tmp_path / "p.jsonl", tmp_path / "nowhere")
    assert outputs.findings == () and outputs.fixed is None and len(outputs.problems) == 2
    assert all(p.startswith(f"{tmp_path / 'p.jsonl'}:") for p in outputs.problems)
    assert read_outputs(tmp_path / "none.jsonl", None) == Outputs(())


def test_no_findings_and_no_fix(tiny):
    root, _ = tiny
    s = read_set(root)
    c = score_project([x for x in s.changes if x.project == "alpha"], [], Outputs(()))
    assert c.gaps == GapCounts(4) and c.fixed == 0 and c.gaps.share("found") == 0
    assert Counts().false_per_kloc == 0 and Counts().per_file("other") == 0


_TEXT = st.text(alphabet=" \t\nab", max_size=8)


@given(_TEXT, _TEXT, _TEXT)
def test_levenshtein_is_a_distance(a, b, c):
    assert (levenshtein(a, b) == 0) == (a == b)
    assert levenshtein(a, b) == levenshtein(b, a) <= max(len(a), len(b))
    assert levenshtein(a, c) <= levenshtein(a, b) + levenshtein(b, c)
