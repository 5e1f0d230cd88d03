"""Where a build's parallel work runs: forked processes here, or a Dask cluster.

An *executor* opens one pool per layer (``executor.pool(func)``) with the interface of
``gamedb.builder.workers.Workers``: ``imap(items)`` yields ``func(item)`` in order, ``stop()``
ends it. ``executor(workers, cluster)`` chooses, in this one place:

- ``cluster=None``: ``Local``, ``workers`` forked processes (``gamedb.builder.workers``);
- ``"tcp://host:port"``: ``Dask``, a client of that running Dask scheduler;
- ``"local:N"``: ``Dask`` on a ``LocalCluster`` in this process (one worker of N
  threads), started here and shut down with the executor; its threads share the
  builder's memory (``Dask.shares_memory``).

On a cluster, ``func`` (the game, the layer, the values of the layers below) is sent to
every worker once per layer (``Client.scatter(broadcast=True)``); each task is a group of
consecutive items (``group_sizes``) and returns their results, which only the builder
writes. A lost worker costs its tasks, which Dask runs again elsewhere.
``distributed`` is imported only here and only when a cluster is asked for: the core
package runs without it (``pip install -e ".[cluster]"`` brings it).

>>> parse_address("local:2"), parse_address("tcp://10.0.0.5:8786")
(('local', 2), ('scheduler', 'tcp://10.0.0.5:8786'))
>>> with executor(2) as run_on:
...     list(run_on.pool(abs).imap([-3, 2, -1]))
[3, 2, 1]
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import os
import re
import socket
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from gamedb.builder.workers import WorkerDied, Workers
from gamedb.store.engine import interrupts_deferred

if TYPE_CHECKING:  # distributed is optional: imported only when a cluster is used
    from distributed import Client as Client, Future as Future, LocalCluster

T = TypeVar("T")
R = TypeVar("R")
T_contra = TypeVar("T_contra", contravariant=True)
R_co = TypeVar("R_co", covariant=True)

#: Most tasks one pool sends per ``imap`` (a layer): items are grouped to stay below.
MAX_TASKS = 1_000
#: Most items (chunks) in one task, unless ``MAX_TASKS`` needs more: 16 chunks of the
#: default 32,768 positions are about half a second of solving, against the 5-10 ms of
#: CPU Dask spends on each task (scheduler, client and worker; one task a chunk made
#: ``local:2`` 29% slower than ``--workers 2`` at 11 cards, 16 chunks 12%).
GROUP = 16
#: The rest of a layer is cut into at least this many tasks per worker thread: the last
#: tasks of a layer are small, so that no worker waits long for another at its end.
SPREAD = 4
#: Tasks in flight per worker thread: enough that no worker waits for the builder, few
#: enough that finished results do not pile up on the cluster.
AHEAD = 2

#: Seconds between two questions to the scheduler about its threads within a layer (a
#: round trip through its event loop: 0.85 ms inside an 11-card ``local:2`` build).
REASK = 1.0

#: Times one ``DaskPool.imap`` submits its tasks again after Dask cancelled them.
RESUBMITS = 3

#: Seconds a scheduler address has to accept a connection, and then again to answer
#: as a Dask scheduler (Dask's own handshake waits without a limit: a server that
#: accepted and said nothing held a build forever; one that answered junk made Dask
#: ask for gigabytes, and said "out of memory" a minute later), unless the environment
#: variable ``TIMEOUT_VARIABLE`` gives another number (``handshake_seconds``).
CONNECT_SECONDS = 10.0
TIMEOUT_VARIABLE = "GAMEDB_CLUSTER_TIMEOUT"

_ADDRESS = re.compile(r"(?:local:(?P<n>[0-9]+)|(?P<url>(?:tcp|tls)://[^\s:/]+:[0-9]+))")
_EXTRA = 'pip install -e ".[cluster]"'


class ClusterError(RuntimeError):
    """The cluster cannot be used: no ``distributed``, no scheduler, scheduler lost."""


class Pool(Protocol[T_contra, R_co]):
    """What a builder needs of its workers (``gamedb.builder.workers.Workers`` has it)."""

    def imap(self, items: Iterable[T_contra]) -> Iterator[R_co]:
        """Yield ``func(item)`` for every item, in order."""

    def stop(self) -> None:
        """End the pool (idempotent)."""


class Local:
    """``count`` forked processes on this machine, started anew for every pool."""

    def __init__(self, count: int):
        self.count = count

    @property
    def parallel(self) -> bool:
        """Whether a pool is worth starting for a layer of several chunks."""
        return self.count > 1

    def pool(self, func: Callable[[T], R]) -> Pool[T, R]:
        """Fork the processes now: they inherit ``func`` and what it holds."""
        return Workers(self.count, func)

    def close(self) -> None:
        """Nothing to end: every pool ends with its layer."""

    def __enter__(self) -> Local:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def parse_address(text: str) -> tuple[str, Any]:
    """Return ``("local", N)`` for ``local:N`` (N >= 1), ``("scheduler", text)`` for
    ``tcp://host:port`` or ``tls://host:port``; raise ``ValueError`` otherwise."""
    match = _ADDRESS.fullmatch(text.strip())
    if match is None or (match["n"] is not None and not 1 <= int(match["n"]) <= 256):
        raise ValueError(f"{text!r} is not a cluster address: expected tcp://HOST:PORT "
                         "(a running Dask scheduler) or local:N (N worker threads here, "
                         "1-256)")
    if match["url"] is not None:
        port = match["url"].rpartition(":")[2]
        if not 1 <= int(port) <= 65535:  # else a 30 s wait to say it cannot connect
            raise ValueError(f"{text!r}: port {port[:20]} is out of range 1..65535")
    return ("local", int(match["n"])) if match["n"] else ("scheduler", match["url"])


