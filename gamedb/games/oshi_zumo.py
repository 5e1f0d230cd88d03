"""Oshi-Zumo: the coin-bidding wrestling game of Buro (2003).

Both players start with ``coins`` coins; a wrestler stands at 0 on a field -size..size.
Each move both bid at once between ``min_bid`` and their coins (a player with fewer than
``min_bid`` coins bids everything left, possibly 0); the higher bid pushes the wrestler
one step toward the opponent (player 1 pushes toward +), equal bids leave it, and both
bids are paid. The game ends when the wrestler leaves the field (+-(size + 1)), when
both players have no coins, or when both bid 0. Player 1 gets the sign of the final
position (``alesia=true``, OpenSpiel's variant: +-1 only for pushing the wrestler off
the field, 0 otherwise).

References: M. Buro, "Solving the Oshi-Zumo game", Advances in Computer Games 10, 2003;
OpenSpiel ``games/oshi_zumo.h`` (same parameter names; its ``horizon`` is left out
because the game is finite: every move but the final 0-0 spends a coin).

Parameters::

    coins    int   coins of each player at the start, 1..1000   (default: 50)
    size     int   the field is -size..size, 1..100             (default: 3)
    min_bid  int   smallest bid of a player who can afford it   (default: 1)
    alesia   str   false | true: only a push off the field wins (default: false)

Canonical keys: swapping the players maps (coins1, coins2, pos) to (coins2, coins1,
-pos) with the value negated; of the two the one with the smaller key is stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from gamedb.jit import njit
import numpy as np

from gamedb.games.base import (
    LAYER_SHIFT, BuildCosts, Canonical, Capabilities, Distribution, Expansion, Floats, Game,
    GameError, Keys, Param,
)
from gamedb.games.layout import Field, KeyLayout
from gamedb.games.text import parse_fields, parse_int, require_fields

#: The key of ``OshiZumoState``, declared once; the kernels read the constants below it.
_LAYOUT = KeyLayout(
    "oshi_zumo-v1",
    (Field("coins1", 0, 10), Field("pos", 10, 8, bias=128), Field("coins2", 18, 10),
     Field("ended", 28, 1)),
    columns=("coins1", "coins2", "pos"),
    text=(("coins1", "coins1"), ("coins2", "coins2"), ("pos", "pos")))
_COIN_BITS = _LAYOUT.bit_field("coins1").width
_POS_BITS = _LAYOUT.bit_field("pos").width
_POS_OFFSET = _LAYOUT.bit_field("pos").bias
_POS_SHIFT = _LAYOUT.bit_field("pos").offset
_COINS2_SHIFT = _LAYOUT.bit_field("coins2").offset


@dataclass(frozen=True, slots=True)
class OshiZumoState:
    """An Oshi-Zumo position.

    Key bit layout (least significant bit on the right)::

        | coins1 + coins2 | 0... | ended | coins2 (10 bits) | pos + 128 (8) | coins1 (10) |
        ^ bit 48                 ^ bit 28 ^ bit 18           ^ bit 10        ^ bit 0

    ``ended`` is set only on the terminal position after a joint bid of 0-0 (stored
    keys never carry it). With coins2 above pos, the smaller key of a position and its
    player-swapped twin has coins2 <= coins1: a canonical layer's stage games have at
    most half as many columns as rows, which halves their padding.
    """

    coins1: int
    """Player 1's coins left."""
    coins2: int
    """Player 2's coins left."""
    pos: int
    """The wrestler's position; player 1 pushes toward +."""
    ended: bool = False
    """True once both players bid 0 (the game is over where the wrestler stands)."""


