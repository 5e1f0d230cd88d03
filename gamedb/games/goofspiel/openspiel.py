"""OpenSpiel's ``goofspiel`` in gamedb's terms (``gamedb.games.openspiel`` explains the
mapping): its parameters, state strings and a history that reaches a position.

A history pairs the bids first (how many rounds player 1 wins and loses), then splits
the prizes into won, lost and tied ones that score the position's difference: any bid
can go with any prize, since a card in hand can be bid in any round.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from itertools import combinations
from typing import Any

from gamedb.bits import cards, full, mask_of, popcount
from gamedb.games.base import Game, GameError, format_spec
from gamedb.games.goofspiel.game import Goofspiel, GoofspielState
from gamedb.games.openspiel import Step, Translation, flag, refuse


class GoofspielTranslation(Translation):
    """OpenSpiel's ``goofspiel`` (see the module docstring)."""

    name = "goofspiel"
    _LINE = re.compile(r"(P0 hand|P1 hand|Point card sequence|Points): ?(.*)")

    def spec(self, params: Mapping[str, Any]) -> str:
        n = int(params.get("num_cards", 13))
        if flag(params.get("imp_info", False)):
            raise refuse(self.name, "imp_info=true hides the bids (imperfect information); "
                          "gamedb solves imp_info=false only")
        if int(params.get("players", 2)) != 2:
            raise refuse(self.name, f"players={params['players']} is not a two-player "
                          "zero-sum game; gamedb solves players=2 only")
        returns = str(params.get("returns_type", "win_loss"))
        if returns not in ("win_loss", "point_difference"):
            raise refuse(self.name, f"returns_type={returns} pays each player's own points "
                          "(not zero-sum); use win_loss or point_difference")
        if int(params.get("num_turns", -1)) not in (-1, n):
            raise refuse(self.name, f"num_turns={params['num_turns']} plays fewer rounds "
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

    def representatives(self, game: Game[Any], stored: Any) -> Iterator[Any]:
        """The stored position, then its hands' cards spread over 1..n every other way
        that keeps their order: the stored ranks 1..m can make a score difference that
        no play reaches (player 1 kept 2, 3 and player 2 kept 1, 3 of 6 cards: its
        played 1, 4, 5, 6 lose one round at most), which real cards do. With
        ``point_difference`` the score is not stored: each spread with the differences
        0, 1, -1, 2, ... up to the points played (one of them is a play's)."""
        assert isinstance(game, Goofspiel) and isinstance(stored, GoofspielState)
        ranks = list(cards(stored.hand1 | stored.hand2))
        spreads = [ranks] + [list(s) for s in combinations(range(1, game.num_cards + 1),
                                                           len(ranks)) if list(s) != ranks]
        played = _points(full(game.num_cards) & ~stored.prizes) - stored.prize
        scores = [stored.diff] if game.returns_type == "win_loss" else [
            stored.diff + sign * d for d in range(played + 1) for sign in (1, -1)[:1 + (d > 0)]]
        for spread in spreads:
            real = dict(zip(ranks, spread))
            for diff in scores:
                yield replace(stored, hand1=mask_of(real[c] for c in cards(stored.hand1)),
                              hand2=mask_of(real[c] for c in cards(stored.hand2)), diff=diff)

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


def _points(prizes: int) -> int:
    return sum(cards(prizes))


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


__all__ = ["GoofspielTranslation"]