def executor(workers: int, cluster: str | None = None) -> Executor:
    """Return where a build runs its pools: ``Local(workers)``, or the Dask cluster at
    ``cluster`` (an address for ``parse_address``; raise ``ClusterError`` if it cannot
    be reached or ``distributed`` is not installed)."""
    if cluster is None:
        return Local(workers)
    kind, where = parse_address(cluster)
    return Dask.start(where) if kind == "local" else Dask.connect(where)


def processes_here(workers: int, cluster: str | None) -> int:
    """Return the solver processes a build runs on this machine (for its memory
    estimate): ``workers``, N for ``local:N``, none besides the builder for a scheduler."""
    if cluster is None:
        return workers
    kind, where = parse_address(cluster)
    return int(where) if kind == "local" else 1


def ordered(run_on: Executor, func: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
    """Yield ``func(item)`` for every item, in order, from a pool of ``run_on`` that
    lives as long as this generator."""
    pool = run_on.pool(func)
    try:
        yield from pool.imap(items)
    finally:
        pool.stop()


class Dask:
    """A Dask client, and the ``LocalCluster`` it started if any (closed with it)."""

    parallel = True

    def __init__(self, client: Client, cluster: LocalCluster | None = None):
        self.client, self._cluster = client, cluster

    @classmethod
    def connect(cls, address: str) -> Dask:
        """Connect to the scheduler at ``address``, refused (``ClusterError``) unless it
        accepts within ``handshake_seconds()`` and then answers as a Dask scheduler
        within as long again (``_identify``)."""
        seconds = handshake_seconds()
        distributed = _distributed()
        _quiet_client_logs()
        if address.startswith("tls://") and distributed.Security().get_connection_args(
                "client").get("ssl_context") is None:  # else a TypeError, and a Client
            # half made that blocks the exit for 60 s closing itself
            raise ClusterError(f"{address}: tls:// needs Dask's TLS settings (the "
                               "distributed.comm.tls ca-file, client cert and key in its "
                               "configuration), and none are set; set them, or use tcp://")
        _identify(distributed, address, seconds)
        try:
            return cls(distributed.Client(address, set_as_default=False, timeout=seconds))
        except (OSError, distributed.comm.CommClosedError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: "
                               f"{_first_line(exc)}") from None

    @classmethod
    def start(cls, count: int) -> Dask:
        """Start a ``LocalCluster`` in this process: its scheduler, and one worker of
        ``count`` threads (the compiled code releases the GIL: ``gamedb.jit``).

        Threads, not processes: what a task needs and returns stays in this process,
        never serialized, and no worker process competes for the cores with the builder,
        where the scheduler runs (11 cards: worker processes made the build 12% slower
        than ``--workers 2``; BENCHMARKS.md). No memory limit: a worker in this process
        must never spill or pause on the builder's memory. No work stealing (there is one
        worker) and no statistical profiler sampling the threads every 10 ms (no
        dashboard shows it): 1-2% of an 11-card build. No dashboard (where bokeh is
        installed, one started on a port nobody was told of: 0.28 s to start); the
        scheduler's HTTP server keeps a free port of its own (on 8787, the default, a
        second cluster printed a warning)."""
        distributed = _distributed()
        _quiet_client_logs()  # the scheduler runs here: a Ctrl-C mid-task said nothing else
        cluster = None
        try:
            # a Ctrl-C while it starts is raised once it is up, then it is closed
            with interrupts_deferred(), _dask_config(LOCAL_SETTINGS):
                cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=count,
                                                   processes=False, memory_limit=0,
                                                   dashboard_address=":0",
                                                   scheduler_kwargs={"dashboard": False},
                                                   silence_logs=logging.CRITICAL)
            return cls(distributed.Client(cluster, set_as_default=False), cluster)
        except BaseException:
            if cluster is not None:
                cluster.close()
            raise

    @property
    def shares_memory(self) -> bool:
        """True for ``local:N``: its workers are threads of this process and see what the
        builder holds, so a layer is solved as ``--workers`` solves it (the whole summary
        below, sent once by reference), never by the map and reduce tasks that spare a
        remote worker the whole summary (``builder.grouped``)."""
        return self._cluster is not None

    def pool(self, func: Callable[[T], R]) -> DaskPool[T, R]:
        """Send ``func`` to every worker (waiting for the first worker to join)."""
        return DaskPool(self.client, func)

    def close(self) -> None:
        """Disconnect; shut down the ``LocalCluster`` if this executor started it, without
        waiting for the tasks its threads run (a Ctrl-C waited 30 s for them, Dask's
        limit; their results are not wanted, and a daemon thread ends with the process)."""
        self.client.close()
        if self._cluster is not None:
            for worker in list(self._cluster.workers.values()):
                self._cluster.sync(worker.close, executor_wait=False)
            self._cluster.close()

    def __enter__(self) -> Dask:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class DaskPool(Generic[T, R]):
    """``func`` scattered to the workers; ``imap`` runs groups of items as tasks."""

    def __init__(self, client: Client, func: Callable[[T], R]):
        self._client, self._raw = client, func
        self._running: deque[tuple[list[T], Future[list[R]]]] = deque()
        with translated(client):
            client.wait_for_workers(1)
            self._func = client.scatter(func, broadcast=True, hash=False)

    def imap(self, items: Iterable[T]) -> Iterator[R]:
        """Yield ``func(item)`` for every item, in order, computed on the cluster.

        Tasks that Dask cancels while the scheduler is still there (a killed worker
        took the only copy of ``func``: "already forgotten") are submitted again, with
        ``func`` scattered anew, at most ``RESUBMITS`` times per call."""
        tasks = list(items)
        asked, threads = time.monotonic(), self._threads()
        bounds = [0, *itertools.accumulate(group_sizes(len(tasks), threads))]
        groups = iter([tasks[start:stop] for start, stop in itertools.pairwise(bounds)])
        self._fill(groups, threads)
        resubmits = 0
        while self._running:
            try:
                results = self._running[0][1].result()
            except Exception as exc:
                if resubmits < RESUBMITS and self._cancelled_here(exc):
                    resubmits += 1
                    self._resubmit()
                    continue
                if isinstance(exc, OSError) and self._running[0][1].status == "error":
                    raise task_failed(exc) from None  # the task's own, not the network's
                with translated(self._client):
                    raise
            self._running.popleft()
            if time.monotonic() - asked > REASK:  # workers that joined or left
                asked, threads = time.monotonic(), self._threads()
            self._fill(groups, threads)
            yield from results

    def _cancelled_here(self, exc: Exception) -> bool:
        return cancelled_here(self._client, exc)

    def _resubmit(self) -> None:
        """Scatter ``func`` again and submit the groups in flight again, in order."""
        groups = [group for group, _ in self._running]
        with translated(self._client):
            self._client.cancel([future for _, future in self._running])
            self._running.clear()
            self._func = self._client.scatter(self._raw, broadcast=True, hash=False)
            for group in groups:
                self._submit(group)

    def _submit(self, group: list[T]) -> None:
        self._running.append((group, self._client.submit(_run_group, self._func, group,
                                                         pure=False)))

    def _threads(self) -> int:
        with translated(self._client):
            return sum(self._client.nthreads().values())

    def _fill(self, groups: Iterator[list[T]], threads: int) -> None:
        """Submit groups until ``AHEAD`` per worker thread are in flight."""
        room = AHEAD * max(1, threads)
        with translated(self._client):
            while len(self._running) < room and (group := next(groups, None)) is not None:
                self._submit(group)

    def stop(self) -> None:
        """Cancel the tasks in flight and forget ``func`` on the workers (idempotent)."""
        futures = [*(future for _, future in self._running), self._func]
        self._running.clear()
        if self._client.status == "running":
            self._client.cancel(futures)

    def __enter__(self) -> DaskPool[T, R]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def group_sizes(count: int, threads: int) -> list[int]:
    """Cut ``count`` items into consecutive tasks for ``threads`` worker threads: at most
    ``GROUP`` items a task (more only where ``MAX_TASKS`` needs it), and none bigger than
    the items left over ``SPREAD`` tasks per thread (guided self-scheduling: big tasks
    first, small ones at the end of a layer).

    >>> group_sizes(100, 2)
    [13, 11, 10, 9, 8, 7, 6, 5, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1]
    >>> group_sizes(600, 2)[:3], len(group_sizes(600, 2)), len(group_sizes(10**6, 2))
    ([16, 16, 16], 55, 1000)
    """
    floor = max(1, math.ceil(count / MAX_TASKS))
    sizes = []
    while count > 0:
        size = min(count, max(floor, min(GROUP, math.ceil(count / (SPREAD * max(1, threads))))))
        sizes.append(size)
        count -= size
    return sizes


