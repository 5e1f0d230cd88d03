"""Per-prize closed forms for Goofspiel agents that bid by the prize alone.

With random prize order and ``ties=discard`` every prize is played exactly once, so two
agents whose bid depends only on the prize (level k >= 1, a bijection prize -> card) meet
on every prize exactly once, whatever the order: the outcome is one number per prize.
A uniform random agent (level 0) assigns its cards to the prizes by a uniformly random
permutation (its bids are a random permutation, independent of the prize order), so
against it each prize is won with probability P(U > bid), U uniform on 1..n, and the
distribution of the final difference follows from a dynamic programme over the set of
cards already assigned (2^n masks). This keeps 13-card evaluations exact where the
state recursion would have to enumerate 13! orders (Dror & Kendall 2013 simulated them).

>>> from gamedb.games import load_game
>>> from gamedb.play.agents import LevelK
>>> game = load_game("goofspiel(num_cards=13,returns_type=point_difference)")
>>> r = prize_match(game, LevelK(1), LevelK(2))
>>> r.points_for, r.points_against, 10 * r.payoff
(13.0, 78.0, -650.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from gamedb.games.base import Game, GameError
from gamedb.play.agents import Agent, LevelK, Uniform
from gamedb.play.results import MatchResult

#: Largest hand for which uniform-vs-uniform enumerates its two permutations (2^(2n)).
_MAX_BOTH_UNIFORM = 8


def bids_by_prize(agent: Agent, n: int) -> tuple[int, ...] | None:
    """Return the agent's bid for prizes 1..n, or None for a uniform random agent."""
    if isinstance(agent, Uniform) or (isinstance(agent, LevelK) and agent.k == 0):
        return None
    assert isinstance(agent, LevelK)
    return tuple(agent.bid(p, n) for p in range(1, n + 1))


def applies(game: Game[Any], agent1: Agent, agent2: Agent) -> bool:
    """Return True when the closed form covers this game and pair of agents."""
    ok = (isinstance(a, (LevelK, Uniform)) for a in (agent1, agent2))
    return game.capabilities.independent_prizes and all(ok)


def prize_match(game: Game[Any], agent1: Agent, agent2: Agent) -> MatchResult | None:
    """Return the exact result of a whole game by per-prize closed forms, or None.

    Payoff, points and win/draw/loss are exact; only for two uniform agents with more
    than 8 cards is the draw probability not enumerated (NaN; win = loss by symmetry).
    Points count every prize, also in a ``win_loss`` game the rules end once decided.
    """
    if not applies(game, agent1, agent2):
        return None
    n = game.capabilities.cards
    f1, f2 = bids_by_prize(agent1, n), bids_by_prize(agent2, n)
    total = n * (n + 1) // 2
    dist = _difference_distribution(n, f1, f2)  # index diff + total
    diffs = np.arange(-total, total + 1, dtype=float)
    points_for = sum(p * _p_beats(f1, f2, p, n) for p in range(1, n + 1))
    points_against = sum(p * _p_beats(f2, f1, p, n) for p in range(1, n + 1))
    win_loss = game.capabilities.win_loss
    if dist is None:  # two uniform agents, too many cards to enumerate
        payoff = 0.0 if win_loss else points_for - points_against
        return MatchResult(agent1.name, agent2.name, payoff, float("nan"), float("nan"),
                           float("nan"), points_for, points_against)
    win, draw, loss = (float(dist[diffs > 0].sum()), float(dist[diffs == 0].sum()),
                       float(dist[diffs < 0].sum()))
    payoff = win - loss if win_loss else float(dist @ diffs)
    return MatchResult(agent1.name, agent2.name, payoff, win, draw, loss,
                       points_for, points_against)


def _p_beats(mine: Sequence[int] | None, theirs: Sequence[int] | None, prize: int,
             n: int) -> float:
    """Probability that ``mine`` outbids ``theirs`` on ``prize`` (None: uniform card)."""
    if mine is not None and theirs is not None:
        return float(mine[prize - 1] > theirs[prize - 1])
    if mine is None and theirs is None:
        return (n - 1) / (2 * n)
    if mine is None:
        assert theirs is not None  # both None returned above
        return (n - theirs[prize - 1]) / n
    return (mine[prize - 1] - 1) / n


