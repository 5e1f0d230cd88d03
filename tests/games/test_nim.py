"""Nim: the turn-based special case (the player not on move passes), Bouton's xor law."""

from __future__ import annotations

import itertools
import random
from functools import reduce
from operator import xor

import numpy as np
import pytest

from gamedb.games import GameError, load_game
from gamedb.games.nim import NimState
from gamedb.solver.backward import enumerate_layers
from gamedb.store import open_db


def _positions(start: tuple[int, ...]):  # type: ignore[no-untyped-def]
    """Every sorted heap tuple reachable from ``start`` (elementwise below it, sorted)."""
    for heaps in itertools.product(*(range(h + 1) for h in start)):
        if list(heaps) == sorted(heaps):
            yield heaps


@pytest.mark.parametrize("heaps", ["1-3-5-7", "2-2-3", "1-2-3-4-5", "4", "3-3", "1-1-1-6"])
def test_position_is_lost_for_the_mover_exactly_when_the_xor_is_zero(built, heaps: str) -> None:  # type: ignore[no-untyped-def]
    start = tuple(sorted(int(h) for h in heaps.split("-")))
    with open_db(built(f"nim(heaps={heaps})")) as db:
        for position in _positions(start):
            for mover in (1, 2):
                entry = db.probe(NimState(position, mover))
                mover_wins = reduce(xor, position, 0) != 0
                expected = 1.0 if mover_wins == (mover == 1) else -1.0
                assert entry.value == pytest.approx(expected, abs=1e-12), (position, mover)


@pytest.mark.parametrize("heaps", ["1-3-5-7", "2-2-3", "1-2-3-4-5", "4", "3-3"])
def test_the_grundy_value_of_every_position_is_the_xor_of_the_heaps(built, heaps: str) -> None:  # type: ignore[no-untyped-def]
    start = tuple(sorted(int(h) for h in heaps.split("-")))
    with open_db(built(f"nim(heaps={heaps})")) as db:
        for position in _positions(start):
            for mover in (1, 2):
                assert db.probe(NimState(position, mover)).grundy == reduce(xor, position, 0)


def test_winning_moves_are_exactly_the_moves_to_xor_zero(built) -> None:  # type: ignore[no-untyped-def]
    # heaps 1,3,5,6 have xor 1: taking 1 from heap 1 (the 1), 2 (the 3) or 3 (the 5) wins.
    with open_db(built("nim(heaps=1-3-5-7)")) as db:
        entry = db.probe("heaps=6,5,3,1 mover=2")
    assert entry.position == "heaps=1,3,5,6 mover=2"
    assert set(entry.strategies[2]) <= {101, 201, 301}
    assert sum(entry.strategies[2].values()) == pytest.approx(1.0)
    assert entry.strategies[1] == {0: 1.0}
    assert entry.value == pytest.approx(-1.0)


def test_start_of_one_three_five_seven_is_lost_for_player_one(built) -> None:  # type: ignore[no-untyped-def]
    with open_db(built("nim")) as db:
        assert db.info().root_value == pytest.approx(-1.0)
        assert db.game.spec == "nim(heaps=1-3-5-7)"


@pytest.mark.parametrize("heaps", ["1-3-5-7", "2-2-3"])
def test_canonical_and_uncanonical_builds_agree_on_every_position(raw_and_canonical, heaps: str) -> None:  # type: ignore[no-untyped-def]
    rows, raw_count, canonical_count = raw_and_canonical(f"nim(heaps={heaps})")
    for state, raw, canonical in rows:
        assert canonical.value == pytest.approx(raw.value, abs=1e-12)
        assert canonical.strategies == raw.strategies or abs(raw.value) == 1
    assert raw_count > canonical_count


def test_canonical_state_counts_are_golden() -> None:
    counts = {k: len(v) for k, v in enumerate_layers(load_game("nim(heaps=2-2-3)")).items()}
    assert counts == {7: 1, 6: 2, 5: 3, 4: 3, 3: 3, 2: 2, 1: 1}
    assert sum(map(len, enumerate_layers(load_game("nim")).values())) == 142


def test_random_walks_decrease_layer_and_pass_off_turn() -> None:
    game = load_game("nim(heaps=3-4-5-6)")
    rnd = random.Random(3)
    for _ in range(200):
        state = game.initial()[0][1]
        while game.value(state) is None:
            acts = game.actions(state)
            assert acts[2 - state.mover] == (0,) and acts[state.mover - 1]
            (prob, nxt), = game.next(state, rnd.choice(acts[0]), rnd.choice(acts[1]))
            assert prob == 1.0 and game.layer(nxt) < game.layer(state) and nxt.mover != state.mover
            assert game.decode(game.key(nxt)) == nxt
            state = nxt
        assert game.value(state) == (1.0 if state.mover == 2 else -1.0)


