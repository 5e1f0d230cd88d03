"""Jujitsu: the trick game of Sanwal & Drechsler.

Both players hold cards 1..n. Each trick both play a card at once and the higher card
takes the trick. With ``ties=carry`` an equal pair adds one trick to a pot that the next
non-tied trick's winner also takes (a pot left at the end goes to nobody); with
``ties=discard`` a tied trick goes to nobody. Player 1 wins (+1) with more tricks,
loses (-1) with fewer, draws (0) otherwise.

References: S. Sanwal, R. Drechsler, "Jujitsu: solving a game of cards", 2002.

Parameters::

    num_cards  int  cards per player, 1..16        (default: 8)
    ties       str  carry | discard                (default: carry)

Canonical keys: only comparisons between the cards matter, so the union of both hands
is relabelled 1..m keeping order (rank compression); the point of no return clamps the
trick difference to one past what the remaining tricks can swing; and of a position and
its player-swapped twin (hands exchanged, difference negated, value negated) the one with
the smaller key is stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from gamedb.jit import njit
import numpy as np

from gamedb.bits import Mask, cards, full, mask_of, popcount, without
from gamedb.games.base import (
    LAYER_SHIFT, BuildCosts, Canonical, Capabilities, Distribution, Expansion, Floats, Game,
    GameError, Keys, Param,
)
from gamedb.games.card_kernels import fill_cards
from gamedb.games.layout import Field, KeyLayout
from gamedb.games.pairings import trick_counts
from gamedb.games.text import (format_cards, parse_cards, parse_fields, parse_int, require_fields,
                               with_defaults)

# Widths and bias of the key's fields (``_layout``); the kernels read them too.
_POT_BITS = 5
_DIFF_BITS = 6
_DIFF_OFFSET = 32


@dataclass(frozen=True, slots=True)
class JujitsuState:
    """A Jujitsu position.

    Key bit layout for ``n`` cards (least significant bit on the right)::

        | cards left | 0... | diff + 32 (6 bits) | pot (5 bits) | hand2 (n) | hand1 (n) |
        ^ bit 48             ^ bit 2n + 5         ^ bit 2n       ^ bit n     ^ bit 0

    Card ``c`` of a hand is bit ``c - 1`` of its field.
    """

    hand1: Mask
    """Player 1's cards."""
    hand2: Mask
    """Player 2's cards."""
    pot: int
    """Tied tricks waiting for the next winner (always 0 with ``ties=discard``)."""
    diff: int
    """Player 1's tricks minus player 2's so far."""