class OshiZumo(Game[OshiZumoState]):
    """Oshi-Zumo with Buro's rules (see the module docstring)."""

    name: ClassVar[str] = "oshi_zumo"
    params: ClassVar[tuple[Param, ...]] = (
        Param("coins", int, 50, "coins of each player at the start", low=1, high=1000),
        Param("size", int, 3, "the field is -size..size", low=1, high=100),
        Param("min_bid", int, 1, "smallest bid of a player who can afford it", low=0, high=1000),
        Param("alesia", str, "false", "only pushing the wrestler off the field wins",
              choices=("false", "true")),
    )
    layer_span: ClassVar[int | None] = None  # a move can spend any number of coins
    state_type: ClassVar[type] = OshiZumoState
    layout = _LAYOUT
    rules: ClassVar[str] = """\
Oshi-Zumo (Buro 2003): both players bid coins at once to push a wrestler.

Rules
  Both players start with `coins` coins; a wrestler stands at position 0 of a field
  -size..size. Each move both bid at once between min_bid and their coins (a player
  with fewer than min_bid coins bids all they have left, possibly 0). The higher bid
  pushes the wrestler one step toward the opponent: player 1 pushes toward +, player 2
  toward -; equal bids leave it. Both bids are paid. The game ends when the wrestler
  leaves the field (at -(size+1) or size+1), when both players have no coins left, or
  when both bid 0. Player 1 scores the sign of the final position (+1, 0 or -1); with
  alesia=true only a push off the field wins, anything else is a draw.

Positions: space-separated name=value fields, or the word start
  coins1  player 1's coins left
  coins2  player 2's coins left
  pos     the wrestler's position, -(size+1)..size+1: player 1 pushes toward +, so a
          positive pos is good for player 1; +-(size+1) is off the field (game over)
  A move is a bid, a number of coins. Values are player 1's expected payoff.

Example: 50 coins each at the start, now 17 against 34 with the wrestler at 3
  gamedb build "oshi_zumo(coins=50)" --db oz.sqlite
  gamedb show oz.sqlite "coins1=17 coins2=34 pos=3"
"""

    def __init__(self, coins: int = 50, size: int = 3, min_bid: int = 1, alesia: str = "false",
                 ):
        super().__init__(alesia=alesia, coins=coins, min_bid=min_bid, size=size)
        self.coins, self.size, self.min_bid = coins, size, min_bid
        self.alesia = alesia == "true"
        self.capabilities = Capabilities("bid", axes={
            "coins1": (0, coins), "coins2": (0, coins), "pos": (-size - 1, size + 1)},
            # per position, measured at 100 coins and scaled by the coins: bigger
            # matrices and strategies (docs/estimate.md)
            build_costs=BuildCosts(64 * coins, 98 * coins, 4.5 * coins, 270_000 / coins))

    # -- reference face ------------------------------------------------------------

    def initial(self) -> Distribution[OshiZumoState]:
        """Return the start: both hold every coin, the wrestler in the middle."""
        return [(1.0, OshiZumoState(self.coins, self.coins, 0))]

    def actions(self, s: OshiZumoState) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Return the bids each player may make (none once the game is over)."""
        if self.value(s) is not None:
            return (), ()
        return self._bids(s.coins1), self._bids(s.coins2)

    def _bids(self, coins: int) -> tuple[int, ...]:
        return tuple(range(self.min_bid, coins + 1)) if coins >= self.min_bid else (coins,)

    def next(self, s: OshiZumoState, a: int, b: int) -> Distribution[OshiZumoState]:
        """Bid ``a`` against ``b``: the higher bid pushes, both bids are paid."""
        step = (a > b) - (a < b)
        return [(1.0, OshiZumoState(s.coins1 - a, s.coins2 - b, s.pos + step, a == b == 0))]

    def value(self, s: OshiZumoState) -> float | None:
        """Return player 1's payoff at the end, None before it."""
        if abs(s.pos) > self.size:
            return float(np.sign(s.pos))
        if s.ended or s.coins1 == s.coins2 == 0:
            return 0.0 if self.alesia else float(np.sign(s.pos))
        return None

    def layer(self, s: OshiZumoState) -> int:
        """Return the coins left in both purses."""
        return s.coins1 + s.coins2

    def decode(self, key: int) -> OshiZumoState:
        """Decode a key (a canonical key decodes to the stored, maybe swapped, position)."""
        state: OshiZumoState = self.layout.decoder(_state)(key)
        return state

    def canonical(self, s: OshiZumoState) -> Canonical:
        """Return the stored key of ``s``; bids are their own labels."""
        bids = ({b: b for b in self._bids(s.coins1)}, {b: b for b in self._bids(s.coins2)})
        key, swapped = _canonical(s.coins1, s.coins2, s.pos)
        return Canonical(int(key), bool(swapped), bids)

    # -- positions as text -----------------------------------------------------------

    def parse_position(self, text: str) -> OshiZumoState:
        """Read ``"coins1=17 coins2=34 pos=3"`` (or ``start``)."""
        if text.strip() == "start":
            return self.initial()[0][1]
        fields = parse_fields(text)
        require_fields(fields, ("coins1", "coins2", "pos"))
        coins1, coins2, pos = (parse_int(fields, f) for f in ("coins1", "coins2", "pos"))
        for name, value in (("coins1", coins1), ("coins2", coins2)):
            if not 0 <= value <= self.coins:
                raise GameError(f"{name}={value} is outside 0..{self.coins}")
        if abs(pos) > self.size + 1:
            raise GameError(f"pos={pos} is outside -{self.size + 1}..{self.size + 1}")
        return OshiZumoState(coins1, coins2, pos)

    def format_position(self, s: OshiZumoState) -> str:
        """Write a position the way ``parse_position`` reads it."""
        return f"coins1={s.coins1} coins2={s.coins2} pos={s.pos}" + (" ended" * s.ended)

    # -- layer face ------------------------------------------------------------------

    def expand(self, keys: Keys) -> Expansion:
        """Return the successors of a batch of keys that share one layer.

        Every state is padded to the most bids any state of the layer can have (not
        just this batch), so ``expand(keys[:1])`` bounds the size of every batch
        (``solver.backward.batches`` sizes batches from the first key's expansion).
        """
        keys = np.asarray(keys, dtype=np.int64)
        layer = int(self.layer_of(keys[:1])[0]) if len(keys) else 0
        richer = min(layer, self.coins)  # canonical keys have coins2 <= coins1
        poorer = min(layer // 2, self.coins)
        rows = max(1, richer - self.min_bid + 1)
        cols = max(1, poorer - self.min_bid + 1)
        n_rows, n_cols, row, col, succ, weight = _expand(
            keys, rows, cols, self.size, self.min_bid, self.alesia)
        return Expansion(keys, n_rows, n_cols, row, col, succ, weight)


def _state(coins1: int, coins2: int, pos: int, ended: int) -> OshiZumoState:
    return OshiZumoState(coins1, coins2, pos, bool(ended))


@njit(cache=True)
def _encode(c1: int, c2: int, pos: int) -> int:
    return (c1 | (pos + _POS_OFFSET) << _POS_SHIFT | c2 << _COINS2_SHIFT
            | (c1 + c2) << LAYER_SHIFT)


@njit(cache=True)
def _canonical(c1: int, c2: int, pos: int) -> tuple[int, bool]:
    a, b = _encode(c1, c2, pos), _encode(c2, c1, -pos)
    return (b, True) if b < a else (a, False)


@njit(cache=True)
def _expand(keys: Keys, rows: int, cols: int, size: int, min_bid: int, alesia: bool,
            ) -> tuple[Keys, Keys, Keys, Keys, Keys, Floats]:
    B = keys.shape[0]
    n_rows = np.empty(B, np.int64)
    n_cols = np.empty(B, np.int64)
    row = np.full((B, rows), -1, np.int64)
    col = np.full((B, cols), -1, np.int64)
    succ = np.full((B, rows, cols, 1), -1, np.int64)
    weight = np.zeros((B, rows, cols, 1), np.float64)
    mask = (1 << _COIN_BITS) - 1
    for i in range(B):
        c1, c2 = keys[i] & mask, keys[i] >> _COINS2_SHIFT & mask
        pos = (keys[i] >> _POS_SHIFT & ((1 << _POS_BITS) - 1)) - _POS_OFFSET
        low1, low2 = min(min_bid, c1), min(min_bid, c2)
        n_rows[i], n_cols[i] = c1 - low1 + 1, c2 - low2 + 1
        for a in range(n_rows[i]):
            row[i, a] = low1 + a
        for b in range(n_cols[i]):
            col[i, b] = low2 + b
        for a in range(n_rows[i]):
            x = low1 + a
            for b in range(n_cols[i]):
                y = low2 + b
                p = pos + (x > y) - (x < y)
                if p > size or p < -size:
                    weight[i, a, b, 0] = 1.0 if p > 0 else -1.0
                elif (x == c1 and y == c2) or (x == 0 and y == 0):
                    weight[i, a, b, 0] = 0.0 if alesia else (p > 0) - (p < 0)
                else:
                    s, swapped = _canonical(c1 - x, c2 - y, p)
                    succ[i, a, b, 0] = s
                    weight[i, a, b, 0] = -1.0 if swapped else 1.0
    return n_rows, n_cols, row, col, succ, weight
