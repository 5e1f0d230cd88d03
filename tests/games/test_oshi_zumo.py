"""Oshi-Zumo rules: both faces, canonical keys, known values, positions as text."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gamedb.games import GameError, load_game
from gamedb.games.base import reference_expand, successor_table
from gamedb.games.oshi_zumo import OshiZumoState
from gamedb.solver.backward import batches, enumerate_layers
from gamedb.store import open_db
from gamedb.verify import verify

SMALL = [f"oshi_zumo(coins={n},size={k},min_bid={m}{a})"
         for n, k, m, a in [(1, 1, 1, ""), (4, 1, 1, ""), (5, 2, 1, ""), (6, 3, 0, ""),
                            (5, 2, 2, ""), (6, 1, 3, ""), (5, 2, 1, ",alesia=true"),
                            (4, 2, 0, ",alesia=true"), (3, 1, 5, "")]]


@pytest.mark.parametrize("spec", SMALL)
def test_layer_face_matches_reference_face_on_every_state(spec: str) -> None:
    game = load_game(spec)
    for layer, keys in enumerate_layers(game).items():
        fast, slow = game.expand(keys), reference_expand(game, keys)
        assert np.array_equal(fast.n_rows, slow.n_rows) and np.array_equal(fast.n_cols, slow.n_cols)
        assert (game.layer_of(keys) == layer).all()
        for i in range(len(keys)):
            assert successor_table(fast, i) == successor_table(slow, i), game.decode(int(keys[i]))


def test_expansion_of_one_key_bounds_every_batch_of_its_layer() -> None:
    # solver.backward.batches sizes batches from the first key: it must see the layer's
    # widest stage game, or a batch could outgrow MAX_ENTRIES.
    game = load_game("oshi_zumo(coins=30,size=2,min_bid=1)")
    for keys in enumerate_layers(game).values():
        shape = game.expand(keys[:1]).succ.shape[1:]
        for batch in batches(keys, int(np.prod(shape)), limit=5000):
            assert game.expand(batch).succ.shape[1:] == shape


def test_canonical_state_counts_are_golden() -> None:
    counts = {spec: {k: len(v) for k, v in enumerate_layers(load_game(spec)).items()}
              for spec in ("oshi_zumo(coins=4,size=1,min_bid=1)", "oshi_zumo(coins=4,size=2,min_bid=0)",
                           "oshi_zumo(coins=5,size=2,min_bid=2)")}
    assert counts == {
        "oshi_zumo(coins=4,size=1,min_bid=1)": {8: 1, 6: 1, 5: 1, 4: 2, 3: 2, 2: 3, 1: 3},
        "oshi_zumo(coins=4,size=2,min_bid=0)": {8: 1, 7: 1, 6: 3, 5: 4, 4: 7, 3: 7, 2: 7, 1: 5},
        "oshi_zumo(coins=5,size=2,min_bid=2)": {10: 1, 6: 1, 5: 1, 4: 2, 3: 2, 2: 2, 1: 2},
    }
    states = sum(map(len, enumerate_layers(load_game("oshi_zumo(coins=50,size=3,min_bid=1)")).values()))
    assert states == 7675


@given(st.integers(0, 1000), st.integers(0, 1000), st.integers(-101, 101), st.booleans())
def test_decode_inverts_key(c1: int, c2: int, pos: int, ended: bool) -> None:
    game = load_game("oshi_zumo(coins=1000,size=100)", canonical_keys=False)
    state = OshiZumoState(c1, c2, pos, ended)
    assert game.decode(game.key(state)) == state
    assert game.layer_of(np.array([game.key(state)]))[0] == c1 + c2


@given(st.integers(0, 50), st.integers(0, 50), st.integers(-3, 3))
def test_player_swap_twins_share_a_key_and_the_stored_one_is_poorer_for_player_2(
        c1: int, c2: int, pos: int) -> None:
    game = load_game("oshi_zumo(coins=50,size=3)")
    a, b = game.canonical(OshiZumoState(c1, c2, pos)), game.canonical(OshiZumoState(c2, c1, -pos))
    assert a.key == b.key
    assert a.swapped != b.swapped or (c1 == c2 and pos == 0)
    stored = game.decode(a.key)
    assert stored.coins2 <= stored.coins1


@pytest.mark.parametrize("min_bid", [0, 1, 2])
def test_random_walks_decrease_layer_and_end_in_range(min_bid: int) -> None:
    game = load_game(f"oshi_zumo(coins=20,size=2,min_bid={min_bid})")
    rnd = random.Random(min_bid)
    for _ in range(300):
        state = game.initial()[0][1]
        while game.value(state) is None:
            acts = game.actions(state)
            assert acts[0] and acts[1]
            assert all(min(min_bid, c) <= bid <= c for bids, c in zip(acts, (state.coins1, state.coins2))
                       for bid in bids)
            (prob, nxt), = game.next(state, rnd.choice(acts[0]), rnd.choice(acts[1]))
            assert prob == 1.0 and (game.layer(nxt) < game.layer(state) or nxt.ended)
            state = nxt
        assert game.value(state) in (-1.0, 0.0, 1.0) and game.actions(state) == ((), ())


def test_joint_zero_bid_ends_the_game_where_the_wrestler_stands() -> None:
    game = load_game("oshi_zumo(coins=5,size=2,min_bid=0)")
    (_, state), = game.next(OshiZumoState(3, 4, 1), 0, 0)
    assert state == OshiZumoState(3, 4, 1, ended=True) and game.value(state) == 1.0
    assert load_game("oshi_zumo(coins=5,size=2,min_bid=0,alesia=true)").value(state) == 0.0
    (_, pushed), = game.next(OshiZumoState(3, 4, 2), 1, 0)
    assert game.value(pushed) == 1.0 and pushed.pos == 3


def test_player_short_of_min_bid_bids_everything_left() -> None:
    game = load_game("oshi_zumo(coins=9,size=2,min_bid=3)")
    assert game.actions(OshiZumoState(2, 5, 0)) == ((2,), (3, 4, 5))
    assert game.actions(OshiZumoState(0, 1, 0)) == ((0,), (1,))


def test_small_game_has_the_value_openspiel_documents(built) -> None:  # type: ignore[no-untyped-def]
    # open_spiel/python/algorithms/value_iteration_test.py: oshi_zumo(coins=5,size=2,min_bid=1) is 0.
    with open_db(built("oshi_zumo(coins=5,size=2,min_bid=1)")) as db:
        assert db.probe("start").value == pytest.approx(0.0, abs=1e-12)


def test_start_strategy_matches_buros_odd_even_effect(built) -> None:  # type: ignore[no-untyped-def]
    # Buro 2003, N=50, K=3, M=1: value 0, bids 1..9 with these probabilities. The paper
    # prints 3 decimals truncated (e.g. .0686 as .068), hence the 1e-3 tolerance.
    published = [.139, .053, .146, .060, .152, .067, .156, .068, .156]
    with open_db(built("oshi_zumo(coins=50,size=3,min_bid=1)")) as db:
        entry = db.probe("start")
    assert entry.value == pytest.approx(0.0, abs=1e-9)
    for player in (1, 2):
        assert sorted(entry.strategies[player]) == list(range(1, 10))
        assert [entry.strategies[player][bid] for bid in range(1, 10)] == pytest.approx(published, abs=1e-3)


def test_buros_endgame_position_is_worth_minus_one_half(built) -> None:  # type: ignore[no-untyped-def]
    # Buro's (5 coins, 2 coins, -3) with M=0: pos=-3 needs size >= 3; with size=3 the
    # wrestler stands on player 1's last square. The position's value does not depend
    # on N (it is reachable for N=50).
    with open_db(built("oshi_zumo(coins=50,size=3,min_bid=0)")) as db:
        entry = db.probe("coins1=5 coins2=2 pos=-3")
    assert entry.value == pytest.approx(-0.5, abs=1e-12)
    assert sum(entry.strategies[1].values()) == pytest.approx(1.0)


@pytest.mark.parametrize("spec", ["oshi_zumo(coins=8,size=2,min_bid=1)", "oshi_zumo(coins=7,size=3,min_bid=0)",
                                  "oshi_zumo(coins=7,size=1,min_bid=2,alesia=true)"])
def test_canonical_and_uncanonical_builds_agree_on_every_position(raw_and_canonical, spec: str) -> None:  # type: ignore[no-untyped-def]
    rows, raw_count, canonical_count = raw_and_canonical(spec)
    for state, raw, canonical in rows:
        assert canonical.value == pytest.approx(raw.value, abs=1e-12), canonical.position
        assert raw.strategies[1]  # raw keys store real player 1 too
    assert raw_count > canonical_count


@pytest.mark.parametrize("spec", ["oshi_zumo(coins=15,size=3,min_bid=1)", "oshi_zumo(coins=15,size=2,min_bid=0)"])
def test_every_stored_solution_has_gap_below_tolerance(built, spec: str) -> None:  # type: ignore[no-untyped-def]
    report = verify(built(spec))
    assert report.checked == report.states > 0
    assert report.max_gap <= 1e-9 and report.failures == 0


def test_verify_passes_on_the_fifty_coin_game(built) -> None:  # type: ignore[no-untyped-def]
    report = verify(built("oshi_zumo(coins=50,size=3,min_bid=1)"))
    assert report.checked == report.states == 7675 and report.failures == 0


def test_parse_position_round_trips() -> None:
    game = load_game("oshi_zumo(coins=50,size=3)")
    state = game.parse_position("coins1=17 coins2=34 pos=3")
    assert state == OshiZumoState(17, 34, 3)
    assert game.parse_position(game.format_position(state)) == state
    assert game.parse_position("start") == OshiZumoState(50, 50, 0)
    assert game.value(game.parse_position("coins1=3 coins2=0 pos=-4")) == -1.0


@pytest.mark.parametrize("text, message", [
    ("coins1=51 coins2=3 pos=0", "outside 0..50"),
    ("coins1=-1 coins2=3 pos=0", "outside 0..50"),
    ("coins1=5 coins2=3 pos=5", "outside -4..4"),
    ("coins1=5 coins2=x pos=0", "integer"),
    ("coins1=5 coins2=3", "missing pos"),
    ("coins1=5 coins2=3 pos=0 hand=1", "unknown field"),
    ("coins1=5 coins2", "malformed"),
])
def test_malformed_positions_are_rejected_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        load_game("oshi_zumo(coins=50,size=3)").parse_position(text)


@pytest.mark.parametrize("spec, message", [
    ("oshi_zumo(coins=-1)", "out of range"),
    ("oshi_zumo(coins=0)", "out of range"),
    ("oshi_zumo(coins=1001)", "out of range"),
    ("oshi_zumo(size=0)", "out of range"),
    ("oshi_zumo(min_bid=-2)", "out of range"),
    ("oshi_zumo(alesia=maybe)", "must be one of"),
    ("oshi_zumo(horizon=10)", "unknown parameter"),
])
def test_bad_specs_are_rejected_with_a_reason(spec: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        load_game(spec)


def test_spec_is_canonical() -> None:
    assert load_game("oshi_zumo(size=2, coins=5)").spec == "oshi_zumo(alesia=false,coins=5,min_bid=1,size=2)"
