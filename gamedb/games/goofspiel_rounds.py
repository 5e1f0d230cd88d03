"""Goofspiel with ``rounds=R``: R rounds of bidding with the R highest cards.

The rules page of Goofspiel plays 12 rounds of 13 with the aces removed: each player
holds the cards ``num_cards - R + 1 .. num_cards``, all ``num_cards`` prizes are
shuffled, one is revealed per round, and the prizes never revealed are discarded.

Everything but the number of rounds is plain Goofspiel (``goofspiel``): the same
positions, the same key layout (hands as ranks of their union, the prizes as a mask,
so a hand of 12 high cards is stored like 1..12) and the same position syntax; a
position with ``k`` cards per hand has ``num_cards - R + k`` prizes left (the one on the
table included). The layer face is the reference face (``reference_expand``): these
games are small next to full Goofspiel of the same ``num_cards``.
"""

from __future__ import annotations

import dataclasses

from gamedb.bits import Mask, cards, full, popcount, without
from gamedb.games.base import Distribution, Expansion, GameError, Keys, format_spec, reference_expand
from gamedb.games.goofspiel import Goofspiel, GoofspielState
from gamedb.games.indexed import IndexedFace
from gamedb.games.text import format_cards


def top_cards(n: int, r: int) -> Mask:
    """Return the mask of the ``r`` highest cards of 1..n.

    >>> cards(top_cards(5, 2))
    [4, 5]
    """
    return full(n) & ~full(n - r)


def points_left(prizes: Mask, prize: int, k: int) -> int:
    """Return the most prize points still to be won with ``k`` rounds left: the prize on
    the table (0 before a draw) and the highest prizes that can still be revealed.

    >>> points_left(0b11110, 1, 2), points_left(0b11111, 0, 2)   # prizes 2..5
    (6, 9)
    """
    rest = sorted(cards(prizes))
    more = k - 1 if prize else k
    return prize + sum(rest[len(rest) - more:] if more > 0 else [])


class GoofspielRounds(Goofspiel):
    """Goofspiel of ``rounds`` rounds (see the module docstring)."""

    def __init__(self, num_cards: int = 4, points_order: str = "random",
                 returns_type: str = "win_loss", ties: str = "discard", rounds: int = 0):
        super().__init__(num_cards=num_cards, points_order=points_order,
                         returns_type=returns_type, ties=ties)
        self.rounds = rounds or num_cards
        self.spec = format_spec(self.name, {
            "num_cards": num_cards, "points_order": points_order,
            "returns_type": returns_type, "rounds": self.rounds, "ties": ties})
        self.capabilities = dataclasses.replace(self.capabilities, independent_prizes=False,
                                                build_costs=None)

    def initial(self) -> Distribution[GoofspielState]:
        """Return the first prize's draws: hands of the ``rounds`` highest cards."""
        hand = top_cards(self.num_cards, self.rounds)
        return self._reveal(hand, hand, full(self.num_cards), 0, 0)

    def next(self, s: GoofspielState, a: int, b: int) -> Distribution[GoofspielState]:
        """Bid card ``a`` against card ``b``; after the last round the game is over."""
        stake, last, diff = s.prize + s.pot, popcount(s.hand1) == 1, s.diff
        if a != b:
            diff += stake if a > b else -stake
        pot = stake if a == b and self.ties == "carry" and not last else 0
        h1, h2 = without(s.hand1, a), without(s.hand2, b)
        if last:
            return [(1.0, GoofspielState(h1, h2, s.prizes, 0, 0, diff))]
        return self._reveal(h1, h2, s.prizes, pot, diff)

    def value(self, s: GoofspielState) -> float | None:
        """Return player 1's payoff at the end or once decided, None before."""
        if not s.hand1:
            return float(s.diff > 0) - float(s.diff < 0) if self.returns_type == "win_loss" \
                else float(s.diff)
        left = s.pot + points_left(s.prizes, s.prize, popcount(s.hand1))
        if self.returns_type == "win_loss" and abs(s.diff) > left:
            return float(s.diff > 0) - float(s.diff < 0)
        return None

    def expand(self, keys: Keys) -> Expansion:
        """Return the successors from the reference face."""
        return reference_expand(self, keys)

    def indexed_face(self) -> IndexedFace | None:
        """Return None: these games go through the generic builder."""
        return None

    def parse_position(self, text: str) -> GoofspielState:
        """Read a position like plain Goofspiel's; ``start`` holds the highest cards."""
        if text.strip() == "start":
            hand = top_cards(self.num_cards, self.rounds)
            return GoofspielState(hand, hand, full(self.num_cards), 0, 0, 0)
        return super().parse_position(text)

    def _check_reachable(self, k1: int, k2: int, prizes: tuple[int, ...], prize: int,
                         pot: int, diff: int, written: str) -> None:
        n, r = self.num_cards, self.rounds
        if k1 != k2 or k1 > r:
            raise GameError(f"hands must have the same size, at most rounds={r}; "
                            f"got {k1} and {k2} cards")
        if prize and not 1 <= prize <= n or prize in prizes:
            raise GameError(f"prize={prize} must be a card of 1..{n} not among prizes")
        left = len(prizes) + bool(prize)
        if left != n - r + k1:
            raise GameError(f"{k1} cards per hand with rounds={r} need {n - r + k1} prizes "
                            f"left, with the one on the table; got {left}")
        played = n * (n + 1) // 2 - sum(prizes) - prize
        if pot < 0 or (self.ties == "discard" and pot) or abs(diff) + pot > played:
            raise GameError(f"{written} cannot happen after the prizes "
                            f"{format_cards(sorted(set(range(1, n + 1)) - {*prizes, prize}))} "
                            f"were played with ties={self.ties}")


__all__ = ["GoofspielRounds", "points_left", "top_cards"]
