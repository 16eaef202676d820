"""The registry and what every task of `bin/evaluate` shares: dispatch, signatures, exit statuses, the shim."""
import subprocess
from pathlib import Path

import pytest

from evaluation import cli, codrep2019, plur, registry
from evaluation.common import signature, version

ROOT = Path(__file__).resolve().parent.parent


def test_registry_names_every_task_and_every_plur_dataset():
    expected = {"codrep2019", "codrep2018", "detection", "fim", "stamina"} | {f"plur:{name}" for name in plur.DATASETS}
    assert set(registry.METRICS) == expected
    assert registry.get("codrep2019").function is codrep2019.score_rankings
    with pytest.raises(KeyError, match="unknown metric 'bleu'"):
        registry.get("bleu")


def test_every_registered_task_has_a_cli_subcommand():
    parser = cli.build_parser()
    for metric in registry.METRICS.values():
        with pytest.raises(SystemExit) as exit_info:
            parser.parse_args([metric.task, "--help"])
        assert exit_info.value.code == 0


def test_signature_line():
    assert signature("codrep2019", [("datasets", "validation")]) == \
        f"evaluate:codrep2019|datasets:validation|version:{version()}"


def test_the_version_is_written_once():
    """pyproject.toml takes the version from unnatural/__init__.py; the installed metadata agrees."""
    import importlib.metadata

    import unnatural
    tomllib = pytest.importorskip("tomllib")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "unnatural.__version__"}
    assert version() == unnatural.__version__
    try:
        assert importlib.metadata.version("unnatural") == unnatural.__version__
    except importlib.metadata.PackageNotFoundError:
        pass


def test_list_prints_the_registry(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == len(registry.METRICS) and "plur:funcom_dataset\t" in out


@pytest.mark.parametrize("dataset", sorted(plur.DATASETS))
def test_every_plur_dataset_is_evaluated_by_the_cli(dataset, tmp_path, capsys):
    (tmp_path / "p").write_text("a b\tc\n")
    (tmp_path / "t").write_text("a b\n")
    argv = ["plur", "--dataset", dataset, "--prediction_file", str(tmp_path / "p"), "--target_file",
            str(tmp_path / "t")]
    assert cli.main(argv + ["--top", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith(f"evaluate:plur|dataset:{dataset}|top_n:2|") and len(out) >= 2


@pytest.mark.parametrize("argv", [[], ["nope"], ["codrep2019", "--bogus"], ["stamina", "--labels", "x"]])
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.startswith("usage: evaluate")


@pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "python").exists(), reason="no .venv")
def test_bin_evaluate_runs_and_exits_2_on_bad_input(tmp_path):
    shim = ROOT / "bin" / "evaluate"
    (tmp_path / "p").write_text("a\n")
    (tmp_path / "t").write_text("a b\n")
    done = subprocess.run(
        [str(shim), "plur", "--dataset", "code2seq_dataset", "--prediction_file", str(tmp_path / "p"),
         "--target_file", str(tmp_path / "t")],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:3] == ["precision: 1.00000", "recall: 0.50000", "f1_score: 0.66667"]
    missing = subprocess.run([str(shim), "stamina", "--predictions", str(tmp_path / "absent"), "--labels",
                              str(tmp_path / "t")], capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and missing.stderr.startswith("evaluate: error: ") and "absent" in missing.stderr