def _difference_distribution(n: int, f1: Sequence[int] | None,
                             f2: Sequence[int] | None) -> np.ndarray | None:
    """Distribution of player 1's final point difference, indexed by diff + n(n+1)/2."""
    total = n * (n + 1) // 2
    if f1 is not None and f2 is not None:
        out = np.zeros(2 * total + 1)
        out[total + sum(p * _sign(f1[p - 1] - f2[p - 1]) for p in range(1, n + 1))] = 1.0
        return out
    if f1 is None and f2 is None:
        return _both_uniform(n) if n <= _MAX_BOTH_UNIFORM else None
    fixed, flip = (f2, 1) if f1 is None else (f1, -1)
    assert fixed is not None
    # Prizes in order 1..n; the uniform player's card for prize p is uniform over the
    # cards not yet assigned. Row ``mask`` of ``dist`` is the difference distribution
    # (times the probability) once the cards in ``mask`` went to prizes 1..|mask|.
    dist: npt.NDArray[np.float64] = np.zeros((1 << n, 2 * total + 1))
    dist[0, total] = 1.0
    masks = np.arange(1 << n)
    popcounts = np.array([bin(m).count("1") for m in range(1 << n)])
    for p in range(1, n + 1):
        here = masks[popcounts == p - 1]
        for c in range(1, n + 1):
            sel = here[(here >> (c - 1) & 1) == 0]
            shift = flip * p * _sign(c - fixed[p - 1])
            dist[sel | 1 << (c - 1)] += np.roll(dist[sel], shift, axis=1) / (n - p + 1)
    full: npt.NDArray[np.float64] = dist[-1]  # every card assigned
    return full


def _both_uniform(n: int) -> np.ndarray:
    total = n * (n + 1) // 2
    layer: dict[tuple[int, int], np.ndarray] = {(0, 0): _delta(total, 0)}
    for p in range(1, n + 1):
        nxt: dict[tuple[int, int], np.ndarray] = {}
        for (m1, m2), dist in layer.items():
            free1 = [c for c in range(1, n + 1) if not m1 >> (c - 1) & 1]
            free2 = [c for c in range(1, n + 1) if not m2 >> (c - 1) & 1]
            for a in free1:
                for b in free2:
                    moved = np.roll(dist, p * _sign(a - b)) / (len(free1) * len(free2))
                    key = (m1 | 1 << (a - 1), m2 | 1 << (b - 1))
                    nxt[key] = nxt[key] + moved if key in nxt else moved
        layer = nxt
    return next(iter(layer.values()))


def _delta(total: int, diff: int) -> np.ndarray:
    out = np.zeros(2 * total + 1)
    out[total + diff] = 1.0
    return out


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def level_k_table(game: Game[Any], levels: Sequence[int] | None = None,
                  ) -> dict[tuple[int, int], MatchResult]:
    """Return the exact result of level i (seat 1) against level j for every pair.

    ``game`` has independent prizes (``capabilities.independent_prizes``), e.g. 13-card
    Goofspiel with random prizes and point-difference returns; payoffs and points are
    per game. Levels default to 0..n, the n + 1 distinct patterns (level k + n plays
    like level k for k >= 1).

    Raises:
        GameError: the game's rounds are not independent (no closed form).
    """
    if not game.capabilities.independent_prizes:
        raise GameError(f"{game.spec}: the level-k table needs independent prizes")
    n = game.capabilities.cards
    order, table = range(n + 1) if levels is None else levels, {}
    for i in order:
        for j in order:
            result = prize_match(game, LevelK(i), LevelK(j))
            assert result is not None  # independent prizes: the closed form applies
            table[i, j] = result
    return table


__all__ = ["applies", "bids_by_prize", "level_k_table", "prize_match"]
