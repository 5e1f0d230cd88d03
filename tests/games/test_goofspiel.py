"""Goofspiel rules: both faces, canonical keys, positions as text, solved values."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from gamedb.bits import cards, full, mask_of
from gamedb.cli import cli
from gamedb.games import GameError, load_game
from gamedb.games.base import reference_expand, successor_table
from gamedb.games.goofspiel import Goofspiel, GoofspielState
from gamedb.solver.backward import enumerate_layers
from gamedb.store import open_db
from gamedb.verify import verify

ORDERS = ("random", "descending", "ascending")
RETURNS = ("win_loss", "point_difference")
TIES = ("discard", "carry")
VARIANTS = list(itertools.product(ORDERS, RETURNS, TIES))


def _spec(n: int, order: str = "random", returns: str = "win_loss", ties: str = "discard") -> str:
    return f"goofspiel(num_cards={n},points_order={order},returns_type={returns},ties={ties})"


@pytest.mark.parametrize("order, returns, ties", VARIANTS)
def test_layer_face_matches_reference_face_on_every_state(order: str, returns: str,
                                                          ties: str) -> None:
    for n in (1, 2, 3, 4, 5):
        game = load_game(_spec(n, order, returns, ties))
        for layer, keys in enumerate_layers(game).items():
            fast, slow = game.expand(keys), reference_expand(game, keys)
            assert np.array_equal(fast.n_rows, slow.n_rows) and np.array_equal(fast.n_cols, slow.n_cols)
            assert (game.layer_of(keys) == layer).all()
            for i in range(len(keys)):
                assert successor_table(fast, i) == successor_table(slow, i), game.format_position(game.decode(keys[i]))


def test_canonical_state_counts_are_golden() -> None:
    # Golden counts (perft-style): canonical positions per layer (cards left in a hand).
    counts = {spec: {k: len(v) for k, v in sorted(enumerate_layers(load_game(spec)).items())}
              for spec in (_spec(3), _spec(4), _spec(5), _spec(4, "descending"),
                           _spec(4, returns="point_difference"), _spec(4, ties="carry"))}
    assert counts == {
        _spec(3): {1: 15, 2: 24, 3: 3},
        _spec(4): {1: 34, 2: 238, 3: 84, 4: 4},
        _spec(5): {1: 55, 2: 1092, 3: 1728, 4: 220, 5: 5},
        _spec(4, "descending"): {1: 4, 2: 15, 3: 7, 4: 1},
        _spec(4, returns="point_difference"): {1: 8, 2: 84, 3: 84, 4: 4},
        _spec(4, ties="carry"): {1: 40, 2: 206, 3: 78, 4: 4},
    }


@settings(max_examples=200)
@given(st.integers(1, 9), st.sampled_from(VARIANTS), st.data())
def test_decode_inverts_key(n: int, variant: tuple[str, str, str], data: st.DataObject) -> None:
    order, returns, ties = variant
    game = load_game(_spec(n, *variant), canonical_keys=False)
    state = _random_walk(game, data.draw(st.randoms(use_true_random=False)))
    if game.value(state) is None:
        assert game.decode(game.key(state)) == (state if returns == "win_loss" else
                                                GoofspielState(*_fields(state)[:5], 0))


def _fields(s: GoofspielState) -> tuple[int, ...]:
    return s.hand1, s.hand2, s.prizes, s.prize, s.pot, s.diff


def _random_walk(game: Goofspiel, rnd: random.Random, steps: int | None = None) -> GoofspielState:
    """Play random bids from a random first draw for ``steps`` rounds (random count)."""
    prob, state = rnd.choice(game.initial())
    for _ in range(rnd.randrange(game.num_cards) if steps is None else steps):
        if game.value(state) is not None:
            break
        a, b = (rnd.choice(acts) for acts in game.actions(state))
        state = rnd.choice(game.next(state, a, b))[1]
    return state


@settings(max_examples=200)
@given(st.integers(2, 10), st.sampled_from(VARIANTS), st.randoms(use_true_random=False))
def test_canonical_key_is_invariant_under_player_swap_and_relabelling(
        n: int, variant: tuple[str, str, str], rnd: random.Random) -> None:
    game = load_game(_spec(n, *variant))
    state = _random_walk(game, rnd)
    if game.value(state) is not None or not state.prize:
        return
    twin = GoofspielState(state.hand2, state.hand1, state.prizes, state.prize, state.pot, -state.diff)
    a, b = game.canonical(state), game.canonical(twin)
    assert a.key == b.key
    assert a.swapped != b.swapped or (state.hand1 == state.hand2 and (state.diff == 0 or
                                      variant[1] == "point_difference"))
    assert a.offset == (state.diff if variant[1] == "point_difference" else 0.0)
    # Shifting every bid card up by one changes no comparison: same class.
    if not (state.hand1 | state.hand2) >> (n - 1):
        shifted = GoofspielState(state.hand1 << 1, state.hand2 << 1, *_fields(state)[2:])
        assert game.canonical(shifted).key == a.key
    # The stored position decodes to a member of the same class.
    assert game.canonical(game.decode(a.key)).key == a.key


@pytest.mark.parametrize("order, returns, ties", VARIANTS)
def test_random_walks_decrease_layer_and_end_in_range(order: str, returns: str, ties: str) -> None:
    game = load_game(_spec(9, order, returns, ties))
    rnd, top = random.Random(7), 45
    assert sum(p for p, _ in game.initial()) == pytest.approx(1.0)
    for _ in range(100):
        state = rnd.choice(game.initial())[1]
        while game.value(state) is None:
            acts = game.actions(state)
            assert len(acts[0]) == len(acts[1]) == len(list(cards(state.prizes))) + 1
            dist = game.next(state, rnd.choice(acts[0]), rnd.choice(acts[1]))
            assert sum(p for p, _ in dist) == pytest.approx(1.0)
            assert all(game.layer(s) == game.layer(state) - 1 for _, s in dist)
            state = rnd.choice(dist)[1]
        payoff = game.value(state)
        assert payoff in (-1.0, 0.0, 1.0) if returns == "win_loss" else -top <= payoff <= top
        assert state.pot == 0 or ties == "carry"


def test_tied_bids_discard_or_carry_the_prize() -> None:
    for ties, pot in (("discard", 0), ("carry", 2)):
        game = load_game(_spec(3, "descending", ties=ties))
        start = game.initial()[0][1]
        (_, first), = game.next(start, 3, 1)
        assert (first.prize, first.pot, first.diff) == (2, 0, 3)
        (_, tied), = game.next(first, 2, 2)
        assert (tied.prize, tied.pot, tied.diff) == (1, pot, 3)
        (_, end), = game.next(tied, 1, 3)
        assert (end.hand1, end.diff, game.value(end)) == (0, 3 - 1 - pot, 1.0 if pot == 0 else 0.0)


def test_win_loss_positions_decided_by_the_score_are_terminal() -> None:
    game = load_game(_spec(5))
    decided = game.parse_position("hand1=1,2 hand2=4,5 prizes=1 prize=2 diff=4")
    assert game.value(decided) == 1.0 and game.chance(decided) is None
    open_ = game.parse_position("hand1=1,2 hand2=4,5 prizes=1 prize=2 diff=3")
    assert game.value(open_) is None
    assert load_game(_spec(5, returns="point_difference")).value(decided) is None


def test_random_order_draws_each_prize_left_uniformly() -> None:
    game = load_game(_spec(4))
    assert [(p, s.prize) for p, s in game.initial()] == [(0.25, c) for c in (1, 2, 3, 4)]
    before = game.parse_position("hand1=1,2 hand2=3,4 prizes=2,4 diff=1")
    assert before.prize == 0
    assert [(p, s.prize, s.prizes) for p, s in game.chance(before)] == [(0.5, 2, 8), (0.5, 4, 2)]
    fixed = load_game(_spec(4, "ascending")).parse_position("hand1=1,2 hand2=3,4 prizes=3,4 diff=1")
    assert (fixed.prize, fixed.prizes) == (3, mask_of([4]))


def test_parse_position_round_trips() -> None:
    game = load_game(_spec(6, ties="carry"))
    state = game.parse_position("hand1=5,1,3 hand2=2,4,6 prizes=6,2 prize=1 pot=3 diff=-2")
    assert state == GoofspielState(mask_of([1, 3, 5]), mask_of([2, 4, 6]), mask_of([2, 6]), 1, 3, -2)
    assert game.parse_position(game.format_position(state)) == state
    assert game.parse_position("start") == GoofspielState(full(6), full(6), full(6), 0, 0, 0)
    end = game.parse_position("hand1=- hand2=- prizes=- diff=2")
    assert game.value(end) == 1.0 and game.format_position(end) == "hand1=- hand2=- prizes=- pot=0 diff=2"
    points = load_game(_spec(6, "descending", "point_difference"))
    assert points.format_position(points.parse_position("start")) == \
        "hand1=1,2,3,4,5,6 hand2=1,2,3,4,5,6 prizes=1,2,3,4,5 prize=6"


@pytest.mark.parametrize("text, message", [
    ("hand1=1,2 hand2=3 prizes=1 prize=2", "same size"),
    ("hand1=1,9 hand2=2,3 prizes=1 prize=2", "outside 1..6"),
    ("hand1=1,1 hand2=2,3 prizes=1 prize=2", "repeats"),
    ("hand1=1 hand2=2 prizes=- prize=x", "integer"),
    ("hand1=1,2 hand2=2,3 prizes=1,4 prize=2", "need 2 prizes"),
    ("hand1=1,2 hand2=2,3 prizes=1 prize=1", "not among prizes"),
    ("hand1=1,2 hand2=2,3 prizes=1 prize=7", "not among prizes"),
    ("hand1=1 hand2=2 prizes=- prize=1 diff=99", "cannot happen"),
    ("hand1=1 hand2=2 prizes=- prize=1 pot=1", "ties=discard"),
    ("hand1=1 hand2=2 prizes=- prize=1 color=red", "unknown field"),
    ("hand1=1 hand2", "malformed"),
    ("hand2=1 prizes=1", "missing hand1"),
])
def test_malformed_positions_are_rejected_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        load_game(_spec(6)).parse_position(text)


def test_fixed_orders_reject_prizes_out_of_order() -> None:
    with pytest.raises(GameError, match="points_order=descending"):
        load_game(_spec(4, "descending")).parse_position("hand1=1,2 hand2=1,2 prizes=4 prize=3")
    with pytest.raises(GameError, match="points_order=ascending"):
        load_game(_spec(4, "ascending")).parse_position("hand1=1,2 hand2=1,2 prizes=3 prize=4")


@pytest.mark.parametrize("spec, message", [
    ("goofspiel(num_cards=0)", "out of range"),
    ("goofspiel(num_cards=14)", "out of range"),
    ("goofspiel(num_cards=x)", "integer"),
    ("goofspiel(points_order=shuffled)", "must be one of"),
    ("goofspiel(returns_type=total_points)", "must be one of"),
    ("goofspiel(ties=split)", "must be one of"),
    ("goofspiel(imp_info=true)", "unknown parameter"),
])
def test_bad_specs_are_rejected_with_a_reason(spec: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        load_game(spec)


def test_spec_is_sorted_with_openspiel_defaults() -> None:
    assert load_game("goofspiel").spec == _spec(4)
    assert load_game("goofspiel(ties=carry, num_cards=13)").spec == _spec(13, ties="carry")


def test_largest_keys_fit_below_the_layer_bits() -> None:
    # 13 cards, carried ties and a score: 21 + 13 + 7 + 7 = 48 bits.
    game = load_game(_spec(13, ties="carry"))
    state = game.parse_position("hand1=1 hand2=13 prizes=- prize=1 pot=44 diff=-45")
    key = game.canonical(state).key
    assert key >> 48 == 1 and game.canonical(game.decode(key)).key == key
    with pytest.raises(GameError, match="canonical keys"):
        load_game(_spec(13), canonical_keys=False)


# -- solved databases ----------------------------------------------------------------------


def test_three_cards_has_value_zero_as_in_openspiel(built) -> None:  # type: ignore[no-untyped-def]
    # OpenSpiel value_iteration_test: goofspiel(num_cards=3) has value 0.
    with open_db(built(_spec(3))) as db:
        assert db.probe("start").value == pytest.approx(0.0, abs=1e-12)
        assert db.info().root_value == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("order, returns, ties", VARIANTS)
def test_canonical_and_uncanonical_builds_agree_on_every_position(
        built, raw_and_canonical, order: str, returns: str, ties: str) -> None:  # type: ignore[no-untyped-def]
    spec = _spec(5 if order != "random" else 4, order, returns, ties)
    rows, raw_count, canonical_count = raw_and_canonical(spec)
    for state, raw, canonical in rows:
        assert canonical.value == pytest.approx(raw.value, abs=1e-12), canonical.position
    assert raw_count > canonical_count
    with open_db(built(spec, canonical_keys=False)) as raw_db, open_db(built(spec)) as db:
        assert db.probe("start").value == pytest.approx(raw_db.probe("start").value, abs=1e-12)


@pytest.mark.parametrize("spec", [_spec(6), _spec(5, returns="point_difference", ties="carry"),
                                  _spec(6, "descending", ties="carry")])
def test_every_stored_solution_has_gap_below_tolerance(built, spec: str) -> None:  # type: ignore[no-untyped-def]
    report = verify(built(spec))
    assert report.checked == report.states > 0
    assert report.max_gap <= 1e-9 and report.failures == 0


def test_probe_reads_chance_nodes_swapped_positions_and_banked_points(built) -> None:  # type: ignore[no-untyped-def]
    with open_db(built(_spec(5))) as db:
        start = db.probe("start")
        draws = [db.probe(f"hand1=1,2,3,4,5 hand2=1,2,3,4,5 prizes={format(p)} prize={c} diff=0")
                 for c, p in ((c, ",".join(str(x) for x in range(1, 6) if x != c)) for c in range(1, 6))]
        assert start.strategies == {} and start.value == pytest.approx(sum(d.value for d in draws) / 5)
        mine = db.probe("hand1=1,2,3 hand2=1,2,4 prizes=2,5 prize=3 diff=1")
        theirs = db.probe("hand1=1,2,4 hand2=1,2,3 prizes=2,5 prize=3 diff=-1")
        assert mine.value == pytest.approx(-theirs.value, abs=1e-12)
        assert mine.strategies[1] == pytest.approx(theirs.strategies[2])
        assert set(mine.strategies[1]) <= {1, 2, 3} and set(mine.strategies[2]) <= {1, 2, 4}
    with open_db(built(_spec(5, returns="point_difference"))) as db:
        future = db.probe("hand1=1,2,3 hand2=1,2,4 prizes=2,5 prize=3")
        banked = db.probe("hand1=1,2,3 hand2=1,2,4 prizes=2,5 prize=3 diff=-3")
        assert banked.value == pytest.approx(future.value - 3, abs=1e-12)
        assert banked.strategies == future.strategies


def test_show_prints_strategies_in_real_cards(built) -> None:  # type: ignore[no-untyped-def]
    path = str(built(_spec(5)))
    result = CliRunner().invoke(cli, ["show", path, "hand1=2,4,5 hand2=1,3,5 prizes=1,2 prize=4 diff=2",
                                      "--json"])
    assert result.exit_code == 0, result.output
    import json
    shown = json.loads(result.output)
    assert set(shown["strategy"]["1"]) <= {"2", "4", "5"} and set(shown["strategy"]["2"]) <= {"1", "3", "5"}
    assert sum(shown["strategy"]["1"].values()) == pytest.approx(1.0)
    bad = CliRunner().invoke(cli, ["show", path, "hand1=1 hand2=1,2 prizes=- prize=3"])
    assert bad.exit_code == 1 and "same size" in bad.output