class Jujitsu(Game[JujitsuState]):
    """Jujitsu with ``num_cards`` cards per player (see the module docstring)."""

    name: ClassVar[str] = "jujitsu"
    params: ClassVar[tuple[Param, ...]] = (
        Param("num_cards", int, 8, "cards per player", low=1, high=16),
        Param("ties", str, "carry", "tied trick: carried to a pot, or discarded",
              choices=("carry", "discard")),
    )
    layer_span: ClassVar[int | None] = 1  # every trick uses one card of each hand
    state_type: ClassVar[type] = JujitsuState
    rules: ClassVar[str] = """\
Jujitsu (Sanwal & Drechsler 2002): a trick game, both players play a card at once.

Rules
  Both players hold the cards 1..num_cards. In each trick both play one card at once
  and the higher card takes the trick. With ties=carry an equal pair takes nothing now
  but adds one trick to a pot, and the next non-tied trick's winner takes 1 + pot
  tricks (a pot left at the end goes to nobody); with ties=discard a tied trick goes to
  nobody. When the hands are empty player 1 scores +1 with more tricks than player 2,
  -1 with fewer, 0 with as many.

Positions: space-separated name=value fields, or the word start
  hand1  player 1's cards, comma-separated in any order; - for none
  hand2  player 2's cards (always as many as player 1's)
  pot    tied tricks waiting for the next trick's winner (default 0; always 0 with
         ties=discard)
  diff   player 1's tricks minus player 2's so far (default 0)
  A move is a card of your hand. Values are player 1's expected payoff.

Example: three tricks into a 6-card game, player 1 one trick ahead
  gamedb build "jujitsu(num_cards=6)" --db j6.sqlite
  gamedb show j6.sqlite "hand1=1,3,5 hand2=2,4,6 pot=0 diff=1"
  gamedb show j6.sqlite start
"""

    def __init__(self, num_cards: int = 8, ties: str = "carry"):
        super().__init__(num_cards=num_cards, ties=ties)
        self.num_cards = num_cards
        self.ties = ties
        self.layout = _layout(num_cards)
        self.capabilities = Capabilities(
            "card", round_points=_tricks_at_stake,
            axes={"pot": (0, num_cards), "diff": (-num_cards, num_cards)},
            build_costs=BuildCosts(460, 1_540, 310, 27_000))  # docs/estimate.md: 13 cards

    # -- reference face ------------------------------------------------------------

    def initial(self) -> Distribution[JujitsuState]:
        """Return the start: both players hold every card."""
        hand = full(self.num_cards)
        return [(1.0, JujitsuState(hand, hand, 0, 0))]

    def actions(self, s: JujitsuState) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Return the cards each player may play."""
        return tuple(cards(s.hand1)), tuple(cards(s.hand2))

    def next(self, s: JujitsuState, a: int, b: int) -> Distribution[JujitsuState]:
        """Play card ``a`` against card ``b``."""
        pot, diff = s.pot, s.diff
        if a == b:
            pot += self.ties == "carry"
        else:
            diff += (1 + pot) * (1 if a > b else -1)
            pot = 0
        return [(1.0, JujitsuState(without(s.hand1, a), without(s.hand2, b), pot, diff))]

    def value(self, s: JujitsuState) -> float | None:
        """Return player 1's payoff at the end, None before it."""
        return None if s.hand1 else float(np.sign(s.diff))

    def layer(self, s: JujitsuState) -> int:
        """Return the number of cards left in each hand."""
        return popcount(s.hand1)

    def canonical(self, s: JujitsuState) -> Canonical:
        """Return the stored key of ``s`` and how real cards map to stored labels."""
        key, swapped = _canonical(s.hand1, s.hand2, s.pot, s.diff, self.num_cards)
        union = s.hand1 | s.hand2
        ranks = {card: rank for rank, card in enumerate(cards(union), start=1)}
        return Canonical(int(key), bool(swapped), (ranks, ranks))

    # -- positions as text -----------------------------------------------------------

    def parse_position(self, text: str) -> JujitsuState:
        """Read ``"hand1=1,3,5 hand2=2,4,6 pot=1 diff=0"`` (or ``start``)."""
        if text.strip() == "start":
            return self.initial()[0][1]
        fields = parse_fields(text)
        require_fields(fields, ("hand1", "hand2"), ("pot", "diff"))
        n = self.num_cards
        hand1 = parse_cards(fields["hand1"], field_name="hand1", n=n)
        hand2 = parse_cards(fields["hand2"], field_name="hand2", n=n)
        pot = parse_int(fields, "pot") if "pot" in fields else 0
        diff = parse_int(fields, "diff") if "diff" in fields else 0
        _check_reachable(n, len(hand1), len(hand2), pot, diff, self.ties,
                         with_defaults(fields, pot=pot, diff=diff))
        return JujitsuState(mask_of(hand1), mask_of(hand2), pot, diff)

    def unreachable(self, s: JujitsuState) -> str | None:
        """Return why no order of the played cards leads to ``s``, or None.

        The played cards are paired in some order; each pairing has a count of tricks
        won, lost and tied (``pairings.trick_counts``), and any order of those tricks is
        possible, so ``s`` is reachable exactly when one count can leave its pot and diff.
        """
        played = full(self.num_cards)
        mine, theirs = list(cards(played & ~s.hand1)), list(cards(played & ~s.hand2))
        if any(self._leaves(w, len(mine) - w - t, t, s.pot, s.diff)
               for w, t in trick_counts(mine, theirs)):
            return None
        return (f"pot={s.pot} diff={s.diff} cannot happen when player 1 played "
                f"{format_cards(mine)} and player 2 {format_cards(theirs)}")

    def _leaves(self, won: int, lost: int, tied: int, pot: int, diff: int) -> bool:
        """Whether some order of these tricks ends with ``pot`` and ``diff``."""
        if self.ties == "discard":
            return pot == 0 and diff == won - lost
        absorbed = tied - pot  # ties carried into a later decisive trick
        if absorbed < 0 or (absorbed and not won + lost):
            return False
        low = -absorbed if lost else 0  # all absorbed ties lost, or won
        high = absorbed if won else 0
        return low <= diff - (won - lost) <= high and (diff - won + lost + absorbed) % 2 == 0

    def format_position(self, s: JujitsuState) -> str:
        """Write a position the way ``parse_position`` reads it."""
        return (f"hand1={format_cards(list(cards(s.hand1)))} "
                f"hand2={format_cards(list(cards(s.hand2)))} pot={s.pot} diff={s.diff}")

    # -- layer face ------------------------------------------------------------------

    def expand(self, keys: Keys) -> Expansion:
        """Return the successors of a batch of keys that share one layer."""
        keys = np.asarray(keys, dtype=np.int64)
        k = int(self.layer_of(keys[:1])[0]) if len(keys) else 1
        row, col, succ, weight = _expand(keys, k, self.num_cards,
                                         self.ties == "carry")
        sizes = np.full(len(keys), k, np.int64)
        return Expansion(keys, sizes, sizes.copy(), row, col, succ, weight)


