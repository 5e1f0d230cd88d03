"""OpenSpiel states as gamedb positions and back, and their exact values from a file.

A ``Bridge`` pairs an open gamedb file with the OpenSpiel game of the same rules
(``openspiel_game``). Values are OpenSpiel's: player 0 is gamedb's player 1, and a
Goofspiel ``point_difference`` payoff is half of gamedb's (OpenSpiel pays each player
his points minus the mean), so ``value`` scales the stored value by
``Translation.scale``. Actions are OpenSpiel's ids (a Goofspiel card ``c`` is ``c - 1``).

Nothing here imports ``pyspiel`` until a function needs it (``require_openspiel``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from gamedb.games import load_game
from gamedb.games.base import Game, GameError
from gamedb.games.openspiel import Translation, translation
from gamedb.openspiel import require_openspiel
from gamedb.store import GameDB, open_db


def spec_of(openspiel_game: Any) -> str:
    """Return gamedb's spec of a ``pyspiel.Game``, or raise ``GameError`` saying why it
    has none (``imp_info=true``, more than 2 players, ``total_points``, ...)."""
    name = openspiel_game.get_type().short_name
    spec = translation(name).spec(openspiel_game.get_parameters())
    return load_game(spec).spec  # checks the ranges gamedb builds


def openspiel_game(game: Game[Any] | str) -> Any:
    """Return the ``pyspiel.Game`` with the rules of gamedb's ``game`` (or spec).

    Raises:
        GameError: the spec has no OpenSpiel counterpart (e.g. ``ties=carry``).
        OpenSpielMissing: OpenSpiel is not installed.
    """
    game = load_game(game) if isinstance(game, str) else game
    params = translation(game.name).params(game)
    return require_openspiel().load_game(game.name, params)


@dataclass(frozen=True, slots=True)
class Position:
    """Where an OpenSpiel state lives in a gamedb file."""

    state: Any
    """gamedb's position (a family's state dataclass)."""
    text: str
    """The position as ``gamedb show`` reads it."""
    key: int | None
    """The canonical key of the stored position; None where nothing is stored (the game
    is over or decided, or a chance draw is next)."""
    swapped: bool = False
    """The stored position has the players swapped (its value negated)."""


class Bridge:
    """An open gamedb file seen from OpenSpiel (see the module docstring).

    Args:
        db: an open file of a spec with an OpenSpiel counterpart.

    Raises:
        GameError: the file's spec has none.
        OpenSpielMissing: OpenSpiel is not installed.
    """

    def __init__(self, db: GameDB):
        self.db = db
        self.game: Game[Any] = db.game
        self.translation: Translation = translation(self.game.name)
        self.openspiel_game = openspiel_game(self.game)
        self._games_seen: dict[str, bool] = {str(self.openspiel_game): True}
        self._probe = lru_cache(maxsize=1 << 16)(db.probe)

    @classmethod
    def open(cls, path: str | Path) -> Bridge:
        """Open the file at ``path`` read-only; close it with ``close`` (or ``with``)."""
        db = open_db(path)
        try:
            return cls(db)
        except BaseException:
            db.close()
            raise

    def __enter__(self) -> Bridge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file."""
        self.db.close()

    # -- OpenSpiel -> gamedb -------------------------------------------------------------

    def position(self, state: Any) -> Position:
        """Return where a ``pyspiel.State`` of this game lives in the file."""
        self._check_game(state.get_game())
        ours = self.translation.position(self.game, str(state))
        text = self.game.format_position(ours)
        if self.game.value(ours) is not None or self.game.chance(ours) is not None:
            return Position(ours, text, None)
        canon = self.game.canonical(ours)
        return Position(ours, text, canon.key, canon.swapped)

    def value(self, state: Any, player: int = 0) -> float:
        """Return the exact equilibrium value of a ``pyspiel.State`` for OpenSpiel's
        ``player`` (0 or 1), in OpenSpiel's units; at a chance node, the expectation."""
        value = self.translation.scale(self.game) * self.db.value(self.position(state).state)
        return value if player == 0 else -value

    def strategy(self, state: Any, player: int) -> dict[int, float]:
        """Return the stored equilibrium strategy of OpenSpiel's ``player`` at a
        decision node: every legal action id with its probability. Where the outcome is
        already decided (win/loss) every action is as good: uniform."""
        legal = state.legal_actions(player)
        ours = self.position(state).state
        if self.game.value(ours) is not None or not legal:
            return {a: 1.0 / len(legal) for a in legal}
        stored = self._probe(ours).strategies[player + 1]
        probs = {self.translation.to_openspiel(a): p for a, p in stored.items()}
        return {a: probs.get(a, 0.0) for a in legal}

    def _check_game(self, game: Any) -> None:
        name = str(game)
        if name not in self._games_seen:
            try:
                self._games_seen[name] = spec_of(game) == self.game.spec
            except GameError:
                self._games_seen[name] = False
        if not self._games_seen[name]:
            raise GameError(f"a state of OpenSpiel's {name}, but {self.db.path.name} holds "
                            f"{self.game.spec} ({self.openspiel_game})")

    # -- gamedb -> OpenSpiel -------------------------------------------------------------

    def state(self, position: Any) -> Any:
        """Return a ``pyspiel.State`` at a gamedb position (text, state or ``Position``).

        OpenSpiel's state holds more than the position (the order of past prizes, each
        player's points rather than their difference): this is one play that reaches
        it, and every such state has the same value and moves.

        Raises:
            GameError: no play of OpenSpiel's game reaches the position (in Goofspiel,
                one card in each hand: OpenSpiel plays the last round by itself).
        """
        ours = position.state if isinstance(position, Position) else (
            self.game.parse_position(position) if isinstance(position, str) else position)
        state = self.openspiel_game.new_initial_state()
        for step in self.translation.history(self.game, ours):
            if len(step) == 1:
                state.apply_action(step[0])
            else:
                state.apply_actions(list(step))
        return state

    def policy(self, agent: Any = None) -> Any:
        """Return an ``open_spiel.python.policy.Policy`` for both players that plays the
        stored equilibrium, or ``agent``: a gamedb agent or its name as ``gamedb
        match`` reads it (``"equilibrium-vs:random"``, ``"level-2"``, ...), its
        equilibrium read from this file (``gamedb.openspiel.policy``).

        Raises:
            GameError: an unknown agent name.
        """
        from gamedb.openspiel.policy import AgentPolicy, EquilibriumPolicy

        if agent is None:
            return EquilibriumPolicy(self)
        if isinstance(agent, str):
            from gamedb.play.names import make_agent

            agent = make_agent(agent, self.game, self.db)
        return AgentPolicy(self, agent)


__all__ = ["Bridge", "Position", "openspiel_game", "spec_of"]
