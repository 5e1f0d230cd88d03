"""OpenSpiel agents scored exactly by gamedb, and the same numbers from OpenSpiel's sampling.

For a Goofspiel file (``gamedb build "goofspiel(num_cards=N)" --db FILE``): uniform
random play and OpenSpiel's MCTS bot (``gamedb.openspiel.mcts.MCTSAgent``: seeded
searches a position, a Markov agent), each

* scored exactly (``score_agent``: by layers over the stored positions): payoff against
  the stored equilibrium in both seats, against its best response, exploitability,
  seconds of wall and of CPU time (the process's);
* sampled: OpenSpiel's ``evaluate_bots`` over ``--games`` games in seat 1 against a
  ``PolicyBot`` of the equilibrium (OpenSpiel's ``UniformRandomPolicy`` for random,
  ``PolicyBot`` of the same MCTS agent for MCTS), with a 99.7 % interval (3 sigma);
  with ``--sample best-response`` also (or instead: ``--sample best-response`` alone)
  against a ``PolicyBot`` of its exact best response in seat 2 (the one the exact score
  found by layers, ``AgentScore.best_response``), checked against the exact "vs best
  response, seat 1"; the games lost are counted too (all of them when that is -1).

Not part of the test suite (tests/openspiel/test_mcts.py checks the same agreement on 4
cards); results go to docs/openspiel.md. Usage:

    python bench/openspiel_agents.py FILE [--agents random,mcts] [--simulations 10]
        [--searches 1] [--games 10000] [--sample equilibrium,best-response]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from open_spiel.python import policy as openspiel_policy
from open_spiel.python.algorithms import evaluate_bots
from open_spiel.python.bots.policy import PolicyBot

from gamedb.openspiel.bridge import Bridge
from gamedb.openspiel.mcts import MCTSAgent
from gamedb.play.agents import Uniform
from gamedb.play.score import score_agent


def sampled(bridge: Bridge, mine: object, theirs: object, games: int,
            seed: int = 0) -> tuple[float, float, int, float, float]:
    """Mean payoff of policy ``mine`` in seat 1 against ``theirs`` in seat 2 over
    ``games`` games, its 3-sigma half width, the games lost, and the seconds taken
    (wall, CPU)."""
    rng = np.random.RandomState(seed)
    bots = [PolicyBot(0, rng, mine), PolicyBot(1, rng, theirs)]
    start, cpu = time.perf_counter(), time.process_time()
    payoffs = np.array([evaluate_bots.evaluate_bots(bridge.openspiel_game.new_initial_state(),
                                                    bots, rng)[0] for _ in range(games)])
    scale = 1.0 / bridge.translation.scale(bridge.game)  # to gamedb's units
    return (scale * float(payoffs.mean()), scale * 3 * float(payoffs.std()) / np.sqrt(games),
            int(np.sum(payoffs < 0)), time.perf_counter() - start, time.process_time() - cpu)


def shown(exact: float, found: tuple[float, float, int, float, float], games: int) -> str:
    """A sampled column: mean ± half width, inside or OUTSIDE, games lost, times."""
    mean, half, lost, seconds, cpu = found
    inside = abs(mean - exact) <= half + 1e-9  # a sure result: no width, float sums
    return (f"{mean:+.4f} ± {half:.4f} ({'inside' if inside else 'OUTSIDE'}; "
            f"{lost:,} of {games:,} lost) | {seconds:.0f} ({cpu:.0f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db")
    parser.add_argument("--agents", default="random,mcts")
    parser.add_argument("--simulations", type=int, default=10)
    parser.add_argument("--searches", type=int, default=1)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--sample", default="equilibrium",
                        help="opponents to sample against: equilibrium, best-response or both")
    args = parser.parse_args()
    against = args.sample.split(",")
    if not against or set(against) - {"equilibrium", "best-response"}:
        parser.error(f"--sample: equilibrium and/or best-response, got {args.sample!r}")
    with Bridge.open(args.db) as bridge:
        print(f"{bridge.game.spec}: {bridge.db.meta.get('states'):,} stored positions")
        print("| agent | vs equilibrium, seat 1 | seat 2 | vs best response, seat 1 | seat 2 "
              "| exploitability | exact s (CPU) | "
              + " | ".join(f"sampled vs {a}, seat 1 (± 3 sigma) | s (CPU)" for a in against)
              + " |")
        print("|---|---:|---:|---:|---:|---:|---:|" + "---:|---:|" * len(against))
        for name in args.agents.split(","):
            if name == "random":
                agent: object = Uniform()
                mine = openspiel_policy.UniformRandomPolicy(bridge.openspiel_game)
            else:
                agent = MCTSAgent(bridge.openspiel_game, simulations=args.simulations,
                                  searches=args.searches)
                mine = bridge.policy(agent)
            cpu = time.process_time()
            score = score_agent(bridge.game, bridge.db, agent)  # type: ignore[arg-type]
            cpu = time.process_time() - cpu
            columns = []
            for opponent in against:
                if opponent == "equilibrium":
                    theirs, exact = bridge.policy(), score.vs_equilibrium[0]
                else:
                    theirs, exact = bridge.policy(score.best_response), score.vs_best_response[0]
                columns.append(shown(exact, sampled(bridge, mine, theirs, args.games), args.games))
            print(f"| {score.agent} | {score.vs_equilibrium[0]:+.6f} | {score.vs_equilibrium[1]:+.6f} "
                  f"| {score.vs_best_response[0]:+.6f} | {score.vs_best_response[1]:+.6f} "
                  f"| {score.exploitability:.6f} | {score.seconds:.1f} ({cpu:.1f}) "
                  f"| {' | '.join(columns)} |", flush=True)


if __name__ == "__main__":
    main()
