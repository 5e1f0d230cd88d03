"""OpenSpiel policies scored exactly by gamedb (``openspiel:module:attr``), checked
against gamedb's own agents and against OpenSpiel's sampling."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from conftest import CASES  # noqa: E402
from open_spiel.python import policy as openspiel_policy  # noqa: E402
from open_spiel.python.algorithms import evaluate_bots  # noqa: E402
from open_spiel.python.bots.policy import PolicyBot  # noqa: E402

from gamedb.games.base import GameError  # noqa: E402
from gamedb.openspiel.agent import openspiel_agent  # noqa: E402
from gamedb.play.agents import Uniform  # noqa: E402
from gamedb.play.names import make_agent  # noqa: E402
from gamedb.play.score import score_agent  # noqa: E402


@pytest.mark.parametrize("spec", CASES)
def test_openspiels_uniform_random_policy_scores_as_gamedbs_random_agent(bridge_of, spec: str) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of(spec)
    agent = make_agent("openspiel:open_spiel.python.policy:UniformRandomPolicy", bridge.game, bridge.db)
    theirs, ours = (score_agent(bridge.game, bridge.db, a) for a in (agent, Uniform()))
    assert theirs.vs_equilibrium == pytest.approx(ours.vs_equilibrium, abs=1e-12)
    assert theirs.vs_best_response == pytest.approx(ours.vs_best_response, abs=1e-12)


@pytest.mark.parametrize("spec", CASES)
def test_the_equilibrium_policy_seen_as_an_openspiel_agent_is_unexploitable(bridge_of, spec: str) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of(spec)
    score = score_agent(bridge.game, bridge.db, openspiel_agent("eq", bridge.policy(), bridge.db))
    assert abs(score.exploitability) <= 1e-9


def test_the_exact_payoff_lies_in_the_confidence_interval_of_openspiels_sampling(bridge_of) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of("goofspiel(num_cards=4,points_order=random,returns_type=point_difference)")
    game = bridge.openspiel_game
    uniform = openspiel_policy.UniformRandomPolicy(game)
    exact = score_agent(bridge.game, bridge.db, openspiel_agent("u", uniform, bridge.db))
    rng = np.random.RandomState(3)
    bots = [PolicyBot(0, rng, uniform), PolicyBot(1, rng, bridge.policy())]
    payoffs = np.array([evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)[0]
                        for _ in range(2000)])
    # gamedb's payoffs are in its units: point difference twice OpenSpiel's
    half_width = 3 * payoffs.std() / np.sqrt(len(payoffs))
    assert abs(2 * payoffs.mean() - exact.vs_equilibrium[0]) < 2 * half_width
    assert exact.vs_equilibrium[0] < -1.0  # uniform play loses clearly


def test_the_exact_payoff_against_the_best_response_lies_in_the_interval_of_sampling(bridge_of) -> None:  # type: ignore[no-untyped-def]
    # uniform play in seat 1 against the exact best response to it in seat 2 (the one
    # the score by layers found), sampled by OpenSpiel
    bridge = bridge_of("goofspiel(num_cards=4,points_order=random,returns_type=win_loss)")
    game = bridge.openspiel_game
    exact = score_agent(bridge.game, bridge.db, Uniform())
    assert exact.vs_best_response[0] == pytest.approx(-0.7465277777777778, abs=1e-12)
    rng = np.random.RandomState(3)
    bots = [PolicyBot(0, rng, openspiel_policy.UniformRandomPolicy(game)),
            PolicyBot(1, rng, bridge.policy(exact.best_response))]
    payoffs = np.array([evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)[0]
                        for _ in range(2000)])
    half_width = 3 * payoffs.std() / np.sqrt(len(payoffs))
    assert abs(payoffs.mean() - exact.vs_best_response[0]) < half_width
    assert abs(payoffs.mean() - exact.vs_equilibrium[0]) > half_width  # it tells them apart


def test_something_that_is_no_policy_is_refused(bridge_of) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of(CASES[0])
    with pytest.raises(GameError, match="is not an OpenSpiel policy"):
        openspiel_agent("x", lambda game: 3, bridge.db)


def test_an_openspiel_agent_that_cannot_be_loaded_is_named_as_typed(bridge_of) -> None:  # type: ignore[no-untyped-def]
    """``openspiel:nosuch.module:X`` was said as ``agent 'nosuch.module:X'`` (its prefix
    dropped), where its other errors say ``agent openspiel:...``."""
    bridge = bridge_of(CASES[0])
    with pytest.raises(GameError) as refused:
        make_agent("openspiel:nosuch.module:X", bridge.game, bridge.db)
    assert str(refused.value).startswith("agent 'openspiel:nosuch.module:X': cannot import "
                                         "'nosuch.module'")
