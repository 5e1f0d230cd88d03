"""The program ends without the interpreter's teardown, and nothing else changes.

``gamedb`` (and ``python -m gamedb``) ends with ``gamedb.cli.exit.exit_now``: threads
waited for, ``atexit`` functions run, output flushed, then ``os._exit``. Python's
teardown, which only frees objects, is skipped (0.15-0.35 s a command). These tests run
the real program and check what a user could see: its status, its output, the
``atexit`` functions of whoever embeds it, and the files beside a database.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gamedb.cli.exit import FLUSH_FAILED, status_of

SPEC = "goofspiel(num_cards=4)"
ROOT = Path(__file__).resolve().parents[1]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _gamedb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gamedb", *args], capture_output=True,
                          text=True, env=_env(), timeout=300)


def _beside(path: Path) -> list[str]:
    """The files SQLite keeps beside ``path`` while a connection to it is open."""
    return sorted(p.name for p in path.parent.iterdir()
                  if p.name.startswith(path.name) and p != path)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("exit") / "g4.sqlite"
    run = _gamedb("build", SPEC, "--db", str(path), "--quiet")
    assert run.returncode == 0, run.stderr
    return path


@pytest.mark.parametrize("args", [
    ["info", "{db}"], ["show", "{db}", "start"], ["verify", "{db}"],
    ["sql", "{db}", "SELECT count(*) FROM states"],
    ["key", SPEC, "hand1=1,2,3,4 hand2=1,2,3,4 prizes=1,3,4 diff=0 prize=2"],
    ["evaluate", "{db}", "random", "--json"],
    ["export", "{db}", "--format", "csv", "-o", "{tmp}/out.csv"],
    ["match", "{db}", "equilibrium", "random", "--games", "3", "--seed", "1"],
])
def test_every_command_leaves_its_file_closed(built: Path, tmp_path: Path,
                                              args: list[str]) -> None:
    """A connection the teardown would have closed leaves a ``-wal``, ``-shm`` or
    ``-journal`` beside the file; none is left, and the command said what it says."""
    filled = [a.format(db=built, tmp=tmp_path) for a in args]
    run = _gamedb(*filled)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip(), "the command printed its answer before the process ended"
    assert "Traceback" not in run.stderr
    assert _beside(built) == []
    if args[0] == "export":
        assert (tmp_path / "out.csv").stat().st_size > 0
        assert _beside(tmp_path / "out.csv") == []


def test_a_build_and_its_resume_leave_one_file(tmp_path: Path) -> None:
    """A build that ends, and one that finds its file complete, leave the file alone:
    no WAL, whose contents the teardown would have checkpointed."""
    path = tmp_path / "g5.sqlite"
    for expected in ("complete", "complete"):
        run = _gamedb("build", "goofspiel(num_cards=5)", "--db", str(path), "--quiet")
        assert run.returncode == 0, run.stderr
        assert expected in run.stdout
        assert sorted(p.name for p in tmp_path.iterdir()) == ["g5.sqlite"]


def test_the_status_is_the_commands(built: Path) -> None:
    """Usage errors exit 2, library errors 1 with one line, success 0."""
    assert _gamedb("show", str(built), "start").returncode == 0
    missing = _gamedb("show", str(built.with_name("nope.sqlite")), "start")
    assert (missing.returncode, missing.stderr.strip()) == (
        1, f"Error: {built.with_name('nope.sqlite')}: no such database file")
    assert _gamedb("no-such-command").returncode == 2


_EMBEDDED = """
import atexit, sys, threading, time
from gamedb.cli import main

class Freed:
    def __del__(self):
        print("freed by the teardown", flush=True)

kept = Freed()
atexit.register(lambda: print("atexit ran", flush=True))
def late():
    time.sleep(0.3)
    print("thread finished", flush=True)
threading.Thread(target=late).start()
sys.argv = ["gamedb", "--version"]
print("before", end="")  # unflushed: the exit must flush it
main()
"""


def test_threads_atexit_and_output_survive_and_the_teardown_is_skipped() -> None:
    """What a normal exit does that anyone sees still happens, in Python's order; the
    objects of the modules are not freed one by one (``Freed.__del__`` never runs)."""
    run = subprocess.run([sys.executable, "-c", _EMBEDDED], capture_output=True, text=True,
                         env=_env(), timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("before"), lines
    assert lines[-2:] == ["thread finished", "atexit ran"], lines
    assert "freed by the teardown" not in run.stdout


def test_output_that_cannot_be_flushed_exits_as_python_does() -> None:
    """Output still buffered at the end whose reader has gone (a closed pipe) gives
    Python's own status, 120, not a success."""
    code = ("import time; from gamedb.cli.exit import exit_now; time.sleep(0.5); "
            "print('unflushed'); exit_now(0)")  # click's echo flushes at once: print
    env = {k: v for k, v in _env().items() if k != "PYTHONUNBUFFERED"}  # buffered output
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the program writes: its flush at the end fails
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == FLUSH_FAILED, err


def test_status_of_follows_system_exit() -> None:
    assert [status_of(c) for c in (None, 0, 3, True)] == [0, 0, 3, 1]
    assert status_of("a message") == 1
