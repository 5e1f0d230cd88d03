"""The builder end to end on Jujitsu: known facts, exact reductions, resume."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from gamedb.builder import build
from gamedb.builder.progress import Counting
from gamedb.games import load_game
from gamedb.store import BuildProgress, open_db
from gamedb.verify import stage_games, verify


def _dump(path: Path) -> tuple[list[tuple], list[tuple], list[tuple]]:
    with sqlite3.connect(path) as conn:
        return (conn.execute("SELECT key, layer, value, gap FROM states ORDER BY key").fetchall(),
                conn.execute("SELECT * FROM strategies ORDER BY key, player, action").fetchall(),
                conn.execute("SELECT layer, states, done, max_gap FROM layers ORDER BY layer").fetchall())


@pytest.mark.parametrize("ties", ["carry", "discard"])
@pytest.mark.parametrize("n", [3, 4, 5, 6, 7, 8])
def test_root_value_is_zero_by_symmetry(built, n: int, ties: str) -> None:  # type: ignore[no-untyped-def]
    with open_db(built(f"jujitsu(num_cards={n},ties={ties})")) as db:
        assert db.info().status == "complete"
        assert db.probe("start").value == pytest.approx(0.0, abs=1e-12)
        assert db.info().root_value == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8])
def test_root_equilibrium_never_plays_the_highest_card(built, n: int) -> None:  # type: ignore[no-untyped-def]
    # Sanwal & Drechsler 2002: for n = 4..8 the optimal root strategy avoids card n
    # (and, for n = 7, card 6 as well).
    with open_db(built(f"jujitsu(num_cards={n})")) as db:
        entry = db.probe("start")
    avoided = {n, n - 1} if n == 7 else {n}
    for player in (1, 2):
        assert sum(entry.strategies[player].values()) == pytest.approx(1.0, abs=1e-12)
        assert all(entry.strategies[player].get(card, 0.0) == 0.0 for card in avoided)


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
def test_uniform_play_is_optimal_everywhere_when_ties_are_discarded(built, n: int) -> None:  # type: ignore[no-untyped-def]
    path = built(f"jujitsu(num_cards={n},ties=discard)")
    for games in stage_games(path):
        rows, cols = games.payoffs.shape[1:]
        uniform_x, uniform_y = np.full(rows, 1 / rows), np.full(cols, 1 / cols)
        guaranteed = (uniform_x @ games.payoffs).min(axis=1)      # uniform row vs best reply
        conceded = (games.payoffs @ uniform_y).max(axis=1)        # best row reply vs uniform
        assert np.allclose(guaranteed, games.values, atol=1e-9)
        assert np.allclose(conceded, games.values, atol=1e-9)


@pytest.mark.parametrize("ties", ["carry", "discard"])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_canonical_and_uncanonical_builds_agree_on_every_position(raw_and_canonical, n: int, ties: str) -> None:  # type: ignore[no-untyped-def]
    rows, raw_count, canonical_count = raw_and_canonical(f"jujitsu(num_cards={n},ties={ties})")
    for state, raw, canonical in rows:
        assert canonical.value == pytest.approx(raw.value, abs=1e-12), canonical.position
    assert raw_count > canonical_count


@pytest.mark.parametrize("spec", ["jujitsu(num_cards=7)", "jujitsu(num_cards=6,ties=discard)"])
def test_every_stored_solution_has_gap_below_tolerance(built, spec: str) -> None:  # type: ignore[no-untyped-def]
    report = verify(built(spec))
    assert report.checked == report.states > 0
    assert report.max_gap <= 1e-9 and report.failures == 0


def test_interrupted_build_resumes_to_the_identical_database(tmp_path: Path) -> None:
    spec = "jujitsu(num_cards=7)"
    reference = tmp_path / "reference.sqlite"
    build(spec, reference, chunk_size=64)
    resumed = tmp_path / "resumed.sqlite"
    for stop_after in (3, 5, 8, 1000):
        calls = []

        def interrupt(done: int, total: int) -> None:
            calls.append(done)
            if len(calls) == stop_after:
                raise KeyboardInterrupt

        try:
            report = build(spec, resumed, chunk_size=64, observer=Counting(interrupt))
        except KeyboardInterrupt:
            with open_db(resumed) as db:
                assert db.info().status == "building"
            continue
        assert report.status == "complete" and 0 < report.solved < report.states
    assert _dump(resumed) == _dump(reference)


def test_finished_database_is_not_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "j5.sqlite"
    first = build("jujitsu(num_cards=5)", path)
    before = path.stat().st_mtime_ns, _dump(path)
    again = build("jujitsu(num_cards=5)", path)
    assert first.solved == first.states and again.solved == 0
    assert again.root_value == first.root_value and _dump(path) == before[1]


def test_parallel_workers_write_the_same_database(tmp_path: Path) -> None:
    build("jujitsu(num_cards=7)", tmp_path / "one.sqlite", chunk_size=100)
    build("jujitsu(num_cards=7)", tmp_path / "two.sqlite", chunk_size=100, workers=2)
    assert _dump(tmp_path / "one.sqlite") == _dump(tmp_path / "two.sqlite")


def test_parallel_enumeration_finds_the_same_layers(monkeypatch: pytest.MonkeyPatch) -> None:
    from gamedb.builder.sources import enumerated
    from gamedb.solver import backward
    game = load_game("goofspiel(num_cards=5)")
    alone = backward.enumerate_layers(game)
    monkeypatch.setattr(backward, "MAX_ENTRIES", 500)  # many batches per layer
    shared = enumerated(game, workers=2)
    assert list(shared.layers()) == sorted(alone) and sum(map(len, alone.values())) > 1000
    assert all(np.array_equal(alone[layer], shared.keys(layer, 0, shared.size(layer)))
               for layer in alone)


def test_small_layers_share_a_transaction(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from gamedb.store.writer import Writer
    spec = "oshi_zumo(coins=8,size=2,min_bid=1)"
    build(spec, tmp_path / "one_per_state.sqlite", chunk_size=1)
    transactions: list[list[tuple[int, int]]] = []
    real = Writer.write_chunks

    def recording(self, chunks, progress=None):  # type: ignore[no-untyped-def]
        transactions.append([(rows.layer, len(rows.keys)) for rows in chunks])
        real(self, chunks, progress)

    monkeypatch.setattr(Writer, "write_chunks", recording)
    build(spec, tmp_path / "shared.sqlite", chunk_size=40)
    assert any(len({layer for layer, _ in t}) > 1 for t in transactions)
    assert all(sum(n for _, n in t) >= 40 for t in transactions[:-1])
    assert _dump(tmp_path / "shared.sqlite") == _dump(tmp_path / "one_per_state.sqlite")


def test_build_refuses_a_file_of_another_spec(tmp_path: Path) -> None:
    from gamedb.store import SpecMismatch
    path = tmp_path / "j4.sqlite"
    build("jujitsu(num_cards=4)", path)
    with pytest.raises(SpecMismatch, match="holds jujitsu\\(num_cards=4,ties=carry\\)"):
        build(load_game("jujitsu(num_cards=5)"), path)


def test_second_builder_on_the_same_file_is_refused_and_readers_still_work(tmp_path: Path) -> None:
    from gamedb.store.lock import BuildLocked
    from gamedb.store.writer import Writer
    path = tmp_path / "j6.sqlite"
    holder = Writer(path, load_game("jujitsu(num_cards=6)"), {})
    try:
        with pytest.raises(BuildLocked, match="is being built by process"):
            build("jujitsu(num_cards=6)", path)
        with open_db(path) as db:  # readers are never blocked
            assert db.info().status == "building"
    finally:
        holder.close()
    assert build("jujitsu(num_cards=6)", path).status == "complete"


def test_forked_workers_do_not_keep_the_lock_of_a_dead_builder(tmp_path: Path) -> None:
    import multiprocessing
    import os
    import time
    from gamedb.store.lock import BuildLock
    context = multiprocessing.get_context("fork")
    lock, started = BuildLock(tmp_path / "x.sqlite"), context.Event()

    def busy_worker() -> None:  # like a pool worker finishing a task after its builder died
        started.set()
        time.sleep(10)

    lock.acquire()
    worker = context.Process(target=busy_worker)
    worker.start()
    try:
        assert started.wait(10) and lock._fd is not None and lock._db_fd is not None
        for fd in (lock._fd, lock._db_fd):  # what the kernel does for a SIGKILLed builder:
            os.close(fd)                    # no unlock, no unlink
        again = BuildLock(tmp_path / "x.sqlite")
        again.acquire()  # the worker's inherited descriptor would block this
        again.release()
    finally:
        worker.kill()
        worker.join()


def test_info_of_a_partial_build_shows_live_progress(tmp_path: Path) -> None:
    path = tmp_path / "j7.sqlite"

    def stop(done: int, total: int) -> None:
        if done > 300:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build("jujitsu(num_cards=7)", path, chunk_size=100, observer=Counting(stop))
    with open_db(path) as db:
        info = db.info()
    progress = info.progress
    assert progress is not None and progress == BuildProgress.from_meta(info.meta["progress"])
    assert info.status == "building" and progress.done == info.done > 300
    assert progress.total == info.states and progress.rate > 0 and progress.eta_seconds >= 0
    assert 0 < progress.layer_done <= progress.layer_states


def test_a_full_disk_stops_the_build_cleanly_and_it_resumes_later(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from sqlalchemy import event

    import gamedb.store.writer as writer_module
    from gamedb.store.errors import DiskFull

    reference = tmp_path / "reference.sqlite"
    build("jujitsu(num_cards=8)", reference, chunk_size=200)
    real_engine = writer_module.writable_engine

    def small_disk(path: Path):  # type: ignore[no-untyped-def]
        engine = real_engine(path)
        event.listen(engine, "connect", lambda conn, _: conn.execute("PRAGMA max_page_count=60"))
        return engine

    path = tmp_path / "full.sqlite"
    monkeypatch.setattr(writer_module, "writable_engine", small_disk)
    with pytest.raises(DiskFull, match="disk is full.*resume"):
        build("jujitsu(num_cards=8)", path, chunk_size=200)
    monkeypatch.setattr(writer_module, "writable_engine", real_engine)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert 0 < conn.execute("SELECT count(*) FROM states").fetchone()[0] < 2686
    build("jujitsu(num_cards=8)", path, chunk_size=200)
    assert _dump(path) == _dump(reference)


def test_a_full_disk_is_reported_as_full_even_when_the_closing_checkpoint_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a real full disk the WAL checkpoint at close fails too (it grows the main file);
    that second error used to replace the DiskFull message with "the file is damaged"."""
    import gamedb.store.writer as writer_module
    from gamedb.store.errors import DiskFull

    def full(raw: sqlite3.Connection) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    def chunks_full(self, chunks, progress=None) -> None:  # type: ignore[no-untyped-def]
        raise DiskFull(f"{self.path}: the disk is full; every finished chunk is saved: "
                       "free some space and run the same command to resume")

    path = tmp_path / "full.sqlite"
    monkeypatch.setattr(writer_module, "_checkpoint", full)
    monkeypatch.setattr(writer_module.Writer, "write_chunks", chunks_full)
    with pytest.raises(DiskFull, match="disk is full.*resume"):
        build("jujitsu(num_cards=6)", path, chunk_size=50)
    monkeypatch.undo()
    assert build("jujitsu(num_cards=6)", path).status == "complete"


