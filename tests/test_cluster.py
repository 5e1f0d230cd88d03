"""``gamedb build --cluster``: a Dask cluster writes the same file as a local build.

Builds on a ``LocalCluster`` (``local:2``) and on a real ``dask scheduler`` with two
``dask worker`` processes on localhost are compared row by row with a local build of
the same chunk size: every state (key, layer, value, gap, strategy texts), every layer,
every meta row that records no timing. A worker SIGKILLed while it runs chunks, a
client SIGKILLed mid-build, a Ctrl-C: the result is still the same file. The tests that
need a cluster skip without ``distributed`` (``pip install -e ".[cluster]"``).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gamedb.builder import build
from gamedb.builder.progress import Counting
from gamedb.cli import cli

ROOT = Path(__file__).resolve().parents[1]
NEEDS = "build --cluster needs Dask's distributed: pip install -e \".[cluster]\""
#: (spec, chunk size): every builder (generic, indexed point difference) and family,
#: small, with several chunks per big layer so that the cluster runs them.
SPECS = [("jujitsu(num_cards=6)", 20),
         ("goofspiel(num_cards=6,returns_type=point_difference)", 200),  # indexed face
         ("goofspiel(num_cards=5,ties=carry)", 100),  # win/loss, generic builder
         ("oshi_zumo(coins=12,size=5)", 20)]
#: Long enough to be killed while chunks run (win/loss through the indexed face).
LONG = ("goofspiel(num_cards=6)", 200)
INTERRUPTED = re.compile(r"^interrupted(: every finished chunk is saved in .*; run the same "
                         r"command to resume| before .* was written: nothing to resume)$")
BAR = re.compile(r"states(/s| \[|\])|^\s*$")


def _dump(path: Path) -> tuple[object, ...]:
    """Everything a build decides (no timings, no creation time)."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return (conn.execute("SELECT key, layer, value, gap, strategy1, strategy2 FROM states "
                             "ORDER BY key").fetchall(),
                conn.execute("SELECT layer, states, done, max_gap FROM layers "
                             "ORDER BY layer").fetchall(),
                conn.execute("SELECT name, value FROM meta WHERE name NOT IN "
                             "('created', 'seconds') ORDER BY name").fetchall(),
                conn.execute("SELECT * FROM grundy ORDER BY 1").fetchall())


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, int], tuple[object, ...]]:
    """spec, chunk size -> the dump of its local build (built once)."""
    cache: dict[tuple[str, int], tuple[object, ...]] = {}

    def get(spec: str, chunk: int) -> tuple[object, ...]:
        if (spec, chunk) not in cache:
            path = tmp_path_factory.mktemp("ref") / "ref.sqlite"
            build(spec, path, chunk_size=chunk)
            cache[spec, chunk] = _dump(path)
            assert cache[spec, chunk][0], spec
        return cache[spec, chunk]
    return get


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env() -> dict[str, str]:
    """The environment of a subprocess: this checkout first on the path."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


class Scheduler:
    """A ``dask scheduler`` and its ``dask worker`` processes on localhost."""

    def __init__(self) -> None:
        self.address = f"tcp://127.0.0.1:{_free_port()}"
        self.procs: list[subprocess.Popen[bytes]] = []
        self.workers: list[subprocess.Popen[bytes]] = []
        self._start(["scheduler", "--host", "127.0.0.1", "--port",
                     self.address.rsplit(":", 1)[1], "--no-dashboard"])

    def _start(self, args: list[str]) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_" + args[0],
                                 *args[1:]], env=_env(), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        self.procs.append(proc)
        return proc

    def add_worker(self) -> None:
        """Start one single-threaded worker without a nanny (its pid is the worker's)."""
        self.workers.append(self._start(["worker", self.address, "--nthreads", "1",
                                         "--no-nanny", "--no-dashboard"]))

    def wait_for_workers(self, count: int) -> None:
        import distributed

        with distributed.Client(self.address, timeout="60s") as client:
            client.wait_for_workers(count, timeout=120)

    def executed(self) -> int:
        """Tasks the workers have run so far."""
        import distributed

        def count(dask_worker: distributed.Worker) -> int:
            return int(dask_worker.state.executed_count)

        with distributed.Client(self.address, timeout="60s") as client:
            return sum(client.run(count).values())

    def stop(self) -> None:
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


@pytest.fixture(scope="module")
def scheduler() -> Iterator[Scheduler]:
    """A real scheduler and two workers, torn down even when a test fails."""
    pytest.importorskip("distributed", reason=NEEDS)
    cluster = Scheduler()
    try:
        cluster.add_worker()
        cluster.add_worker()
        cluster.wait_for_workers(2)
        yield cluster
    finally:
        cluster.stop()


@pytest.mark.parametrize("spec, chunk", SPECS, ids=[s for s, _ in SPECS])
def test_a_build_on_a_dask_scheduler_is_the_local_build(
        tmp_path: Path, scheduler: Scheduler, reference: Callable[[str, int], tuple[object, ...]],
        spec: str, chunk: int) -> None:
    path = tmp_path / "cluster.sqlite"
    before = scheduler.executed()
    report = build(spec, path, chunk_size=chunk, cluster=scheduler.address)
    assert report.status == "complete"
    assert scheduler.executed() >= before + 2, "the chunks did not run on the workers"
    assert _dump(path) == reference(spec, chunk)


@pytest.mark.parametrize("spec, chunk", [SPECS[0], SPECS[1]], ids=[SPECS[0][0], SPECS[1][0]])
def test_a_build_on_a_local_cluster_is_the_local_build(
        tmp_path: Path, reference: Callable[[str, int], tuple[object, ...]],
        spec: str, chunk: int) -> None:
    pytest.importorskip("distributed", reason=NEEDS)
    path = tmp_path / "local.sqlite"
    assert build(spec, path, chunk_size=chunk, cluster="local:2").status == "complete"
    assert _dump(path) == reference(spec, chunk)


def test_a_local_clusters_workers_are_threads_of_the_builder() -> None:
    """``local:N`` was N worker processes: the scheduler's work in the builder and the
    serialized tasks and results made 11 cards 12% slower than ``--workers 2`` on two
    cores (29% at one task a chunk, 34% with spawned workers). It is one worker of N
    threads in the builder's own process, and no other process."""
    pytest.importorskip("distributed", reason=NEEDS)
    import psutil

    from gamedb.builder.cluster import Dask

    before = set(psutil.Process().children(recursive=True))  # other tests' schedulers
    with Dask.start(3) as cluster:
        pids = cluster.client.run(os.getpid)
        assert list(cluster.client.nthreads().values()) == [3]
        # one worker: nothing to steal; no dashboard: no profiler sampling the threads
        assert "stealing" not in cluster.client.run_on_scheduler(
            lambda dask_scheduler: list(dask_scheduler.extensions))
        [callbacks] = cluster.client.run(
            lambda dask_worker: list(dask_worker.periodic_callbacks)).values()
        assert "heartbeat" in callbacks and "profile" not in callbacks
        # checks that only log, feed a dashboard or move copies between workers wake the
        # event loop rarely or never: 11.2 ms of CPU a second of an idle cluster, now 2.7
        [every] = cluster.client.run(lambda dask_worker: {
            name: c.callback_time for name, c in dask_worker.periodic_callbacks.items()}).values()
        scheduled = cluster.client.run_on_scheduler(lambda dask_scheduler: {
            name: c.callback_time for name, c in dask_scheduler.periodic_callbacks.items()})
        for times in (every, scheduled):
            assert times["tick"] >= 1000 and times["monitor"] >= 10_000, times
        assert not [name for name in scheduled if name.startswith("amm")], scheduled
        # no dashboard either: with bokeh installed one started on a port nobody was told
        # of, and importing bokeh made the start 0.28 s longer
        assert cluster._cluster is not None
        assert cluster._cluster.scheduler_spec["options"]["dashboard"] is False
        started = set(psutil.Process().children(recursive=True)) - before
    assert list(pids.values()) == [os.getpid()]
    assert not [child for child in started if "resource_tracker" not in " ".join(
        child.cmdline())], started


def test_a_killed_local_cluster_build_resumes_at_once(
        tmp_path: Path, reference: Callable[[str, int], tuple[object, ...]]) -> None:
    """The builder of a ``local:2`` build SIGKILLed, with its cluster and workers: the
    build's lock dies with it, and the same command resumes at once, to the same file."""
    pytest.importorskip("distributed", reason=NEEDS)
    _killed_and_resumed(tmp_path / "local.sqlite", "local:2", reference)


def test_a_worker_killed_while_it_runs_chunks_changes_nothing(
        tmp_path: Path, scheduler: Scheduler,
        reference: Callable[[str, int], tuple[object, ...]]) -> None:
    import distributed

    killed: list[str] = []
    with distributed.Client(scheduler.address, set_as_default=False) as watcher:
        pids = watcher.run(os.getpid)  # worker address -> pid

        def kill_a_busy_worker(done: int, total: int) -> None:
            busy = [w for w, tasks in watcher.processing().items() if tasks and w in pids]
            if busy and not killed:
                os.kill(pids[busy[0]], signal.SIGKILL)
                killed.append(busy[0])

        path = tmp_path / "killed.sqlite"
        build(LONG[0], path, chunk_size=LONG[1], cluster=scheduler.address,
              observer=Counting(kill_a_busy_worker))
    assert killed, "no worker was ever seen running a chunk"
    assert any(w.poll() == -signal.SIGKILL for w in scheduler.workers)
    assert _dump(path) == reference(*LONG)
    scheduler.add_worker()  # two again for the tests after this one
    scheduler.wait_for_workers(2)


def test_a_layers_chunks_go_out_as_few_tasks_big_first_and_small_at_the_end() -> None:
    """One task a chunk cost Dask 5-10 ms of CPU each (``local:2`` 29% slower than
    ``--workers 2`` at 11 cards); one big task at a layer's end kept the other workers
    waiting. Every chunk is in exactly one task, in order of size."""
    from gamedb.builder.cluster import GROUP, MAX_TASKS, SPREAD, group_sizes

    for count in (0, 1, 7, 100, 584, 5_000, 10**6):
        for threads in (1, 2, 64):
            sizes, floor = group_sizes(count, threads), -(-count // MAX_TASKS)
            assert sum(sizes) == count and len(sizes) <= MAX_TASKS
            assert sizes == sorted(sizes, reverse=True)
            assert min(count, SPREAD * threads) <= len(sizes) <= count // GROUP + 16 * threads
            left = count
            for size in sizes:  # never more than the rest over SPREAD tasks a thread
                assert size <= max(floor, min(GROUP, -(-left // (SPREAD * threads))))
                left -= size
            assert sizes[-1:] <= [max(floor, 1)]


def test_a_pool_asks_for_the_threads_once_a_layer_and_keeps_two_tasks_a_thread_going(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Asking the scheduler how many threads it has is a round trip through its event
    loop (0.85 ms each inside an 11-card ``local:2`` build, where the solving threads
    hold the GIL); it was asked again after every finished task. It is asked when a
    layer starts, and then at most once every ``REASK`` seconds for workers that join."""
    pytest.importorskip("distributed", reason=NEEDS)
    from gamedb.builder import cluster as module
    from gamedb.builder.cluster import AHEAD, Dask

    monkeypatch.setattr(module, "REASK", 3600.0)
    with Dask.start(2) as cluster:
        asked = 0
        real = cluster.client.nthreads

        def nthreads(*args: Any, **kwargs: Any) -> Any:
            nonlocal asked
            asked += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(cluster.client, "nthreads", nthreads)
        with cluster.pool(abs) as pool:
            for layer in range(2):
                in_flight = []
                results = []
                for value in pool.imap(range(0, -500, -1)):
                    results.append(value)
                    in_flight.append(len(pool._running))
                assert results == list(range(500))
                assert max(in_flight) == AHEAD * 2
                assert asked == layer + 1
            monkeypatch.setattr(module, "REASK", -1.0)  # asked after every finished task
            assert list(pool.imap(range(0, -500, -1))) == list(range(500))
            assert asked > 20


def test_tasks_cancelled_while_the_scheduler_is_there_are_submitted_again(
        scheduler: Scheduler) -> None:
    """What a worker killed at the wrong moment can do (CI saw it once): Dask cancels
    tasks ("already forgotten") whose scattered function lived only on that worker.
    The pool scatters the function again and submits the cancelled groups again."""
    import distributed

    from gamedb.builder.cluster import DaskPool

    with distributed.Client(scheduler.address, set_as_default=False) as client:
        with DaskPool(client, abs) as pool:
            got = []
            for i, value in enumerate(pool.imap(range(0, -40, -1))):
                got.append(value)
                if i in (0, 5):  # cancel whatever is in flight, twice
                    client.cancel([future for _, future in pool._running])
    assert got == list(range(40))


def test_an_os_error_inside_a_task_is_said_as_itself_not_as_a_lost_scheduler(
        scheduler: Scheduler) -> None:
    """A task's own OSError (a worker's full disk, say) was reported as "lost the Dask
    scheduler", which sends the user looking for a network problem."""
    import distributed

    from gamedb.builder.cluster import ClusterError, DaskPool

    def full_disk(value: int) -> int:
        raise OSError(28, "No space left on device", "/scratch/chunk-7")

    with distributed.Client(scheduler.address, set_as_default=False) as client:
        with DaskPool(client, full_disk) as pool:
            with pytest.raises(ClusterError) as raised:
                list(pool.imap(range(3)))
    said = str(raised.value)
    assert "lost the Dask scheduler" not in said, said
    assert "on a Dask worker" in said and "/scratch/chunk-7: No space left on device" in said


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "gamedb", "build", *args]


def _stored(path: Path) -> int:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.1) as conn:
            return int(conn.execute("SELECT count(*) FROM states").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_a_killed_client_resumes_to_the_same_file(
        tmp_path: Path, scheduler: Scheduler,
        reference: Callable[[str, int], tuple[object, ...]]) -> None:
    _killed_and_resumed(tmp_path / "client.sqlite", scheduler.address, reference)


def _killed_and_resumed(path: Path, cluster: str,
                        reference: Callable[[str, int], tuple[object, ...]]) -> None:
    """SIGKILL a ``--cluster`` build of ``LONG`` (its builder) mid-build, run the same
    command again at once, and check the file is the local build's."""
    args = _cli(LONG[0], "--db", str(path), "--chunk-size", str(LONG[1]), "--quiet",
                "--cluster", cluster)
    client = subprocess.Popen(args, env=_env(), stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while _stored(path) < 1_000 and client.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    client.send_signal(signal.SIGKILL)
    assert client.wait(10) == -signal.SIGKILL, "the build ended before it was killed"
    assert 0 < _stored(path) < sum(1 for _ in reference(*LONG)[0])
    try:
        done = subprocess.run(args, env=_env(), capture_output=True, text=True, timeout=300)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(client.pid, signal.SIGKILL)  # a local cluster's workers, if left
    assert done.returncode == 0, done.stderr
    assert _dump(path) == reference(*LONG)


def test_a_scheduler_lost_mid_build_is_one_line_and_the_file_resumes(
        tmp_path: Path, reference: Callable[[str, int], tuple[object, ...]]) -> None:
    """The scheduler SIGKILLed while the build runs chunks on it: the client says so in
    one line (exit 1), and the same build, here without a cluster, resumes the file to
    the reference."""
    pytest.importorskip("distributed", reason=NEEDS)
    cluster = Scheduler()
    path = tmp_path / "lost.sqlite"
    try:
        cluster.add_worker()
        cluster.wait_for_workers(1)
        args = _cli(LONG[0], "--db", str(path), "--chunk-size", str(LONG[1]), "--quiet",
                    "--cluster", cluster.address)
        client = subprocess.Popen(args, env=_env(), stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while _stored(path) < 1_000 and client.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(cluster.procs[0].pid, signal.SIGKILL)  # the scheduler alone
        _, err = client.communicate(timeout=240)
    finally:
        cluster.stop()
    assert client.returncode == 1, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(f"Error: {path}: lost the Dask scheduler at "), err
    assert lines[0].endswith("every finished chunk is saved: run the same command to resume")
    assert 0 < _stored(path) < sum(1 for _ in reference(*LONG)[0])
    done = subprocess.run(_cli(LONG[0], "--db", str(path), "--chunk-size", str(LONG[1]),
                               "--quiet"), env=_env(), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert _dump(path) == reference(*LONG)


def _group(pgid: int) -> set[int]:
    """Pids of the live (not zombie) processes of a process group."""
    pids = set()
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if fields[0] != "Z" and int(fields[2]) == pgid:
                pids.add(int(entry.name))
    return pids


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc")
def test_ctrl_c_stops_the_local_cluster_in_one_line_and_the_build_resumes(
        tmp_path: Path, reference: Callable[[str, int], tuple[object, ...]]) -> None:
    pytest.importorskip("distributed", reason=NEEDS)
    path = tmp_path / "ctrl_c.sqlite"
    args = _cli(LONG[0], "--db", str(path), "--chunk-size", str(LONG[1]))
    proc = _local_build(args)
    deadline = time.monotonic() + 120
    while _stored(path) < 1_000 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the build ended before it was interrupted"
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    _interrupted_then_resumed(proc, [*args, "--cluster", "local:2"], reference(*LONG))


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc")
def test_ctrl_c_while_the_local_cluster_starts_stops_the_build_in_one_line(
        tmp_path: Path, reference: Callable[[str, int], tuple[object, ...]]) -> None:
    """A Ctrl-C while the cluster's workers started was lost: the build went on to the
    end (exit 0). It is held until the cluster is up (a fraction of a second), then
    stops the build as at any other moment, before the file is made."""
    pytest.importorskip("distributed", reason=NEEDS)
    path = tmp_path / "starting.sqlite"
    args = _cli(SPECS[1][0], "--db", str(path), "--chunk-size", str(SPECS[1][1]))
    proc = _local_build([sys.executable, "-c", CTRL_C_AS_IT_STARTS, *args[3:]])
    _interrupted_then_resumed(proc, args, reference(*SPECS[1]), made=False)


#: ``gamedb build`` whose Ctrl-C lands while its ``LocalCluster`` starts.
CTRL_C_AS_IT_STARTS = """
import os, signal, sys
import distributed
from gamedb.cli import cli

start = distributed.LocalCluster.__init__
def ctrl_c_first(self, *args, **kwargs):
    os.killpg(0, signal.SIGINT)
    start(self, *args, **kwargs)
distributed.LocalCluster.__init__ = ctrl_c_first
sys.argv = ["gamedb", *sys.argv[1:]]
cli()
"""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc")
def test_ctrl_c_of_a_build_on_a_dask_scheduler_is_one_line_and_the_cluster_goes_on(
        tmp_path: Path, scheduler: Scheduler,
        reference: Callable[[str, int], tuple[object, ...]]) -> None:
    """The same Ctrl-C on a running scheduler: the builder stops in one line, and the
    scheduler and its workers (started apart, as a user's are) serve the resumed build."""
    path = tmp_path / "ctrl_c_tcp.sqlite"
    args = _cli(LONG[0], "--db", str(path), "--chunk-size", str(LONG[1]),
                "--cluster", scheduler.address)
    proc = subprocess.Popen(args, env=_env(), stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while _stored(path) < 1_000 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    working = [worker for worker in scheduler.workers if worker.poll() is None]
    os.killpg(proc.pid, signal.SIGINT)
    _interrupted_then_resumed(proc, args, reference(*LONG))
    assert working and all(worker.poll() is None for worker in working)


#: ``gamedb build`` whose Ctrl-C lands when the scheduler (in the builder's process, for
#: ``local:N``) sends the first pool's function to the workers, and which is slow enough
#: there that the workers are gone when it looks them up (as with a big function).
CTRL_C_IN_SCATTER = """
import asyncio, os, signal, sys
import distributed.scheduler
from gamedb.cli import cli

replicate = distributed.scheduler.Scheduler.replicate
async def ctrl_c_first(self, *args, **kwargs):
    os.killpg(0, signal.SIGINT)
    for _ in range(1000):
        if not self.workers:
            break
        await asyncio.sleep(0.01)
    return await replicate(self, *args, **kwargs)
distributed.scheduler.Scheduler.replicate = ctrl_c_first
sys.argv = ["gamedb", *sys.argv[1:]]
cli()
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc")
def test_ctrl_c_while_the_first_function_is_sent_is_one_line(
        tmp_path: Path, reference: Callable[[str, int], tuple[object, ...]]) -> None:
    """The scheduler's failure to send it to workers the Ctrl-C had closed used to come
    out as a "Task exception was never retrieved" traceback before the line."""
    pytest.importorskip("distributed", reason=NEEDS)
    path = tmp_path / "scatter.sqlite"
    args = _cli(SPECS[1][0], "--db", str(path), "--chunk-size", str(SPECS[1][1]))
    proc = _local_build([sys.executable, "-c", CTRL_C_IN_SCATTER, *args[3:]])
    _interrupted_then_resumed(proc, args, reference(*SPECS[1]))


#: ``gamedb build`` whose tasks on a local cluster's threads sleep ten minutes (the first
#: one touches the file named by $STARTED), as a big layer's tasks run for long.
SLOW_TASKS = """
import os, sys, threading, time
from pathlib import Path
import gamedb.builder.runner as runner
from gamedb.cli import cli

solve = runner.solve_range
def slow(*args, **kwargs):
    if threading.current_thread() is not threading.main_thread():
        Path(os.environ["STARTED"]).touch()
        time.sleep(600)
    return solve(*args, **kwargs)
runner.solve_range = slow
sys.argv = ["gamedb", *sys.argv[1:]]
cli()
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc")
def test_ctrl_c_while_a_local_clusters_tasks_run_does_not_wait_for_them(
        tmp_path: Path, reference: Callable[[str, int], tuple[object, ...]]) -> None:
    """``local:N``'s workers are threads of the builder: shutting the cluster down waited
    for the tasks they were running (a Ctrl-C of 10-card win/loss took 13 s to stop; a
    13-card map task runs 40 s). It leaves them and stops at once."""
    pytest.importorskip("distributed", reason=NEEDS)
    path, started = tmp_path / "slow.sqlite", tmp_path / "started"
    args = _cli(LONG[0], "--db", str(path), "--chunk-size", str(LONG[1]))
    proc = subprocess.Popen([sys.executable, "-c", SLOW_TASKS, *args[3:], "--cluster",
                             "local:2"], env={**_env(), "STARTED": str(started)},
                            stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while not started.exists():
        assert proc.poll() is None and time.monotonic() < deadline, "no task started"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _interrupted_then_resumed(proc, [*args, "--cluster", "local:2"], reference(*LONG),
                              seconds=15)


def _local_build(args: list[str]) -> subprocess.Popen[bytes]:
    """Start ``args`` with ``--cluster local:2`` in a process group of its own."""
    return subprocess.Popen([*args, "--cluster", "local:2"], env=_env(),
                            stderr=subprocess.PIPE, start_new_session=True)


def _interrupted_then_resumed(proc: subprocess.Popen[bytes], again: list[str],
                              reference: tuple[object, ...], made: bool = True,
                              seconds: float = 60) -> None:
    """Check that ``proc``, sent a Ctrl-C, said the one line of an interrupted build and
    exited 130 within ``seconds``, leaving no process of its group behind (nor its file,
    ``again``'s ``--db``, unless ``made``); and that the build ``again`` then ends in the
    reference."""
    err = proc.communicate(timeout=seconds)[1].decode()
    lines = [line.strip() for line in re.split(r"[\r\n]", err) if not BAR.search(line)]
    assert proc.returncode == 130, err[-2000:]
    assert len(lines) == 1 and INTERRUPTED.match(lines[0]), err[-2000:]
    assert not _wait_gone(proc.pid), "Dask processes left after Ctrl-C"
    path = Path(again[again.index("--db") + 1])
    assert path.exists() == made
    done = subprocess.run([*again, "--quiet"], env=_env(), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert _dump(path) == reference


def _wait_gone(pgid: int, timeout: float = 10.0) -> set[int]:
    deadline = time.monotonic() + timeout
    while (alive := _group(pgid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


# -- failures before anything is written: one line, the file untouched -----------------

def test_a_bad_cluster_address_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["build", "jujitsu(num_cards=4)", "--db",
                                      str(tmp_path / "x.sqlite"), "--cluster", "tcp://nowhere"])
    assert result.exit_code == 2, result.output
    assert "is not a cluster address: expected tcp://HOST:PORT" in result.output
    assert not (tmp_path / "x.sqlite").exists()


def test_an_unreachable_scheduler_is_one_line_and_leaves_the_file_untouched(
        tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason=NEEDS)
    path = tmp_path / "partial.sqlite"
    build("jujitsu(num_cards=5)", path)
    before = path.read_bytes()
    address = f"tcp://127.0.0.1:{_free_port()}"  # nobody listens
    env = {**_env(), "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"}
    for db in (path, tmp_path / "new.sqlite"):
        done = subprocess.run(_cli("jujitsu(num_cards=5)", "--db", str(db), "--cluster", address),
                              env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 1, done.stderr
        assert done.stderr.startswith(f"Error: {db}: cannot reach the Dask scheduler at {address}")
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert path.read_bytes() == before
    assert not (tmp_path / "new.sqlite").exists()


def test_cluster_without_distributed_installed_names_the_extra(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    path = tmp_path / "x.sqlite"
    result = CliRunner().invoke(cli, ["build", "jujitsu(num_cards=4)", "--db", str(path),
                                      "--cluster", "local:2"])
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines() == [
        f"Error: {path}: --cluster needs Dask's distributed, which is not installed: "
        'pip install -e ".[cluster]"']
    assert not path.exists()
