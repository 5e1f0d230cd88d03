"""Jujitsu rules: both faces, canonical keys, positions as text."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gamedb.bits import cards, full, mask_of
from gamedb.games import GameError, load_game
from gamedb.games.base import reference_expand, successor_table
from gamedb.games.jujitsu import JujitsuState
from gamedb.solver.backward import enumerate_layers


@pytest.mark.parametrize("ties", ["carry", "discard"])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_layer_face_matches_reference_face_on_every_state(n: int, ties: str) -> None:
    game = load_game(f"jujitsu(num_cards={n},ties={ties})")
    for layer, keys in enumerate_layers(game).items():
        fast, slow = game.expand(keys), reference_expand(game, keys)
        assert np.array_equal(fast.n_rows, slow.n_rows) and np.array_equal(fast.n_cols, slow.n_cols)
        assert (game.layer_of(keys) == layer).all()
        for i in range(len(keys)):
            assert successor_table(fast, i) == successor_table(slow, i)


def test_canonical_state_counts_are_golden() -> None:
    # Golden counts (perft-style): canonical positions per layer, ties=carry.
    counts = {n: {k: len(v) for k, v in enumerate_layers(load_game(f"jujitsu(num_cards={n})")).items()}
              for n in (3, 4, 5)}
    assert counts == {3: {1: 5, 2: 4, 3: 1}, 4: {1: 9, 2: 15, 3: 7, 4: 1},
                      5: {1: 14, 2: 32, 3: 40, 4: 11, 5: 1}}


hands = st.integers(1, 8).flatmap(lambda n: st.tuples(
    st.just(n), st.sets(st.integers(1, n), min_size=1, max_size=n)))


@given(st.integers(4, 10), st.data())
def test_decode_inverts_key(n: int, data: st.DataObject) -> None:
    game = load_game(f"jujitsu(num_cards={n})", canonical_keys=False)
    k = data.draw(st.integers(1, n))
    h1 = mask_of(data.draw(st.sets(st.integers(1, n), min_size=k, max_size=k)))
    h2 = mask_of(data.draw(st.sets(st.integers(1, n), min_size=k, max_size=k)))
    state = JujitsuState(h1, h2, data.draw(st.integers(0, n - k)), data.draw(st.integers(-n, n)))
    assert game.decode(game.key(state)) == state


@given(st.integers(2, 9), st.randoms(use_true_random=False))
def test_canonical_key_is_invariant_under_player_swap_and_relabelling(n: int, rnd: random.Random) -> None:
    game = load_game(f"jujitsu(num_cards={n})")
    state = _random_walk(game, rnd)
    if game.value(state) is not None:
        return
    twin = JujitsuState(state.hand2, state.hand1, state.pot, -state.diff)
    a, b = game.canonical(state), game.canonical(twin)
    assert a.key == b.key
    assert a.swapped != b.swapped or (state.hand1 == state.hand2 and state.diff == 0)
    # Shifting every card up by one changes no comparison: same class.
    if not (state.hand1 | state.hand2) >> (n - 1):
        shifted = JujitsuState(state.hand1 << 1, state.hand2 << 1, state.pot, state.diff)
        assert game.canonical(shifted).key == a.key


def _random_walk(game, rnd: random.Random):  # type: ignore[no-untyped-def]
    state = game.initial()[0][1]
    for _ in range(rnd.randrange(game.num_cards)):
        a, b = (rnd.choice(acts) for acts in game.actions(state))
        state = game.next(state, a, b)[0][1]
    return state


@pytest.mark.parametrize("ties", ["carry", "discard"])
def test_random_walks_decrease_layer_and_end_in_range(ties: str) -> None:
    game = load_game(f"jujitsu(num_cards=9,ties={ties})")
    rnd = random.Random(7)
    for _ in range(300):
        state = game.initial()[0][1]
        while game.value(state) is None:
            acts = game.actions(state)
            assert acts[0] and acts[1]
            (prob, nxt), = game.next(state, rnd.choice(acts[0]), rnd.choice(acts[1]))
            assert prob == 1.0 and game.layer(nxt) < game.layer(state)
            state = nxt
        assert game.value(state) in (-1.0, 0.0, 1.0)
        assert state.pot == 0 or ties == "carry"


def test_tied_trick_carries_pot_to_next_winner() -> None:
    game = load_game("jujitsu(num_cards=3)")
    start = game.initial()[0][1]
    (_, tied), = game.next(start, 2, 2)
    assert (tied.pot, tied.diff) == (1, 0)
    (_, won), = game.next(tied, 3, 1)
    assert (won.pot, won.diff) == (0, 2)


def test_parse_position_round_trips() -> None:
    game = load_game("jujitsu(num_cards=6)")
    state = game.parse_position("hand1=5,1,3 hand2=2,4,6 pot=1 diff=0")
    assert state == JujitsuState(mask_of([1, 3, 5]), mask_of([2, 4, 6]), 1, 0)
    assert game.parse_position(game.format_position(state)) == state
    assert game.parse_position("start") == JujitsuState(full(6), full(6), 0, 0)
    assert list(cards(game.parse_position("hand1=- hand2=- diff=2 pot=0").hand1)) == []


@pytest.mark.parametrize("text, message", [
    ("hand1=1,2 hand2=3", "same size"),
    ("hand1=1,9 hand2=2,3", "outside 1..6"),
    ("hand1=1,1 hand2=2,3", "repeats"),
    ("hand1=1 hand2=2 pot=x", "integer"),
    ("hand1=1 hand2=2 pot=0 diff=9", "cannot happen"),
    ("hand1=1 hand2=2 color=red", "unknown field"),
    ("hand1=1 hand2", "malformed"),
    ("hand2=1", "missing hand1"),
])
def test_malformed_positions_are_rejected_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        load_game("jujitsu(num_cards=6)").parse_position(text)


@pytest.mark.parametrize("spec, message", [
    ("jujitsu(num_cards=0)", "out of range"),
    ("jujitsu(num_cards=40)", "out of range"),
    ("jujitsu(num_cards=x)", "integer"),
    ("jujitsu(ties=maybe)", "must be one of"),
    ("jujitsu(colour=red)", "unknown parameter"),
    ("jujitsu(num_cards=3,num_cards=4)", "twice"),
    ("poker", "unknown game"),
    ("jujitsu(num_cards", "malformed"),
])
def test_bad_specs_are_rejected_with_a_reason(spec: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        load_game(spec)