def cancelled_here(client: Client, exc: BaseException) -> bool:
    """True for a task cancelled by a scheduler that is still connected (a killed worker
    took the only copy of data sent from here: "already forgotten")."""
    distributed = _distributed()
    return (isinstance(exc, distributed.client.FutureCancelledError)
            and "scheduler-connection-lost" not in str(exc)
            and client.status == "running")


def completed(client: Client, futures: list[Future[Any]]) -> Iterator[Future[Any]]:
    """Yield ``futures`` as they finish (Dask's ``as_completed`` on this client), a
    lost scheduler said as ``translated`` says it."""
    if not futures:
        return
    with translated(client):
        pending = _distributed().as_completed(futures, loop=client.loop)
    while True:
        with translated(client):
            future = next(pending, None)
        if future is None:
            return
        yield future


def handshake_seconds() -> float:
    """Seconds to connect, and again to hear a scheduler answer: ``$TIMEOUT_VARIABLE``
    (a number above 0), else ``CONNECT_SECONDS``; ``ClusterError`` for anything else."""
    text = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not text:
        return CONNECT_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds < math.inf:
        raise ClusterError(f"{TIMEOUT_VARIABLE}={text[:40]!r} is not a number of seconds "
                           f"above 0 (e.g. {TIMEOUT_VARIABLE}=60); set it to one, or unset "
                           f"it for {CONNECT_SECONDS:g} s")
    return seconds


