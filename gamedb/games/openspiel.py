"""OpenSpiel's names for gamedb's games: parameters, state strings, actions and histories.

Pure translation, no ``pyspiel``: the bridge (``gamedb.openspiel``) hands over what a
``pyspiel`` object says (its game's parameters, a state's string) and gets back gamedb's
spec and position, or the OpenSpiel moves that lead to a position. Two families have an
OpenSpiel counterpart of the same name:

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
from collections.abc import Mapping
from typing import Any

from gamedb.bits import cards, full, mask_of, popcount
from gamedb.games.base import Game, GameError, format_spec
from gamedb.games.goofspiel import Goofspiel, GoofspielState
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

    def scale(self, game: Game[Any]) -> float:
        """OpenSpiel's payoff per unit of gamedb's (player 0 = gamedb's player 1)."""
        return 1.0

    def to_openspiel(self, action: int) -> int:
        """Return OpenSpiel's action id of a gamedb action (a card, a bid, a prize)."""
        return action

    def from_openspiel(self, action: int) -> int:
        """Return gamedb's action of an OpenSpiel action id."""
        return action


def _refuse(name: str, why: str) -> GameError:
    return GameError(f"OpenSpiel's {name} with {why}")


def _flag(value: Any) -> bool:
    return str(value).lower() in ("true", "1")


class GoofspielTranslation(Translation):
    """OpenSpiel's ``goofspiel`` (see the module docstring)."""

    name = "goofspiel"
    _LINE = re.compile(r"(P0 hand|P1 hand|Point card sequence|Points): ?(.*)")

    def spec(self, params: Mapping[str, Any]) -> str:
        n = int(params.get("num_cards", 13))
        if _flag(params.get("imp_info", False)):
            raise _refuse(self.name, "imp_info=true hides the bids (imperfect information); "
                          "gamedb solves imp_info=false only")
        if int(params.get("players", 2)) != 2:
            raise _refuse(self.name, f"players={params['players']} is not a two-player "
                          "zero-sum game; gamedb solves players=2 only")
        returns = str(params.get("returns_type", "win_loss"))
        if returns not in ("win_loss", "point_difference"):
            raise _refuse(self.name, f"returns_type={returns} pays each player's own points "
                          "(not zero-sum); use win_loss or point_difference")
        if int(params.get("num_turns", -1)) not in (-1, n):
            raise _refuse(self.name, f"num_turns={params['num_turns']} plays fewer rounds "
                          "than cards, which gamedb does not build (its rounds= keeps the "
                          "highest cards: another game)")
        order = str(params.get("points_order", "random"))
        return format_spec(self.name, {"num_cards": n, "points_order": order,
                                       "returns_type": returns, "ties": "discard"})

    def params(self, game: Game[Any]) -> dict[str, Any]:
        plain = isinstance(game, Goofspiel) and game.spec == format_spec(self.name, {
            "num_cards": game.num_cards, "points_order": game.points_order,
            "returns_type": game.returns_type, "ties": "discard"})
        if not plain:
            raise GameError(f"{game.spec} has no OpenSpiel counterpart: OpenSpiel's "
                            "goofspiel discards tied prizes and has no dummy, rounds or "
                            "committed option")
        assert isinstance(game, Goofspiel)
        return {"num_cards": game.num_cards, "points_order": game.points_order,
                "returns_type": game.returns_type}

    def position(self, game: Game[Any], text: str) -> GoofspielState:
        assert isinstance(game, Goofspiel)
        fields = {m.group(1): m.group(2).split() for m in map(self._LINE.fullmatch,
                                                              text.strip().splitlines()) if m}
        if len(fields) != 4 or len(fields["Points"]) != 2:
            raise GameError(f"not a state string of OpenSpiel's two-player goofspiel "
                            f"(imp_info=false): {text[:60]!r}")
        n = game.num_cards
        hand1, hand2, drawn = (mask_of(int(c) for c in fields[name]) for name in
                               ("P0 hand", "P1 hand", "Point card sequence"))
        points = [int(float(p)) for p in fields["Points"]]
        diff, k, seen = points[0] - points[1], popcount(hand1), len(fields["Point card sequence"])
        if not hand1:
            return GoofspielState(0, 0, 0, 0, 0, diff)
        prize = int(fields["Point card sequence"][-1]) if seen == n - k + 1 else 0
        return GoofspielState(hand1, hand2, full(n) & ~drawn, prize, 0, diff)

    def history(self, game: Game[Any], state: Any) -> list[Step]:
        assert isinstance(game, Goofspiel) and isinstance(state, GoofspielState)
        n, k = game.num_cards, popcount(state.hand1)
        if k == 1 and n > 1:
            raise GameError("OpenSpiel plays the last round by itself: a position with one "
                            "card in each hand never appears in its game")
        done = full(n) & ~state.prizes & ~(1 << state.prize >> 1)
        order = sorted(cards(done), reverse=game.points_order == "descending")
        rounds = _goofspiel_rounds(order, full(n) & ~state.hand1, full(n) & ~state.hand2,
                                   state.diff)
        if rounds is None:
            raise GameError(f"no play of OpenSpiel's game reaches {game.format_position(state)}")
        if not state.hand1 and n > 1:
            rounds = rounds[:-1]  # OpenSpiel deals and plays the last round itself
        chance = game.points_order == "random"
        steps: list[Step] = []
        for prize, x, y in rounds:
            steps += [(prize - 1,)] * chance + [(x - 1, y - 1)]
        return steps + [(state.prize - 1,)] * (chance and state.prize > 0)

    def scale(self, game: Game[Any]) -> float:
        assert isinstance(game, Goofspiel)
        return 0.5 if game.returns_type == "point_difference" else 1.0

    def to_openspiel(self, action: int) -> int:
        return action - 1

    def from_openspiel(self, action: int) -> int:
        return action + 1


def _goofspiel_rounds(order: list[int], played1: int, played2: int,
                      diff: int) -> list[tuple[int, int, int]] | None:
    """Return rounds (prize, bid 1, bid 2), prizes in ``order``, that use the played
    cards and score ``diff``; None if no play does.

    Any bid can go with any prize (a card in hand can be bid in any round), so this
    pairs the bids first (how many rounds player 1 wins and loses: ``_outcomes``), then
    splits the prizes into won, lost and tied ones summing to ``diff`` (``_split``).
    """
    outcomes = _Outcomes(sorted(cards(played1)), played2)
    for wins, losses in sorted(outcomes.counts(0, played2)):
        split = _split(tuple(order), wins, losses, diff)
        if split is not None:
            pairs = outcomes.pairs(wins, losses)
            by_sign = {s: [pair for pair in pairs if _sign(*pair) == s] for s in (1, -1, 0)}
            return [(prize, *by_sign[sign].pop()) for prize, sign in zip(order, split)]
    return None


def _sign(x: int, y: int) -> int:
    return (x > y) - (x < y)


class _Outcomes:
    """The pairings of player 1's played cards with player 2's, by the rounds they win
    and lose: player 1's cards in increasing order, each with a card of player 2 still
    unpaired (a memo over player 2's unpaired cards)."""

    def __init__(self, mine: list[int], theirs: int):
        self.mine, self.theirs = mine, theirs
        self._memo: dict[int, frozenset[tuple[int, int]]] = {}

    def counts(self, i: int, left: int) -> frozenset[tuple[int, int]]:
        """The (wins, losses) of pairing ``mine[i:]`` with the cards of ``left``."""
        if i == len(self.mine):
            return frozenset({(0, 0)})
        if left not in self._memo:
            self._memo[left] = frozenset(
                (w + (sign > 0), l + (sign < 0)) for y in cards(left)
                for sign in (_sign(self.mine[i], y),)
                for w, l in self.counts(i + 1, left & ~(1 << y >> 1)))
        return self._memo[left]

    def pairs(self, wins: int, losses: int) -> list[tuple[int, int]]:
        """A pairing with ``wins`` and ``losses`` (one of ``counts(0, theirs)``)."""
        pairs, left = [], self.theirs
        for i, x in enumerate(self.mine):
            y = next(y for y in cards(left) if (wins - (_sign(x, y) > 0), losses - (
                _sign(x, y) < 0)) in self.counts(i + 1, left & ~(1 << y >> 1)))
            pairs.append((x, y))
            wins, losses, left = wins - (x > y), losses - (x < y), left & ~(1 << y >> 1)
        return pairs


def _split(prizes: tuple[int, ...], wins: int, losses: int, diff: int) -> list[int] | None:
    """Return a sign per prize (1 won, -1 lost, 0 tied), ``wins`` of 1 and ``losses`` of
    -1, with sum(sign * prize) == ``diff``; None if there is none."""
    failed: set[tuple[int, int, int, int]] = set()

    def search(i: int, w: int, l: int, need: int) -> list[int] | None:
        if i == len(prizes):
            return [] if (w, l, need) == (0, 0, 0) else None
        if (i, w, l, need) in failed or w + l > len(prizes) - i:
            return None
        for sign, w2, l2 in ((1, w - 1, l), (-1, w, l - 1), (0, w, l)):
            if min(w2, l2) >= 0:
                rest = search(i + 1, w2, l2, need - sign * prizes[i])
                if rest is not None:
                    return [sign, *rest]
        failed.add((i, w, l, need))
        return None

    return search(0, wins, losses, diff)


class OshiZumoTranslation(Translation):
    """OpenSpiel's ``oshi_zumo`` (see the module docstring)."""

    name = "oshi_zumo"
    _STATE = re.compile(r"Coins: (\d+) (\d+), Field: ([#.W]+)")

    def spec(self, params: Mapping[str, Any]) -> str:
        coins, min_bid = int(params.get("coins", 50)), int(params.get("min_bid", 0))
        horizon = int(params.get("horizon", 1000))
        if min_bid < 1:
            raise _refuse(self.name, "min_bid=0 repeats the position after a 0-0 bid until "
                          "the horizon (gamedb's game ends at a 0-0 bid); use min_bid>=1")
        if horizon < 2 * coins:
            raise _refuse(self.name, f"horizon={horizon} can end the game before the coins "
                          f"run out, and gamedb's game has no horizon; use horizon>={2 * coins}")
        return format_spec(self.name, {"alesia": str(_flag(params.get("alesia"))).lower(),
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


_TRANSLATIONS: dict[str, Translation] = {t.name: t for t in (GoofspielTranslation(),
                                                              OshiZumoTranslation())}


def translation(name: str) -> Translation:
    """Return the translation of the family (gamedb's and OpenSpiel's short name).

    Raises:
        GameError: the family has no OpenSpiel counterpart.
    """
    if name not in _TRANSLATIONS:
        raise GameError(f"{name} has no OpenSpiel counterpart in gamedb; the bridge "
                        f"knows {' and '.join(sorted(_TRANSLATIONS))}")
    return _TRANSLATIONS[name]


__all__ = ["SEARCH_LIMIT", "GoofspielTranslation", "OshiZumoTranslation", "Step",
           "Translation", "translation"]
