"""2x2 tic-tac-toe: turn-based, symmetry-reduced keys, X wins."""

from __future__ import annotations


import numpy as np
import pytest

from gamedb.games import GameError, load_game
from gamedb.games.base import reference_expand
from gamedb.games.tictoe import TictoeState
from gamedb.solver.backward import enumerate_layers
from gamedb.store import open_db


def test_first_player_wins(built) -> None:  # type: ignore[no-untyped-def]
    # After X's first mark O blocks one of its two neighbours; X takes the other.
    with open_db(built("tictoe")) as db:
        entry = db.probe("start")
        assert db.info().root_value == pytest.approx(1.0)
    assert entry.value == pytest.approx(1.0)
    assert entry.strategies[2] == {0: 1.0}
    assert sum(entry.strategies[1].values()) == pytest.approx(1.0)


@pytest.mark.parametrize("board, win", [("XO..", 2), (".X.O", 0), ("O..X", 1), ("..OX", 1)])
def test_only_the_completing_cell_wins_and_is_played(built, board: str, win: int) -> None:  # type: ignore[no-untyped-def]
    # Real cells come back through the symmetry that stored the position.
    with open_db(built("tictoe")) as db:
        entry = db.probe(f"board={board} mover=1")
    assert entry.value == pytest.approx(1.0)
    assert entry.strategies[1] == {win: 1.0}


def test_diagonal_is_not_a_line() -> None:
    game = load_game("tictoe")
    assert game.value(game.parse_position("board=XO.X")) is None
    assert game.value(game.parse_position("board=XOOX")) == 0.0
    assert game.value(game.parse_position("board=XXO.")) == 1.0
    assert game.value(game.parse_position("board=XOXO mover=1")) == 1.0


def test_canonical_and_uncanonical_builds_agree_on_every_position(raw_and_canonical) -> None:  # type: ignore[no-untyped-def]
    rows, raw_count, canonical_count = raw_and_canonical("tictoe")
    for state, raw, canonical in rows:
        assert canonical.value == pytest.approx(raw.value, abs=1e-12)
    assert (raw_count, canonical_count) == (21, 5)


def test_state_counts_are_golden() -> None:
    assert {k: len(v) for k, v in enumerate_layers(load_game("tictoe")).items()} == {4: 1, 3: 1, 2: 2, 1: 1}
    raw = enumerate_layers(load_game("tictoe", canonical_keys=False))
    assert {k: len(v) for k, v in raw.items()} == {4: 1, 3: 4, 2: 12, 1: 4}


def test_symmetric_positions_share_a_key_and_map_cells() -> None:
    game = load_game("tictoe")
    a, b = game.canonical(TictoeState(0b0001, 0, 2)), game.canonical(TictoeState(0b1000, 0, 2))
    assert a.key == b.key
    empty_a, empty_b = set(a.actions[1]), set(b.actions[1])
    assert empty_a == {1, 2, 3} and empty_b == {0, 1, 2}
    assert sorted(a.actions[1].values()) == sorted(b.actions[1].values())


def test_layer_face_matches_reference_face() -> None:
    game = load_game("tictoe")
    for keys in enumerate_layers(game).values():
        fast, slow = game.expand(keys), reference_expand(game, keys)
        assert np.array_equal(fast.succ, slow.succ) and np.array_equal(fast.weight, slow.weight)


def test_random_positions_round_trip_through_text_and_key() -> None:
    game = load_game("tictoe", canonical_keys=False)
    for keys in enumerate_layers(game).values():
        for key in keys.tolist():
            state = game.decode(key)
            assert game.key(state) == key
            assert game.parse_position(game.format_position(state)) == state


@pytest.mark.parametrize("text, message", [
    ("board=XX..", "cannot happen"),
    ("board=X..X", "cannot happen"),
    ("board=OO..", "cannot happen"),
    ("board=X.O", "4 cells"),
    ("board=X.Z.", "4 cells"),
    ("board=X... mover=1", "mover=1 is wrong"),
    ("mover=1", "missing board"),
])
def test_malformed_positions_are_rejected_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        load_game("tictoe").parse_position(text)


def test_tictoe_takes_no_parameters() -> None:
    with pytest.raises(GameError, match="unknown parameter"):
        load_game("tictoe(size=3)")
    assert load_game("tictoe").spec == "tictoe()"


def test_moves_are_named_by_their_cell_in_show_the_api_names_and_play(built) -> None:  # type: ignore[no-untyped-def]
    """Moves were bare cell numbers ("0".."3") in show, play, the API and the explorer."""
    import json

    from click.testing import CliRunner

    from gamedb.cli import cli
    from gamedb.games.base import named_actions

    game = load_game("tictoe")
    names = named_actions(game, game.parse_position("board=X... mover=2"))
    assert names == {1: {0: "pass"}, 2: {1: "top right", 2: "bottom left", 3: "bottom right"}}
    db = str(built("tictoe"))
    shown = CliRunner().invoke(cli, ["show", db, "start"]).stdout
    assert "top left" in shown and "bottom right" in shown
    api = json.loads(CliRunner().invoke(cli, ["show", db, "start", "--json"]).stdout)
    assert api["names"]["1"] == {"0": "top left", "1": "top right", "2": "bottom left",
                                 "3": "bottom right"}
    played = CliRunner().invoke(cli, ["play", db, "--seed", "1"],
                                input="top left\n3\n1\n2\n")
    assert "you played top left" in played.stdout, played.stdout
