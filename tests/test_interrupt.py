"""Ctrl-C and kill -9 of a real parallel ``gamedb build``, at several moments.

A terminal's Ctrl-C sends SIGINT to the whole foreground process group (the builder and
its workers); a SIGKILL reaches the builder only. Either way the workers must go away
quietly, the lock must be free, and the file must resume to the uninterrupted result.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

SPEC = "goofspiel(num_cards=7,ties=carry)"  # the generic builder: it enumerates first
ARGS = ["--workers", "2", "--chunk-size", "2000"]
INTERRUPTED = re.compile(r"^interrupted(: every finished chunk is saved in .*; run the same "
                         r"command to resume| before .* was written: nothing to resume)$")
#: Progress-bar fragments (tqdm redraws with carriage returns) are not messages.
BAR = re.compile(r"states(/s| \[|\])|^\s*$")

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc")


def _dump(path: Path) -> tuple[object, ...]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return (conn.execute("SELECT key, layer, value, gap, strategy1, strategy2 FROM states "
                             "ORDER BY key").fetchall(),
                conn.execute("SELECT layer, states, done, max_gap FROM layers").fetchall(),
                conn.execute("SELECT name, value FROM meta WHERE name IN "
                             "('status', 'root_value', 'states', 'spec')").fetchall())


def _group(pgid: int) -> set[int]:
    """Pids of the live (not zombie) processes of a process group."""
    pids = set()
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except (OSError, ValueError):
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            pids.add(int(entry.name))
    return pids


class Run:
    """A ``gamedb build`` in its own process group, its stderr collected as it comes."""

    def __init__(self, db: Path, args: list[str] = ARGS):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gamedb", "build", SPEC, "--db", str(db), *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        self.err = b""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while chunk := self.proc.stderr.read1(4096):  # type: ignore[union-attr]
            self.err += chunk

    def wait_for(self, pattern: str, timeout: float = 60) -> bool:
        """Wait until stderr matches ``pattern``; False when the build ended first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if re.search(pattern.encode(), self.err):
                return True
            if self.proc.poll() is not None:
                return False
            time.sleep(0.01)
        raise AssertionError(f"no {pattern!r} within {timeout} s: {self.err[-300:]!r}")

    def finish(self, timeout: float = 30) -> tuple[int, list[str]]:
        """Wait for the exit; return the status and the stderr lines that are not bars."""
        code = self.proc.wait(timeout)
        self._reader.join(5)
        self.proc.stdout.close()  # type: ignore[union-attr]
        lines = re.split(r"[\r\n]", self.err.decode(errors="replace"))
        return code, [line.strip() for line in lines if not BAR.search(line)]


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _gone(pids: set[int], timeout: float = 5.0) -> set[int]:
    """Return the pids still alive after ``timeout`` seconds (empty when all exited)."""
    deadline = time.monotonic() + timeout
    while (alive := {p for p in pids if _alive(p)}) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def _lock_is_free(db: Path) -> bool:
    from gamedb.store.lock import BuildLock, BuildLocked
    lock = BuildLock(db)
    try:
        lock.acquire()
    except BuildLocked:
        return False
    lock.release()
    return True


