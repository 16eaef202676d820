"""bench/realslips.py: the real-slip benchmark's tables, its held-out projects, and (slow) bin/check run on a
tiny set through bin/check-bench --realslips, its figures agreeing with the reference scorer's."""
import json
import subprocess
import sys

import pytest
from test_evaluation_realslips import REFERENCE, tiny  # noqa: F401 (the fixture)

from bench import check as check_bench
from bench import realslips
from evaluation.realslips import Counts, GapCounts, disagreements, score_set
from formats.realslips import read_set
from unnatural import cli


def counts(found: int, kind: str = "space added") -> Counts:
    g = GapCounts(gaps=4, found=found, toward=found, exact=found, line=found)
    return Counts(g, {kind: g}, files=2, files_found=1, clean_files=1, clean_lines=500, clean_findings=1)


RESULTS = {"medium": {"alpha": counts(1), "beta": counts(3, "blank line added")}}


def test_held_out_projects(tiny, monkeypatch):   # noqa: F811 (the imported fixture)
    slips = read_set(tiny[0])
    assert realslips.held_out_projects("beta", slips) == ("beta",)
    assert realslips.held_out_projects("", slips) == ()
    monkeypatch.setattr(realslips, "HELD_OUT", ("alpha",))
    assert realslips.held_out_projects(None, slips) == ("alpha",)
    with pytest.raises(cli.CommandError, match="no project gamma"):
        realslips.held_out_projects("beta,gamma", slips)


def test_the_project_table_marks_and_totals_the_held_out_projects():
    lines = realslips.project_table(RESULTS, ("beta",))
    rows = {line.split(" | ")[0][2:]: line for line in lines[2:]}
    assert " | yes | medium | " in rows["beta"] and " |  | medium | " in rows["alpha"]
    assert " | 0.250 | " in rows["**development projects** (1)"] and " | 0.750 | " in rows["**held-out projects** (1)"]
    assert " | 8 | 0.500 | " in rows["**all projects** (2)"] and " | 0.000 | 2.000 | " in rows["**all projects** (2)"]
    assert [line.split(" | ")[0] for line in realslips.project_table(RESULTS, ())[2:]] == [
        "| alpha", "| beta", "| **all projects** (2)"]
    assert all(line.count("|") == lines[0].count("|") for line in lines)


def test_the_kind_table_groups_the_kinds():
    lines = realslips.kind_table(RESULTS, ())
    rows = {line.split(" | ")[0][2:]: line for line in lines[2:]}
    assert rows["space added"].startswith("| space added | yes | medium | 4 | 0.250 |")
    assert rows["blank line added"].startswith("| blank line added |  | medium | 4 | 0.750 |")
    assert " | 4 | 0.250 | " in rows["**slips whatever the taste**, all projects"]
    assert " | 4 | 0.750 | " in rows["**the rest**, all projects"]
    assert len(realslips.kind_table(RESULTS, ("beta",))) == len(lines) + 4


@pytest.mark.slow
def test_check_bench_realslips_on_a_tiny_set(tiny, tmp_path, monkeypatch, capsys):   # noqa: F811 (the imported fixture)
    """bin/check itself on the tiny set, as `bin/check-bench --realslips` runs it: the table between its markers
    in the page beside the --docs page (realslips.DOCS), and the outputs it keeps scored alike by the project
    and by the reference scorer."""
    root, _ = tiny
    monkeypatch.setattr(realslips, "WORK", tmp_path / "work")
    docs = tmp_path / realslips.DOCS
    docs.write_text("# check\n\nbefore\n")
    assert check_bench.main(["--realslips", "--realslips-set", str(root), "--held-out", "beta", "--sensitivity",
                             "medium", "--workers", "1", "--docs", str(tmp_path / "check-bench.md")]) == 0
    text = docs.read_text()
    assert text.startswith("# check\n\nbefore\n") and "<!-- check-bench-realslips -->\n| project |" in text
    assert "| beta | yes | medium | 2 | 3 |" in text and "<!-- /check-bench-realslips -->" in text
    out = tmp_path / "work" / "medium"
    assert {"alpha", "alpha.jsonl", "beta", "beta.jsonl", "scores.json"} <= {p.name for p in out.iterdir()}
    per, problems = score_set(read_set(root), out, out)
    assert problems == [] and json.loads((out / "scores.json").read_text())["alpha"]["files"] == 3
    if not REFERENCE.exists():
        pytest.skip(f"{REFERENCE} absent")
    # the benchmark ran the reference scorer on the same outputs, and said so
    assert "every figure agrees with the reference scorer to 3 decimals" in capsys.readouterr().err
    scores = tmp_path / "scores.json"
    subprocess.run([sys.executable, str(REFERENCE), "score", "--set", str(root), "--findings", str(out), "--fixed",
                    str(out), "--out", str(scores)], check=True, capture_output=True, text=True)
    assert disagreements(per, json.loads(scores.read_text())) == []
