"""OpenSpiel's MCTS bot as a Markov agent, so gamedb can score it exactly.

OpenSpiel's ``MCTSBot`` searches sequential games only, and a fresh search at each
move is a random answer. ``MCTSAgent`` makes it a Markov agent honestly:

* at a position it runs ``searches`` independent searches (``MCTSBot`` with
  ``simulations`` simulations, UCT constant ``uct_c``, one random rollout per leaf:
  ``RandomRolloutEvaluator``), each seeded by the stored position's key, the player
  and the search's number; its policy is how often each move was chosen. So the same
  position always gets the same distribution (k seeded searches estimate MCTS's own
  distribution there);
* each search runs over gamedb's rules of the *stored* position (``_TurnState``, a
  ``pyspiel.State``-like view of the reference face), turned into turns as OpenSpiel's
  ``convert_to_turn_based`` does, the agent's player first: it never sees the bid it
  answers. A position stored once stands for many real ones (cards relabelled by
  rank, players swapped); the agent answers alike at all of them (``symmetric``), in
  real cards. gamedb's rules end a win/loss game once the winner is decided, where
  OpenSpiel plays on: the searches see the same outcomes, sooner.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gamedb.games.base import Game
from gamedb.openspiel import require_openspiel
from gamedb.play.agents import Policy

pyspiel = require_openspiel()
from open_spiel.python.algorithms import mcts as _mcts  # noqa: E402  (after the check)


class _TurnState:
    """A gamedb position as the sequential ``pyspiel.State`` MCTS searches: ``first``
    (0 or 1, OpenSpiel's players) bids, then the other, then chance deals."""

    def __init__(self, game: Game[Any], state: Any, first: int,
                 bid: int | None = None, draws: Any = None):
        self.game, self.state, self.first, self.bid, self.draws = game, state, first, bid, draws

    def clone(self) -> _TurnState:
        return _TurnState(self.game, self.state, self.first, self.bid, self.draws)

    def is_terminal(self) -> bool:
        return self.draws is None and self.game.value(self.state) is not None

    def returns(self) -> list[float]:
        value = float(self.game.value(self.state) or 0.0)
        return [value, -value]

    def is_chance_node(self) -> bool:
        return self.draws is not None

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(i, p) for i, (p, _) in enumerate(self.draws)]

    def current_player(self) -> int:
        if self.draws is not None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return self.first if self.bid is None else 1 - self.first

    def legal_actions(self, player: int | None = None) -> list[int]:
        if self.draws is not None:
            return list(range(len(self.draws)))
        player = self.current_player() if player is None else player
        return list(self.game.actions(self.state)[player])

    def apply_action(self, action: int) -> None:
        if self.draws is not None:
            self.state, self.draws = self.draws[action][1], None
            self._settle()
        elif self.bid is None:
            self.bid = int(action)
        else:
            pair = (self.bid, int(action)) if self.first == 0 else (int(action), self.bid)
            self.bid, self.draws = None, list(self.game.next(self.state, *pair))
            if len(self.draws) == 1:
                self.state, self.draws = self.draws[0][1], None
                self._settle()

    def _settle(self) -> None:
        """Deal through chance nodes of gamedb's own (a position before a draw)."""
        draws = None if self.is_terminal() else self.game.chance(self.state)
        if draws is not None:
            self.draws = list(draws)


class MCTSAgent:
    """OpenSpiel's MCTS bot, ``searches`` seeded searches a position (module docstring).

    Args:
        openspiel_game: the ``pyspiel.Game`` of the same rules (its type and utility
            range are what ``MCTSBot`` checks; ``Bridge.openspiel_game``).
        simulations: simulations per search.
        searches: searches per position (1: a deterministic agent).
        uct_c: UCT's exploration constant.
        seed: added to every search's seed.
    """

    symmetric = True
    """It answers alike at every real position of a stored one (module docstring)."""

    def __init__(self, openspiel_game: Any, *, simulations: int = 20, searches: int = 1,
                 uct_c: float = 2.0, seed: int = 0):
        self.name = f"mcts-{simulations}x{searches}"
        self._turns = pyspiel.convert_to_turn_based(openspiel_game)
        self.simulations, self.searches, self.uct_c, self.seed = simulations, searches, uct_c, seed
        self._answers: dict[tuple[int, int], dict[int, float]] = {}

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy:
        canon = game.canonical(state)
        mine = canon.stored_player(player)
        stored = self._stored_policy(game, canon.key, mine)
        back = {label: real for real, label in canon.actions[player - 1].items()}
        return {back.get(label, label): p for label, p in stored.items()}

    def _stored_policy(self, game: Game[Any], key: int, player: int) -> dict[int, float]:
        found = self._answers.get((key, player))
        if found is None:
            found = self._search(game, game.decode(key), player, key)
            self._answers[(key, player)] = found
        return found

    def _search(self, game: Game[Any], state: Any, player: int, key: int) -> dict[int, float]:
        actions = game.actions(state)[player - 1]
        if len(actions) == 1:
            return {actions[0]: 1.0}
        counts: dict[int, float] = {}
        for i in range(self.searches):
            rng = np.random.RandomState(_seed(key, player, i, self.seed))
            bot = _mcts.MCTSBot(self._turns, self.uct_c, self.simulations,
                                _mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
            best = bot.mcts_search(_TurnState(game, state, player - 1)).best_child().action
            counts[int(best)] = counts.get(int(best), 0.0) + 1.0 / self.searches
        return counts


def _seed(key: int, player: int, search: int, seed: int) -> int:
    """A 32-bit seed from the position, the player and the search (SplitMix64's mix)."""
    x = (key * 4 + player * 2 + search * 7919 + seed * 104729) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return int((x ^ (x >> 31)) & 0xFFFFFFFF)


__all__ = ["MCTSAgent"]
