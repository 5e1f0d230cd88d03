"""OpenSpiel's MCTS bot as a Markov agent (``gamedb.openspiel.mcts``): one answer per
stored position, and its exact score inside the interval of OpenSpiel's sampling."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots  # noqa: E402
from open_spiel.python.bots.policy import PolicyBot  # noqa: E402

from gamedb.games.base import GameError  # noqa: E402
from gamedb.games.openspiel import Step  # noqa: E402
from gamedb.openspiel.mcts import MCTSAgent, turn_state  # noqa: E402
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


def test_mcts_loses_every_sampled_game_to_its_exact_best_response(bridge_of) -> None:  # type: ignore[no-untyped-def]
    # the best response the exact score found by layers, played by OpenSpiel in seat 2
    bridge = bridge_of(SPEC)
    agent = MCTSAgent(bridge.openspiel_game, simulations=8)
    exact = score_agent(bridge.game, bridge.db, agent)
    assert exact.vs_best_response[0] == -1.0  # a sure loss: every game
    game, rng = bridge.openspiel_game, np.random.RandomState(5)
    bots = [PolicyBot(0, rng, bridge.policy(agent)), PolicyBot(1, rng, bridge.policy(exact.best_response))]
    payoffs = [evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)[0]
               for _ in range(300)]
    assert set(payoffs) == {-1.0}


def _stored_keys(bridge) -> list[int]:  # type: ignore[no-untyped-def]
    return [int(k) for layer in bridge.db.stored_layers()
            for rows in bridge.db.layer_rows(layer, strategies=False) for k in rows.keys]


def _round_orders(steps: list[Step]) -> list[list[Step]]:
    """The same play with its past rounds (a deal and the bids) in every order."""
    rounds = [steps[i:i + 2] for i in range(0, len(steps) - 1, 2)]
    return [[step for r in order for step in r] + steps[len(steps) - 1:]
            for order in itertools.permutations(rounds)]


def test_the_cpp_search_gives_one_answer_at_every_openspiel_state_of_a_stored_position(bridge_of) -> None:  # type: ignore[no-untyped-def]
    # Markov: the same distribution on repeated calls and from a fresh agent, and
    # searches started at every real OpenSpiel state of the stored position (other
    # cards of the same ranks, the past rounds in another order, the players swapped)
    # choose as the agent does.
    bridge = bridge_of(SPEC)
    game, translation = bridge.game, bridge.translation
    agent, fresh = (MCTSAgent(bridge.openspiel_game, simulations=12, searches=3) for _ in range(2))
    states = 0
    for key in _stored_keys(bridge):
        stored = game.decode(key)
        for player in (1, 2):
            if len(game.actions(stored)[player - 1]) == 1:
                continue
            answer = agent.policy(game, stored, player)
            assert answer == agent.policy(game, stored, player) == fresh.policy(game, stored, player)
            for real in translation.representatives(game, stored):
                try:
                    steps = translation.history(game, real)
                except GameError:
                    continue
                labels = game.canonical(real).actions[player - 1]
                in_real_cards = {c: answer[label] for c, label in labels.items() if label in answer}
                twin = replace(real, hand1=real.hand2, hand2=real.hand1, diff=-real.diff)
                assert agent.policy(game, real, player) == in_real_cards
                if game.canonical(twin).swapped:  # not its own twin (the seat is seeded)
                    assert fresh.policy(game, twin, 3 - player) == in_real_cards
                for order in _round_orders(steps):
                    simultaneous = bridge.openspiel_game.new_initial_state()
                    for step in order:
                        simultaneous.apply_actions(list(step)) if len(step) == 2 else (
                            simultaneous.apply_action(step[0]))
                    assert bridge.position(simultaneous).key == key
                    found = agent.search(turn_state(agent.turns, order, player), key, player)
                    assert {labels[a + 1]: p for a, p in found.items()} == answer
                    states += 1
    assert states > 2000  # 326 stored positions with a choice, their real states, both seats


def test_mcts_searches_are_seeded_by_the_stored_position_the_player_and_the_search(bridge_of) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of(SPEC)
    game = bridge.game
    one, again, other = (MCTSAgent(bridge.openspiel_game, simulations=6, seed=seed)
                         for seed in (0, 0, 1))
    four = MCTSAgent(bridge.openspiel_game, simulations=6, searches=4)
    differ = 0
    for key in _stored_keys(bridge):
        stored = game.decode(key)
        for player in (1, 2):
            answer = one.policy(game, stored, player)
            assert answer == again.policy(game, stored, player)
            assert list(answer.values()) == [1.0]  # one search: one move
            differ += answer != other.policy(game, stored, player)
            spread = four.policy(game, stored, player)
            assert sum(spread.values()) == pytest.approx(1.0)
            assert all(4 * p == pytest.approx(round(4 * p)) for p in spread.values())
    assert differ > 20  # another seed, other searches


def test_mcts_with_fewer_than_two_simulations_is_refused_in_one_line(bridge_of) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(GameError, match=r"^MCTS needs simulations >= 2 and searches >= 1 "
                       r"\(got simulations=1, searches=1\)$"):
        MCTSAgent(bridge_of(SPEC).openspiel_game, simulations=1)