def _identify(distributed: Any, address: str, seconds: float) -> None:
    """Raise ``ClusterError`` unless ``address`` accepts a connection within
    ``seconds`` and then answers Dask's handshake and ``identity`` as a scheduler
    within ``seconds`` more. Runs in this thread, so a Ctrl-C (or ``kill -INT``) stops
    the wait at once; no ``Client`` is made, so none is left half-made to block the
    exit while it closes itself."""
    host, _, port = address.partition("://")[2].rpartition(":")
    longer = f"or allow it longer with {TIMEOUT_VARIABLE}=SECONDS"
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=seconds).close()
    except OSError as exc:
        reason = (f"no connection within {seconds:g} s; {longer}"
                  if isinstance(exc, TimeoutError) else exc.strerror or _first_line(exc))
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {reason}") from None
    not_dask = f"{address} did not answer as a Dask scheduler"
    try:
        answer = asyncio.run(_identity(distributed, address, seconds))
    except asyncio.TimeoutError:
        raise ClusterError(f"{not_dask} within {seconds:g} s (it accepted the connection, "
                           f"then said nothing); check the address and port, {longer}") from None
    except distributed.comm.CommClosedError:
        raise ClusterError(f"{not_dask}: it closed the connection without a word; check the "
                           "address and port") from None
    except Exception:  # junk read as Dask's frames: any error, a MemoryError included
        raise ClusterError(f"{not_dask}: what it sent is not Dask's protocol; check the "
                           "address and port") from None
    kind = answer.get("type") if isinstance(answer, dict) else None
    if kind != "Scheduler":
        what = f"a Dask {kind[:40]}" if isinstance(kind, str) else "no Dask scheduler"
        scheduler = answer.get("scheduler") if isinstance(answer, dict) else None
        if isinstance(scheduler, str):  # a worker says whose it is
            what += f" (of the scheduler {scheduler[:100]})"
        raise ClusterError(f"{not_dask}: it is {what}; give the scheduler's address")


