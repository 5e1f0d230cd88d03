"""Goofspiel with ``dummy=true``: a third suit bids at random after both players.

A third suit 1..n is shuffled. After both players bid, the dummy's bid is the next card
of that suit, uniform over its remaining cards (which everyone sees). The unique highest
of the three bids takes the prize; the dummy alone highest: nobody scores; the two
players tied at the top: the prize is discarded; one player tied with the dummy at the
top (the other lower): that player scores half the prize. With ``rounds=R`` each player
holds the R highest cards and bids R rounds; the dummy keeps its whole suit.

Position syntax: plain Goofspiel's fields and ``dummy=CARDS``, the dummy's remaining
cards; ``diff`` may be a half (``diff=1.5``). Refused: ``ties=carry`` (a prize taken by
the dummy has no rule for its points) and fixed prize orders (the rules shuffle them).

Canonical keys: only comparisons between the three bids matter, so the union of both
hands and the dummy's cards is relabelled by rank (the prizes keep their values), and of
a position and its player-swapped twin the smaller key is stored. The score is kept in
half points (``diff2``, in the key with ``win_loss``; with ``point_difference`` it is
banked as ``Canonical.offset``). The layer face is a compiled kernel (``_expand``) that
the conformance tests hold to the reference face.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from gamedb.bits import Mask, cards, compress, full, mask_of, popcount, without
from gamedb.games.base import (
    LAYER_SHIFT, Canonical, Capabilities, Distribution, Expansion, Game, GameError, Keys,
    parse_integer, shown,
)
from gamedb.jit import njit
from gamedb.games.goofspiel import Goofspiel
from gamedb.games.goofspiel.rounds import cards_of, points_left, top_cards
from gamedb.games.layout import Constant, Field, KeyLayout
from gamedb.games.text import format_cards, parse_cards, parse_fields, parse_int, require_fields

#: SQL of the score in points from the half points of the key (``format_half``).
_DIFF_SQL = "CASE WHEN diff2 % 2 THEN printf('%.1f', diff2 / 2.0) ELSE diff2 / 2 END"


@dataclass(frozen=True, slots=True)
class DummyState:
    """A position of Goofspiel with a dummy (``prize == 0``: before a draw).

    Key bit layout for ``n`` cards (T = n(n+1)/2)::

        | cards left | 0... | diff2 + T | prize | prizes | dummy | hand2 | hand1 |
        ^ bit 48            ^ win_loss only                               ^ bit 0

    Each card field is n bits; in canonical keys both hands and the dummy are masks
    over the ranks of their union.
    """

    hand1: Mask
    hand2: Mask
    dummy: Mask
    """The dummy's remaining cards."""
    prizes: Mask
    """Prizes not yet revealed (the one on the table excluded)."""
    prize: int
    diff2: int
    """Twice player 1's points minus player 2's (a half prize is a whole here)."""


