"""OpenSpiel's MCTS bot as a Markov agent (``gamedb.openspiel.mcts``): one answer per
stored position, and its exact score inside the interval of OpenSpiel's sampling."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots  # noqa: E402
from open_spiel.python.bots.policy import PolicyBot  # noqa: E402

from gamedb.openspiel.mcts import MCTSAgent  # noqa: E402
from gamedb.play.score import score_agent  # noqa: E402

SPEC = "goofspiel(num_cards=4,points_order=random,returns_type=win_loss)"


def test_mcts_answers_alike_at_every_real_position_of_a_stored_one(bridge_of) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of(SPEC)
    game = bridge.game
    # the same position up to the rank of the cards, and its player-swapped twin
    real = game.parse_position("hand1=1,3,4 hand2=2,3,4 prizes=1,4 prize=2 diff=3")
    twin = game.parse_position("hand1=2,3,4 hand2=1,3,4 prizes=1,4 prize=2 diff=-3")
    one, other = (MCTSAgent(bridge.openspiel_game, simulations=8, searches=3) for _ in range(2))
    assert one.policy(game, real, 1) == other.policy(game, twin, 2)  # seeded: reproducible
    assert sum(one.policy(game, real, 2).values()) == pytest.approx(1.0)


def test_mcts_scored_exactly_lies_in_the_interval_of_openspiels_sampling(bridge_of) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of(SPEC)
    agent = MCTSAgent(bridge.openspiel_game, simulations=8)
    exact = score_agent(bridge.game, bridge.db, agent)
    assert exact.method == "layers" and exact.vs_equilibrium[0] < -0.05  # it loses
    game, rng = bridge.openspiel_game, np.random.RandomState(5)
    bots = [PolicyBot(0, rng, bridge.policy(agent)), PolicyBot(1, rng, bridge.policy())]
    payoffs = np.array([evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)[0]
                        for _ in range(1000)])
    half_width = 3 * payoffs.std() / np.sqrt(len(payoffs))
    assert abs(payoffs.mean() - exact.vs_equilibrium[0]) < half_width
