"""Map a function over items in forked worker processes, yielding the results in input order as they come.

The ranker's workers (bin/rank, bin/fim) and the corpus tokenizer's (lm.corpus) both fork after loading
what they share: the model's pages, the corpus files read once. multiprocessing.Pool's handler threads
cost the parent CPU the workers needed (measured on this 2-core machine with 4 ms tasks: 1.76 s of parent
CPU per 1000 tasks at chunksize 1, 0.74 s at 4), so this is plain fork with one pipe per worker: worker w
takes items w, w + N, w + 2N, ... and the parent reads whichever pipe is ready, keeping results until
their turn. With `parent` (bin/rank), the parent is worker 0 itself: N processes on N cores, not N + 1.
A result goes through the pipe pickled, after its length (multiprocessing.connection's framing; importing that
module, with socket, subprocess and threading, took 7 ms of bin/rank's start-up before the workers fork).
"""
from __future__ import annotations

import contextlib
import fcntl
import gc
import os
import pickle
import select
import signal
from collections import deque
from typing import Callable, Iterable, Iterator, TypeVar

from unnatural import cli

T = TypeVar("T")
R = TypeVar("R")


class WorkerError(RuntimeError):
    pass


_LENGTH = 8   # bytes of a message's length, before its pickle


def _send(fd: int, value) -> None:
    data = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
    view = memoryview(len(data).to_bytes(_LENGTH, "little") + data)
    while view:
        view = view[os.write(fd, view):]


def _read(fd: int, n: int) -> bytes:
    """Exactly `n` bytes (unbuffered: what poll() says is ready is all in the pipe), or EOFError."""
    parts, left = [], n
    while left:
        part = os.read(fd, left)
        if not part:
            raise EOFError
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _recv(fd: int):
    return pickle.loads(_read(fd, int.from_bytes(_read(fd, _LENGTH), "little")))


def ordered_map(fn: Callable[[T], R], items: Iterable[T], workers: int, parent: bool = False) -> Iterator[R]:
    """`fn` of every item, in input order, computed by `workers` processes; with `parent`, this process is one
    of them (it maps its share, items 0, N, 2N, ..., between reading the others' results): one fork fewer,
    and its share's results are not sent through a pipe."""
    items = list(items)
    workers = max(1, min(workers, len(items)))
    conns: dict[int, int] = {}   # worker -> the read end of its pipe
    pids: dict[int, int] = {}
    expected = [len(items[w::workers]) for w in range(workers)]
    received = [0] * workers
    # what exists now is the workers' inheritance: frozen, the garbage collector leaves it alone, so that a
    # collection in a worker does not write to (and copy) every page of it
    gc.freeze()
    try:
        for w in range(1 if parent else 0, workers):   # with `parent`, this process is worker 0
            recv, send = os.pipe()
            if parent:   # room for a worker's results while the parent maps one of its own (Linux: up to 1 MB)
                with contextlib.suppress(OSError, AttributeError):
                    fcntl.fcntl(send, fcntl.F_SETPIPE_SZ, 1 << 20)
            pid = os.fork()
            if pid == 0:   # the worker: never returns
                _work(fn, items[w::workers], recv, send)
            os.close(send)
            conns[w] = recv
            pids[w] = pid
        ready: list[deque] = [deque() for _ in range(workers)]
        mine = iter(items[0::workers] if parent else ())   # the parent's items not mapped yet
        left = expected[0] if parent else 0
        # one poll object for the whole run (multiprocessing's wait() makes a selector for every call: about
        # half of the parent's CPU)
        poller = select.poll()
        index = {}
        for w, fd in conns.items():
            if expected[w]:
                poller.register(fd, select.POLLIN)
                index[fd] = w
        for i in range(len(items)):
            w = i % workers
            if parent and w == 0 and not ready[0]:
                ready[0].append(fn(next(mine)))
                left -= 1
                received[0] += 1
            while not ready[w]:
                events = poller.poll(0 if left else None)
                if not events:   # nothing ready: the parent maps one of its own meanwhile
                    ready[0].append(fn(next(mine)))
                    left -= 1
                    received[0] += 1
                for fd, _ in events:
                    v = index[fd]
                    try:
                        ok, value = _recv(fd)
                    except EOFError:
                        raise WorkerError(f"worker {v} stopped without a result") from None
                    if not ok:
                        raise WorkerError(f"worker {v} failed: {value}")
                    ready[v].append(value)
                    received[v] += 1
                    if received[v] == expected[v]:
                        poller.unregister(fd)
            yield ready[w].popleft()
    finally:
        # stopped early (an error, Ctrl-C, or the caller stopped reading): stop the workers, then reap them;
        # a Ctrl-C meanwhile waits (cut short, the reaping left dead workers to init: zombies after the exit)
        with cli.deferred_interrupts():
            gc.unfreeze()
            for fd in conns.values():
                os.close(fd)
            for w, pid in pids.items():
                if received[w] < expected[w]:
                    os.kill(pid, signal.SIGTERM)
            for pid in pids.values():
                os.waitpid(pid, 0)


def _work(fn, items, recv: int, send: int) -> None:
    """A worker's life: map `fn` over its items, send each result, exit. Ctrl-C is the parent's to handle
    (it stops the workers), and a worker whose parent died stops too."""
    cli.ignore_interrupts()
    _stop_with_parent()
    os.close(recv)
    code = 0
    try:
        for item in items:
            _send(send, (True, fn(item)))
    except BaseException:
        code = 1
        try:   # the last line says what failed (the parent reports it in one line)
            import traceback   # (here: bin/rank's start-up does not import it)
            _send(send, (False, traceback.format_exc().strip().splitlines()[-1]))
        except OSError:
            pass
    finally:
        os._exit(code)


def _stop_with_parent() -> None:
    """Linux: SIGTERM this process when its parent dies (a killed `bin/rank` leaves no worker behind)."""
    import ctypes   # in the worker, after the fork
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
