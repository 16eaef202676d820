"""Map a function over items in forked worker processes, yielding the results in input order as they come.

The ranker's workers (bin/rank, bin/fim) and the corpus tokenizer's (lm.corpus) both fork after loading
what they share: the model's pages, the corpus files read once. multiprocessing.Pool's handler threads
cost the parent CPU the workers needed (measured on this 2-core machine with 4 ms tasks: 1.76 s of parent
CPU per 1000 tasks at chunksize 1, 0.74 s at 4), so this is plain fork with one pipe per worker for its results,
and one pipe of claims that every process takes its next items from, as it gets to them: a process that has
more to do besides (the parent writes every result out) or a slower core takes fewer, and all end together
(items dealt round-robin left the parent 10-40 ms behind its worker on bin/rank's validation run). With
`parent` (bin/rank), the parent maps items itself between reading the others' results: N processes on N
cores, not N + 1. A result goes through its pipe pickled, after its length and its item's index.
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
from typing import Callable, Iterable, Iterator, Sequence, TypeVar

from unnatural import cli

T = TypeVar("T")
R = TypeVar("R")


class WorkerError(RuntimeError):
    pass


_LENGTH = 8   # bytes of a message's length, before its pickle
_CLAIM = 4    # bytes of a claim: the index of its first item (little-endian)


def _widen(fd: int) -> None:
    """Room for 1 MB in the pipe `fd` writes to, where the system allows it (Linux), else its own size."""
    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)


def batches(sizes: Sequence[int], workers: int, most: int, first: int | None = None) -> list[range]:
    """The items (of these sizes) in consecutive batches of at most `most` in all (at least one item each),
    and, toward the end, at most a (2 x workers)-th of what is left: the last ones are small, so that the
    processes that take them in turn end together (guided scheduling). With `first`, the first batches are
    small too, from `first` doubling up to `most`, so that the first results come soon."""
    total = sum(sizes)
    out: list[range] = []
    start = 0
    while start < len(sizes):
        room = max(1, min(most, total // (2 * max(1, workers))))
        if first is not None:
            room = max(1, min(room, first << min(len(out), 62)))
        end, size = start + 1, sizes[start]
        while end < len(sizes) and size + sizes[end] <= room:
            size += sizes[end]
            end += 1
        out.append(range(start, end))
        total -= size
        start = end
    return out


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _send(fd: int, value) -> None:
    data = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
    _write_all(fd, len(data).to_bytes(_LENGTH, "little") + data)


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


class _Claims:
    """The items' claims, in a pipe every process reads: a read of _CLAIM bytes takes the next claim whole (the
    pipe holds nothing but whole claims, all written before any process reads, as many as it holds) and an
    empty read says none is left. A claim is one item, or several when there are more items than that."""

    def __init__(self, count: int):
        self.count = count
        self.fd, send = os.pipe()
        try:
            _widen(send)   # Linux: 262,144 claims
            try:
                room = fcntl.fcntl(send, fcntl.F_GETPIPE_SZ)
            except (OSError, AttributeError):
                room = 4096   # a pipe holds a page at least
            self.size = max(1, -(-count // max(1, room // _CLAIM)))
            _write_all(send, b"".join(i.to_bytes(_CLAIM, "little") for i in range(0, count, self.size)))
        except BaseException:
            os.close(self.fd)
            raise
        finally:
            os.close(send)

    def next(self) -> range:
        """The next claim's items (empty: none left)."""
        data = os.read(self.fd, _CLAIM)
        if not data:
            return range(0)
        first = int.from_bytes(data, "little")
        return range(first, min(first + self.size, self.count))

    def close(self) -> None:
        os.close(self.fd)


def ordered_map(fn: Callable[[T], R], items: Iterable[T], workers: int, parent: bool = False) -> Iterator[R]:
    """`fn` of every item, in input order, computed by `workers` processes; with `parent`, this process is one
    of them (it maps the items it claims between reading the others' results): one fork fewer, and its
    results are not sent through a pipe."""
    items = list(items)
    workers = max(1, min(workers, len(items)))
    if parent and workers == 1:
        yield from map(fn, items)
        return
    conns: dict[int, int] = {}   # worker -> the read end of its pipe
    pids: dict[int, int] = {}
    done: set[int] = set()       # the workers that said they have no claim left
    finished = False             # every result yielded: the workers end by themselves
    claims = _Claims(len(items))
    # what exists now is the workers' inheritance: frozen, the garbage collector leaves it alone, so that a
    # collection in a worker does not write to (and copy) every page of it
    gc.freeze()
    try:
        for w in range(1 if parent else 0, workers):   # with `parent`, this process is worker 0
            recv, send = os.pipe()
            if parent:   # room for a worker's results while the parent maps one of its own
                _widen(send)
            pid = os.fork()
            if pid == 0:   # the worker: never returns
                _work(fn, items, claims, recv, send)
            os.close(send)
            conns[w] = recv
            pids[w] = pid
        results: dict[int, R] = {}
        mine = deque()   # the parent's claimed items not mapped yet
        claimable = parent
        # one poll object for the whole run (multiprocessing's wait() makes a selector for every call: about
        # half of the parent's CPU)
        poller = select.poll()
        index = {}
        for w, fd in conns.items():
            poller.register(fd, select.POLLIN)
            index[fd] = w
        for i in range(len(items)):
            while i not in results:
                if claimable and not mine:
                    mine.extend(claims.next())
                    claimable = bool(mine)
                events = poller.poll(0 if mine else None)
                if not events:   # nothing ready: the parent maps one of its own meanwhile
                    j = mine.popleft()
                    results[j] = fn(items[j])
                for fd, _ in events:
                    v = index[fd]
                    try:
                        message = _recv(fd)
                    except EOFError:
                        raise WorkerError(f"worker {v} stopped without a result") from None
                    if message is None:   # no claim left: it ends
                        done.add(v)
                        poller.unregister(fd)
                        continue
                    j, ok, value = message
                    if not ok:
                        raise WorkerError(f"worker {v} failed: {value}")
                    results[j] = value
            yield results.pop(i)
        finished = True
    finally:
        # stopped early (an error, Ctrl-C, or the caller stopped reading): stop the workers, then reap them;
        # a Ctrl-C meanwhile waits (cut short, the reaping left dead workers to init: zombies after the exit)
        with cli.deferred_interrupts():
            gc.unfreeze()
            claims.close()
            for fd in conns.values():
                os.close(fd)
            for w, pid in pids.items():
                if w not in done and not finished:
                    os.kill(pid, signal.SIGTERM)
            for pid in pids.values():
                os.waitpid(pid, 0)


def _work(fn, items, claims: _Claims, recv: int, send: int) -> None:
    """A worker's life: map `fn` over the items it claims, send each result after its index, then None when
    no claim is left, and exit. Ctrl-C is the parent's to handle (it stops the workers), and a worker whose
    parent died stops too."""
    cli.ignore_interrupts()
    _stop_with_parent()
    os.close(recv)
    code = 0
    try:
        while True:
            claim = claims.next()
            if not claim:
                break
            for j in claim:
                _send(send, (j, True, fn(items[j])))
        _send(send, None)
    except BaseException:
        code = 1
        try:   # the last line says what failed (the parent reports it in one line)
            import traceback  # (here: bin/rank's start-up does not import it)
            _send(send, (-1, False, traceback.format_exc().strip().splitlines()[-1]))
        except OSError:
            pass
    finally:
        os._exit(code)


def _stop_with_parent() -> None:
    """Linux: SIGTERM this process when its parent dies (a killed `bin/rank` leaves no worker behind)."""
    import ctypes  # in the worker, after the fork
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
