"""The stored equilibrium as an OpenSpiel policy, used by OpenSpiel's own tools."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from conftest import CASES  # noqa: E402
from reference import best_response, expected  # noqa: E402
from open_spiel.python import policy as openspiel_policy  # noqa: E402
from open_spiel.python.algorithms import evaluate_bots, expected_game_score, get_all_states  # noqa: E402
from open_spiel.python.bots.policy import PolicyBot  # noqa: E402


@pytest.mark.parametrize("spec", CASES)
def test_policy_value_of_the_equilibrium_against_itself_is_the_root_value(bridge_of, spec: str) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of(spec)
    root = bridge.openspiel_game.new_initial_state()
    values = expected_game_score.policy_value(root, bridge.policy())
    assert values[0] == pytest.approx(bridge.value(root), abs=1e-9)
    assert values[1] == pytest.approx(-values[0], abs=1e-12)


@pytest.mark.parametrize("spec", CASES)
def test_a_best_response_gains_nothing_against_the_equilibrium_policy(bridge_of, spec: str) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of(spec)
    root, policy = bridge.openspiel_game.new_initial_state(), bridge.policy()
    gains = [best_response(root, policy, player, {}) - bridge.value(root, player) for player in (0, 1)]
    assert max(gains) <= 1e-9 and min(gains) >= -1e-9  # a best response never does worse than the value


@pytest.mark.parametrize("spec", [CASES[0], CASES[-1]])
def test_every_decision_lists_each_legal_action_once_summing_to_one(bridge_of, spec: str) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of(spec)
    policy = bridge.policy()
    states = get_all_states.get_all_states(bridge.openspiel_game, depth_limit=-1,
                                           include_terminals=True, include_chance_states=True,
                                           to_string=str)
    for state in states.values():
        if state.is_terminal():
            assert policy.action_probabilities(state, 0) == {}
            continue
        if state.is_chance_node():
            assert policy.action_probabilities(state) == dict(state.chance_outcomes())
            continue
        for player in (0, 1):
            probs = policy.action_probabilities(state, player)
            assert sorted(probs) == state.legal_actions(player)
            assert sum(probs.values()) == pytest.approx(1.0, abs=1e-9)
            assert min(probs.values()) >= 0.0


def test_a_simultaneous_node_needs_the_player(bridge_of) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of(CASES[-1])
    with pytest.raises(ValueError, match="name the player"):
        bridge.policy().action_probabilities(bridge.openspiel_game.new_initial_state())


def test_policy_bots_play_it_through_evaluate_bots_near_the_exact_value(bridge_of) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of("goofspiel(num_cards=4,points_order=random,returns_type=point_difference)")
    rng = np.random.RandomState(7)
    policy = bridge.policy()
    bots = [PolicyBot(0, rng, policy), PolicyBot(1, rng, policy)]
    game = bridge.openspiel_game
    results = np.array([evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
                        for _ in range(400)])
    assert (results[:, 0] == -results[:, 1]).all()
    half_width = 4 * results[:, 0].std() / np.sqrt(len(results))
    assert abs(results[:, 0].mean() - bridge.value(game.new_initial_state())) < half_width


@pytest.mark.parametrize("spec", [CASES[2], CASES[-1]])
def test_equilibrium_vs_random_as_an_openspiel_policy_is_unexploitable_and_beats_random_more(
        bridge_of, spec: str) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of(spec)
    root, safe = bridge.openspiel_game.new_initial_state(), bridge.policy("equilibrium-vs:random")
    gains = [best_response(root, safe, player, {}) - bridge.value(root, player) for player in (0, 1)]
    assert max(gains) <= 1e-9 and min(gains) >= -1e-9  # on OpenSpiel's own tree
    uniform, plain = openspiel_policy.UniformRandomPolicy(bridge.openspiel_game), bridge.policy()
    assert expected(root, (safe, uniform)) > expected(root, (plain, uniform)) + 1e-3
    assert expected(root, (uniform, safe)) < expected(root, (uniform, plain)) - 1e-3


def test_an_unknown_agent_for_a_policy_is_one_line(bridge_of) -> None:  # type: ignore[no-untyped-def]
    from gamedb.games.base import GameError

    with pytest.raises(GameError, match="unknown agent 'nobody'"):
        bridge_of(CASES[0]).policy("nobody")
