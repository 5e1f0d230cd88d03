"""``gamedb build`` through the indexed face (point-difference and win/loss Goofspiel)
writes the file the generic builder writes: same rows, same layers; strategies from a
chosen layer up, and a killed build resumes to the same file."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gamedb.builder import build
from gamedb.builder.plan import strategy_split
from gamedb.builder.progress import Counting
from gamedb.games import load_game
from gamedb.games.goofspiel import Goofspiel
from gamedb.games.goofspiel.winloss import WinLossIndex
from gamedb.store import open_db
from gamedb.store.errors import SpecMismatch
from gamedb.verify import verify
from tests.stored import every_position

ROWS = "SELECT key, layer, value, gap, strategy1, strategy2 FROM states ORDER BY key"
LAYERS = "SELECT layer, states, done FROM layers ORDER BY layer"


def _spec(n: int) -> str:
    return f"goofspiel(num_cards={n},returns_type=point_difference)"


def _win_loss(n: int) -> str:
    return f"goofspiel(num_cards={n})"  # returns_type=win_loss, the default


def _rows(path: Path, query: str = ROWS) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(query).fetchall()


def _meta(path: Path, name: str) -> str:
    with sqlite3.connect(path) as conn:
        return str(conn.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()[0])


@pytest.fixture(scope="module")
def generic(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """Return (n, spec) -> a file built by the generic builder (the indexed face off)."""
    cache: dict[str, Path] = {}

    def get(n: int, spec: Any = _spec) -> Path:
        if spec(n) not in cache:
            path = tmp_path_factory.mktemp("generic") / f"g{n}.sqlite"
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(Goofspiel, "indexed_face", lambda self: None)
                build(spec(n), path)
            cache[spec(n)] = path
        return cache[spec(n)]

    return get


@pytest.mark.parametrize("spec,n", [(_spec, n) for n in (1, 2, 4, 6, 8)]
                         + [(_win_loss, n) for n in range(1, 9)])
def test_the_indexed_build_writes_the_generic_builders_rows(  # type: ignore[no-untyped-def]
        spec: Any, n: int, generic, tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    assert load_game(spec(n)).indexed_face() is not None
    report = build(spec(n), path, chunk_size=3_000, page_size=3_000)  # 7-8: keyed pages
    want = _rows(generic(n, spec))
    got = every_position(path)
    assert report.status == "complete" and report.states == len(want) == len(got)
    assert [r[:2] for r in got] == [r[:2] for r in want]
    values = np.array([r[2] for r in got]) - np.array([r[2] for r in want])
    assert np.abs(values).max() <= 1e-12  # the bound; the games are the same doubles
    assert got == want  # values, gaps and strategy texts: bit for bit
    assert _rows(path, LAYERS) == _rows(generic(n, spec), LAYERS)
    assert _meta(path, "root_value") == _meta(generic(n, spec), "root_value")


@pytest.mark.parametrize("n,word_bits", [(5, 1), (7, 5)])
def test_score_sets_of_several_words_build_the_generic_builders_rows(  # type: ignore[no-untyped-def]
        n: int, word_bits: int, generic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Up to 13 cards a score set is one word; here every set spans several (6 and 3
    words at most), and the file is still the generic builder's, bit for bit."""
    face = load_game(_win_loss(n)).indexed_face()
    assert isinstance(face, WinLossIndex)
    narrow = face.with_word_bits(word_bits)
    assert max(narrow.words.values()) > 1
    monkeypatch.setattr(Goofspiel, "indexed_face", lambda self: narrow)
    path = tmp_path / "g.sqlite"
    build(_win_loss(n), path, chunk_size=3_000, page_size=3_000)
    assert every_position(path) == _rows(generic(n, _win_loss))
    assert _rows(path, LAYERS) == _rows(generic(n, _win_loss), LAYERS)


