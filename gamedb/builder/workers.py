"""Forked worker processes that die with their builder, quietly.

``multiprocessing.Pool`` can hang in ``terminate`` when Ctrl-C reaches its workers (a
worker interrupted while holding a queue lock), prints every worker's traceback, and
leaves orphans that print ``BrokenPipeError`` when the builder is killed. These workers
instead:

- ignore SIGINT: a terminal's Ctrl-C reaches the whole process group, and only the
  builder decides what an interrupt means;
- die with their parent (``PR_SET_PDEATHSIG`` on Linux; everywhere, a closed pipe ends
  a worker silently);
- are SIGKILLed and reaped by the builder when it stops early for any reason: they hold
  no file, no lock and nothing worth finishing.

The function is fixed when the workers fork, so it may be any callable (a closure, a
``functools.partial`` over a game and a value table): each worker calls its inherited
copy, and only the items and results cross the pipes.

>>> with Workers(2, abs) as workers:
...     list(workers.imap([-3, 2, -1]))
[3, 2, 1]
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import queue
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")
R = TypeVar("R")

#: Tasks sent ahead to each worker, so that it never waits for the builder.
AHEAD = 2
_PR_SET_PDEATHSIG = 1


class WorkerDied(RuntimeError):
    """A worker process was killed (by the out-of-memory killer, or by hand)."""


class Workers(Generic[T, R]):
    """``count`` forked processes mapping ``func`` over items, results in order."""

    def __init__(self, count: int, func: Callable[[T], R]):
        self._func = func
        self._conns: list[Connection] = []
        self._pids: list[int] = []
        self._free: queue.SimpleQueue[Connection | None] = queue.SimpleQueue()
        try:
            for _ in range(count):
                self._start(os.getpid())
        except BaseException:  # e.g. fork refused for lack of memory: no half pool
            self.stop()
            raise

    def _start(self, parent: int) -> None:
        """Fork one worker, joined to this process by a pipe."""
        mine, theirs = multiprocessing.Pipe()
        # SIGINT is blocked across the fork: a Ctrl-C that reached a new worker before it
        # ignores SIGINT (e.g. inside an at-fork hook) printed a traceback there. The
        # child discards it (SIG_IGN drops a pending signal); the builder gets it after.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            pid = os.fork()
        except BaseException:  # e.g. no memory for another process
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            raise
        if pid == 0:  # pragma: no cover (runs in the child)
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
                for conn in (*self._conns, mine):  # only the builder may hold these
                    conn.close()
                _serve(theirs, parent, self._func)
            finally:
                os._exit(1)  # never run the builder's code in a worker
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        theirs.close()
        self._conns.append(mine)
        self._pids.append(pid)

    def __enter__(self) -> Workers[T, R]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def imap(self, items: Iterable[T]) -> Iterator[R]:
        """Yield ``func(item)`` for every item, in order, computed by the workers.

        An exception ``func`` raises is re-raised here. A thread sends the tasks (up to ``AHEAD`` per worker) while this one
        receives the results: big tasks and big results never wait for each other.
        """
        tasks = list(items)
        free: queue.SimpleQueue[Connection | None] = queue.SimpleQueue()
        for conn in self._conns * AHEAD:
            free.put(conn)
        failure: list[BaseException] = []
        self._free = free
        threading.Thread(target=_feed, args=(tasks, free, failure), daemon=True).start()
        done: dict[int, Any] = {}
        following = 0
        while following < len(tasks):
            if failure:
                raise failure[0]
            for ready in wait(self._conns, timeout=1.0):
                conn = cast(Connection, ready)  # wait() returns what it was given
                index, ok, result = _receive(conn)
                if not ok:
                    raise result
                done[index] = result
                free.put(conn)
            while following in done:
                yield done.pop(following)
                following += 1

    def stop(self) -> None:
        """Kill and reap every worker (idempotent); nothing they did is worth waiting for."""
        for _ in range(len(self._conns) * AHEAD):
            self._free.put(None)  # releases a waiting feeder
        for conn in self._conns:
            conn.close()
        for pid in self._pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        self._conns, self._pids = [], []


def _receive(conn: Connection) -> tuple[int, bool, Any]:
    try:
        return conn.recv()  # type: ignore[no-any-return]
    except (EOFError, ConnectionResetError):  # reset: it died with our task unread
        raise WorkerDied("a worker process died (killed, or out of memory?); every "
                         "finished chunk is saved: run the same command to resume") from None


def _feed(tasks: list[Any],
          free: queue.SimpleQueue[Connection | None], failure: list[BaseException]) -> None:
    """Send each task to a worker with a free slot; stop at a None slot (``stop``)."""
    for index, item in enumerate(tasks):
        conn = free.get()
        if conn is None:
            return
        try:
            conn.send((index, item))
        except OSError:  # stopped while sending: the workers are gone
            return
        except BaseException as exc:  # e.g. a task that cannot be pickled
            failure.append(exc)
            return


def _serve(conn: Connection, parent: int,
           func: Callable[[Any], Any]) -> None:  # pragma: no cover (runs in the child)
    """A worker's life: run tasks until the builder closes the pipe or dies, then exit."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with(parent)
    code = 0
    try:
        while True:
            index, item = conn.recv()
            try:
                reply = (index, True, func(item))
            except Exception as exc:  # the builder re-raises it
                reply = (index, False, exc)
            conn.send(reply)
    except (EOFError, OSError):  # the builder is gone or done: nothing to say
        pass
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _die_with(parent: int) -> None:  # pragma: no cover (runs in the child)
    """Ask the kernel to SIGKILL this process when its parent dies (Linux)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(0)
