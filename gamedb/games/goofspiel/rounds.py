"""Goofspiel with ``rounds=R``: R rounds of bidding with the R highest cards.

The rules page of Goofspiel plays 12 rounds of 13 with the aces removed: each player
holds the cards ``num_cards - R + 1 .. num_cards``, all ``num_cards`` prizes are
shuffled, one is revealed per round, and the prizes never revealed are discarded.

Everything but the number of rounds is plain Goofspiel (``goofspiel``): the same
positions, the same key layout (hands as ranks of their union, the prizes as a mask,
so a hand of 12 high cards is stored like 1..12) and the same position syntax; a
position with ``k`` cards per hand has ``num_cards - R + k`` prizes left (the one on the
table included). A position is decided (win/loss) once the score difference exceeds
the prize on the table, the pot and the highest ``k - 1`` prizes left. The layer face is
a compiled kernel of its own (``_expand``), which reads the declared layout's offsets
and is held to the reference face by the conformance tests.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt

from gamedb.bits import Mask, cards, full, popcount, without
from gamedb.games.base import LAYER_SHIFT, Distribution, Expansion, GameError, format_spec
from gamedb.types import Keys
from gamedb.games.goofspiel import Goofspiel, GoofspielState
from gamedb.games.goofspiel.keys import hands_of, ternary_hands
from gamedb.games.source import LayerSource
from gamedb.games.text import format_cards
from gamedb.jit import njit


def top_cards(n: int, r: int) -> Mask:
    """Return the mask of the ``r`` highest cards of 1..n.

    >>> list(cards(top_cards(5, 2)))
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

    def _dealt(self) -> Mask:
        """Return the ``rounds`` highest cards, each player's hand at the start."""
        return top_cards(self.num_cards, self.rounds)

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
        """Return the successors of a batch of keys that share one layer (compiled)."""
        keys = np.asarray(keys, dtype=np.int64)
        k = int(keys[0] >> LAYER_SHIFT) if len(keys) else 1
        lay = self.layout
        prizes, prize = lay.bit_field("prizes"), lay.bit_field("prize")
        diff = lay.field("diff")
        offsets = np.array([self.num_cards, prizes.offset, prize.offset, prize.width,
                            getattr(diff, "offset", 0), getattr(diff, "bias", 0),
                            self.returns_type == "win_loss", self.ties == "carry"], np.int64)
        draws = self.num_cards - self.rounds + k - 1
        row, col, succ, weight = _expand(keys, k, draws, offsets)
        sizes = np.full(len(keys), k, np.int64)
        return Expansion(keys, sizes, sizes.copy(), row, col, succ, weight)

    def indexed_face(self) -> LayerSource | None:
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


# The kernel's constants (``offsets``): cards, prizes' and prize's offsets, prize width,
# diff offset and bias, win/loss, carry.
_N, _PRIZES, _PRIZE, _PRIZE_BITS, _DIFF, _BIAS, _WL, _CARRY = range(8)


@njit(cache=True)
def cards_of(mask: int, out: npt.NDArray[np.int64]) -> int:
    """Write the cards of ``mask`` into ``out`` in increasing order; return how many."""
    count, card = 0, 1
    while mask:
        if mask & 1:
            out[count] = card
            count += 1
        mask >>= 1
        card += 1
    return count


@njit(cache=True)
def _key(hands: int, prizes: int, table: int, diff: int, k: int,
         c: npt.NDArray[np.int64]) -> int:
    key = (k << LAYER_SHIFT) | hands | (prizes << c[_PRIZES]) | (table << c[_PRIZE])
    if c[_WL]:
        key |= (diff + c[_BIAS]) << c[_DIFF]
    return int(key)


@njit(cache=True)
def _sign(x: int) -> float:
    return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)


@njit(cache=True)
def _expand(keys: npt.NDArray[np.int64], k: int, draws: int, c: npt.NDArray[np.int64]
            ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64],
                       npt.NDArray[np.float64]]:
    """The layer face: every bid pair and next prize of each key (``draws`` prizes left
    besides the one on the table)."""
    B, n, wl = keys.shape[0], c[_N], c[_WL]
    K = (draws if k > 1 else 1) + (0 if wl else 1)
    row, col = np.empty((B, k), np.int64), np.empty((B, k), np.int64)
    succ = np.full((B, k, k, K), -1, np.int64)
    weight = np.zeros((B, k, k, K), np.float64)
    reveal = np.empty(n, np.int64)
    for i in range(B):
        key = keys[i]
        h1, h2 = hands_of(key & ((1 << c[_PRIZES]) - 1), k)
        prizes = (key >> c[_PRIZES]) & ((1 << n) - 1)
        table = (key >> c[_PRIZE]) & ((1 << c[_PRIZE_BITS]) - 1)
        diff = ((key >> c[_DIFF]) & ((1 << (LAYER_SHIFT - c[_DIFF])) - 1)) - c[_BIAS] if wl else 0
        cards_of(h1, row[i])
        cards_of(h2, col[i])
        cards_of(prizes, reveal)
        for a in range(k):
            for b in range(k):
                x, y = row[i, a], col[i, b]
                _pair(x, y, h1, h2, prizes, table, diff, k, draws, reveal, c,
                      succ[i, a, b], weight[i, a, b])
    return row, col, succ, weight


@njit(cache=True)
def _pair(x: int, y: int, h1: int, h2: int, prizes: int, table: int, diff: int, k: int,
          draws: int, reveal: npt.NDArray[np.int64], c: npt.NDArray[np.int64],
          succ: npt.NDArray[np.int64], weight: npt.NDArray[np.float64]) -> None:
    """Fill the outcomes of bids ``x`` against ``y``: one per next prize, and the points
    banked this round last (point difference)."""
    wl = c[_WL]
    delta = table if x > y else (-table if x < y else 0)
    pot = table if x == y and c[_CARRY] and k > 1 else 0
    d = diff + delta
    if not wl:
        weight[-1] = delta
    if k == 1:
        if wl:
            weight[0] = _sign(d)
        return
    code, twin = ternary_hands(h1 & ~(1 << (x - 1)), h2 & ~(1 << (y - 1)))
    for j in range(draws):
        p = reveal[j]
        best, taken = 0, 0  # the k - 2 highest prizes left besides p
        for q in range(draws - 1, -1, -1):
            if q != j and taken < k - 2:
                best, taken = best + reveal[q], taken + 1
        if wl and abs(d) > pot + p + best:
            weight[j] = _sign(d) / draws
            continue
        rest = prizes & ~(1 << (p - 1))
        s1 = _key(code, rest, p + pot, d, k - 1, c)
        s2 = _key(twin, rest, p + pot, -d, k - 1, c)
        succ[j] = min(s1, s2)
        weight[j] = (-1.0 if s2 < s1 else 1.0) / draws


__all__ = ["GoofspielRounds", "points_left", "top_cards"]