def format_half(diff2: int) -> str:
    """Write half points as points.

    >>> format_half(3), format_half(-3), format_half(4)
    ('1.5', '-1.5', '2')
    """
    return f"{diff2 / 2:.1f}" if diff2 % 2 else str(diff2 // 2)


def parse_half(text: str) -> int:
    """Read points that may end in ``.5`` as half points.

    >>> parse_half("1.5"), parse_half("-0.5"), parse_half("2")
    (3, -1, 4)
    """
    rule = "diff must be a whole or half number (e.g. 1.5)"
    whole, dot, frac = text.removeprefix("-").partition(".")
    if (dot and frac not in ("0", "5")) or not whole.isdigit():
        raise GameError(f"{rule}, got {shown(text)}")
    half2 = 2 * parse_integer(whole, rule, text) + (frac == "5")
    return -half2 if text.startswith("-") else half2


def gain2(a: int, b: int, d: int, prize: int) -> int:
    """Return player 1's gain in half points when ``a``, ``b`` and the dummy's ``d``
    bid for ``prize``.

    >>> gain2(3, 1, 2, 4), gain2(3, 1, 3, 4), gain2(1, 2, 3, 4), gain2(2, 2, 1, 4)
    (8, 4, 0, 0)
    """
    if a == b or d > max(a, b):
        return 0
    sign, high = (1, a) if a > b else (-1, b)
    return sign * (2 * prize if high > d else prize)


class GoofspielDummy(Game[DummyState]):
    """Goofspiel with a dummy suit (see the module docstring)."""

    name: ClassVar[str] = "goofspiel"
    params = Goofspiel.params
    layer_span: ClassVar[int | None] = 1
    state_type: ClassVar[type] = DummyState
    rules: ClassVar[str] = Goofspiel.rules
    dummy, committed = "true", "false"

    def __init__(self, num_cards: int = 4, points_order: str = "random",
                 returns_type: str = "win_loss", ties: str = "discard", rounds: int = 0):
        if ties != "discard":
            raise GameError("dummy=true needs ties=discard (no rule carries a prize the "
                            "dummy takes)")
        n, self.rounds = num_cards, rounds  # the parameter: 0 is every card
        self.bid_rounds = rounds or num_cards
        """Rounds bid (``rounds``, or every card)."""
        super().__init__(dummy="true", num_cards=n, points_order=points_order,
                         returns_type=returns_type, ties=ties,
                         **({"rounds": rounds} if rounds else {}))
        self.num_cards, self.points_order, self.returns_type, self.ties = (
            n, points_order, returns_type, ties)
        self.win_loss = returns_type == "win_loss"
        self.layout = _layout(n, self.win_loss)
        total = n * (n + 1) // 2
        # no round_points: the dummy's bid decides too (``play`` scores the higher card)
        self.capabilities = Capabilities(
            "card", prize_field="prize", cards=n, win_loss=self.win_loss,
            axes={"prize": (1, n), **({"diff": (-total, total)} if self.win_loss else {})})

    # -- reference face ------------------------------------------------------------

    def initial(self) -> Distribution[DummyState]:
        """Return the first prize's draws."""
        hand, n = top_cards(self.num_cards, self.bid_rounds), self.num_cards
        return self._reveal(hand, hand, full(n), full(n), 0)

    def chance(self, s: DummyState) -> Distribution[DummyState] | None:
        """Return the draws of a position before a draw, None for any other."""
        if s.prize or not s.hand1 or self.value(s) is not None:
            return None
        return self._reveal(s.hand1, s.hand2, s.dummy, s.prizes, s.diff2)

    def actions(self, s: DummyState) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Return the cards each player may bid."""
        return tuple(cards(s.hand1)), tuple(cards(s.hand2))

    def next(self, s: DummyState, a: int, b: int) -> Distribution[DummyState]:
        """Bid ``a`` against ``b``; the dummy draws its bid, then the next prize is revealed."""
        h1, h2 = without(s.hand1, a), without(s.hand2, b)
        bids = list(cards(s.dummy))
        out: list[tuple[float, DummyState]] = []
        for d in bids:
            diff2, rest = s.diff2 + gain2(a, b, d, s.prize), without(s.dummy, d)
            draws = (self._reveal(h1, h2, rest, s.prizes, diff2) if h1
                     else [(1.0, DummyState(h1, h2, rest, s.prizes, 0, diff2))])
            out += [(p / len(bids), state) for p, state in draws]
        return out

    def value(self, s: DummyState) -> float | None:
        """Return player 1's payoff at the end or once decided, None before."""
        sign = float(s.diff2 > 0) - float(s.diff2 < 0)
        if not s.hand1:
            return sign if self.win_loss else s.diff2 / 2
        if self.win_loss and abs(s.diff2) > 2 * points_left(s.prizes, s.prize, popcount(s.hand1)):
            return sign
        return None

    def layer(self, s: DummyState) -> int:
        """Return the number of cards left in each hand."""
        return popcount(s.hand1)

    def canonical(self, s: DummyState) -> Canonical:
        """Relabel hands and dummy by rank in their union; store the smaller twin."""
        union, layer = s.hand1 | s.hand2 | s.dummy, popcount(s.hand1)
        r1, r2, rd = (compress(m, union) for m in (s.hand1, s.hand2, s.dummy))
        key = self.layout.encode(vars_of(r1, r2, rd, s, s.diff2), layer)
        twin = self.layout.encode(vars_of(r2, r1, rd, s, -s.diff2), layer)
        ranks = {card: rank for rank, card in enumerate(cards(union), start=1)}
        offset = 0.0 if self.win_loss else s.diff2 / 2
        return Canonical(min(key, twin), twin < key, (ranks, ranks), offset)

    def expand(self, keys: Keys) -> Expansion:
        """Return the successors of a batch of keys that share one layer (compiled)."""
        keys = np.asarray(keys, dtype=np.int64)
        k = int(keys[0] >> LAYER_SHIFT) if len(keys) else 1
        n, r = self.num_cards, self.bid_rounds
        outcomes = (n - r + k) * max(n - r + k - 1, 1) + (not self.win_loss)
        row, col, succ, weight = _expand(keys, k, n, n.bit_length(), self.win_loss, outcomes)
        sizes = np.full(len(keys), k, np.int64)
        return Expansion(keys, sizes, sizes.copy(), row, col, succ, weight)

    def _reveal(self, h1: Mask, h2: Mask, dummy: Mask, prizes: Mask,
                diff2: int) -> Distribution[DummyState]:
        draws = list(cards(prizes))
        return [(1.0 / len(draws), DummyState(h1, h2, dummy, without(prizes, p), p, diff2))
                for p in draws]

    # -- positions as text -----------------------------------------------------------

    def parse_position(self, text: str) -> DummyState:
        """Read ``"hand1=2,3 hand2=1,3 dummy=1,3 prizes=3 prize=1 diff=0.5"`` (or ``start``)."""
        n = self.num_cards
        if text.strip() == "start":
            hand = top_cards(n, self.bid_rounds)
            return DummyState(hand, hand, full(n), full(n), 0, 0)
        fields = parse_fields(text)
        require_fields(fields, ("hand1", "hand2", "dummy", "prizes"), ("prize", "diff"))
        h1, h2, dummy, prizes = (parse_cards(fields[f], field_name=f, n=n)
                                 for f in ("hand1", "hand2", "dummy", "prizes"))
        prize = parse_int(fields, "prize") if "prize" in fields else 0
        diff2 = parse_half(fields["diff"]) if "diff" in fields else 0
        self._check_reachable(len(h1), len(h2), len(dummy), prizes, prize, diff2)
        return DummyState(mask_of(h1), mask_of(h2), mask_of(dummy), mask_of(prizes), prize,
                          diff2)

    def format_position(self, s: DummyState) -> str:
        """Write a position the way ``parse_position`` reads it."""
        text = " ".join(f"{name}={format_cards(list(cards(mask)))}" for name, mask in (
            ("hand1", s.hand1), ("hand2", s.hand2), ("dummy", s.dummy), ("prizes", s.prizes)))
        text += f" prize={s.prize}" if s.prize else ""
        return text + (f" diff={format_half(s.diff2)}" if self.win_loss or s.diff2 else "")

    def _check_reachable(self, k1: int, k2: int, kd: int, prizes: tuple[int, ...], prize: int,
                         diff2: int) -> None:
        n, r = self.num_cards, self.bid_rounds
        if k1 != k2 or k1 > r:
            raise GameError(f"hands must have the same size, at most {r} cards; got {k1} and {k2}")
        if kd != n - r + k1:
            raise GameError(f"{k1} cards per hand need {n - r + k1} dummy cards; got {kd}")
        if prize and not 1 <= prize <= n or prize in prizes:
            raise GameError(f"prize={prize} must be a card of 1..{n} not among prizes")
        if len(prizes) + bool(prize) != n - r + k1:
            raise GameError(f"{k1} cards per hand need {n - r + k1} prizes left, with the one "
                            f"on the table; got {len(prizes) + bool(prize)}")
        played = n * (n + 1) // 2 - sum(prizes) - prize
        if abs(diff2) > 2 * played:
            raise GameError(f"diff={format_half(diff2)} cannot happen after {played} points "
                            "were played")


def vars_of(h1: Mask, h2: Mask, dummy: Mask, s: DummyState, diff2: int) -> dict[str, int]:
    """The key fields of ``s`` with other hands, dummy and score."""
    return {"hand1": h1, "hand2": h2, "dummy": dummy, "prizes": s.prizes, "prize": s.prize,
            "diff2": diff2}


def _layout(n: int, win_loss: bool) -> KeyLayout:
    """Declare the key (see ``DummyState``)."""
    total, prize_bits = n * (n + 1) // 2, n.bit_length()
    top = 4 * n + prize_bits + ((2 * total).bit_length() if win_loss else 0)
    if top > LAYER_SHIFT:
        raise GameError(f"dummy=true keys with num_cards={n} need {top} bits; {LAYER_SHIFT} "
                        f"fit (num_cards <= {9 if win_loss else 10})")
    cards_ = [Field(name, i * n, n, cards=True)
              for i, name in enumerate(("hand1", "hand2", "dummy", "prizes"))]
    diff = (Field("diff2", 4 * n + prize_bits, LAYER_SHIFT - 4 * n - prize_bits, bias=total)
            if win_loss else Constant("diff2"))
    text = [(name, name) for name in ("hand1", "hand2", "dummy", "prizes", "prize")]
    return KeyLayout(
        "goofspiel-dummy-v1", (*cards_, Field("prize", 4 * n, prize_bits), diff),
        columns=("hand1", "hand2", "dummy", "prizes", "prize", "diff", "hand1_mask",
                 "hand2_mask", "dummy_mask"),
        text=(*text, *((("diff", "diff"),) if win_loss else ())), derived=(("diff", _DIFF_SQL),))


@njit(cache=True)
def _compress(mask: int, union: int) -> int:
    """Relabel ``mask`` by rank within ``union`` (``gamedb.bits.compress``)."""
    out, rank = 0, 0
    while union:
        low = union & -union
        if mask & low:
            out |= 1 << rank
        rank += 1
        union ^= low
    return out


@njit(cache=True)
def _key(h1: int, h2: int, dm: int, prizes: int, prize: int, diff2: int, k: int, n: int,
         bits: int, win_loss: bool) -> tuple[int, float]:
    """Return the canonical key of a position and the sign of its stored value."""
    union = h1 | h2 | dm
    r1, r2, rd = _compress(h1, union), _compress(h2, union), _compress(dm, union)
    base = (k << LAYER_SHIFT) | (rd << 2 * n) | (prizes << 3 * n) | (prize << 4 * n)
    total = n * (n + 1) // 2
    a, b = base | r1 | (r2 << n), base | r2 | (r1 << n)
    if win_loss:
        a |= (diff2 + total) << (4 * n + bits)
        b |= (total - diff2) << (4 * n + bits)
    return (b, -1.0) if b < a else (a, 1.0)


@njit(cache=True)
def _sign(x: int) -> float:
    return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)


