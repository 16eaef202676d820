"""bin/detection-bench: one column per --adapt method, MRR and AUC tables and the cost table, written into a
Markdown file between its markers; bin/rank run as a user would, with a tiny real model."""
import json
import re

import pytest
from conftest import TINY_JAVA

from bench.detection import main


def devset(root, name, held_out=False):
    """A development set as `make devsets` writes it: tasks with one inserted space each, clean files."""
    folder = root / name
    (folder / "clean").mkdir(parents=True)
    answers = []
    for i, text in enumerate(TINY_JAVA.values()):
        broken = text.replace(" {\n", "  {\n", 1)
        (folder / f"{i}.txt").write_text(broken)
        answers.append(broken.index("  {\n") + 2)
        (folder / "clean" / f"{i}.java").write_text(text.replace("class ", "final class ", 1))
    (folder / "out.txt").write_text("".join(f"{a}\n" for a in answers))
    (folder / "devset.json").write_text(json.dumps({"config": {"name": name, "held_out": held_out},
                                                    "indentation": "4sp"}))
    return folder


def test_unknown_methods_are_usage_errors(tmp_path, capsys):
    assert main(["--devsets", str(tmp_path), "--methods", "file,telepathy"]) == 2
    assert "unknown method 'telepathy'" in capsys.readouterr().err


@pytest.mark.slow
def test_tables_have_a_column_per_method(tmp_path, tiny_model, capsys):
    devset(tmp_path / "sets", "alpha")
    devset(tmp_path / "sets", "beta", held_out=True)
    doc = tmp_path / "detection.md"
    doc.write_text("# Detection\n\nintro\n\n<!-- detection-bench -->\nSTALE TABLE\n<!-- /detection-bench -->\n"
                   "\nafter\n")
    code = main(["--devsets", str(tmp_path / "sets"), "--model", str(tiny_model), "--methods", "file,folder",
                 "--workers", "1", "--docs", str(doc)])
    out = capsys.readouterr().out
    assert code == 0
    assert out.count("| set | style | held out | tasks | clean | file | folder |") == 2   # MRR and AUC
    rows = [l for l in out.splitlines() if re.match(r"\| (alpha|beta) \|", l)]
    assert len(rows) == 4 and all(l.count("|") == 8 for l in rows)
    for row in rows:
        values = [float(v.strip(" *")) for v in row.split("|")[6:8]]
        assert all(0.0 <= v <= 1.0 for v in values)
    assert re.search(r"\| relative to file \| 1\.00 \| \d+\.\d\d \|", out)
    assert "methods:file,folder" in out
    text = doc.read_text()
    assert text.startswith("# Detection\n\nintro\n") and text.endswith("\n\nafter\n") and "STALE TABLE" not in text
    assert out.strip() in text
