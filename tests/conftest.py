"""Shared fixtures: database paths and small solved databases."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from hypothesis import settings

from gamedb.builder import build

# A suite started in the background of a non-interactive shell (`pytest &`) inherits
# SIGINT ignored, and so would every gamedb it starts: its Ctrl-C tests would see builds
# that never stop. A terminal's foreground job has the default; a Python handler here is
# reset to the default in the programs the tests start (exec keeps only "ignored").
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Hypothesis' per-example deadline (200 ms) is a timing assertion: a loaded machine broke
# it once (259 ms decoding a few strategy texts). Speed is measured under bench/.
settings.register_profile("gamedb", deadline=None)
settings.load_profile("gamedb")


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """A fresh database path in a temporary directory."""
    return tmp_path / "game.sqlite"


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """Return a function that builds a spec once per test session and returns its path."""
    cache: dict[tuple[str, bool], Path] = {}

    def get(spec: str, *, canonical_keys: bool = True) -> Path:
        from gamedb.games import load_game
        key = (spec, canonical_keys)
        if key not in cache:
            path = tmp_path_factory.mktemp("db") / "game.sqlite"
            build(load_game(spec, canonical_keys=canonical_keys), path)
            cache[key] = path
        return cache[key]

    return get


@pytest.fixture(scope="session")
def raw_and_canonical(built):  # type: ignore[no-untyped-def]
    """Return a function: spec -> every position of its raw build, probed in both files.

    The result lists ``(state, raw entry, canonical entry)`` for every state stored by
    the build with ``canonical_keys=False`` (each real position keyed separately), so a
    test can demand that the canonical file answers every real position identically.
    """
    import sqlite3

    from gamedb.store import open_db

    def compare(spec: str) -> tuple[list[tuple[object, object, object]], int, int]:
        raw_path = built(spec, canonical_keys=False)
        with sqlite3.connect(raw_path) as conn:
            keys = [key for (key,) in conn.execute("SELECT key FROM states")]
        with open_db(raw_path) as raw_db, open_db(built(spec)) as db:
            states = [raw_db.game.decode(key) for key in keys]
            rows = [(state, raw_db.probe(state), db.probe(state)) for state in states]
            return rows, len(keys), db.info().states

    return compare


@pytest.fixture
def small_disk(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A real 400 KiB file system (tmpfs; needs the right to mount, else skipped)."""
    import subprocess
    mount = tmp_path / "disk"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs", str(mount)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