@njit(cache=True)
def _best(prizes: npt.NDArray[np.int64], count: int, skip: int, more: int) -> int:
    """Sum of the ``more`` highest of ``prizes[:count]`` leaving out index ``skip``."""
    total, taken = 0, 0
    for j in range(count - 1, -1, -1):
        if j != skip and taken < more:
            total += prizes[j]
            taken += 1
    return total


@njit(cache=True)
def _expand(keys: npt.NDArray[np.int64], k: int, n: int, bits: int, win_loss: bool,
            outcomes: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64],
                                    npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The layer face: every bid pair, dummy bid and next prize of each key."""
    B, full_mask, total = keys.shape[0], (1 << n) - 1, n * (n + 1) // 2
    row, col = np.empty((B, k), np.int64), np.empty((B, k), np.int64)
    succ = np.full((B, k, k, outcomes), -1, np.int64)
    weight = np.zeros((B, k, k, outcomes), np.float64)
    dcards, pcards = np.empty(n, np.int64), np.empty(n, np.int64)
    for i in range(B):
        key = keys[i]
        h1, h2, dm = key & full_mask, (key >> n) & full_mask, (key >> 2 * n) & full_mask
        prizes, prize = (key >> 3 * n) & full_mask, (key >> 4 * n) & ((1 << bits) - 1)
        diff2 = ((key >> (4 * n + bits)) & ((1 << (LAYER_SHIFT - 4 * n - bits)) - 1)) - total \
            if win_loss else 0
        cards_of(h1, row[i])
        cards_of(h2, col[i])
        kd, kp = cards_of(dm, dcards), cards_of(prizes, pcards)
        for a in range(k):
            for b in range(k):
                _pair(row[i, a], col[i, b], h1, h2, dm, prizes, prize, diff2, k, n, bits,
                      win_loss, dcards[:kd], pcards[:kp], succ[i, a, b], weight[i, a, b])
    return row, col, succ, weight


@njit(cache=True)
def _pair(x: int, y: int, h1: int, h2: int, dm: int, prizes: int, prize: int, diff2: int,
          k: int, n: int, bits: int, win_loss: bool, dcards: npt.NDArray[np.int64],
          pcards: npt.NDArray[np.int64], succ: npt.NDArray[np.int64],
          weight: npt.NDArray[np.float64]) -> None:
    """Fill the outcomes of bids ``x`` against ``y``: one per dummy bid and next prize,
    and the half points banked this round last (point difference)."""
    kd, kp, slot = len(dcards), len(pcards), 0
    for j in range(kd):
        d = dcards[j]
        g = 0 if x == y or d > max(x, y) else (
            (2 * prize if max(x, y) > d else prize) * (1 if x > y else -1))
        nd, rest = diff2 + g, dm & ~(1 << (d - 1))
        if not win_loss:
            weight[-1] += g / 2 / kd
        if k == 1:
            if win_loss:
                weight[slot] = _sign(nd) / kd
            slot += 1
            continue
        h1n, h2n = h1 & ~(1 << (x - 1)), h2 & ~(1 << (y - 1))
        for q in range(kp):
            p, prob = pcards[q], 1.0 / (kd * kp)
            if win_loss and abs(nd) > 2 * (p + _best(pcards, kp, q, k - 2)):
                weight[slot] = _sign(nd) * prob
            else:
                sk, sign = _key(h1n, h2n, rest, prizes & ~(1 << (p - 1)), p, nd, k - 1, n,
                                bits, win_loss)
                succ[slot], weight[slot] = sk, sign * prob
            slot += 1


__all__ = ["DummyState", "GoofspielDummy", "format_half", "gain2", "parse_half"]
