"""OpenSpiel's names for gamedb's games: parameters, state strings, actions and histories.

Pure translation, no ``pyspiel``: the bridge (``gamedb.openspiel``) hands over what a
``pyspiel`` object says (its game's parameters, a state's string) and gets back gamedb's
spec and position, or the OpenSpiel moves that lead to a position. Two families have an
OpenSpiel counterpart of the same name (Goofspiel's translation lives in its package,
``goofspiel.openspiel``; Oshi-Zumo's here):

* ``goofspiel`` with ``imp_info=false``, 2 players, ``num_turns`` = ``num_cards`` and
  ``returns_type`` win_loss or point_difference (any ``points_order``) is gamedb's
  ``goofspiel(num_cards, points_order, returns_type)`` with ``ties=discard``. OpenSpiel
  pays ``point_difference`` as (p1 - p2) / 2 to player 0, gamedb p1 - p2: ``scale`` is
  1/2. OpenSpiel plays the last round by itself (positions with one card in each hand
  never appear in its game), and a bid or a prize ``c`` is its action ``c - 1``.
* ``oshi_zumo`` with ``min_bid >= 1`` and a ``horizon`` that cannot end the game early
  (``horizon >= 2 * coins``; each move spends a coin) is gamedb's ``oshi_zumo``. A bid is
  its own action. With ``min_bid=0`` OpenSpiel's 0-0 bid repeats the position until the
  horizon, where gamedb's ends the game: a different game, refused.

>>> translation("goofspiel").spec({"num_cards": 4, "points_order": "descending",
...     "returns_type": "point_difference", "imp_info": False, "players": 2, "num_turns": -1})
'goofspiel(num_cards=4,points_order=descending,returns_type=point_difference,ties=discard)'
>>> translation("goofspiel").spec({"num_cards": 4, "imp_info": True})
Traceback (most recent call last):
...
gamedb.games.base.GameError: OpenSpiel's goofspiel with imp_info=true hides the bids (imperfect information); gamedb solves imp_info=false only
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from gamedb.games.base import Game, GameError, format_spec
from gamedb.games.oshi_zumo import OshiZumo, OshiZumoState

Step = tuple[int, ...]
"""One OpenSpiel move: ``(outcome,)`` at a chance node, ``(action0, action1)`` a joint one."""

#: How many moves (or positions) a search for a history may try before it gives up.
SEARCH_LIMIT = 200_000


class Translation:
    """One family's translation (defaults: a move is its own OpenSpiel action, values
    are in the same units)."""

    name: str = ""

    def spec(self, params: Mapping[str, Any]) -> str:
        """Return gamedb's spec of OpenSpiel's game with ``params`` (its
        ``get_parameters()``), or raise ``GameError`` saying why it has none."""
        raise NotImplementedError

    def params(self, game: Game[Any]) -> dict[str, Any]:
        """Return the OpenSpiel parameters of gamedb's ``game``, or raise ``GameError``."""
        raise NotImplementedError

    def position(self, game: Game[Any], text: str) -> Any:
        """Return gamedb's position of an OpenSpiel state string."""
        raise NotImplementedError

    def history(self, game: Game[Any], state: Any) -> list[Step]:
        """Return OpenSpiel moves from its start to ``state``, or raise ``GameError``."""
        raise NotImplementedError

    def representatives(self, game: Game[Any], stored: Any) -> Iterator[Any]:
        """Yield real positions that the file stores as the stored position ``stored``
        (``game.decode`` of a key), ``stored`` first. A stored position need not be
        one that OpenSpiel reaches (Goofspiel relabels the cards of both hands 1..m by
        rank), but one of these is wherever any play of gamedb's reaches it."""
        yield stored

    def scale(self, game: Game[Any]) -> float:
        """OpenSpiel's payoff per unit of gamedb's (player 0 = gamedb's player 1)."""
        return 1.0

    def to_openspiel(self, action: int) -> int:
        """Return OpenSpiel's action id of a gamedb action (a card, a bid, a prize)."""
        return action

    def from_openspiel(self, action: int) -> int:
        """Return gamedb's action of an OpenSpiel action id."""
        return action


def refuse(name: str, why: str) -> GameError:
    """The one-line refusal of an OpenSpiel game with the parameter ``why`` names."""
    return GameError(f"OpenSpiel's {name} with {why}")


def flag(value: Any) -> bool:
    """An OpenSpiel boolean parameter (a bool, or its text)."""
    return str(value).lower() in ("true", "1")