def test_a_real_full_disk_says_so_in_one_line_and_the_build_resumes_after_space_is_freed(
        small_disk: Path, tmp_path: Path) -> None:
    import subprocess
    import sys
    reference, path = tmp_path / "reference.sqlite", small_disk / "j8.sqlite"
    command = [sys.executable, "-m", "gamedb", "build", "jujitsu(num_cards=8)", "--quiet",
               "--chunk-size", "200", "--db"]
    subprocess.run([*command, str(reference)], check=True, capture_output=True)
    for _ in range(2):  # the first run fills the disk; a second one must say the same
        full = subprocess.run([*command, str(path)], capture_output=True, text=True)
        assert full.returncode == 1, full.stderr
        lines = full.stderr.strip().splitlines()
        assert len(lines) == 1 and "the disk is full" in lines[0], full.stderr
        assert "run the same command to resume" in lines[0] and "damaged" not in lines[0]
    subprocess.run(["mount", "-o", "remount,size=8m", str(small_disk)], check=True)
    subprocess.run([*command, str(path)], check=True, capture_output=True)
    assert _dump(path) == _dump(reference)


def _journal_mode(path: Path) -> str:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return str(conn.execute("PRAGMA journal_mode").fetchone()[0])


def test_a_finished_build_leaves_one_file_in_rollback_mode_that_readers_leave_alone(
        tmp_path: Path) -> None:
    import hashlib
    import subprocess
    import sys
    path = tmp_path / "j6.sqlite"
    build("jujitsu(num_cards=6)", path)
    assert _journal_mode(path) == "delete"  # WAL while building only
    assert sorted(p.name for p in tmp_path.iterdir()) == ["j6.sqlite"]
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with open_db(path) as db:
        db.info()
        db.probe("start")
    for args in (["info", str(path)], ["show", str(path), "start"]):
        subprocess.run([sys.executable, "-m", "gamedb", *args], check=True, capture_output=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["j6.sqlite"]  # no -wal, no -shm
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_a_finished_build_is_readable_from_a_read_only_directory(tmp_path: Path) -> None:
    """A real read-only mount (root ignores permission bits); skipped without mount."""
    import subprocess
    import sys
    built_dir, read_only = tmp_path / "built", tmp_path / "ro"
    built_dir.mkdir()
    read_only.mkdir()
    build("jujitsu(num_cards=5)", built_dir / "j5.sqlite")
    build("jujitsu(num_cards=4)", built_dir / "old.sqlite")
    with sqlite3.connect(built_dir / "old.sqlite") as conn:  # as older gamedb left files
        conn.execute("PRAGMA journal_mode=WAL")
    if subprocess.run(["mount", "--bind", "-o", "ro", str(built_dir), str(read_only)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot bind-mount read-only here")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(read_only)], check=False)
        with pytest.raises(OSError):
            (read_only / "probe").write_text("x")  # the mount really is read-only
        for args in (["info", "j5.sqlite"], ["show", "j5.sqlite", "start"],
                     ["info", "old.sqlite"], ["show", "old.sqlite", "start"]):
            done = subprocess.run([sys.executable, "-m", "gamedb", *args], cwd=read_only,
                                  capture_output=True, text=True)
            assert done.returncode == 0 and done.stderr == "", done.stderr
    finally:
        subprocess.run(["umount", str(read_only)], check=False)
    assert sorted(p.name for p in built_dir.iterdir()) == ["j5.sqlite", "old.sqlite"]


def test_build_killed_before_its_schema_was_committed_resumes(tmp_path: Path) -> None:
    path = tmp_path / "j4.sqlite"
    with sqlite3.connect(path) as conn:  # what a kill right after opening leaves behind
        conn.execute("PRAGMA journal_mode=WAL")
    assert path.stat().st_size > 0
    assert build("jujitsu(num_cards=4)", path).status == "complete"


def test_values_only_build_stores_the_same_values_and_solves_strategies_on_demand(
        built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from gamedb.store import SpecMismatch
    from gamedb.verify import verify

    full, lean = built("jujitsu(num_cards=7)"), tmp_path / "lean.sqlite"
    build("jujitsu(num_cards=7)", lean, values_only=True, chunk_size=100)
    states, strategies, layers = _dump(lean)
    assert [row[:3] for row in states] == [row[:3] for row in _dump(full)[0]]
    assert {row[3] for row in states} == {None}  # a values-only row keeps no gap (0004)
    assert strategies == [] and layers == _dump(full)[2]  # layers.max_gap is kept
    assert lean.stat().st_size < full.stat().st_size / 2
    report = verify(lean, exact=True)
    assert report.ok and report.checked == 887 and report.max_exact_error <= 1e-9
    with open_db(lean) as db, open_db(full) as ref:
        for position in ("start", "hand1=1,3,5 hand2=2,4,6 pot=0 diff=2"):
            entry, stored = db.probe(position), ref.probe(position)
            assert entry.value == stored.value
            for player in (1, 2):
                assert sum(entry.strategies[player].values()) == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(SpecMismatch, match="was built values only"):
        build("jujitsu(num_cards=7)", lean)


def test_ctrl_c_while_finalising_stays_an_interrupt_and_the_build_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLAlchemy closes a connection interrupted by Ctrl-C; the rollback on that closed
    connection used to replace the interrupt with 'Cannot operate on a closed database'."""
    import gamedb.store.writer as writer_module
    real_write_meta = writer_module.write_meta

    def interrupted(conn, values):  # type: ignore[no-untyped-def]
        if values.get("status") == "complete":
            conn.invalidate()  # what SQLAlchemy does to a connection a BaseException hit
            raise KeyboardInterrupt
        real_write_meta(conn, values)

    path = tmp_path / "j6.sqlite"
    monkeypatch.setattr(writer_module, "write_meta", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build("jujitsu(num_cards=6)", path)
    monkeypatch.undo()
    assert build("jujitsu(num_cards=6)", path).status == "complete"


def test_a_second_build_through_a_hard_link_is_refused_and_the_file_stays_sound(
        tmp_path: Path) -> None:
    """Two builders of one file under two names would each keep their own WAL
    (``NAME-wal``): the file ended damaged ('database disk image is malformed')."""
    from gamedb.store.lock import BuildLocked
    from gamedb.store.writer import Writer
    path, link = tmp_path / "j6.sqlite", tmp_path / "link.sqlite"
    holder = Writer(path, load_game("jujitsu(num_cards=6)"), {})
    try:
        link.hardlink_to(path)
        with pytest.raises(BuildLocked, match="j6.sqlite|link.sqlite"):
            build("jujitsu(num_cards=6)", link)
    finally:
        holder.close()
    assert not link.with_name("link.sqlite-wal").exists()
    assert build("jujitsu(num_cards=6)", path).status == "complete"
    report = verify(path)
    assert report.failures == 0 and not report.problems and report.checked == report.states


def test_info_json_says_whether_a_build_is_running_on_the_file(tmp_path: Path) -> None:
    """``status`` is ``building`` both while a build runs and after it stopped: programs
    could not tell them apart (the text said 'no build is running', the JSON nothing)."""
    import json

    from click.testing import CliRunner

    from gamedb.cli import cli
    from gamedb.store.writer import Writer
    path = tmp_path / "j6.sqlite"

    def info() -> dict[str, object]:
        result = CliRunner().invoke(cli, ["info", str(path), "--json"])
        assert result.exit_code == 0, result.output
        return dict(json.loads(result.stdout))

    holder = Writer(path, load_game("jujitsu(num_cards=6)"), {})
    try:
        assert (info()["status"], info()["running"]) == ("building", True)
    finally:
        holder.close()
    assert (info()["status"], info()["running"]) == ("building", False)
    build("jujitsu(num_cards=6)", path)
    assert (info()["status"], info()["running"]) == ("complete", False)


def test_a_build_freezes_what_it_found_alive_and_thaws_it_after(tmp_path: Path) -> None:
    """The objects alive when a build starts are frozen while it runs (collections skip
    them: Dask's import started 0.08 s sooner), and thawed after it, so that a program
    that builds many times keeps nothing it would have freed."""
    import gc
    counts: list[int] = []  # objects frozen, after every chunk
    build("goofspiel(num_cards=4)", tmp_path / "a.sqlite",
          observer=Counting(lambda done, total: counts.append(gc.get_freeze_count())))
    assert counts and all(count > 1000 for count in counts), counts
    assert gc.get_freeze_count() == 0


def test_a_build_leaves_a_freeze_of_its_caller_alone(tmp_path: Path) -> None:
    """A program that froze its own objects finds them frozen after a build."""
    import gc
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        build("goofspiel(num_cards=4)", tmp_path / "b.sqlite")
        assert 0 < gc.get_freeze_count() <= frozen  # not thawed (0); objects freed by
        # their last reference leave the count, none joined it
    finally:
        gc.unfreeze()
