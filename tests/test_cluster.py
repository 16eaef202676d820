"""--cluster: bin/build-lm and bin/rank on a real Dask LocalCluster of 2 worker processes give
the local run's model and rankings byte for byte, also when a worker is killed; a shard that fails twice
stops the build (or is listed with --allow-missing); Ctrl-C leaves nothing behind; without --cluster
nothing imports Dask."""
import json
import os
import pickle
import re
import signal
import subprocess
import sys
import time
import uuid
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT, TINY_JAVA, run_rank

from unnatural.cluster import ClusterError, batch_size, parse_address

DASK = ("dask", "distributed")


def have_dask():
    try:
        import distributed  # noqa: F401
    except ImportError:
        pytest.skip("Dask is not installed (the 'cluster' extra; make setup installs it)")


# ------------------------------------------------------------------------------------------ no Dask

def test_nothing_imports_dask_without_cluster(tmp_path):
    """The commands' modules, and a whole local run of bin/rank and bin/build-lm's corpus, leave Dask out."""
    (tmp_path / "A.java").write_text(TINY_JAVA["A.java"])
    code = (
        "import sys\n"
        "import lm.cli, lm.build, lm.corpus, ranker.cli, unnatural.cli, formats.sources\n"
        "from lm.corpus import write_corpus\n"
        "from formats.sources import iter_raw\n"
        f"write_corpus(iter_raw({str(tmp_path)!r}), 'kind-units', {str(tmp_path / 'c.txt')!r}, 2, False)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed', 'fsspec')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("address, expected", [
    ("local:2", ("local", 2)), ("local:16", ("local", 16)), ("tcp://10.0.0.1:8786", ("tcp://10.0.0.1:8786", None)),
])
def test_cluster_addresses(address, expected):
    assert parse_address(address) == expected


@pytest.mark.parametrize("address", ["local:0", "local:x", "local", ""])
def test_bad_cluster_addresses(address):
    with pytest.raises(ClusterError):
        parse_address(address)


def test_an_unreachable_scheduler_is_one_line_and_exit_2(tmp_path, monkeypatch):
    """Nothing listens on port 1 of this machine: bin/build-lm and bin/rank say so in one line."""
    have_dask()
    import unnatural.cluster
    monkeypatch.setattr(unnatural.cluster, "CONNECT_TIMEOUT", 2)
    (tmp_path / "A.java").write_text(TINY_JAVA["A.java"])
    code, out, err = run_build_lm(["--quiet", "--cluster", "tcp://127.0.0.1:1", "--output", str(tmp_path / "m.bin"),
                                   str(tmp_path)])
    assert code == 2 and out == "" and not (tmp_path / "m.bin").exists()
    assert err.startswith("build-lm: error: cannot reach the Dask scheduler at tcp://127.0.0.1:1")
    assert err.count("\n") == 1


@pytest.mark.parametrize("argv, message", [
    (["--work-dir", "/tmp"], "--work-dir and --allow-missing go with --cluster"),
    (["--allow-missing"], "--work-dir and --allow-missing go with --cluster"),
    (["--cluster", "local:0"], "expected local:N with N >= 1"),
])
def test_cluster_options_are_checked(tmp_path, argv, message):
    (tmp_path / "A.java").write_text(TINY_JAVA["A.java"])
    code, out, err = run_build_lm([*argv, "--quiet", "--output", str(tmp_path / "m.bin"), str(tmp_path)])
    assert code == 2 and message in err and err.count("\n") == 1


@pytest.mark.parametrize("items, workers, expected", [(10, 2, 1), (1000, 2, 62), (10**6, 2, 64), (0, 4, 1)])
def test_batch_sizes(items, workers, expected):
    assert batch_size(items, workers) == expected


def test_shards_are_consecutive_and_balanced_by_bytes():
    from formats.sources import SourceEntry
    from lm.cluster import cut
    entries = [SourceEntry("s", f"f{i}", "java", f"f{i}", size)
               for i, size in enumerate([5, 5, 5, 5, 40, 5, 5, 5, 5, 0])]
    shards = cut(entries, workers=1)   # 80 bytes, 4 shards a worker: about 20 bytes each
    assert [e for s in shards for e in s.entries] == entries
    assert [s.bytes for s in shards] == [20, 40, 20]
    assert [s.index for s in shards] == [0, 1, 2]
    assert [s.bytes for s in cut(entries, workers=1, most=10)] == [10, 10, 40, 10, 10]   # a larger file alone


