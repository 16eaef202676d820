"""bench/formats.py: KenLM's binary formats of one model, built, timed and scored (no time is asserted)."""
import pytest
from conftest import TINY_JAVA

from bench.formats import VARIANTS, main
from evaluation.tasks import TaskConfig, make_tasks


@pytest.mark.slow
def test_every_format_ranks_the_tasks(tmp_path, tiny_corpus, lmplz_available, capsys):
    from lm.build import BuildConfig, build
    model = tmp_path / "tiny.bin"
    build(BuildConfig((str(tiny_corpus),), order=4, output=model, keep_arpa=True), progress=False)
    tasks = tmp_path / "tasks"
    make_tasks(sorted(TINY_JAVA.items()), tasks, TaskConfig(count=3, seed=2))
    out = tmp_path / "out"
    assert main(["--runs", "1", "--tasks", str(tasks), "--output", str(out), str(model)]) == 0
    table = (out / "formats.md").read_text()
    assert table == capsys.readouterr().out
    rows = [line.split("|")[1:-1] for line in table.splitlines()[2:2 + len(VARIANTS)]]
    assert [r[2].strip() for r in rows] == [label for label, _ in VARIANTS]
    # the unquantized formats hold the same probabilities: the same rankings
    same = {r[2].strip(): r[7].strip() for r in rows}
    assert same["probing -p 2"] == same["probing -p 1.5"] == same["trie"] == same["probing -p 3"] == "yes"
    assert all(0 < float(r[6]) <= 1 for r in rows)   # MRR
    from lm.model import ceilings_path  # every variant bounds as bin/build-lm's models do
    assert all(ceilings_path(p).is_file() for p in out.glob("*.bin")) and len(list(out.glob("*.bin"))) == len(VARIANTS)


def test_a_model_without_its_arpa_is_an_error(tmp_path, capsys):
    model = tmp_path / "m.bin"
    model.write_bytes(b"")
    assert main(["--output", str(tmp_path / "out"), str(model)]) == 2
    assert "--keep-arpa" in capsys.readouterr().err
