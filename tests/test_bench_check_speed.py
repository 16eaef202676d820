"""bin/check-bench --speed: bin/rank and bin/check taking turns on a repository of JDK-like files, the table of
their medians and each run's ratio (slow: both commands run for real)."""
import re
import zipfile

import pytest

from bench import check as check_bench

JAVA = "package p;\n\nclass A{n} {{\n    int f(int x) {{\n        return x + {n};\n    }}\n}}\n"


@pytest.mark.slow
def test_the_speed_table_has_each_commands_median_and_every_runs_ratio(tmp_path, monkeypatch, capsys):
    source = tmp_path / "src.zip"
    with zipfile.ZipFile(source, "w") as z:
        for n in range(4):
            z.writestr(f"java.base/p/A{n}.java", JAVA.format(n=n))
        z.writestr("java.base/p/notes.txt", "not Java")
    monkeypatch.setattr(check_bench, "SPEED_SOURCE", source)
    monkeypatch.setattr(check_bench, "WORK", tmp_path / "work")
    docs = tmp_path / "check-bench.md"
    docs.write_text("# speed\n\n<!-- check-speed -->\nstale table\n<!-- /check-speed -->\n")
    assert check_bench.main(["--speed", "3", "--runs", "2", "--workers", "1", "--docs", str(docs)]) == 0
    out = capsys.readouterr()
    rows = {line.split(" | ")[0][2:]: line for line in out.out.splitlines() if line.startswith("| bin/")}
    assert set(rows) == {"bin/rank", "bin/check"} and rows["bin/rank"].endswith("| 1.00x |")
    assert all(" | 3 | " in row for row in rows.values())   # the first 3 Java files, not the text file
    ratios = re.search(r"Runs: 2, the two taking turns; bin/check against bin/rank in each: (.*)\.", out.out)
    assert ratios and len(ratios.group(1).split(", ")) == 2
    assert out.err.count("speed: run ") == 2 and "check-bench|speed:3|runs:2|workers:1" in out.out
    assert "stale table" not in docs.read_text() and "| bin/check | 3 |" in docs.read_text()