def test_style_counts_pickle_into_another_process(tmp_path):
    """A folder's style counts go to cluster workers pickled: their keys are hashes of the symbols' texts,
    the same in every process, whatever integer ids each has interned."""
    from conftest import stream_counts

    from parsing.java import tokenize
    from parsing.schemes import get_scheme
    from ranker.cache import REACHES
    from ranker.symbols import symbol_ids
    scheme = get_scheme("kind-units")
    streams = [scheme.symbols(tokenize(t)) for t in TINY_JAVA.values()]
    symbol_ids(["x", "y", "z"] + streams[2])   # ids this process has, and the other will not
    counts = stream_counts(streams)
    (tmp_path / "counts.pickle").write_bytes(pickle.dumps(counts))

    def context(syms, i):   # the tokens a side of the first wide level, '|' past the ends
        return tuple(syms[j] if 0 <= j < len(syms) else "|" for j in range(i - 2 * REACHES[0] + 1,
                                                                           i + 2 * REACHES[0], 2))
    probes = sorted({(context(syms, i), syms[i]) for syms in streams for i in range(0, len(syms), 2)})
    here = [counts.count(tuple(ctx), s) for ctx, s in probes]
    code = ("import pickle, sys, json\n"
            "from ranker.symbols import symbol_ids\n"
            "symbol_ids(['other', 'symbols', 'first'])\n"
            f"counts = pickle.loads(open({str(tmp_path / 'counts.pickle')!r}, 'rb').read())\n"
            f"probes = json.loads({json.dumps(probes)!r})\n"
            "print(json.dumps([counts.count(tuple(c), s) for c, s in probes]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert json.loads(out.stdout) == here and sum(here) > len(here)


# ------------------------------------------------------------------------------------ a corpus to build

def make_corpus(root: Path) -> list[str]:
    """Sources of several shapes, with copies across them and a file that cannot be decoded."""
    plain = root / "plain"
    (plain / "sub").mkdir(parents=True)
    body = TINY_JAVA["A.java"].split("{", 1)[1].rsplit("}", 1)[0]
    for i in range(12):
        (plain / "sub" / f"G{i}.java").write_text(f"class G{i} {{" + body * (1 + i % 4) + "}\n")
    (plain / "A.java").write_text(TINY_JAVA["A.java"])
    (plain / "bad.java").write_bytes(b"class \xff {}\n")
    with zipfile.ZipFile(root / "src.zip", "w") as z:
        for name, text in TINY_JAVA.items():
            z.writestr(f"mod/{name}", text)           # A.java again: a copy across sources
        z.writestr("mod/Empty.java", "")
    return [str(plain), str(root / "src.zip")]


def build_locally(sources, output, order=3):
    from lm.build import BuildConfig, build
    return build(BuildConfig(tuple(sources), order=order, output=output, workers=2), progress=False)


def comparable(signature: dict) -> dict:
    """A signature less what differs between two builds of the same corpus: when and how long."""
    return {k: v for k, v in signature.items() if k not in ("built_at", "seconds")}


# -------------------------------------------------------------------------------- a cluster of our own

try:
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:   # the tests that need Dask skip
    WorkerPlugin = object


class KillWorker(WorkerPlugin):
    """A Dask worker plugin: a worker about to run the task of key `prefix...suffix` kills its own process
    (SIGKILL, as the kernel's OOM killer would), the first time only, or every time; each kill is a line
    of the `marker` file (so the test knows it happened)."""
    name = "kill-worker"

    def __init__(self, prefix: str, marker: str, suffix: str = "", every_time: bool = False):
        self.prefix, self.suffix, self.marker, self.every_time = prefix, suffix, marker, every_time

    def setup(self, worker):
        pass

    def teardown(self, worker):
        pass

    def transition(self, key, start, finish, **kwargs):
        name = str(key)
        if finish != "executing" or not name.startswith(self.prefix) or not name.endswith(self.suffix):
            return
        # the first time only: the marker made atomically (two workers starting their shards at once both
        # found no marker when it was checked, then written: two kills)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | (0 if self.every_time else os.O_EXCL)
        try:
            fd = os.open(self.marker, flags, 0o644)
        except FileExistsError:
            return
        with os.fdopen(fd, "a") as f:
            f.write(name + "\n")
        os.kill(os.getpid(), signal.SIGKILL)


@pytest.fixture
def cluster():
    """A LocalCluster of 2 worker processes made by the test (so that it can add a plugin), its scheduler
    allowing as many worker deaths per task as --cluster local:N's."""
    have_dask()
    import logging

    import cloudpickle
    import distributed

    from unnatural.cluster import ALLOWED_FAILURES
    cloudpickle.register_pickle_by_value(sys.modules[__name__])   # the workers need not import this test
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.CRITICAL,
                                  scheduler_kwargs={"allowed_failures": ALLOWED_FAILURES}) as c, \
            distributed.Client(c) as client:
        yield c.scheduler_address, client
    cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


# ------------------------------------------------------------------------------------------ the builds

