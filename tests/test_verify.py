"""verify re-derives every stage game: it passes sound files and catches corruption."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from gamedb.verify import verify


@pytest.fixture
def j7(built, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    path = tmp_path / "j7.sqlite"
    shutil.copy(built("jujitsu(num_cards=7)"), path)
    return path


def _mixed_key(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT key FROM strategies WHERE prob < 1 AND player = 1 "
                            "ORDER BY key LIMIT 1").fetchone()[0]


def test_sound_file_verifies_with_gap_below_tolerance(j7: Path) -> None:
    report = verify(j7)
    assert report.ok and report.checked == 887 and report.max_gap <= 1e-9


def test_a_corrupted_value_is_found(j7: Path) -> None:
    key = _mixed_key(j7)
    with sqlite3.connect(j7) as conn:
        conn.execute("UPDATE states SET value = value + 0.01 WHERE key = ?", (key,))
    report = verify(j7)
    assert not report.ok and key in report.failing_keys


def test_a_corrupted_strategy_is_found(j7: Path) -> None:
    key = _mixed_key(j7)
    with sqlite3.connect(j7) as conn:  # move mass between two actions of player 1
        (a, p), (b, q) = conn.execute("SELECT action, prob FROM strategies WHERE key = ? "
                                      "AND player = 1 ORDER BY action LIMIT 2", (key,)).fetchall()
        conn.execute("UPDATE states SET strategy1 = json_remove(json_set(strategy1, ?, ?), ?) "
                     "WHERE key = ?", (f"$.{a}", p + q, f"$.{b}", key))
        assert conn.execute("SELECT count(*) FROM strategies WHERE key = ? AND player = 1 "
                            "AND action = ?", (key, b)).fetchone() == (0,)
    report = verify(j7)
    assert not report.ok and report.failing_keys == [key]


def test_sample_checks_only_that_many_positions_and_still_catches_corruption(j7: Path) -> None:
    report = verify(j7, sample=50, seed=3)
    assert report.ok and report.checked == 50 and report.states == 887
    with sqlite3.connect(j7) as conn:
        conn.execute("UPDATE states SET value = value + 0.5")  # every position now wrong
    assert verify(j7, sample=25, seed=4).failures > 0


def test_exact_rational_resolve_matches_the_stored_values(j7: Path) -> None:
    report = verify(j7, exact=True)
    assert report.ok and report.max_exact_error is not None and report.max_exact_error <= 1e-9


def test_exact_flags_a_value_one_millionth_off(j7: Path) -> None:
    key = _mixed_key(j7)
    with sqlite3.connect(j7) as conn:
        conn.execute("UPDATE states SET value = value + 1e-6 WHERE key = ?", (key,))
    report = verify(j7, exact=True)
    assert not report.ok and key in report.failing_keys
    assert report.max_exact_error == pytest.approx(1e-6, rel=1e-3)


def test_progress_is_reported_up_to_every_position(j7: Path) -> None:
    calls: list[tuple[int, int]] = []
    verify(j7, on_progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (887, 887) and calls == sorted(calls)


def test_verify_streams_holding_only_the_layers_successors_can_reach(
        j7: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gamedb.verify as module

    held: list[int] = []

    class Recording(module.ValueTable):
        def add(self, layer: int, keys, values) -> None:  # type: ignore[no-untyped-def]
            super().add(layer, keys, values)
            held.append(len(self.layers))

    monkeypatch.setattr(module, "ValueTable", Recording)
    assert verify(j7).ok
    assert len(held) == 7 and max(held) == 2  # jujitsu: a successor is one layer below


def test_sample_reads_successor_values_by_key_and_catches_a_missing_one(j7: Path) -> None:
    with sqlite3.connect(j7) as conn:
        conn.execute("DELETE FROM states WHERE layer = 1")
    report = verify(j7, sample=400, seed=1)
    assert not report.ok and any("is not stored" in f.reason for f in report.failed)


def test_a_sample_of_an_indexed_game_unranks_the_same_keys_as_a_pass_over_the_layer(built) -> None:  # type: ignore[no-untyped-def]
    """``verify --sample`` on a 13-card file cannot read 1.3e9 keys to pick a few: where
    the game has a perfect index, the keys at the drawn offsets are unranked instead."""
    import numpy as np

    from gamedb.store import open_db
    from gamedb.verify import _keys_at, _keys_by_index

    path = built("goofspiel(num_cards=6,returns_type=point_difference)")
    with open_db(path) as db:
        face = db.game.indexed_face()
        assert face is not None
        for layer in face.layers():
            size = face.size(layer)
            offsets = np.sort(np.random.default_rng(layer).choice(size, min(40, size), replace=False))
            assert (_keys_by_index(face, layer, offsets) == _keys_at(db, layer, offsets)).all()
    report = verify(path, sample=300, seed=2)
    assert report.ok and report.checked == 300


# -- impartial families: the grundy table (schema 0005) ---------------------------------

@pytest.fixture
def nim(built, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    path = tmp_path / "nim.sqlite"
    shutil.copy(built("nim(heaps=1-2-3)"), path)
    return path


def _grundy_key(path: Path, grundy: int) -> int:
    """A position of the highest layer with that Grundy value (its moves all pass)."""
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT g.key FROM grundy AS g JOIN states AS s ON s.key = g.key "
                            "WHERE g.grundy = ? ORDER BY s.layer DESC, g.key LIMIT 1",
                            (grundy,)).fetchone()[0]


def test_a_sound_impartial_file_has_every_grundy_value_checked(nim: Path) -> None:
    report = verify(nim)
    assert report.ok, (report.failed, report.problems)


@pytest.mark.parametrize("change, reason", [
    ("UPDATE grundy SET grundy = grundy + 1 WHERE key = ?", "mex of its moves"),
    ("UPDATE grundy SET grundy = 'x' WHERE key = ?", "not a non-negative integer"),
    ("DELETE FROM grundy WHERE key = ?", "no Grundy value"),
])
def test_a_damaged_grundy_row_is_reported_as_its_position_first(nim: Path, change: str,
                                                                 reason: str) -> None:
    key = _grundy_key(nim, 1)
    with sqlite3.connect(nim) as conn:
        conn.execute(change, (key,))
    report = verify(nim)
    assert not report.ok and report.failures >= 1
    first = report.failed[0]
    assert (first.key, first.after_successor) == (key, False) and reason in first.reason
    assert first.position.startswith("heaps=")


def test_a_grundy_value_that_contradicts_the_stored_value_is_reported(nim: Path) -> None:
    """Zero for a position whose value says the mover wins: the mex check and the
    value check both name it."""
    key = _grundy_key(nim, 2)
    with sqlite3.connect(nim) as conn:
        conn.execute("UPDATE grundy SET grundy = 0 WHERE key = ?", (key,))
    report = verify(nim)
    assert not report.ok and report.failed[0].key == key
    assert "the mover loses" in report.failed[0].reason


@pytest.mark.parametrize("kwargs", [{"sample": 5}, {"from_layer": 2}])
def test_a_partial_verify_of_an_impartial_file_says_the_grundy_values_were_not_checked(
        nim: Path, kwargs: dict[str, int]) -> None:
    key = _grundy_key(nim, 1)
    with sqlite3.connect(nim) as conn:
        conn.execute("UPDATE grundy SET grundy = grundy + 1 WHERE key = ?", (key,))
    report = verify(nim, **kwargs)  # type: ignore[arg-type]
    assert report.ok and "Grundy values" in report.note and "whole file" in report.note
    assert not verify(nim).ok  # the whole-file verify finds it


# -- meta's strategy flags against what the rows and pages store -------------------------

_J4 = "jujitsu(num_cards=4)"  # layers 1-4 hold 9, 15, 7 and 1 positions
_BUILDS = {  # name: build options
    "pages": {"page_min": 1},  # every layer keyed pages, each with strategies
    "pages split": {"page_min": 1, "strategies_from": 3},
    "pages values": {"page_min": 1, "values_only": True},
    "mixed": {"page_min": 8},  # layers 1-2 keyed pages, 3-4 rows
    "rows split": {"page_min": 0, "strategies_from": 3},
}


@pytest.fixture(scope="module")
def j4s(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from gamedb.builder import build

    folder = tmp_path_factory.mktemp("flags")
    for name, options in _BUILDS.items():
        build(_J4, folder / f"{name}.sqlite", **options)  # type: ignore[arg-type]
    return {name: folder / f"{name}.sqlite" for name in _BUILDS}


def test_files_with_strategies_in_pages_and_rows_are_sound(j4s: dict[str, Path]) -> None:
    from gamedb.store import open_db

    with open_db(j4s["mixed"]) as db:
        assert sorted(db.pages.layers) == [1, 2]
    for name, path in j4s.items():
        report = verify(path)
        assert report.ok and report.checked == 32, (name, report.problems, report.failed)


_EVERY = "every layer stores strategies (no values_only, no strategies_from)"


@pytest.mark.parametrize("name, statement, problem", [
    # strategies kept below the layer meta says they start at (verify said sound)
    ("pages", "INSERT INTO meta VALUES ('strategies_from', '3')",
     "meta says strategies_from 3 (no strategy stored below layer 3), but 24 position(s) "
     "store strategies, from layer 1: the flag was changed"),
    ("pages", "UPDATE meta SET value = 'true' WHERE name = 'values_only'",
     "meta says values_only (no strategy stored), but 32 position(s) store strategies, "
     "from layer 1: the flag was changed"),
    ("mixed", "UPDATE meta SET value = 'true' WHERE name = 'values_only'",
     "meta says values_only (no strategy stored), but 32 position(s) store strategies, "
     "from layer 1: the flag was changed"),
    ("pages split", "UPDATE meta SET value = '4' WHERE name = 'strategies_from'",
     "meta says strategies_from 4 (no strategy stored below layer 4), but 7 position(s) "
     "store strategies, from layer 3: the flag was changed"),
    # layers meta says keep strategies that keep none (verify blamed every position's gap)
    ("pages split", "DELETE FROM meta WHERE name = 'strategies_from'",
     f"meta says {_EVERY}, but 24 position(s) store none, from layer 1: the flag was changed"),
    ("pages split", "UPDATE meta SET value = '2' WHERE name = 'strategies_from'",
     "meta says strategies_from 2 (strategies stored from layer 2 up), but 15 position(s) "
     "store none, from layer 2: the flag was changed"),
    ("pages values", "UPDATE meta SET value = 'false' WHERE name = 'values_only'",
     f"meta says {_EVERY}, but 32 position(s) store none, from layer 1: the flag was changed"),
    ("rows split", "DELETE FROM meta WHERE name = 'strategies_from'",
     f"meta says {_EVERY}, but 24 position(s) store none, from layer 1: the flag was changed"),
])
def test_a_changed_strategy_flag_is_the_one_problem(j4s: dict[str, Path], tmp_path: Path,
                                                    name: str, statement: str,
                                                    problem: str) -> None:
    """The values of every layer are still checked (re-solved where no strategy is
    stored); what is wrong is ``meta``, said in one line."""
    path = tmp_path / "t.sqlite"
    shutil.copy(j4s[name], path)
    with sqlite3.connect(path) as conn:
        conn.execute(statement)
    conn.close()
    report = verify(path)
    assert not report.ok and report.checked == 32 and report.failures == 0, report.failed
    assert report.problems == [problem]


def test_verify_says_a_changed_flag_of_a_page_file_in_one_line(j4s: dict[str, Path],
                                                               tmp_path: Path) -> None:
    """``UPDATE meta SET value = '3' WHERE name = 'strategies_from'`` (the reviewer's
    tamper): verify said sound, as it looked for strategies in ``states`` only."""
    from click.testing import CliRunner

    from gamedb.cli import cli

    path = tmp_path / "t.sqlite"
    shutil.copy(j4s["pages"], path)
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO meta VALUES ('strategies_from', '3')")
    conn.close()
    before = path.read_bytes()
    result = CliRunner().invoke(cli, ["verify", str(path)])
    assert result.exit_code == 1 and "NOT sound" in result.stdout, result.output
    assert "Traceback" not in result.output and path.read_bytes() == before
    assert result.stderr.splitlines() == [
        f"Error: {path}: meta says strategies_from 3 (no strategy stored below layer 3), but "
        "24 position(s) store strategies, from layer 1: the flag was changed"]


def test_info_and_show_read_a_file_whose_strategy_flag_was_changed(j4s: dict[str, Path],
                                                                  tmp_path: Path) -> None:
    """Strategies kept below ``strategies_from`` are read as stored (the same as solved
    on demand); a layer said to keep strategies that keeps none is damage, said as the
    missing strategy (it said ``the gap 'None' is not a finite number``)."""
    from click.testing import CliRunner

    from gamedb.cli import cli

    position = "hand1=1,2 hand2=1,2 pot=0 diff=0"  # layer 2
    kept, bare = tmp_path / "kept.sqlite", tmp_path / "bare.sqlite"
    shutil.copy(j4s["pages"], kept)
    shutil.copy(j4s["pages split"], bare)
    for path, statement in [(kept, "INSERT INTO meta VALUES ('strategies_from', '3')"),
                            (bare, "DELETE FROM meta WHERE name = 'strategies_from'")]:
        with sqlite3.connect(path) as conn:
            conn.execute(statement)
        conn.close()
        info = CliRunner().invoke(cli, ["info", str(path), "--json"])
        assert info.exit_code == 0 and '"states": 32' in info.stdout, info.output
    shown = CliRunner().invoke(cli, ["show", str(kept), position, "--json"])
    truth = CliRunner().invoke(cli, ["show", str(j4s["pages split"]), position, "--json"])
    assert shown.exit_code == truth.exit_code == 0 and shown.stdout == truth.stdout
    refused = CliRunner().invoke(cli, ["show", str(bare), position])
    assert refused.exit_code == 1 and "Traceback" not in refused.output
    assert refused.stderr.splitlines() == [
        f"Error: {bare}: position {position} (key 562949953683507): no strategy stored "
        "(NULL) in a file built with strategies (the file is damaged; rebuild it or restore "
        "a copy)"]