async def _identity(distributed: Any, address: str, seconds: float) -> Any:
    """Return what ``address`` answers to Dask's handshake and ``identity`` message,
    within ``seconds`` (raise ``asyncio.TimeoutError`` past them)."""
    async def asked() -> Any:
        comm = await distributed.comm.connect(address, timeout=seconds)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    awake = asyncio.ensure_future(_tick())
    try:
        return await asyncio.wait_for(asked(), seconds)
    finally:
        awake.cancel()


async def _tick() -> None:
    """Wake the event loop every 0.1 s: a SIGINT that the kernel hands to another thread
    (a resolver's) is only noticed, and raised here, when this thread runs Python."""
    while True:
        await asyncio.sleep(0.1)


def _quiet_client_logs() -> None:
    """Keep Dask's client logs (reconnect attempts, their tracebacks) off the user's
    terminal: a lost scheduler is said once, by ``translated``, in one line."""
    names = [name for name in logging.root.manager.loggerDict
             if name.split(".")[0] in ("distributed", "tornado", "asyncio")]
    for name in {"distributed", "tornado", "asyncio", *names}:  # some set their own level
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def _run_group(func: Callable[[T], R], group: list[T]) -> list[R]:  # runs on a worker
    return [func(item) for item in group]


class translated:
    """Turn the cluster's failures into ``WorkerDied`` / ``ClusterError``."""

    def __init__(self, client: Client):
        self._address = client.scheduler.address if client.scheduler else "?"

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> None:
        if exc is None or not isinstance(exc, Exception):
            return
        distributed = _distributed()
        if isinstance(exc, distributed.scheduler.KilledWorker):
            raise WorkerDied("the Dask workers running one task died too often (killed, or "
                             "out of memory?); every finished chunk is saved: run the same "
                             "command to resume") from None
        if isinstance(exc, (OSError, distributed.comm.CommClosedError,
                            distributed.client.FutureCancelledError)):
            raise ClusterError(f"lost the Dask scheduler at {self._address} "
                               f"({_first_line(exc)}); every finished chunk is saved: run "
                               "the same command to resume") from None


def task_failed(exc: OSError) -> ClusterError:
    """A task's own ``OSError`` (e.g. a worker's full disk), said as itself."""
    where = f"{exc.filename}: " if exc.filename else ""
    return ClusterError(f"a task failed on a Dask worker: {where}{exc.strerror or exc}; "
                        "every finished chunk is saved: run the same command to resume")


#: Dask settings of a ``local:N`` cluster (``Dask.start``). Its one worker and scheduler
#: in this process need no stealing, no profiler, no replicas moved between workers (the
#: active memory manager), and the checks that only log a busy event loop (``tick``) or
#: feed a dashboard (``system-monitor``) need not wake the loop 100 times a second: an
#: idle cluster's CPU goes from 11.2 to 2.7 ms a second, taken from the solving threads.
LOCAL_SETTINGS = {"distributed.scheduler.work-stealing": False,
                  "distributed.worker.profile.enabled": False,
                  "distributed.scheduler.active-memory-manager.start": False,
                  "distributed.admin.tick.interval": "1s",
                  "distributed.admin.system-monitor.interval": "10s"}


def _dask_config(settings: dict[str, Any]) -> Any:
    """``dask.config.set(settings)``: a context manager."""
    import dask

    return dask.config.set(settings)


def _distributed() -> Any:
    """Import ``distributed``, or say which extra brings it."""
    try:
        import distributed
        import distributed.client
        import distributed.comm
        import distributed.scheduler
    except ImportError:
        raise ClusterError(f"--cluster needs Dask's distributed, which is not installed: "
                           f"{_EXTRA}") from None
    return distributed


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


Executor = Local | Dask

__all__ = ["AHEAD", "MAX_TASKS", "ClusterError", "Dask", "DaskPool", "Executor", "Local",
           "Pool", "executor", "ordered", "parse_address", "processes_here"]
