"""Goofspiel's options dummy=true, rounds=R and committed=true: routing, refusals, values."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.optimize import linprog

from gamedb.cli import cli
from gamedb.games import GameError, load_game
from gamedb.games.base import reference_expand, successor_table
from gamedb.games.goofspiel import Goofspiel
from gamedb.games.goofspiel.committed import GoofspielCommitted
from gamedb.games.goofspiel.dummy import GoofspielDummy, gain2, parse_half
from gamedb.games.goofspiel.rounds import GoofspielRounds
from gamedb.solver.backward import enumerate_layers
from gamedb.store import open_db
from gamedb.verify import verify

PLAIN = "goofspiel(num_cards=4,points_order=random,returns_type=win_loss,ties=discard)"


def test_options_route_to_their_modules_and_leave_plain_specs_alone() -> None:
    assert type(load_game("goofspiel(num_cards=4)")) is Goofspiel
    assert load_game("goofspiel(num_cards=4,dummy=false,rounds=4,committed=false)").spec == PLAIN
    assert type(load_game("goofspiel(num_cards=4,dummy=true)")) is GoofspielDummy
    assert type(load_game("goofspiel(num_cards=4,rounds=2)")) is GoofspielRounds
    assert type(load_game("goofspiel(num_cards=4,dummy=true,rounds=2)")) is GoofspielDummy
    assert type(load_game("goofspiel(num_cards=4,committed=true)")) is GoofspielCommitted
    assert load_game("goofspiel(dummy=true,num_cards=4,rounds=2)").spec == (
        "goofspiel(dummy=true,num_cards=4,points_order=random,returns_type=win_loss,rounds=2,"
        "ties=discard)")
    for spec in ("goofspiel(num_cards=4,dummy=true)", "goofspiel(num_cards=4,committed=true)"):
        assert load_game(spec).indexed_face() is None  # the generic builder
    assert load_game("goofspiel(num_cards=4,rounds=2,returns_type=point_difference)"
                     ).indexed_face() is None


@pytest.mark.parametrize("spec, message", [
    ("goofspiel(num_cards=4,rounds=5)", "rounds=5 must be at most num_cards=4"),
    ("goofspiel(num_cards=4,rounds=2,points_order=descending)",
     "rounds=2 needs points_order=random"),
    ("goofspiel(num_cards=4,dummy=true,points_order=ascending)", "dummy=true needs points_order"),
    ("goofspiel(num_cards=4,dummy=true,ties=carry)", "dummy=true needs ties=discard"),
    ("goofspiel(num_cards=10,dummy=true)", "keys with num_cards=10 need 51 bits"),
    ("goofspiel(num_cards=4,committed=true,dummy=true)", "does not combine"),
    ("goofspiel(num_cards=4,committed=true,rounds=2)", "does not combine"),
    ("goofspiel(num_cards=7,committed=true)", "5,040 x 5,040 matrix game"),
])
def test_unsupported_combinations_are_refused_in_one_line(spec: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        load_game(spec)
    result = CliRunner().invoke(cli, ["build", spec, "--db", "never.sqlite"])
    assert result.exit_code == 1 and message.split()[0] in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output


@pytest.mark.parametrize("position, message", [
    ("hand1=1,2 hand2=1,2 dummy=1 prizes=1 prize=2", "need 2 dummy cards"),
    ("hand1=1,2 hand2=1,2 dummy=1,2 prizes=1 prize=2 diff=0.25", "whole or half number"),
    ("hand1=1,2 hand2=1,2 dummy=1,2 prizes=1 prize=2 diff=x.5", "whole or half number"),
    ("hand1=2 hand2=1 dummy=2 prizes=- prize=1 diff=2.5", "cannot happen after 2 points"),
])
def test_bad_dummy_positions_are_refused(position: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        load_game("goofspiel(num_cards=2,dummy=true)").parse_position(position)


def test_bad_committed_and_rounds_positions_are_refused() -> None:
    with pytest.raises(GameError, match="committed=true has one position, the start"):
        load_game("goofspiel(num_cards=3,committed=true)").parse_position(
            "hand1=1,2 hand2=1,2 prizes=1,2")
    with pytest.raises(GameError, match="with rounds=2 need 3 prizes left"):
        load_game("goofspiel(num_cards=4,rounds=2)").parse_position(
            "hand1=3 hand2=4 prizes=1 prize=2")


@pytest.mark.parametrize("spec", [
    "goofspiel(num_cards=1,dummy=true)", "goofspiel(num_cards=2,dummy=true)",
    "goofspiel(num_cards=4,dummy=true)", "goofspiel(num_cards=4,dummy=true,returns_type=point_difference)",
    "goofspiel(num_cards=5,dummy=true,rounds=2)",
    "goofspiel(num_cards=5,dummy=true,returns_type=point_difference,rounds=3)",
    "goofspiel(num_cards=3,rounds=2)", "goofspiel(num_cards=6,rounds=4)",
    "goofspiel(num_cards=5,rounds=4,ties=carry)",
    "goofspiel(num_cards=5,returns_type=point_difference,rounds=3,ties=carry)",
])
def test_the_compiled_faces_agree_with_the_reference_face(spec: str) -> None:
    game = load_game(spec)
    for keys in enumerate_layers(game).values():
        fast, slow = game.expand(keys), reference_expand(game, keys)
        assert (fast.n_rows == slow.n_rows).all() and (fast.n_cols == slow.n_cols).all()
        assert all(successor_table(fast, i) == successor_table(slow, i) for i in range(len(keys)))


def test_match_scores_no_points_where_the_dummy_decides_too() -> None:
    assert load_game("goofspiel(num_cards=3,dummy=true)").capabilities.round_points is None
    assert load_game("goofspiel(num_cards=5,rounds=2)").capabilities.round_points is not None


def test_dummy_bids_follow_the_rules_page() -> None:
    assert gain2(3, 1, 2, 4) == 8      # player 1 alone highest: the prize
    assert gain2(3, 1, 3, 4) == 4      # player 1 tied with the dummy: half
    assert gain2(1, 3, 3, 4) == -4     # player 2 tied with the dummy: half to player 2
    assert gain2(2, 1, 3, 4) == 0      # the dummy alone highest: nobody
    assert gain2(3, 3, 1, 4) == gain2(3, 3, 3, 4) == 0  # players tied at the top: discarded
    assert [parse_half(t) for t in ("0.5", "-2", "3.0")] == [1, -4, 6]


@pytest.mark.parametrize("spec", [
    "goofspiel(num_cards=3,dummy=true)", "goofspiel(num_cards=4,dummy=true)",
    "goofspiel(num_cards=4,dummy=true,returns_type=point_difference)",
    "goofspiel(num_cards=5,dummy=true,rounds=2)",
    "goofspiel(num_cards=5,rounds=3)", "goofspiel(num_cards=6,rounds=2,ties=carry)",
    "goofspiel(num_cards=5,rounds=4,returns_type=point_difference)",
    "goofspiel(num_cards=3,committed=true)", "goofspiel(num_cards=4,committed=true,ties=carry)",
])
def test_symmetric_starts_have_value_zero(built, spec: str) -> None:  # type: ignore[no-untyped-def]
    with open_db(built(spec)) as db:
        assert db.probe("start").value == pytest.approx(0.0, abs=1e-9)


def test_two_card_dummy_game_by_hand(built) -> None:  # type: ignore[no-untyped-def]
    """Point difference, 2 cards. Prize 2 first: bidding 2 against 1 earns +2 if the dummy
    bids 1 (then player 2's 2 ties the dummy's 2 for prize 1: -0.5), +1 if it bids 2 (a
    tie with the dummy; then player 2 alone highest for prize 1: -1): 0.75 on average,
    so both bid 2. Prize 1 first: 2 against 1 earns (1 - 1 + 0.5 - 2) / 2 = -0.75, so
    both bid 1. Every start value is 0."""
    with open_db(built("goofspiel(num_cards=2,dummy=true,returns_type=point_difference)")) as db:
        assert db.probe("hand1=1 hand2=2 dummy=2 prizes=- prize=1 diff=2").value == 1.5
        assert db.probe("hand1=1 hand2=2 dummy=1 prizes=- prize=1 diff=1").value == 0.0
        high = db.probe("hand1=1,2 hand2=1,2 dummy=1,2 prizes=1 prize=2")
        low = db.probe("hand1=1,2 hand2=1,2 dummy=1,2 prizes=2 prize=1")
        assert high.strategies == {1: {2: 1.0}, 2: {2: 1.0}}
        assert low.strategies == {1: {1: 1.0}, 2: {1: 1.0}}
        assert high.value == low.value == db.probe("start").value == 0.0


def test_rounds_discard_the_prizes_never_revealed(built) -> None:  # type: ignore[no-untyped-def]
    """rounds=1 of 3: both hold the 3 and always tie (value 0); rounds=2 of 3, last round:
    the 3 beats the 2 for the prize on the table and the prize left is never played."""
    with open_db(built("goofspiel(num_cards=3,rounds=1,returns_type=point_difference)")) as db:
        assert db.probe("start").value == 0.0
        assert db.probe("hand1=3 hand2=3 prizes=1,2 prize=3").strategies == {1: {3: 1.0},
                                                                            2: {3: 1.0}}
    with open_db(built("goofspiel(num_cards=3,rounds=2,returns_type=point_difference)")) as db:
        assert db.probe("hand1=3 hand2=2 prizes=1 prize=2").value == 2.0
        assert db.probe("hand1=3 hand2=2 prizes=1 prize=3 diff=-2").value == 1.0


def _independent_matrix(n: int, carry: bool, win_loss: bool) -> np.ndarray:
    """Expected payoffs of every pair of bid orders, by playing every prize order."""
    orders = list(itertools.permutations(range(1, n + 1)))
    matrix = np.zeros((len(orders), len(orders)))
    for (i, mine), (j, theirs) in itertools.product(enumerate(orders), repeat=2):
        total = Fraction(0)
        for prizes in orders:
            diff = pot = 0
            for r, (a, b, p) in enumerate(zip(mine, theirs, prizes)):
                diff += (a > b) * (p + pot) - (a < b) * (p + pot)
                pot = p + pot if a == b and carry and r < n - 1 else 0
            total += (diff > 0) - (diff < 0) if win_loss else diff
        matrix[i, j] = total / len(orders)
    return matrix


def _linprog_value(matrix: np.ndarray) -> float:
    """The row player's value by scipy's HiGHS: max v with x M >= v, x a distribution."""
    m, n = matrix.shape
    result = linprog(np.r_[np.zeros(m), -1.0], A_ub=np.c_[-matrix.T, np.ones(n)],
                     b_ub=np.zeros(n), A_eq=np.r_[np.ones(m), 0.0][None], b_eq=[1.0],
                     bounds=[(0, None)] * m + [(None, None)])
    assert result.success
    return float(-result.fun)


@pytest.mark.parametrize("n, ties, returns", [(3, "discard", "win_loss"), (4, "carry", "win_loss"),
                                              (4, "discard", "point_difference")])
def test_committed_matches_an_independent_matrix_and_linprog(built, n: int, ties: str,
                                                             returns: str) -> None:  # type: ignore[no-untyped-def]
    spec = f"goofspiel(committed=true,num_cards={n},returns_type={returns},ties={ties})"
    game, matrix = load_game(spec), _independent_matrix(n, ties == "carry", returns == "win_loss")
    assert np.allclose(game.matrix, matrix, atol=1e-12)
    with open_db(built(spec)) as db:
        start = db.probe("start")
    x, y = (np.array([start.strategies[p].get(a, 0.0) for a in range(len(matrix))]) for p in (1, 2))
    assert start.value == pytest.approx(_linprog_value(matrix), abs=1e-9)
    assert (x @ matrix).min() >= start.value - 1e-9 and (matrix @ y).max() <= start.value + 1e-9


def test_committed_names_orders_by_their_bids() -> None:
    game = load_game("goofspiel(num_cards=3,committed=true)")
    start = game.initial()[0][1]
    assert [game.action_name(start, 1, a) for a in game.actions(start)[0]] == [
        "1-2-3", "1-3-2", "2-1-3", "2-3-1", "3-1-2", "3-2-1"]
    result = CliRunner().invoke(cli, ["key", game.spec, "start"])
    assert result.exit_code == 0 and "     1              1  3-1-2       4" in result.stdout


@pytest.mark.parametrize("spec", [
    "goofspiel(num_cards=3,dummy=true)", "goofspiel(num_cards=3,dummy=true,returns_type=point_difference)",
    "goofspiel(num_cards=4,dummy=true,rounds=2)", "goofspiel(num_cards=5,rounds=3)",
    "goofspiel(num_cards=5,rounds=3,ties=carry,returns_type=point_difference)",
])
def test_canonical_and_raw_builds_agree_on_every_position(built, raw_and_canonical,
                                                          spec: str) -> None:  # type: ignore[no-untyped-def]
    rows, raw_count, canonical_count = raw_and_canonical(spec)
    for state, raw, canonical in rows:
        assert canonical.value == pytest.approx(raw.value, abs=1e-9), canonical.position
    assert raw_count > canonical_count


def _adaptive_best_response(mix: dict[tuple[int, ...], float], n: int) -> float:
    """Player 1's win/loss payoff when it plays the committed ``mix`` of bid orders in
    the sequential game and player 2, who sees the prizes and past bids, best responds."""
    def mass(prefix: tuple[int, ...]) -> float:
        return sum(p for order, p in mix.items() if order[:len(prefix)] == prefix)

    def worst(prefix: tuple[int, ...], hand2: tuple[int, ...], prizes: tuple[int, ...],
              prize: int, diff: int) -> float:  # times the prefix's mass
        bids = {order[len(prefix)] for order in mix if order[:len(prefix)] == prefix}
        return min(sum(after(prefix + (a,), tuple(c for c in hand2 if c != b), prizes,
                             diff + prize * ((a > b) - (a < b))) for a in bids) for b in hand2)

    def after(prefix: tuple[int, ...], hand2: tuple[int, ...], prizes: tuple[int, ...],
              diff: int) -> float:
        if not hand2:
            return mass(prefix) * ((diff > 0) - (diff < 0))
        return sum(worst(prefix, hand2, tuple(q for q in prizes if q != p), p, diff)
                   for p in prizes) / len(prizes)

    return after((), tuple(range(1, n + 1)), tuple(range(1, n + 1)), 0)


def test_committed_and_sequential_three_cards_compared(built) -> None:  # type: ignore[no-untyped-def]
    """Both forms are worth 0 (symmetric); committing up front is optimal in the matrix
    game for the cyclic orders 1-2-3, 2-3-1, 3-1-2 (uniform), but in the sequential game
    the first bid gives the cycle away and an adaptive player 2 wins 7/9 net of it."""
    committed = load_game("goofspiel(committed=true,num_cards=3)")
    with open_db(built(committed.spec)) as db, open_db(built("goofspiel(num_cards=3)")) as seq:
        assert db.probe("start").value == seq.probe("start").value == 0.0
    cyclic = {(1, 2, 3): 1 / 3, (2, 3, 1): 1 / 3, (3, 1, 2): 1 / 3}
    x = np.array([cyclic.get(tuple(order), 0.0) for order in committed.orders.tolist()])
    assert (x @ committed.matrix).min() == pytest.approx(0.0, abs=1e-12)  # optimal committed
    assert _adaptive_best_response(cyclic, 3) == pytest.approx(-7 / 9, abs=1e-12)


@pytest.mark.parametrize("spec", ["goofspiel(num_cards=4,dummy=true)", "goofspiel(num_cards=13,rounds=3)",
                                  "goofspiel(committed=true,num_cards=4,ties=carry)"])
def test_verify_recomputes_every_variant_file_as_sound(built, spec: str) -> None:  # type: ignore[no-untyped-def]
    report = verify(built(spec))
    assert report.checked == report.states > 0
    assert report.max_gap <= 1e-9 and report.failures == 0
