"""Work on a Dask cluster (`--cluster ADDRESS`): connecting, and an ordered map with a per-worker set-up.

ADDRESS is a Dask scheduler's address (`tcp://host:8786`, or whatever the cluster's deployment package
printed: Kubernetes, SLURM, cloud), or `local:N` for a LocalCluster of N worker processes on this machine.
Workers must import the same version of this project (and see the same paths, or the same --work-dir URL).

Dask is the optional extra `cluster` (`pip install -e '.[cluster]'`, which `make setup` installs); it is
imported only here, inside the functions, so that no command imports it without --cluster.

    with connect("local:2") as client:
        for result in cluster_map(rank_one, paths, client, init=functools.partial(load_model, config)):
            ...

`cluster_map` sends the items in batches, runs `init()` once in each worker process before its first batch
(the model is loaded once per worker, not once per task; a new `init` replaces the old one), keeps a few
batches per worker in flight and yields the results in input order, as the forked workers do. A batch
that raises is retried once; one whose worker dies is given to another worker by Dask, and counts as
failed after the second death on a LocalCluster made here (`distributed.scheduler.allowed-failures` on a
scheduler of your own). Ctrl-C, or leaving the `with`, cancels what is still queued and, for `local:N`,
stops the workers.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import logging
import signal
import sys
import threading
import uuid
from collections import deque
from typing import Callable, Iterable, Iterator, Sequence, TypeVar

from . import __version__

T = TypeVar("T")
R = TypeVar("R")

ALLOWED_FAILURES = 1      # worker deaths a task may be part of before it fails: it is tried twice
CONNECT_TIMEOUT = 30      # seconds to reach a scheduler
BATCHES_IN_FLIGHT = 4     # per worker: enough to keep it busy while the client reads results in order


class ClusterError(RuntimeError):
    """The cluster cannot be reached or used, or a batch failed twice: one line for the user."""


def parse_address(address: str) -> tuple[str, int | None]:
    """('local', N) for `local:N`, else (address, None)."""
    if address.startswith("local:"):
        count = address.removeprefix("local:")
        if not count.isdecimal() or int(count) < 1:
            raise ClusterError(f"--cluster {address}: expected local:N with N >= 1 worker processes")
        return "local", int(count)
    if not address or address.startswith("local"):
        raise ClusterError(f"--cluster {address!r}: expected a scheduler address (tcp://host:port) or local:N")
    return address, None


@contextlib.contextmanager
def connect(address: str) -> Iterator["distributed.Client"]:  # noqa: F821
    """A Dask client of the cluster at `address` (see the module's doc), closed (and a local cluster
    stopped) on leaving, Ctrl-C included."""
    where, processes = parse_address(address)
    try:
        import dask  # noqa: F401 (imported to tell that the whole cluster extra is installed)
        import distributed
    except ImportError:
        raise ClusterError("--cluster needs Dask: pip install -e '.[cluster]' (make setup installs it)") from None
    # the cluster's own logs (worker restarts, connection retries) are not the user's business: failures
    # that matter reach them as ClusterError
    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    cluster = client = None
    try:
        if processes is not None:
            # A terminal's Ctrl-C reaches the whole process group: the workers would each print their own
            # KeyboardInterrupt. They are started with SIGINT ignored (which survives exec, and Python and
            # asyncio leave alone), so this process alone cancels the work and stops them.
            ignore = threading.current_thread() is threading.main_thread()
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if ignore else None
            try:
                cluster = distributed.LocalCluster(n_workers=processes, threads_per_worker=1, processes=True,
                                                   dashboard_address=None, silence_logs=logging.CRITICAL,
                                                   scheduler_kwargs={"allowed_failures": ALLOWED_FAILURES})
            except (OSError, TimeoutError, RuntimeError) as e:
                raise ClusterError(f"cannot start a local cluster of {processes} workers ({e})") from None
            finally:
                if ignore:
                    signal.signal(signal.SIGINT, previous)
            client = distributed.Client(cluster)
            try:
                client.wait_for_workers(processes, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError) as e:
                raise ClusterError(f"the local cluster's {processes} workers did not start ({e})") from None
        else:
            try:
                client = distributed.Client(where, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as e:
                raise ClusterError(f"cannot reach the Dask scheduler at {where} ({describe(e)})") from None
        _check_versions(client)
        yield client
    finally:
        with contextlib.suppress(Exception):
            if client is not None:
                client.close()
        with contextlib.suppress(Exception):
            if cluster is not None:
                cluster.close()
        quiet.setLevel(level)


def _version() -> str:
    return __version__


def _check_versions(client) -> None:
    try:
        found = set(client.run(_version).values())
    except Exception as e:   # noqa: BLE001 - whatever a worker raised, e.g. it cannot import this project
        raise ClusterError(f"the cluster's workers cannot run unnatural ({describe(e)})") from None
    if found - {__version__}:
        raise ClusterError(f"the cluster's workers run unnatural {', '.join(sorted(found))}, this is {__version__}")


def workers(client) -> int:
    """Worker processes the cluster has now (at least 1, for sizing work)."""
    return max(1, len(client.scheduler_info().get("workers", {})))


def cancel(client, futures) -> None:
    """Cancel work still queued or running (Ctrl-C, or an error elsewhere)."""
    futures = [f for f in futures if f is not None]
    if futures:
        with contextlib.suppress(Exception):
            client.cancel(futures, force=True)


# ----------------------------------------------------------------------------------------- worker side

_set_up: dict[str, object] = {}   # per worker process: the key of the last init that ran
_lock = threading.Lock()


def _run_batch(fn: Callable[[T], R], init: Callable[[], object] | None, key: str, batch: Sequence[T]) -> list[R]:
    if init is not None and _set_up.get("key") != key:
        with _lock:
            if _set_up.get("key") != key:
                init()
                _set_up["key"] = key
    return [fn(item) for item in batch]


# ----------------------------------------------------------------------------------------- client side

def batch_size(items: int, workers: int) -> int:
    """Items per task: about 8 batches per worker, 1 to 64 items each."""
    return max(1, min(64, items // (8 * workers) or 1))


def cluster_map(fn: Callable[[T], R], items: Iterable[T], cluster: "str | distributed.Client",  # noqa: F821
                init: Callable[[], object] | None = None, batch: int | None = None) -> Iterator[R]:
    """fn(item) for every item, on the cluster's workers, in input order (see the module's doc).

    `cluster`: an address for `connect`, or a connected client. `fn` and `init` are sent with cloudpickle;
    a module-level function is sent by name, so its module must be importable on the workers. `init()` runs
    once per worker process before its first batch, e.g. to load a model into the module's globals, which
    `fn` then uses."""
    if isinstance(cluster, str):
        with connect(cluster) as client:
            yield from cluster_map(fn, items, client, init, batch)
        return
    client = cluster
    items = list(items)
    if not items:
        return
    fn, init = by_name(fn), by_name(init)
    key = uuid.uuid4().hex   # this map's init: run once in each worker process
    # init (a model's path, or a folder's style counts, possibly large) goes to every worker once, not
    # into every task
    setup = client.scatter(init, broadcast=True, hash=False) if init is not None else None
    size = batch or batch_size(len(items), workers(client))
    spans = [(i, min(i + size, len(items))) for i in range(0, len(items), size)]
    limit = BATCHES_IN_FLIGHT * workers(client)
    queued: deque = deque()
    submitted = 0
    try:
        while submitted < len(spans) or queued:
            while submitted < len(spans) and len(queued) < limit:
                lo, hi = spans[submitted]
                queued.append(client.submit(_run_batch, fn, setup, key, items[lo:hi], retries=1, pure=False,
                                            key=f"batch-{key[:12]}-{submitted}"))
                submitted += 1
            future = queued.popleft()
            try:
                results = future.result()
            except Exception as e:   # noqa: BLE001 - failed twice, whatever the reason
                lo, hi = spans[submitted - len(queued) - 1]
                raise ClusterError(f"items {lo}..{hi - 1} failed twice on the cluster: {describe(e)}") from None
            future.release()
            yield from results
    finally:
        cancel(client, list(queued) + ([setup] if setup is not None else []))


def by_name(fn):
    """`fn` as the workers can import it. A command's functions live in `__main__` when it runs as
    `python -m package.module` (bin/_run), which cloudpickle would send by value, each with its own copy of
    the module's globals (so an `init` could not set up what `fn` reads): they are sent as
    `package.module`'s instead. functools.partial is looked into."""
    if isinstance(fn, functools.partial):
        return functools.partial(by_name(fn.func), *fn.args, **fn.keywords)
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if getattr(fn, "__module__", None) == "__main__" and spec is not None and spec.name != "__main__":
        return getattr(importlib.import_module(spec.name), fn.__qualname__)
    return fn


def describe(error: BaseException) -> str:
    """An exception a worker raised (or Dask's KilledWorker), as the end of one line."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[-1] if text else ''}".rstrip(": ")