@pytest.mark.slow
def test_cluster_build_is_the_local_build(tmp_path, lmplz_available):
    """bin/build-lm --cluster local:2: the model file is byte-identical to the local build's and the
    signature the same but for when and how long; the token shards are gone afterwards."""
    have_dask()
    sources = make_corpus(tmp_path)
    local = build_locally(sources, tmp_path / "local.bin")
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run([str(ROOT / "bin" / "build-lm"), "--order", "3", "--cluster", "local:2", "--work-dir",
                           f"file://{work}", "--output", str(tmp_path / "cluster.bin"), *sources],   # a fsspec URL
                          capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr   # a file skipped (not UTF-8)
    assert (tmp_path / "cluster.bin").read_bytes() == (tmp_path / "local.bin").read_bytes()
    clustered = json.loads((tmp_path / "cluster.bin.json").read_text())
    assert comparable(clustered) == comparable(local)
    assert local["files"] == 15 and local["skipped"] == 1 and sum(s["duplicates"] for s in local["sources"]) == 1
    assert "shards on 2 Dask workers" in proc.stderr and "Traceback" not in proc.stderr
    assert list(work.iterdir()) == []
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("unnatural-")] == []


@pytest.mark.slow
def test_a_worker_killed_mid_shard_still_gives_the_same_model(tmp_path, cluster, lmplz_available):
    """A worker dies (SIGKILL) as it starts tokenizing a shard: Dask gives the shard to another worker, and
    the model is byte-identical to the local build's."""
    from lm.build import BuildConfig, build
    address, client = cluster
    sources = make_corpus(tmp_path)
    local = build_locally(sources, tmp_path / "local.bin")
    marker = tmp_path / "killed"
    client.register_plugin(KillWorker("tokenize-", str(marker)))
    sig = build(BuildConfig(tuple(sources), order=3, output=tmp_path / "cluster.bin", cluster=address), progress=False)
    assert len(marker.read_text().splitlines()) == 1   # a worker did die, once
    assert (tmp_path / "cluster.bin").read_bytes() == (tmp_path / "local.bin").read_bytes()
    assert comparable(sig) == comparable(local)


@pytest.mark.slow
@pytest.mark.parametrize("allow_missing", [False, True])
def test_a_shard_that_fails_twice_stops_the_build_unless_allowed(tmp_path, cluster, allow_missing, lmplz_available):
    """Every worker that starts tokenizing shard 1 dies: after two deaths the build stops with exit 2, naming
    the shard's files, and writes no model; with --allow-missing it trains without them and lists them in
    the signature. Dask counts a worker's death against every task it held, so on a busy machine a shard
    whose hashing was queued on both dying workers fails twice too (its files are then missing, duplicates
    included, as their contents were never read): the build may stop at that shard, and no file may be lost
    unlisted."""
    address, client = cluster
    sources = make_corpus(tmp_path)
    marker = tmp_path / "deaths"
    client.register_plugin(KillWorker("tokenize-", str(marker), suffix="-1", every_time=True))
    out = tmp_path / "m.bin"
    argv = ["--order", "3", "--quiet", "--cluster", address, "--output", str(out), *sources]
    code, stdout, err = run_build_lm(argv + (["--allow-missing"] if allow_missing else []))
    assert len(marker.read_text().splitlines()) == 2 and "Traceback" not in err
    lines = err.splitlines()
    if not allow_missing:
        assert code == 2 and stdout == "" and not out.exists() and not Path(str(out) + ".json").exists()
        assert re.match(r"build-lm: error: shard \d+ \(", lines[-1]) and "failed twice" in lines[-1]
        assert "--allow-missing" in lines[-1] and any("warning: not tokenized: " in line for line in lines)
        return
    assert code == 1 and out.exists()   # built without the missing files: inputs skipped
    sig = json.loads(Path(str(out) + ".json").read_text())
    local = build_locally(sources, tmp_path / "local.bin")
    assert sig["missing"] and sig["files"] < local["files"] <= sig["files"] + len(sig["missing"])
    assert any("shard 1" in line and "training without its files" in line for line in lines)
    assert f"{len(sig['missing'])} missing" in lines[-1]


