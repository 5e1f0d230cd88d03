"""The probe API: real cards in, real cards out; read-only by default; precise errors."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from gamedb.builder import build
from gamedb.games import GameError
from gamedb.store import NotAGameDB, NotSolved, SpecMismatch, open_db


@pytest.fixture(scope="module")
def j6(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("db") / "j6.sqlite"
    build("jujitsu(num_cards=6)", path)
    return path


def test_probe_maps_ranks_back_to_real_cards(j6: Path) -> None:
    with open_db(j6) as db:
        high = db.probe("hand1=4,6 hand2=2,5 pot=0 diff=0")
        low = db.probe("hand1=2,3 hand2=1,2 pot=0 diff=0")
    assert set(high.strategies[1]) <= {4, 6} and set(high.strategies[2]) <= {2, 5}
    for entry in (high, low):
        for strategy in entry.strategies.values():
            assert sum(strategy.values()) == pytest.approx(1.0, abs=1e-12)


def test_player_swap_negates_the_value_and_swaps_strategies(j6: Path) -> None:
    with open_db(j6) as db:
        a = db.probe("hand1=1,4,6 hand2=1,3,5 pot=1 diff=0")
        b = db.probe("hand1=1,3,5 hand2=1,4,6 pot=1 diff=0")
    assert a.key == b.key and a.value == pytest.approx(-b.value, abs=1e-12)
    assert a.strategies[1] == b.strategies[2] and a.strategies[2] == b.strategies[1]


def test_rank_compression_gives_equal_values_for_equal_comparisons(j6: Path) -> None:
    with open_db(j6) as db:
        a = db.probe("hand1=1,3 hand2=2,4 pot=0 diff=0")
        b = db.probe("hand1=2,5 hand2=3,6 pot=0 diff=0")
    assert a.key == b.key and a.value == b.value
    assert [a.strategies[1].get(c, 0) for c in (1, 3)] == [b.strategies[1].get(c, 0) for c in (2, 5)]


def test_terminal_position_has_its_payoff_and_no_strategy(j6: Path) -> None:
    with open_db(j6) as db:
        entry = db.probe("hand1=- hand2=- pot=0 diff=2")
    assert entry.value == 1.0 and entry.strategies == {}


def test_get_returns_default_for_unstored_and_probe_raises(tmp_path: Path) -> None:
    path = tmp_path / "partial.sqlite"
    build("jujitsu(num_cards=5)", path)
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM states WHERE layer = 5")
    with open_db(path) as db:
        assert db.get("start") is None
        with pytest.raises(NotSolved, match="position not in partial.sqlite"):
            db.probe("start")
        with pytest.raises(GameError):
            db.probe("hand1=1,2 hand2=3")


def test_shipped_files_open_read_only(j6: Path) -> None:
    before = j6.read_bytes()
    with open_db(j6) as db:
        db.probe("start")
        with pytest.raises(Exception, match="readonly|read-only"):
            db._conn.exec_driver_sql("DELETE FROM states")
    assert j6.read_bytes() == before


def test_non_gamedb_files_are_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t(x)")
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"\x00garbage" * 512)
    with pytest.raises(NotAGameDB, match="not a gamedb database"):
        open_db(other)
    with pytest.raises(NotAGameDB, match="garbage.sqlite"):
        open_db(garbage)
    with pytest.raises(NotAGameDB, match="no such database file"):
        open_db(tmp_path / "missing.sqlite")


def test_unknown_key_layout_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite"
    build("jujitsu(num_cards=3)", path)
    with sqlite3.connect(path) as conn:
        conn.execute("""UPDATE meta SET value = '"jujitsu-v9"' WHERE name = 'key_layout'""")
    with pytest.raises(SpecMismatch, match="key layout 'jujitsu-v9'"):
        open_db(path)


@pytest.mark.parametrize("spec", ["jujitsu(num_cards=4)", "goofspiel(num_cards=3)",
                                  "oshi_zumo(coins=5,size=1)"])
def test_value_alone_equals_the_probes_value_everywhere(built, spec: str) -> None:  # type: ignore[no-untyped-def]
    with open_db(built(spec)) as db:
        states = [s for _, s in db.game.initial()] + ["start"]
        children = [c for s in states[:-1] for a in db.game.actions(s)[0]
                    for b in db.game.actions(s)[1] for _, c in db.game.next(s, a, b)]
        for state in [*states, *children]:
            assert db.value(state) == db.probe(state).value


def test_a_damaged_file_is_released_by_the_thread_that_failed_to_open_it(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """``gamedb serve`` opens files in worker threads: a file that fails its checks must
    be closed there, not left to the garbage collector of another thread (SQLite refuses
    that, and SQLAlchemy printed its traceback on the server's stderr)."""
    import gc
    import shutil
    import sqlite3
    import threading

    from gamedb.builder import build
    from gamedb.store import open_db
    from gamedb.store.errors import DamagedFile

    path = tmp_path / "bad.sqlite"
    build("jujitsu(num_cards=4)", tmp_path / "good.sqlite")
    shutil.copy(tmp_path / "good.sqlite", path)
    with sqlite3.connect(path) as conn:
        conn.execute("DROP VIEW positions")
    failures: list[str] = []

    def open_it() -> None:
        try:
            open_db(path)
        except DamagedFile as exc:
            failures.append(str(exc))  # not the exception: its frames would keep the file
    worker = threading.Thread(target=open_it)
    worker.start()
    worker.join()
    with caplog.at_level("ERROR", logger="sqlalchemy.pool"):
        gc.collect()  # here, in another thread than the one that opened it
    assert len(failures) == 1 and "positions" in failures[0]
    assert not caplog.records, [record.getMessage() for record in caplog.records]
