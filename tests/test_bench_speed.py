"""bin/bench and the floor: argument errors, target verdicts on given numbers, reports written, task folders
cached. No wall-clock value is asserted."""
import csv
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT, TINY_JAVA

from bench import floor, speed
from bench.speed import Row, main, parse_size, targets
from evaluation.tasks import TaskConfig, make_tasks


@pytest.mark.parametrize("spec, chars", [("1K", 1024), ("4k", 4096), ("64K", 65536), ("300", 300), ("0.5K", 512),
                                         ("2M", 2 * 2**20)])
def test_parse_size(spec, chars):
    assert parse_size(spec) == chars


@pytest.mark.parametrize("spec", ["K", "4G", "big", "M"])
def test_parse_size_rejects(spec):
    with pytest.raises(speed.UsageError):
        parse_size(spec)


@pytest.mark.parametrize("size, tasks", [(1024, 1000), (4096, 512), (16384, 128), (65536, 50)])
def test_every_size_class_holds_about_as_much_text(size, tasks):
    assert speed.tasks_per_size(size, 2 * 2**20) == tasks


def row(name, workers, files_per_s=300.0, ratio=2.5, ms=1.0, mib=500.0):
    return Row(name, 10, 1000, workers, 1.0, files_per_s, 0.1, ratio, 2.0, 2 * ratio, ms, mib, mib / 2)


@pytest.mark.parametrize("rows, expected", [
    ([row("validation", 1), row("validation", 2), row("jdk-4K", 1, ms=1.0), row("jdk-64K", 1, ms=1.15)],
     ["PASS", "PASS", "PASS", "PASS"]),
    ([row("validation", 2, ratio=3.5), row("jdk-4K", 1, ms=1.0), row("jdk-64K", 1, ms=1.3),
      row("jdk-64K", 2, mib=1100)],
     ["PASS", "FAIL", "FAIL", "FAIL"]),
    ([row("validation", 2), row("jdk-64K", 4, mib=3000)], ["PASS", "PASS", "n/a", "PASS"]),   # 2 workers' memory
    ([row("validation", 2, files_per_s=60, ratio=40), row("jdk-4K", 1, ms=1.0), row("jdk-64K", 1, ms=2.0),
      row("jdk-64K", 2, mib=3000)],
     ["FAIL", "FAIL", "FAIL", "FAIL"]),
    ([row("validation", 1)], ["n/a", "n/a", "n/a", "PASS"]),
])
def test_target_verdicts(rows, expected):
    assert [status for _, _, status in targets(rows, "validation")] == expected


@pytest.fixture
def java_files(tmp_path):
    d = tmp_path / "java"
    d.mkdir()
    for name, text in TINY_JAVA.items():
        (d / name).write_text(text)
    return d


def test_floor_counts_files_and_characters(java_files):
    n, chars, seconds, cpu = floor.floor(sorted(java_files.glob("*.java")))
    assert n == 3 and chars == sum(len(t) for t in TINY_JAVA.values()) and seconds >= 0 and cpu >= 0


def test_floor_walks_what_the_ranker_tokenizes():
    """The floor's walk is the tokenizer's: as many leaves as the token stream has tokens."""
    from parsing.java import tokenize
    for text in TINY_JAVA.values():
        assert floor.walk(text.encode("utf-8")) == len(tokenize(text))


def test_floor_cli(java_files, tmp_path):
    env_args = dict(capture_output=True, text=True, cwd=ROOT)
    proc = subprocess.run([sys.executable, "-m", "bench.floor", str(java_files)], **env_args)
    assert proc.returncode == 0 and proc.stdout.split()[0] == "3"
    proc = subprocess.run([sys.executable, "-m", "bench.floor", str(tmp_path / "none.java")], **env_args)
    assert proc.returncode == 2 and "none.java" in proc.stderr


@pytest.fixture
def validation(tmp_path):
    d = tmp_path / "validation"
    make_tasks(sorted(TINY_JAVA.items()), d, TaskConfig(count=3, seed=2))
    return d


@pytest.fixture
def jdk_zip(tmp_path):
    """A zip of clean Java files of about 400 and 1600 characters (comments pad the tiny classes)."""
    z = tmp_path / "jdk.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for size in (400, 1600):
            for name, text in TINY_JAVA.items():
                pad = "// " + "x" * 60 + "\n"
                body = text
                while len(body) < size:
                    body = pad + body
                zf.writestr(f"m/{size}/{name}", body)
    return z


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("extra, message", [
    (["--workers", "0"], "--workers 0"),
    (["--workers", "a,b"], "--workers a,b"),
    (["--per-size", "0"], "--per-size 0"),
    (["--sizes", "big"], "'big'"),
    (["--repeats", "0"], "--repeats 0"),
])
def test_bad_arguments_exit_2(capsys, tmp_path, validation, jdk_zip, extra, message):
    model = tmp_path / "model.bin"
    model.write_bytes(b"")   # never loaded: arguments are checked first
    code, _, err = run(capsys, "--model", str(model), "--validation", str(validation), "--jdk", str(jdk_zip),
                       "--output", str(tmp_path / "out"), *extra)
    assert code == 2 and err.startswith("bench: error:") and message in err
    assert len(err.strip().splitlines()) == 1