class OshiZumoTranslation(Translation):
    """OpenSpiel's ``oshi_zumo`` (see the module docstring)."""

    name = "oshi_zumo"
    _STATE = re.compile(r"Coins: (\d+) (\d+), Field: ([#.W]+)")

    def spec(self, params: Mapping[str, Any]) -> str:
        coins, min_bid = int(params.get("coins", 50)), int(params.get("min_bid", 0))
        horizon = int(params.get("horizon", 1000))
        if min_bid < 1:
            raise refuse(self.name, "min_bid=0 repeats the position after a 0-0 bid until "
                          "the horizon (gamedb's game ends at a 0-0 bid); use min_bid>=1")
        if horizon < 2 * coins:
            raise refuse(self.name, f"horizon={horizon} can end the game before the coins "
                          f"run out, and gamedb's game has no horizon; use horizon>={2 * coins}")
        return format_spec(self.name, {"alesia": str(flag(params.get("alesia"))).lower(),
                                       "coins": coins, "min_bid": min_bid,
                                       "size": int(params.get("size", 3))})

    def params(self, game: Game[Any]) -> dict[str, Any]:
        assert isinstance(game, OshiZumo)
        if game.min_bid < 1:
            raise GameError(f"{game.spec} has no OpenSpiel counterpart: OpenSpiel's "
                            "oshi_zumo repeats a 0-0 bid until its horizon")
        params = {"coins": game.coins, "size": game.size, "min_bid": game.min_bid,
                  "alesia": game.alesia}
        return params | ({"horizon": 2 * game.coins} if 2 * game.coins > 1000 else {})

    def position(self, game: Game[Any], text: str) -> OshiZumoState:
        assert isinstance(game, OshiZumo)
        match = self._STATE.fullmatch(text.strip())
        if not match or len(match.group(3)) != 2 * game.size + 3 or match.group(3).count("W") != 1:
            raise GameError(f"not a state string of OpenSpiel's {game.spec}: {text[:60]!r}")
        pos = match.group(3).index("W") - game.size - 1
        return OshiZumoState(int(match.group(1)), int(match.group(2)), pos)

    def history(self, game: Game[Any], state: Any) -> list[Step]:
        assert isinstance(game, OshiZumo) and isinstance(state, OshiZumoState)
        steps = _oshi_zumo_moves(game, state)
        if steps is None:
            raise GameError(f"no play of OpenSpiel's game reaches {game.format_position(state)}")
        return steps


def _oshi_zumo_moves(game: OshiZumo, goal: OshiZumoState) -> list[Step] | None:
    """Return bids from the start to ``goal`` through positions that are not over, or
    None. A first search tries a few bids a move (the smallest and largest affordable
    and the middle one: short plays), a second every bid, each within ``SEARCH_LIMIT``
    moves tried."""
    start = OshiZumoState(game.coins, game.coins, 0)
    for narrow in (True, False):
        search = _BidSearch(game, goal, narrow)
        try:
            found = search.moves(start)
        except RecursionError:
            found = None
        if found is not None or not search.cut:
            return found
    raise GameError(f"gave up searching for a play of OpenSpiel's game that reaches "
                    f"{game.format_position(goal)} after {SEARCH_LIMIT:,} moves tried")


class _BidSearch:
    """A depth-first search for bids that reach ``goal``, failures remembered."""

    def __init__(self, game: OshiZumo, goal: OshiZumoState, narrow: bool):
        self.game, self.goal, self.narrow = game, goal, narrow
        self.failed: set[OshiZumoState] = set()
        self.tried = 0
        self.cut = False
        """True once the search stopped at ``SEARCH_LIMIT`` (its None proves nothing)."""

    def moves(self, at: OshiZumoState) -> list[Step] | None:
        if at == self.goal:
            return []
        if at in self.failed or self.game.value(at) is not None or self.cut:
            return None
        for a, b in self._pairs(at):
            self.tried += 1
            self.cut = self.cut or self.tried > SEARCH_LIMIT
            (_, child), = self.game.next(at, a, b)
            found = self.moves(child)
            if found is not None:
                return [(a, b), *found]
        self.failed.add(at)
        return None

    def _pairs(self, at: OshiZumoState) -> list[tuple[int, int]]:
        """The bid pairs that leave the goal's coins affordable, those pushing toward
        the goal's position first, then the largest (the fewest moves)."""
        bids1, bids2 = self.game.actions(at)
        mine = [a for a in bids1 if a <= at.coins1 - self.goal.coins1]
        theirs = [b for b in bids2 if b <= at.coins2 - self.goal.coins2]
        if self.narrow:
            mine, theirs = _few(mine), _few(theirs)
        push = (self.goal.pos > at.pos) - (self.goal.pos < at.pos)
        pairs = [(a, b) for a in mine for b in theirs]
        return sorted(pairs, key=lambda p: (((p[0] > p[1]) - (p[0] < p[1])) != push,
                                            -p[0] - p[1]))


def _few(bids: list[int]) -> list[int]:
    """The two smallest, the two largest and the middle of sorted ``bids``."""
    return sorted({bids[i] for i in (0, 1, len(bids) // 2, -2, -1) if -len(bids) <= i < len(bids)})


_TRANSLATIONS: dict[str, Translation] = {}


def translation(name: str) -> Translation:
    """Return the translation of the family (gamedb's and OpenSpiel's short name).

    Raises:
        GameError: the family has no OpenSpiel counterpart.
    """
    if not _TRANSLATIONS:  # Goofspiel's lives in its package, which imports this module
        from gamedb.games.goofspiel.openspiel import GoofspielTranslation

        _TRANSLATIONS.update({t.name: t for t in (GoofspielTranslation(), OshiZumoTranslation())})
    if name not in _TRANSLATIONS:
        raise GameError(f"{name} has no OpenSpiel counterpart: the bridge knows "
                        f"{' and '.join(sorted(_TRANSLATIONS))}, the games both gamedb and "
                        "OpenSpiel have")
    return _TRANSLATIONS[name]


__all__ = ["SEARCH_LIMIT", "OshiZumoTranslation", "Step", "Translation", "refuse",
           "translation"]