def test_moves_are_labelled_heap_times_100_plus_take() -> None:
    game = load_game("nim")
    moves, passes = game.actions(game.parse_position("heaps=0,2,2,7 mover=1"))
    assert passes == (0,)
    assert moves == (201, 202, 401, 402, 403, 404, 405, 406, 407)  # heap 3 equals heap 2
    assert game.next(NimState((0, 2, 2, 7), 1), 403, 0) == [(1.0, NimState((0, 2, 2, 4), 2))]


def test_layer_face_is_the_reference_face() -> None:
    game = load_game("nim(heaps=2-3)")
    keys = np.array(sorted(game.canonical(NimState((h1, h2), 1)).key for h1 in range(3) for h2 in range(h1, 4)
                           if h1 + h2 == 3))
    exp = game.expand(keys)
    assert exp.n_cols.tolist() == [1] * len(keys) and exp.n_rows.min() >= 1


@pytest.mark.parametrize("text, message", [
    ("heaps=1,3,5", "must list 4 heaps"),
    ("heaps=1,3,5,8 mover=1", "cannot be reached"),
    ("heaps=1,3,5,x", "integers"),
    ("heaps=1,3,5,7 mover=3", "mover must be 1 or 2"),
    ("mover=1", "missing heaps"),
])
def test_malformed_positions_are_rejected_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        load_game("nim").parse_position(text)


@pytest.mark.parametrize("spec, message", [
    ("nim(heaps=0-3)", "outside 1..15"),
    ("nim(heaps=16)", "outside 1..15"),
    ("nim(heaps=1-x)", "separated by '-'"),
    ("nim(heaps=1-1-1-1-1-1-1-1-1)", "1..8 heaps"),
])
def test_bad_specs_are_rejected_with_a_reason(spec: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        load_game(spec)


def test_spec_sorts_the_heaps() -> None:
    assert load_game("nim(heaps=7-5-3-1)").spec == "nim(heaps=1-3-5-7)"


def test_moves_are_named_for_people_in_show_the_api_names_and_play(built) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from gamedb.cli import cli
    from gamedb.games import load_game
    from gamedb.games.base import named_actions

    game = load_game("nim(heaps=1-2-3)")
    state = game.parse_position("heaps=1,2,3 mover=1")
    names = named_actions(game, state)
    assert names[1][302] == "take 2 from heap 3" and names[1][101] == "take 1 from heap 1"
    assert names[2] == {0: "pass"}
    db = str(built("nim(heaps=1-2-3)"))
    shown = CliRunner().invoke(cli, ["show", db, "start"]).stdout
    assert "take 3 from heap 3" in shown and "\n 302 " not in shown
    played = CliRunner().invoke(cli, ["play", db, "--seed", "1"],
                                input="302\ntake 3 from heap 3\n" + "take 1 from heap 1\n" * 3)
    assert "'302' is not legal here" in played.stdout and "you played take 3 from heap 3" in played.stdout


def test_a_nim_too_big_to_solve_here_is_refused_in_seconds() -> None:
    """``solve "nim(heaps=15-...-15)" start`` took 2 min 36 s of CPU to refuse and ``build
    --estimate`` 2 min: Nim's successors came from its per-state face, 3 ms a position
    (then about 3 s together; ``solve`` now counts by Nim's formula, at once; CPU time,
    so a busy machine does not fail the test)."""
    import time

    from gamedb.builder.estimate import estimate
    from gamedb.subgame import SubgameTooBig, solve_position
    spec = "nim(heaps=15-15-15-15-15-15-15-15)"
    started = time.process_time()
    with pytest.raises(SubgameTooBig, match="too many positions below .*: 490,313 "):
        solve_position(spec, "start")
    assert time.process_time() - started < 0.5
    with pytest.raises(GameError, match="more than 150,000 positions"):
        estimate(load_game(spec))
    assert time.process_time() - started < 20


@pytest.mark.parametrize("heaps", ["15-15-15-15-15-15-15-15", "1-1-2-7-7-9-12-15"])
def test_the_layer_face_agrees_with_the_reference_face_on_big_heaps(heaps: str) -> None:
    from gamedb.games.base import reference_expand, successor_table
    game = load_game(f"nim(heaps={heaps})")
    rng = random.Random(heaps)
    start = tuple(int(h) for h in heaps.split("-"))
    states = {tuple(sorted(rng.randint(0, h) for h in start)) for _ in range(400)}
    states |= {start, (0,) * (len(start) - 1) + (1,), (0,) * (len(start) - 2) + (1, 1)}
    by_layer: dict[int, list[int]] = {}
    for state in states:
        by_layer.setdefault(sum(state), []).append(game.canonical(NimState(state, 1)).key)
    for keys in by_layer.values():
        batch = np.array(sorted(keys), dtype=np.int64)
        fast, slow = game.expand(batch), reference_expand(game, batch)
        assert (fast.n_rows == slow.n_rows).all() and (fast.n_cols == slow.n_cols).all()
        assert all(successor_table(fast, i) == successor_table(slow, i)
                   for i in range(len(batch)))
