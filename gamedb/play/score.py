"""Score one agent exactly: its payoff against the equilibrium and against its best response.

``score_agent`` plays the agent in each seat against the stored equilibrium and against
the exact best response to it, with no LP, in one of two ways:

* an agent that plays alike at every position a file stores as one (``symmetric``:
  uniform play, the equilibrium, the seeded MCTS agent) is scored by layers over the
  file's stored positions (``gamedb.play.sweep``): vectorised, asked in batches, 8-card
  Goofspiel's 1.7 M positions in minutes; it also splits the exploitability by layer
  and names the positions where the agent loses most;
* any other agent by the memoised recursion of ``gamedb.play.evaluate`` over the real
  positions it reaches (``check_scorable`` refuses files past ``EXACT_LIMIT``).

Exact for **Markov** agents: agents whose move probabilities depend only on the position
(hands, prizes, score; coins and wrestler), as every built-in agent's do. An agent that
remembers the history (the order of past prizes, past bids, a search tree kept between
moves) is asked once per position, in the position as the pass first reaches it: the
numbers are then those of the Markov agent that always answers that way.

>>> from gamedb.games import load_game
>>> from gamedb.play.agents import Uniform
>>> score = score_agent(load_game("jujitsu(num_cards=4)"), None, Uniform())
>>> abs(round(score.value, 9)), round(score.vs_equilibrium[0], 4), round(score.exploitability, 4)
(0.0, -0.2797, 0.375)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from gamedb.games.base import Game
from gamedb.play.agents import Agent
from gamedb.play.equilibrium import Equilibrium
from gamedb.play.evaluate import best_response_value, check_exact, evaluate
from gamedb.play.sweep import LayerLoss, PositionLoss, is_symmetric, sweep
from gamedb.store import GameDB
from gamedb.types import OpenProgress


@dataclass(frozen=True, slots=True)
class AgentScore:
    """An agent's exact results, each from the agent's own side, per seat (1, 2)."""

    agent: str
    """The agent's name."""
    spec: str
    """The game."""
    value: float
    """The game value from player 1's side (what the equilibrium guarantees in seat 1)."""
    vs_equilibrium: tuple[float, float]
    """The agent's expected payoff against the stored equilibrium, in seat 1 and seat 2."""
    vs_best_response: tuple[float, float]
    """The agent's expected payoff against the best response to it, in seat 1 and 2."""
    exploitability: float
    """What a best response gains beyond the game value, averaged over the seats
    (0 exactly at an equilibrium; OpenSpiel's NashConv / 2)."""
    seconds: float
    """Time taken."""
    method: str = "recursion"
    """``layers`` (``gamedb.play.sweep``) or ``recursion`` (``gamedb.play.evaluate``)."""
    layers: tuple[LayerLoss, ...] = ()
    """By layers only: what the best response gains at each layer, top layer first."""
    worst: tuple[PositionLoss, ...] = ()
    """By layers only: the positions where the agent loses most (reach x loss)."""
    best_response: Agent | None = None
    """By layers only: the exact best response to the agent, as an agent that plays it
    (``gamedb.play.sweep.SweptBestResponse``); its payoffs are ``vs_best_response``."""


def check_scorable(game: Game[Any], agent: Agent, positions: int, *, instead: str) -> None:
    """Refuse (``TooBigToEvaluate``) to score an agent in a game of more than
    ``EXACT_LIMIT`` positions, up front, unless it is scored by layers (``symmetric``).
    The opponents are the equilibrium and a best response, so no closed form between
    prize-bidding agents applies."""
    if is_symmetric(agent):
        return
    check_exact(game, agent, Equilibrium(game), positions, instead=instead)


def score_agent(game: Game[Any], db: GameDB | None, agent: Agent, *,
                on_progress: OpenProgress | None = None) -> AgentScore:
    """Return ``agent``'s exact payoff against the equilibrium of ``db`` (solved on the
    fly without one: small games) and against its best response, in both seats.

    ``on_progress(done, total)`` reports each of the four walks (total None), or the
    passes by layers (positions done of those known so far).
    """
    start = time.perf_counter()
    if db is not None and is_symmetric(agent):
        found = sweep(game, db, agent, on_progress=on_progress)
        gain = 0.5 * ((found.value - found.vs_best_response[0])
                      + (-found.value - found.vs_best_response[1]))
        return AgentScore(agent.name, game.spec, found.value, found.vs_equilibrium,
                          found.vs_best_response, gain, time.perf_counter() - start,
                          "layers", found.layers, found.worst, found.best_response)
    equilibrium = Equilibrium(game, db)
    value = sum(p * equilibrium.value(s) for p, s in game.initial())
    first = evaluate(game, agent, equilibrium, on_progress=on_progress).payoff
    second = -evaluate(game, equilibrium, agent, on_progress=on_progress).payoff
    against = tuple(-best_response_value(game, agent, seat) for seat in (1, 2))
    gain = 0.5 * ((value - against[0]) + (-value - against[1]))
    return AgentScore(agent.name, game.spec, value + 0.0, (first, second),
                      (against[0], against[1]), gain, time.perf_counter() - start)


__all__ = ["AgentScore", "check_scorable", "score_agent"]