def _resume(db: Path, args: list[str] = ARGS) -> None:
    done = subprocess.run([sys.executable, "-m", "gamedb", "build", SPEC, "--db", str(db),
                           "--quiet", *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, ...]:
    db = tmp_path_factory.mktemp("ref") / "ref.sqlite"
    _resume(db)
    return _dump(db)


#: (what the builder is doing, stderr that shows it, seconds to wait after seeing it)
MOMENTS = [("enumerating", r"enumerating positions", 0.1),
           ("solving early", r"solving: +\d+%", 0.0),
           ("solving", r"solving: +[3-9]\d%", 0.0),
           ("finalising", r"finalising", 0.0)]
#: The stage texts the build shows, in order (the last one shown is what it is doing).
STAGE_TEXT = re.compile(rb"(enumerating positions|solving|finalising)")


@pytest.mark.slow
@pytest.mark.parametrize("moment, pattern, delay", MOMENTS, ids=[m[0] for m in MOMENTS])
def test_ctrl_c_of_a_parallel_build_exits_130_in_one_line_and_resumes(
        tmp_path: Path, reference: tuple[object, ...], moment: str, pattern: str,
        delay: float) -> None:
    for attempt in range(3):
        db = tmp_path / f"try{attempt}.sqlite"
        run = Run(db)
        if not run.wait_for(pattern):
            code, _ = run.finish()
            if code == 0:  # done before the poll saw the moment (a loaded machine): again
                continue
            pytest.fail(f"the build ended before {moment}: {run.err[-300:]!r}")
        time.sleep(delay)
        group = _group(run.proc.pid)
        shown = run.err
        os.killpg(run.proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        try:
            code, lines = run.finish(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(run.proc.pid, signal.SIGKILL)
            pytest.fail(f"Ctrl-C during {moment} hung: {run.err[-500:]!r}")
        if code == 0:  # the build won the race against the signal: nothing to check
            continue
        assert code == 130, (moment, code, lines)
        assert len(lines) == 1 and INTERRUPTED.match(lines[0]), lines
        assert not _gone(group), f"workers left after Ctrl-C during {moment}"
        assert _lock_is_free(db)
        _resume(db)
        assert _dump(db) == reference
        # The signal left when stderr showed this moment (it may have moved on since).
        if STAGE_TEXT.findall(shown)[-1].decode().split()[0] == moment.split()[0]:
            return
    pytest.skip(f"every Ctrl-C landed after {moment} (the build finished or moved on); "
                "test_ctrl_c_at_each_point_of_finalising_* places it exactly")


#: When the file shows a moment: the schema but no layers yet (enumerating), or solved rows.
STAGES = {"enumerating": "SELECT count(*) = 0 FROM layers",
          "solving": "SELECT count(*) > 0 FROM states"}


@pytest.mark.slow
@pytest.mark.parametrize("moment, delays", [("enumerating", [0.2]),
                                            ("solving", [0.0, 0.4, 0.8])])
def test_killed_parallel_builder_leaves_no_worker_and_no_message(
        tmp_path: Path, reference: tuple[object, ...], moment: str, delays: list[float]) -> None:
    args = ["--workers", "2", "--chunk-size", "20000", "--quiet"]  # big: workers are mid-task
    killed = 0
    for attempt, delay in enumerate(delays):
        db = tmp_path / f"killed{attempt}.sqlite"
        run = Run(db, args)
        if not _shows(db, STAGES[moment], run.proc):  # gone by: a starved poll missed it
            with contextlib.suppress(ProcessLookupError):
                os.killpg(run.proc.pid, signal.SIGKILL)
            run.finish()
            continue
        time.sleep(delay)
        group = _group(run.proc.pid)
        run.proc.send_signal(signal.SIGKILL)  # the builder only: its workers are orphaned
        if run.proc.wait(10) == 0:  # a quiet machine finished the build within the delay
            continue
        assert run.proc.returncode == -signal.SIGKILL
        killed += 1
        assert not _gone(group), f"orphan workers after kill -9 during {moment}"
        run.finish(timeout=5)
        assert run.err == b"", run.err[-800:]  # orphans used to print BrokenPipeError
        assert _lock_is_free(db)
        _resume(db, args)
        assert _dump(db) == reference
    if not killed:
        pytest.skip(f"every build finished, or moved on, before its kill during {moment} "
                    "(a loaded machine)")


def _shows(db: Path, query: str, proc: subprocess.Popen[bytes] | None = None,
           timeout: float = 60) -> bool:
    """Wait until ``query`` is true of the file being built (False once ``proc`` ended)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and (proc is None or proc.poll() is None):
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                if conn.execute(query).fetchone()[0]:
                    return True
        except sqlite3.Error:
            pass  # not created yet
        time.sleep(0.01)
    return False


@pytest.mark.slow
def test_a_killed_worker_stops_the_build_in_one_line_and_it_resumes(
        tmp_path: Path, reference: tuple[object, ...]) -> None:
    args = ["--workers", "2", "--chunk-size", "300"]  # small chunks: always busy
    for attempt in range(4):  # a kill that lands on a pool already done changes nothing
        db = tmp_path / f"worker{attempt}.sqlite"
        run = Run(db, [*args, "--quiet"])
        assert _shows(db, STAGES["solving"]), "the build never started solving"
        _kill_a_worker(run)
        code, lines = run.finish(timeout=30)
        if code == 0:
            continue
        assert code == 1 and len(lines) == 1 and "a worker process died" in lines[0], lines
        assert "run the same command to resume" in lines[0]
        assert not _gone(_group(run.proc.pid))
        _resume(db, args)
        assert _dump(db) == reference
        return
    pytest.skip("every build finished before its worker was killed")


def _kill_a_worker(run: Run) -> None:
    """SIGKILL one worker of the build (what the out-of-memory killer does)."""
    deadline = time.monotonic() + 30
    while True:  # a worker found may exit before the kill reaches it (its pool closed)
        assert time.monotonic() < deadline and run.proc.poll() is None, "no worker to kill"
        workers = _group(run.proc.pid) - {run.proc.pid}
        try:
            if workers:
                os.kill(max(workers), signal.SIGKILL)  # the newest: of the running pool
                return
        except ProcessLookupError:
            pass  # between two pools: look again
        time.sleep(0.01)


def test_ctrl_c_inside_a_compiled_call_is_an_interrupt(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """numba reports a Ctrl-C during a compiled call as a SystemError caused by the
    KeyboardInterrupt (seen 1 time in 3 while enumerating 8-card Goofspiel, one worker)."""
    import gamedb.builder as build_module
    import gamedb.builder.sources as sources_module
    from click.testing import CliRunner

    from gamedb.cli import cli

    def interrupted_in_numba(*args: object) -> None:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise SystemError("CPUDispatcher(<function _expand>) returned a result with an "
                              "exception set") from exc

    monkeypatch.setattr(sources_module, "enumerate_layers", interrupted_in_numba)
    db = tmp_path / "j5.sqlite"
    result = CliRunner().invoke(cli, ["build", "jujitsu(num_cards=5)", "--db", str(db),
                                      "--quiet", "--workers", "1"])
    assert result.exit_code == 130, result.output
    assert result.stderr.strip().splitlines() == [
        f"interrupted: every finished chunk is saved in {db}; run the same command to resume"]
    monkeypatch.undo()
    assert build_module.build("jujitsu(num_cards=5)", db).status == "complete"


#: Runs ``gamedb`` with a real SIGINT sent to itself from inside LLVM's first call back
#: into Python while numba compiles (its object-code hook, under a ctypes callback): a
#: Ctrl-C at any moment of a long compile is handled there, by the first Python code.
CTRL_C_IN_LLVM = """
import os, signal, sys
from numba.core.codegen import JITCodeLibrary
from gamedb.cli import cli

hook = JITCodeLibrary._object_compiled_hook.__func__
fired = []
def ctrl_c_in_llvm(cls, ll_module, buf):
    if not fired:
        fired.append(True)
        os.kill(os.getpid(), signal.SIGINT)
    return hook(cls, ll_module, buf)
JITCodeLibrary._object_compiled_hook = classmethod(ctrl_c_in_llvm)
sys.argv = ["gamedb", *sys.argv[1:]]
try:
    cli()
finally:
    assert fired
"""


def test_ctrl_c_while_numba_compiles_is_one_line_and_exit_130(tmp_path: Path) -> None:
    """ctypes prints an exception raised inside a callback and drops it: the Ctrl-C was
    lost (the build ran on for the whole compile, exit 0, after an "Exception ignored
    on calling ctypes callback function" traceback), or numba's cache failed on the
    object code the interrupted hook never stored (a RuntimeError traceback, exit 1)."""
    db = tmp_path / "j4.sqlite"
    cache = tmp_path / "numba"  # empty: the first run's compile, whatever is cached here
    cache.mkdir()
    done = subprocess.run([sys.executable, "-c", CTRL_C_IN_LLVM, "build", "jujitsu(num_cards=4)",
                           "--db", str(db), "--quiet", "--workers", "1"],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    assert done.returncode == 130, done.stderr[-2000:]
    assert INTERRUPTED.match(done.stderr.strip()), done.stderr[-2000:]  # one line


def test_a_ctrl_c_inside_a_finalizer_is_raised_out_of_it() -> None:
    """Python drops an exception raised in ``__del__`` (it prints "Exception ignored"):
    a Ctrl-C handled inside one, e.g. llvmlite freeing compiler objects during a
    build's compile, was lost and the build ran on."""
    from gamedb.cli._common import _interrupt

    class Finalized:
        def __del__(self) -> None:
            os.kill(os.getpid(), signal.SIGINT)  # handled here, inside ``__del__``

    previous = signal.signal(signal.SIGINT, _interrupt)
    try:
        with pytest.raises(KeyboardInterrupt):
            Finalized()  # finalized at once
            for _ in range(500):  # 5 s: the interrupt lands within milliseconds
                time.sleep(0.01)
    finally:
        signal.signal(signal.SIGINT, previous)


#: Runs ``gamedb`` with one function wrapped to send the process a real SIGINT (what
#: Ctrl-C does) the first time it is called after ``Writer.<arm>`` started: the
#: interrupt then lands at that exact point of the finalising path, every time.
CTRL_C_AT = """
import atexit, os, signal, sys
from sqlalchemy.engine.default import DefaultDialect
import gamedb.cli.solve, gamedb.store.writer as writer
from gamedb.cli import cli

arm, target = sys.argv[1:3]
state = []
def ctrl_c(original):
    def wrapped(*args, **kwargs):
        if state == ["armed"]:
            state.append("fired")
            os.kill(os.getpid(), signal.SIGINT)
        return original(*args, **kwargs)
    return wrapped
def arming(original):
    def wrapped(*args, **kwargs):
        state[:] = state or ["armed"]
        return original(*args, **kwargs)
    return wrapped
def at_exit():
    if state == ["armed"]:
        state.append("fired")
        os.kill(os.getpid(), signal.SIGINT)
        assert state == ["armed", "fired"], state
if target == "exit":  # while the interpreter exits, after the command
    atexit.register(at_exit)
else:
    owner, name = {"checkpoint": (writer, "_checkpoint"),
                   "do_close": (DefaultDialect, "do_close"),
                   "do_rollback": (DefaultDialect, "do_rollback"),
                   "report": (gamedb.cli.solve, "_format_report")}[target]
    setattr(owner, name, ctrl_c(getattr(owner, name)))
setattr(writer.Writer, arm, arming(getattr(writer.Writer, arm)))
sys.argv = ["gamedb", *sys.argv[3:]]
try:
    cli()
finally:
    assert state == ["armed", "fired"] or target == "exit", state
"""
SMALL = "jujitsu(num_cards=5)"


@pytest.fixture(scope="module")
def small_reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, ...]:
    db = tmp_path_factory.mktemp("small") / "ref.sqlite"
    from gamedb.builder import build
    build(SMALL, db)
    return _dump(db)


@pytest.mark.parametrize("arm, target", [
    ("finalize", "checkpoint"),  # switching the finished file out of WAL
    ("close", "checkpoint"),     # the writer's last checkpoint
    ("close", "do_rollback"),    # SQLAlchemy's pool resets the connection it gets back
    ("close", "do_close"),       # engine.dispose() closes the pooled connection
    ("close", "report"),         # the build is done, its report not yet printed
])
@pytest.mark.slow
def test_ctrl_c_at_each_point_of_finalising_is_one_line_and_exit_130(
        tmp_path: Path, small_reference: tuple[object, ...], arm: str, target: str) -> None:
    db = tmp_path / "j5.sqlite"
    done = subprocess.run([sys.executable, "-c", CTRL_C_AT, arm, target, "build", SMALL,
                           "--db", str(db), "--quiet", "--workers", "1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 130, done.stderr
    assert INTERRUPTED.match(done.stderr.strip()), done.stderr  # one line: no traceback
    assert done.stdout == ""
    assert _lock_is_free(db)
    _resume_small(db)
    assert _dump(db) == small_reference
    _is_rollback_journal(db)


@pytest.mark.slow
def test_ctrl_c_while_the_interpreter_exits_after_a_build_is_ignored(
        tmp_path: Path, small_reference: tuple[object, ...]) -> None:
    """The command is over: it exits 0 with its report, and prints no traceback (an
    atexit callback interrupted used to print "Exception ignored in atexit callback")."""
    db = tmp_path / "j5.sqlite"
    done = subprocess.run([sys.executable, "-c", CTRL_C_AT, "close", "exit", "build", SMALL,
                           "--db", str(db), "--quiet", "--workers", "1"],
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout.startswith(f"{db}: complete, 98 states")
    assert _dump(db) == small_reference
    _is_rollback_journal(db)


def _is_rollback_journal(db: Path) -> None:
    """Check that a finished file left WAL mode (one file, readable read-only)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)


def _resume_small(db: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "gamedb", "build", SMALL, "--db", str(db),
                           "--quiet"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
