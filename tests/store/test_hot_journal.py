"""A write killed while SQLite's rollback journal was live leaves a "hot journal"
(``<file>-journal``) that only a writable connection can roll back.

The builder meets one when it is killed while a finished file leaves WAL mode (SQLite
switches the header through the rollback journal): CI saw the resumed build fail with
"attempt to write a readonly database" because it first opened the file read-only. The
builder now rolls the journal back (it holds the build lock); read-only commands, which
never write, say what happened and how to restore the file.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

SPEC = "goofspiel(num_cards=4)"


def _dump(path: Path) -> tuple[object, ...]:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return (conn.execute("SELECT * FROM states ORDER BY key").fetchall(),
                conn.execute("SELECT * FROM strategies ORDER BY key, player, action").fetchall(),
                conn.execute("SELECT * FROM meta WHERE name != 'progress' ORDER BY name")
                .fetchall())


def _gamedb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gamedb", *args], capture_output=True,
                          text=True, timeout=300)


def _killed_mid_write(source: Path, victim: Path) -> None:
    """Copy ``source`` as a process killed in the middle of a rollback-journal write
    would leave it: pages already overwritten in the file, their old content in the
    journal (a tiny page cache makes SQLite spill the changes before the commit)."""
    conn = sqlite3.connect(source, isolation_level=None)
    try:
        conn.execute("PRAGMA cache_size=1")
        conn.execute("BEGIN")
        conn.execute("UPDATE states SET value = value + 1")
        conn.execute("UPDATE meta SET value = '\"damaged\"' WHERE name = 'status'")
        journal = source.with_name(source.name + "-journal")
        assert journal.stat().st_size > 0
        shutil.copy(source, victim)
        shutil.copy(journal, victim.with_name(victim.name + "-journal"))
        conn.execute("ROLLBACK")
    finally:
        conn.close()


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hot") / "g4.sqlite"
    result = _gamedb("build", SPEC, "--db", str(path), "--quiet")
    assert result.returncode == 0, result.stderr
    return path


def test_a_build_run_again_rolls_the_journal_back(finished: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.sqlite"
    _killed_mid_write(finished, victim)
    with contextlib.closing(sqlite3.connect(f"file:{victim}?mode=ro", uri=True)) as conn:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            conn.execute("SELECT count(*) FROM meta").fetchone()  # what CI saw
    result = _gamedb("build", SPEC, "--db", str(victim), "--quiet")
    assert result.returncode == 0, result.stderr
    assert not victim.with_name("victim.sqlite-journal").exists()
    assert _dump(victim) == _dump(finished)


@pytest.mark.parametrize("command", [["info"], ["show", "start"],
                                     ["sql", "SELECT count(*) FROM states"], ["verify"],
                                     ["export", "--format", "csv"]])
def test_read_only_commands_say_how_to_restore_it(finished: Path, tmp_path: Path,
                                                   command: list[str]) -> None:
    victim = tmp_path / "victim.sqlite"
    _killed_mid_write(finished, victim)
    before = (victim.read_bytes(), victim.with_name("victim.sqlite-journal").read_bytes())
    args = [command[0], str(victim), *command[1:]]
    if command[0] == "export":
        args += ["--output", str(tmp_path / "out.csv")]
    result = _gamedb(*args)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "victim.sqlite-journal" in result.stderr and "gamedb build" in result.stderr, \
        result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    # nothing written: the read-only command left the file and its journal as they were
    assert (victim.read_bytes(), victim.with_name("victim.sqlite-journal").read_bytes()) == before


def test_the_probe_api_says_so_too(finished: Path, tmp_path: Path) -> None:
    from gamedb.probe import GameFile, UnreadableFile

    victim = tmp_path / "victim.sqlite"
    _killed_mid_write(finished, victim)
    with pytest.raises(UnreadableFile, match="victim.sqlite-journal.*gamedb build"):
        GameFile(victim)