def test_layers_below_the_split_are_values_only_and_probe_solves_them(generic, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "split.sqlite"
    build(_spec(6), path, strategies_from=4)
    rows, full = _rows(path), _rows(generic(6))
    assert all((r[4] is None) == (r[1] < 4) for r in rows)
    assert [r for r in rows if r[1] >= 4] == [r for r in full if r[1] >= 4]
    assert [r[:3] for r in rows] == [r[:3] for r in full]
    assert all((r[3] is None) == (r[1] < 4) for r in rows)  # values-only rows keep no gap
    with open_db(path) as lean, open_db(generic(6)) as db:
        for key in [r[0] for r in rows][::7]:
            state = db.game.decode(key)
            got, want = lean.probe(state), db.probe(state)
            assert got.value == want.value
            for player in (1, 2):
                assert got.strategies[player].keys() == want.strategies[player].keys()
                assert all(abs(p - want.strategies[player][a]) <= 1e-12
                           for a, p in got.strategies[player].items())
    report = verify(path)
    assert report.ok and report.checked == len(rows)


def test_a_null_strategy_above_the_split_is_damage(tmp_path: Path) -> None:
    path = tmp_path / "split.sqlite"
    build(_spec(5), path, strategies_from=3)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE states SET strategy1 = NULL WHERE layer = 4")
    report = verify(path)
    assert not report.ok
    assert report.failures == sum(1 for r in _rows(path) if r[1] == 4)  # and their parents


class _Killed(Exception):
    pass


def _killer(after: int):  # type: ignore[no-untyped-def]
    calls = [0]

    def on_progress(done: int, total: int) -> None:
        calls[0] += 1
        if calls[0] == after:
            raise _Killed
    return on_progress


@pytest.mark.parametrize("spec", [_spec(7), _win_loss(6)])
@pytest.mark.parametrize("kills", [[3], [20, 10], [25, 1, 1, 8]])
def test_a_killed_build_resumes_mid_layer_to_the_same_file(spec: str, kills: list[int],
                                                           tmp_path: Path) -> None:
    reference, path = tmp_path / "ref.sqlite", tmp_path / "killed.sqlite"
    build(spec, reference, chunk_size=700, strategies_from=5)
    partial = []
    for after in kills:
        with pytest.raises(_Killed):
            build(spec, path, chunk_size=700, strategies_from=5, observer=Counting(_killer(after)))
        partial += [(l, s, d) for l, s, d in _rows(path, LAYERS) if 0 < d < s]
    assert partial  # killed inside a layer at least once
    build(spec, path, chunk_size=1_500, strategies_from=5)  # other chunks: same rows
    assert _rows(path) == _rows(reference)
    assert _rows(path, LAYERS) == _rows(reference, LAYERS)
    assert _meta(path, "root_value") == _meta(reference, "root_value")
    assert verify(path).ok


def test_a_resumed_build_refuses_a_layer_whose_rows_do_not_match_its_count(tmp_path: Path) -> None:
    from gamedb.store.errors import DamagedFile

    path = tmp_path / "g.sqlite"
    with pytest.raises(_Killed):
        build(_spec(7), path, chunk_size=700, observer=Counting(_killer(20)))
    layer, done = next((l, d) for l, s, d in _rows(path, LAYERS) if 0 < d < s)
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM states WHERE key = (SELECT max(key) FROM states "
                     "WHERE layer = ?)", (layer,))
    with pytest.raises(DamagedFile, match=f"layer {layer}: the layers table says {done:,}"):
        build(_spec(7), path, chunk_size=700)


def test_a_build_resumed_with_another_split_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    with pytest.raises(_Killed):
        build(_spec(6), path, chunk_size=500, strategies_from=4, observer=Counting(_killer(2)))
    with pytest.raises(SpecMismatch, match="--strategies-from 4"):
        build(_spec(6), path, strategies_from=3)


def test_the_command_refuses_another_split_in_one_line_and_leaves_the_file(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from gamedb.cli import cli

    path = tmp_path / "g.sqlite"
    with pytest.raises(_Killed):
        build(_spec(6), path, chunk_size=500, strategies_from=4, observer=Counting(_killer(2)))
    before = _rows(path)
    result = CliRunner().invoke(cli, ["build", _spec(6), "--db", str(path), "--quiet",
                                      "--strategies-from", "3"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.strip().splitlines() == [
        f"Error: {path} stores strategies from layer 4; build it the same way "
        "(--strategies-from 4) or use another file"]
    assert _rows(path) == before


def test_big_games_store_strategies_from_eleven_cards_in_hand() -> None:
    assert strategy_split(load_game(_spec(10)).indexed_face(), None) == 0  # every layer
    assert strategy_split(load_game(_spec(11)).indexed_face(), None) == 11
    assert strategy_split(load_game(_spec(11)).indexed_face(), 1) == 0
    assert strategy_split(load_game(_win_loss(10)).indexed_face(), None) == 0  # 10 layers
    assert strategy_split(load_game(_win_loss(11)).indexed_face(), None) == 11  # and 11


def test_the_generic_builder_honours_the_split_too(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    build("jujitsu(num_cards=5)", path, strategies_from=3)
    rows = _rows(path)
    assert rows and all((r[4] is None) == (r[1] < 3) for r in rows)
    assert verify(path).ok
