"""OpenSpiel's MCTS bot as a Markov agent, so gamedb can score it exactly.

OpenSpiel's ``MCTSBot`` searches sequential games only, and a fresh search at each
move is a random answer. ``MCTSAgent`` makes it a Markov agent honestly:

* at a stored position it runs ``searches`` independent searches of OpenSpiel's C++
  ``pyspiel.MCTSBot`` (``simulations`` simulations, UCT constant ``uct_c``, MCTS-Solver's
  proven outcomes on, one random rollout per leaf: ``pyspiel.RandomRolloutEvaluator``),
  each seeded by the stored position's key, the player and the search's number; its
  policy is how often each move was chosen. So the same position always gets the same
  distribution (k seeded searches estimate MCTS's own distribution there);
* each search starts at a real OpenSpiel state of the position (``turn_state``: the
  moves of ``Translation.history`` replayed in ``pyspiel.convert_to_turn_based``'s game)
  with the agent's player first, so it never sees the bid it answers. The converted
  game always asks OpenSpiel's player 0 first, so for gamedb's player 2 the bids of
  every past round are swapped: the agent plays the position's player-swapped twin as
  player 0 (Goofspiel and Oshi-Zumo are symmetric in the players, which the files'
  player swap already uses).

A position stored once stands for many real ones (cards relabelled by rank, players
swapped): the agent answers alike at all of them (``symmetric``), in real cards, so
``gamedb.play.score`` scores it by layers. The search itself does not depend on which
real state it starts from: OpenSpiel's legal actions are sorted by card, chance deals
the prizes left, and the search and its rollouts choose by index, so any state with the
same hands up to rank, prizes and score difference gives the same answer (a test checks
it over different histories, cards and seats).
"""

from __future__ import annotations

from typing import Any

from gamedb.games.base import Game, GameError
from gamedb.games.openspiel import Step, Translation, translation
from gamedb.openspiel import require_openspiel
from gamedb.play.agents import Policy

pyspiel = require_openspiel()

#: Answers kept per agent (each is recomputed alike when dropped; the sweep asks millions).
CACHE = 1 << 16
#: ``MCTSBot``'s memory cap in MB (a search of a few hundred simulations needs far less).
_MEMORY_MB = 256


class MCTSAgent:
    """OpenSpiel's C++ MCTS bot, ``searches`` seeded searches a position (module docstring).

    Args:
        openspiel_game: the ``pyspiel.Game`` of the file's rules (``Bridge.openspiel_game``).
        simulations: simulations per search (at least 2: one search must expand the root).
        searches: searches per position (1: a deterministic agent).
        uct_c: UCT's exploration constant.
        seed: added to every search's seed.

    Raises:
        GameError: ``simulations`` below 2 or ``searches`` below 1.
    """

    symmetric = True
    """It answers alike at every real position of a stored one (module docstring)."""

    def __init__(self, openspiel_game: Any, *, simulations: int = 20, searches: int = 1,
                 uct_c: float = 2.0, seed: int = 0):
        if simulations < 2 or searches < 1:
            raise GameError(f"MCTS needs simulations >= 2 and searches >= 1 (got "
                            f"simulations={simulations}, searches={searches})")
        self.name = f"mcts-{simulations}x{searches}"
        self.turns = pyspiel.convert_to_turn_based(openspiel_game)
        """OpenSpiel's game turned into turns, the game every search runs in."""
        self.translation: Translation = translation(openspiel_game.get_type().short_name)
        self.simulations, self.searches, self.uct_c, self.seed = simulations, searches, uct_c, seed
        self._answers: dict[tuple[int, int], dict[int, float]] = {}

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy:
        """Return the searches' distribution at ``state`` for ``player`` (1 or 2), in
        real actions: that of the stored position, whatever real state it stands for."""
        canon = game.canonical(state)
        stored = self._stored_policy(game, canon.key, canon.stored_player(player))
        back = {label: real for real, label in canon.actions[player - 1].items()}
        return {back.get(label, label): p for label, p in stored.items()}

    def search(self, state: Any, key: int, player: int) -> dict[int, float]:
        """Return how often the ``searches`` searches seeded by (``key``, ``player``)
        chose each OpenSpiel action at ``state``, a state of ``turns`` whose player to
        move is the agent (``turn_state``)."""
        counts: dict[int, float] = {}
        for i in range(self.searches):
            seed = _seed(key, player, i, self.seed)
            rollouts = pyspiel.RandomRolloutEvaluator(1, seed)
            bot = pyspiel.MCTSBot(self.turns, rollouts, self.uct_c, self.simulations,
                                  _MEMORY_MB, True, _seed(seed, 0, 0, 1), False)
            best = int(bot.mcts_search(state).best_child().action)
            counts[best] = counts.get(best, 0.0) + 1.0 / self.searches
        return counts

    def _stored_policy(self, game: Game[Any], key: int, player: int) -> dict[int, float]:
        """The distribution at stored ``key`` for its ``player``, over stored labels."""
        found = self._answers.get((key, player))
        if found is None:
            found = self._search_stored(game, key, player)
            if len(self._answers) >= CACHE:
                self._answers.clear()
            self._answers[(key, player)] = found
        return found

    def _search_stored(self, game: Game[Any], key: int, player: int) -> dict[int, float]:
        stored = game.decode(key)
        actions = game.actions(stored)[player - 1]
        if len(actions) == 1:
            return {actions[0]: 1.0}
        real, steps = reachable(game, self.translation, stored)
        found = self.search(turn_state(self.turns, steps, player), key, player)
        labels = game.canonical(real).actions[player - 1]
        return {labels[self.translation.from_openspiel(a)]: p for a, p in found.items()}


def reachable(game: Game[Any], translation: Translation, stored: Any) -> tuple[Any, list[Step]]:
    """Return a real position stored as ``stored`` that OpenSpiel's game reaches, and
    OpenSpiel's moves to it (``Translation.representatives``, ``history``).

    Raises:
        GameError: no play of OpenSpiel's game reaches any of them.
    """
    for real in translation.representatives(game, stored):
        try:
            return real, translation.history(game, real)
        except GameError:
            continue
    raise GameError(f"no play of OpenSpiel's game reaches a position stored as "
                    f"{game.format_position(stored)}")


def turn_state(turns: Any, steps: list[Step], player: int) -> Any:
    """Return the state of ``turns`` (``convert_to_turn_based``'s game) after OpenSpiel's
    ``steps``, each joint move split into turns, player 0's bid first; for ``player`` 2
    (gamedb's) each joint move swapped, so that it moves first, as player 0."""
    state = turns.new_initial_state()
    for step in steps:
        for action in (step if player == 1 else step[::-1]):
            state.apply_action(action)
    return state


def _seed(key: int, player: int, search: int, seed: int) -> int:
    """A 31-bit seed (a C++ ``int``) from the position, the player and the search
    (SplitMix64's mix)."""
    x = (key * 4 + player * 2 + search * 7919 + seed * 104729) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return int((x ^ (x >> 31)) & 0x7FFFFFFF)


__all__ = ["CACHE", "MCTSAgent", "reachable", "turn_state"]
