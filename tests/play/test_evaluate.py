"""Exact evaluation, best responses and exploitability against brute force and theory."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import gamedb.play.level_k as level_k
from gamedb.games import GameError, load_game
from gamedb.play.agents import Agent, BidRange, Highest, LevelK, Lowest, TwoElseOne, Uniform
from gamedb.play.equilibrium import Equilibrium, SupportRandom
from gamedb.play.evaluate import (
    BestResponse, best_response_value, evaluate, exploitability,
)
from gamedb.play.level_k import level_k_table, prize_match
from gamedb.play.simulate import simulate

from .conftest import SMALL_GAMES, Scrambled

_EQ: dict[str, Equilibrium] = {}


def equilibrium(spec: str) -> Equilibrium:
    if spec not in _EQ:
        _EQ[spec] = Equilibrium.solve(load_game(spec))
    return _EQ[spec]


def root_value(spec: str) -> float:
    eq = equilibrium(spec)
    return sum(p * eq.value(s) for p, s in eq.game.initial())


def opponents(spec: str) -> list[Agent]:
    eq = equilibrium(spec)
    agents: list[Agent] = [Uniform(), Highest(), Lowest(), SupportRandom(eq),
                           Scrambled(1, True), Scrambled(2, False)]
    if spec.startswith("oshi_zumo"):
        agents += [BidRange(1, 3), TwoElseOne()]
    if spec.startswith("goofspiel"):
        agents += [LevelK(1), LevelK(2)]
    return agents


def test_jujitsu_highest_against_random_matches_brute_force() -> None:
    outcomes = []
    for perm in itertools.permutations([1, 2, 3, 4]):
        pot = diff = 0
        for a, b in zip([4, 3, 2, 1], perm):
            if a == b:
                pot += 1
            else:
                diff, pot = diff + (1 + pot) * (1 if a > b else -1), 0
        outcomes.append(np.sign(diff))
    result = evaluate(load_game("jujitsu(num_cards=4)"), Highest(), Uniform())
    assert result.win == pytest.approx(np.mean(np.array(outcomes) > 0), abs=1e-12)
    assert result.draw == pytest.approx(np.mean(np.array(outcomes) == 0), abs=1e-12)


@pytest.mark.parametrize("spec", SMALL_GAMES)
def test_equilibrium_never_loses_in_expectation_in_either_seat(spec: str) -> None:
    game, eq, v = load_game(spec), equilibrium(spec), root_value(spec)
    for agent in opponents(spec):
        as_first, as_second = evaluate(game, eq, agent), evaluate(game, agent, eq)
        assert as_first.payoff >= v - 1e-9, agent.name
        assert as_second.payoff <= v + 1e-9, agent.name
        for r in (as_first, as_second):
            assert r.win + r.draw + r.loss == pytest.approx(1.0, abs=1e-12)
            if "point_difference" not in spec:
                assert r.payoff == pytest.approx(r.win - r.loss, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(spec=st.sampled_from(SMALL_GAMES[:8]), seed=st.integers(0, 10**6), pure=st.booleans())
def test_equilibrium_never_loses_against_arbitrary_markov_agents(spec: str, seed: int,
                                                                 pure: bool) -> None:
    game, eq, v = load_game(spec), equilibrium(spec), root_value(spec)
    agent = Scrambled(seed, pure)
    assert evaluate(game, eq, agent).payoff >= v - 1e-9
    assert evaluate(game, agent, eq).payoff <= v + 1e-9


@pytest.mark.parametrize("spec", SMALL_GAMES)
def test_best_response_to_the_equilibrium_gains_exactly_the_game_value(spec: str) -> None:
    game, eq, v = load_game(spec), equilibrium(spec), root_value(spec)
    assert best_response_value(game, eq, 1) == pytest.approx(-v, abs=1e-9)
    assert best_response_value(game, eq, 2) == pytest.approx(v, abs=1e-9)
    assert abs(exploitability(game, eq)) < 1e-9


@pytest.mark.parametrize("spec", ["jujitsu(num_cards=4)", "oshi_zumo(coins=4,size=1)",
                                  "goofspiel(num_cards=4)"])
def test_best_response_evaluates_to_its_own_value_and_beats_other_agents(spec: str) -> None:
    game = load_game(spec)
    for agent in (Uniform(), Highest(), Scrambled(3, False)):
        responder = BestResponse(game, agent)
        assert evaluate(game, responder, agent).payoff == pytest.approx(
            best_response_value(game, agent, 2), abs=1e-12)
        assert best_response_value(game, agent, 2) >= evaluate(game, equilibrium(spec), agent).payoff - 1e-12
    assert exploitability(game, Highest()) > 0.1


def test_ties_discard_jujitsu_makes_uniform_random_an_equilibrium() -> None:
    assert abs(exploitability(load_game("jujitsu(num_cards=4,ties=discard)"), Uniform())) < 1e-12


@pytest.mark.parametrize("n,returns", [(4, "win_loss"), (4, "point_difference"),
                                       (5, "point_difference")])
def test_prize_closed_forms_equal_the_state_recursion(n: int, returns: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    game = load_game(f"goofspiel(num_cards={n},returns_type={returns})")
    fast = {(i, j): prize_match(game, LevelK(i), LevelK(j)) for i in range(n + 1) for j in range(n + 1)}
    monkeypatch.setattr(level_k, "applies", lambda *args: False)
    for (i, j), expected in fast.items():
        slow = evaluate(game, LevelK(i), LevelK(j))
        assert expected is not None
        # A decided win/loss game stops early in the recursion; its points then differ.
        fields = ["payoff", "win", "draw", "loss"]
        fields += ["points_for", "points_against"] if returns == "point_difference" else []
        for field in fields:
            assert getattr(expected, field) == pytest.approx(getattr(slow, field), abs=1e-9), (i, j, field)


def test_level_k_plus_one_is_a_best_response_to_level_k() -> None:
    game = load_game("goofspiel(num_cards=5,returns_type=point_difference)")
    for k in range(1, 6):
        best = best_response_value(game, LevelK(k), 2)
        assert evaluate(game, LevelK(k), LevelK(k + 1)).payoff == pytest.approx(-best, abs=1e-9)


def test_level_one_scores_650_points_fewer_than_level_two_over_ten_games() -> None:
    table = level_k_table(load_game("goofspiel(num_cards=13,returns_type=point_difference)"),
                          levels=[1, 2])
    one_vs_two = table[1, 2]
    assert (one_vs_two.points_for, one_vs_two.points_against) == (13.0, 78.0)
    assert 10 * (one_vs_two.points_for - one_vs_two.points_against) == -650.0
    assert table[2, 1].payoff == 65.0 and one_vs_two.loss == 1.0


def test_the_level_k_table_refuses_a_game_without_independent_prizes() -> None:
    with pytest.raises(GameError, match="independent prizes"):
        level_k_table(load_game("goofspiel(num_cards=4,points_order=descending)"))


def test_random_scores_its_closed_form_against_level_k_in_13_card_goofspiel() -> None:
    game = load_game("goofspiel(num_cards=13,returns_type=point_difference)")
    result = prize_match(game, Uniform(), LevelK(2))
    assert result is not None
    # P(uniform card beats the level-2 bid) = (13 - bid) / 13 for each prize.
    expected = sum(p * (13 - LevelK(2).bid(p, 13)) / 13 for p in range(1, 14))
    assert result.points_for == pytest.approx(expected)
    assert result.win + result.draw + result.loss == pytest.approx(1.0)
    assert result.payoff == pytest.approx(result.points_for - result.points_against)


def test_monte_carlo_agrees_with_exact_evaluation_within_its_interval() -> None:
    spec = "jujitsu(num_cards=4)"
    game = load_game(spec)
    exact = evaluate(game, equilibrium(spec), Uniform())
    sim = simulate(game, equilibrium(spec), Uniform(), 4000, seed=12)
    low, high = sim.interval()
    assert low <= exact.payoff <= high
    assert sim.win == pytest.approx(exact.win, abs=0.03)
    again = simulate(game, equilibrium(spec), Uniform(), 4000, seed=12)
    assert again == sim  # seeded: the same games


def test_games_played_in_step_are_the_games_played_one_by_one(tmp_path: Any) -> None:
    """Each game draws from its own stream, so the batch size changes no game; the
    equilibrium of a values-only file is asked a round at a time (``prefetch``)."""
    from gamedb.builder import build
    from gamedb.store import open_db

    spec = "goofspiel(num_cards=5)"
    game = load_game(spec)
    build(spec, tmp_path / "g5.sqlite", values_only=True)
    with open_db(tmp_path / "g5.sqlite") as db:
        def played(batch: int, seed: int = 5) -> Any:
            return simulate(game, Equilibrium(game, db), Uniform(), 300, seed=seed, batch=batch)
        one_by_one = played(1)
        assert played(64) == played(10_000) == one_by_one
        assert played(300, seed=6) != one_by_one