def run_build_lm(argv):
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from lm.cli import main as build_lm
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = build_lm(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.slow
def test_ctrl_c_stops_a_cluster_build_and_leaves_nothing(tmp_path, lmplz_available):
    """A real SIGINT to the process group of bin/build-lm --cluster local:2 as the workers start: exit 130, no
    traceback, no model, no token shards, no temporary folder, no process left."""
    have_dask()
    src = tmp_path / "src"
    src.mkdir()
    body = TINY_JAVA["A.java"].split("{", 1)[1].rsplit("}", 1)[0]
    for i in range(3000):   # a few seconds of tokenizing
        (src / f"G{i}.java").write_text(f"class G{i} {{" + body * (5 + i % 7) + "}\n")
    work = tmp_path / "work"
    work.mkdir()
    out = tmp_path / "models" / "m.bin"
    tag = uuid.uuid4().hex
    proc = subprocess.Popen([str(ROOT / "bin" / "build-lm"), "--order", "3", "--cluster", "local:2", "--work-dir",
                             str(work), "--output", str(out), str(src)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, env={**os.environ, "UNNATURAL_TEST_TAG": tag})
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if "shards on 2 Dask workers" in line:
            os.killpg(proc.pid, signal.SIGINT)   # what a terminal's Ctrl-C does
            break
    err = "".join(seen) + proc.stderr.read()
    assert proc.wait(timeout=60) == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert proc.stdout.read() == ""
    assert list(work.iterdir()) == [] and list(out.parent.iterdir()) == []
    deadline = time.time() + 20
    while (left := tagged_processes(tag)) and time.time() < deadline:
        time.sleep(0.2)
    assert left == []


def tagged_processes(tag: str) -> list[int]:
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    if tag.encode() in f.read():
                        out.append(int(pid))
            except OSError:
                pass
    return out


# ------------------------------------------------------------------------------------------- ranking

@pytest.mark.slow
@pytest.mark.parametrize("options",
                         [[], ["--adapt", "folder", "--explain"], ["--adapt", "folder-strict", "--top", "5"]])
def test_rank_on_the_cluster_prints_the_local_output(tmp_path, tiny_model, options):
    """bin/rank --cluster local:2: the same lines in the same order as the forked workers, an unreadable
    file reported the same way too."""
    have_dask()
    folder = tmp_path / "files"
    folder.mkdir()
    for i in range(40):
        name = "ABC"[i % 3] + ".java"
        text = TINY_JAVA[name].replace("    ", " " * (2 + i % 3), 1 + i % 4).replace(" = ", "=", i % 2)
        (folder / f"F{i:02d}.java").write_text(text)
    (folder / "bad.java").write_bytes(b"class \xff {}\n")
    argv = ["--model", str(tiny_model), *options, str(folder)]
    local = run_rank(argv + ["--workers", "2"])
    clustered = run_rank(argv + ["--cluster", "local:2"])
    assert clustered[0] == local[0]
    assert clustered[1] == local[1] and local[1].count("\n") >= 40
    assert clustered[2] == local[2] and "bad.java" in local[2]


_SETUPS = []


def _record_setup(marker: str) -> None:
    with open(marker, "a") as f:
        f.write(f"{os.getpid()}\n")
    _SETUPS.append(marker)


def _pid_and_square(x: int) -> tuple[int, int, int]:
    return os.getpid(), x * x, len(_SETUPS)


def _fails_on_seven(x: int) -> int:
    if x == 7:
        raise ValueError("seven")
    return x


@pytest.mark.slow
def test_cluster_map_sets_each_worker_up_once_and_keeps_the_order(tmp_path, cluster):
    """init runs once per worker process, not per batch; results come back in input order."""
    from unnatural.cluster import cluster_map
    address, client = cluster
    marker = tmp_path / "setups"
    got = list(cluster_map(_pid_and_square, range(200), client, init=__import__("functools").partial(
        _record_setup, str(marker)), batch=5))
    assert [square for _, square, _ in got] == [x * x for x in range(200)]
    setups = marker.read_text().split()
    assert len(setups) == len(set(setups)) == len({pid for pid, _, _ in got}) <= 2
    assert all(done == 1 for _, _, done in got)
    with pytest.raises(ClusterError, match="items 5..9 failed twice.*seven"):
        list(cluster_map(_fails_on_seven, range(20), client, batch=5))


@pytest.mark.slow
def test_check_on_the_cluster_prints_the_local_output(tmp_path, tiny_model):
    """bin/check --cluster local:2: the same findings in the same order as the forked workers."""
    have_dask()
    folder = tmp_path / "repo"
    folder.mkdir()
    for i in range(12):
        name = "ABC"[i % 3] + ".java"
        (folder / f"F{i:02d}.java").write_text(TINY_JAVA[name].replace(";", " ;", i % 3))
    argv = [str(ROOT / "bin" / "check"), "--model", str(tiny_model), "--min-score", "1", "--format", "json",
            "--quiet", str(folder)]
    local = subprocess.run(argv + ["--workers", "2"], capture_output=True, text=True)
    clustered = subprocess.run(argv + ["--cluster", "local:2"], capture_output=True, text=True)
    assert local.returncode == 1 and local.stdout.count("\n") >= 8, local.stderr
    assert (clustered.returncode, clustered.stdout) == (local.returncode, local.stdout)