def _tricks_at_stake(s: JujitsuState) -> int:
    return 1 + s.pot


def _layout(n: int) -> KeyLayout:
    """Declare the key of ``JujitsuState`` for ``n`` cards (drawn in its docstring)."""
    return KeyLayout(
        "jujitsu-v1",
        (Field("hand1", 0, n, cards=True, high="high1"),
         Field("hand2", n, n, cards=True, high="high2"),
         Field("pot", 2 * n, _POT_BITS),
         Field("diff", 2 * n + _POT_BITS, _DIFF_BITS, bias=_DIFF_OFFSET)),
        columns=("hand1", "hand2", "pot", "diff", "high1", "high2", "hand1_mask", "hand2_mask"),
        text=(("hand1", "hand1"), ("hand2", "hand2"), ("pot", "pot"), ("diff", "diff")))


def _check_reachable(n: int, k1: int, k2: int, pot: int, diff: int, ties: str,
                     written: str) -> None:
    """Refuse hands, pot and diff no play reaches (``written``: pot and diff as the
    message shows them, defaults marked)."""
    played = n - k1
    if k1 != k2:
        raise GameError(f"hands must have the same size, got {k1} and {k2} cards")
    if pot < 0 or (ties == "discard" and pot):
        raise GameError(f"pot={pot} is impossible with ties={ties}")
    if abs(diff) + pot > played or (ties == "carry" and (played - pot - diff) % 2):
        raise GameError(f"{written} cannot happen after {played} tricks")


@njit(cache=True)
def _encode(h1: int, h2: int, pot: int, diff: int, n: int) -> int:
    left, h = 0, h1
    while h:
        h &= h - 1
        left += 1
    return (h1 | (h2 << n) | (pot << (2 * n)) | ((diff + _DIFF_OFFSET) << (2 * n + _POT_BITS))
            | (left << LAYER_SHIFT))


@njit(cache=True)
def _pext(mask: int, universe: int) -> int:
    out, bit = 0, 1
    while universe:
        low = universe & -universe
        if mask & low:
            out |= bit
        bit <<= 1
        universe ^= low
    return out


@njit(cache=True)
def _canonical(h1: int, h2: int, pot: int, diff: int, n: int) -> tuple[int, bool]:
    union = h1 | h2
    c1, c2 = _pext(h1, union), _pext(h2, union)
    left = 0
    h = h1
    while h:
        h &= h - 1
        left += 1
    # Beyond one past the largest possible swing only the sign of diff matters.
    reach = left + pot + 1
    diff = min(max(diff, -reach), reach)
    a = _encode(c1, c2, pot, diff, n)
    b = _encode(c2, c1, pot, -diff, n)
    return (b, True) if b < a else (a, False)


@njit(cache=True)
def _expand(keys: Keys, k: int, n: int, carry: int) -> tuple[Keys, Keys, Keys, Floats]:
    B = keys.shape[0]
    hand = (1 << n) - 1
    row = np.empty((B, k), np.int64)
    col = np.empty((B, k), np.int64)
    succ = np.empty((B, k, k, 1), np.int64)
    weight = np.empty((B, k, k, 1), np.float64)
    c1 = np.empty(k, np.int64)
    c2 = np.empty(k, np.int64)
    for i in range(B):
        key = keys[i]
        h1, h2 = key & hand, (key >> n) & hand
        pot = (key >> (2 * n)) & ((1 << _POT_BITS) - 1)
        diff = ((key >> (2 * n + _POT_BITS)) & ((1 << _DIFF_BITS) - 1)) - _DIFF_OFFSET
        fill_cards(h1, c1)
        fill_cards(h2, c2)
        row[i, :] = c1
        col[i, :] = c2
        for a in range(k):
            for b in range(k):
                p, d = pot, diff
                if c1[a] == c2[b]:
                    p += carry
                else:
                    d += (1 + pot) if c1[a] > c2[b] else -(1 + pot)
                    p = 0
                n1 = h1 & ~(1 << (c1[a] - 1))
                n2 = h2 & ~(1 << (c2[b] - 1))
                if k == 1:
                    succ[i, a, b, 0] = -1
                    weight[i, a, b, 0] = (d > 0) - (d < 0)
                else:
                    s, swapped = _canonical(n1, n2, p, d, n)
                    succ[i, a, b, 0] = s
                    weight[i, a, b, 0] = -1.0 if swapped else 1.0
    return row, col, succ, weight