def test_missing_inputs_are_named(capsys, tmp_path, validation):
    code, _, err = run(capsys, "--model", str(tmp_path / "no.bin"), "--validation", str(validation))
    assert code == 2 and "no.bin" in err
    (validation / "out.txt").unlink()
    model = tmp_path / "model.bin"
    model.write_bytes(b"")
    code, _, err = run(capsys, "--model", str(model), "--validation", str(validation))
    assert code == 2 and str(validation) in err and "out.txt" in err


@pytest.mark.slow
def test_bench_writes_reports_and_caches_task_folders(capsys, tmp_path, tiny_model, tiny_corpus, validation,
                                                     jdk_zip):
    out = tmp_path / "out"
    argv = ["--model", str(tiny_model), "--validation", str(validation), "--jdk", str(jdk_zip), "--sizes",
            "400,1600", "--per-size", "2", "--output", str(out), "--quiet", "--startup-model", str(tiny_model),
            "--startup-runs", "2", "--corpus", str(tiny_corpus), "--build-runs", "1", "--repeats", "2"]
    code, stdout, err = run(capsys, *argv)
    assert code == 0, err
    md = (out / "bench.md").read_text()
    assert md == stdout
    rows = list(csv.DictReader(open(out / "bench.csv")))
    assert [(r["set"], r["workers"]) for r in rows] == [
        ("validation", "1"), ("validation", "2"), ("jdk-400", "1"), ("jdk-400", "2"), ("jdk-1600", "1"),
        ("jdk-1600", "2")]
    assert all(int(r["files"]) == n for r, n in zip(rows, [3, 3, 2, 2, 2, 2]))
    assert all(float(r["tree_peak_mib"]) > 0 and float(r["cpu_s"]) > 0 for r in rows)
    for target in (">= 250 files/s", "<= 3x floor", "64K ms/1000 chars <= 1.2x 4K", "peak memory <= 1 GiB"):
        assert target in md
    assert md.count("| PASS |") + md.count("| FAIL |") == 5    # linearity: no 4K/64K classes here
    for waited in ("interpreter alone", "on no file", "one small file", "its first ranked file",
                   "bin/build-lm --order 6"):
        assert waited in md
    assert "one small file, default model, end to end <= 0.1 s" in md and "default model from corpora/ <= 20 s" in md
    assert "Random reads (bench/latency.py" in md and "over 128 MiB" in md
    assert "run 2 times, all taking turns, round after round" in md
    sig = md.strip().splitlines()[-1]
    assert sig.startswith("bench|order:4|scheme:kind-units|") and "cores:" in sig
    folders = sorted((out / "tasks").iterdir())
    assert [f.name for f in folders] == ["jdk-1600-n2-s0", "jdk-400-n2-s0"]
    stamp = {f: (f / "out.txt").stat().st_mtime_ns for f in folders}

    code, _, err = run(capsys, *argv)
    assert code == 0, err
    assert {f: (f / "out.txt").stat().st_mtime_ns for f in folders} == stamp


def test_sets_are_timed_in_turns_round_after_round(monkeypatch):
    """A set's runs spread over the bench's minutes, as every other set's: the 64K and 4K sets, whose costs per
    character are compared, see the same machine (one set after the other, its speed had moved by 30%)."""
    from bench import speed
    calls = []
    monkeypatch.setattr(speed, "floor_seconds",
                        lambda folder: calls.append(("floor", folder.name)) or (2, 10, 1.0, 1.0))

    monkeypatch.setattr(speed, "timed_run",
                        lambda args, env=None: calls.append(("rank", args[-1])) or speed.Run(1, 1, 1, 1, 0))

    class Ranker:
        env = None
        def args(self, *a):
            return list(a)
    rows, _ = speed.measure(Ranker(), Path("m.bin"), [("a", Path("/x/a")), ("b", Path("/x/b"))], [1], False, 3)
    order = [name for kind, name in calls if kind == "floor"]
    assert order == ["a", "b", "a", "b", "a", "b"]
    assert [(r.set, r.workers, r.files) for r in rows] == [("a", 1, 2), ("b", 1, 2)]


def test_latency_probe_is_built_and_reported(tmp_path):
    from bench import latency
    exe = latency.probe_binary(tmp_path)
    assert exe is not None and latency.probe_binary(tmp_path) == exe   # built once
    assert latency.read_ns(exe, 1 << 16, reads=10_000) > 0
    line = latency.note((1.0, 2.0), (3.0, 4.0), 15 << 20)
    assert "1 and 3 ns over 15 MiB" in line and "2 and 4 ns over 128 MiB" in line
    assert latency.note(None, (3.0, 4.0), 15 << 20) == ""   # no compiler: no line


def test_a_failing_latency_probe_leaves_the_line_out(tmp_path, monkeypatch):
    from bench import latency
    def fails(exe, size, reads=latency.READS):
        raise subprocess.CalledProcessError(1, [str(exe)])
    monkeypatch.setattr(latency, "read_ns", fails)
    assert latency.measure(tmp_path, 1 << 20) is None


def test_latency_cli_rejects_what_is_not_a_size(capsys):
    from bench import latency
    assert latency.main(["8", "x"]) == 2
    assert "sizes in MiB expected" in capsys.readouterr().err


def test_shim_reports_usage_error(tmp_path):
    proc = subprocess.run([str(ROOT / "bin" / "bench"), "--model", str(tmp_path / "none.bin")],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("bench: error: --model")
