"""Nim: take objects from one heap; whoever takes the last object wins.

Players alternate; the mover takes 1 or more objects from one heap, the other player
passes (the single action 0, so the builder solves it like any simultaneous game: each
stage is a 1 x n matrix). The player who takes the last object wins (+1). A position is
lost for the mover exactly when the xor of the heaps is 0 (Bouton 1901).

References: C. L. Bouton, "Nim, a game with a complete mathematical theory", Annals of
Mathematics 3, 1901.

Parameters::

    heaps  str  heap sizes separated by '-', 1..8 heaps of 1..15   (default: 1-3-5-7)

Moves are labelled ``100 * heap + take``: heap 1.. counted in the position's sorted
order (as ``format_position`` writes it), ``take`` objects taken; 0 is the pass of the
player not on move. Of equal heaps only the first is offered (they lead to the same
position). Example: in ``heaps=1,3,5,7`` move 402 takes 2 from the heap of 7.

Canonical keys: the heaps are kept sorted, and a position with player 2 to move is
stored as the same heaps with player 1 to move, value negated (player swap).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gamedb.games.base import (
    LAYER_SHIFT, TERMINAL, Canonical, Capabilities, Distribution, Expansion, Game, GameError,
    Keys, Param, parse_integer, reference_expand, shown,
)
from gamedb.games.layout import Field, KeyLayout, sql_list
from gamedb.games.text import parse_fields, require_fields

_HEAP_BITS = 4
_MAX_HEAPS = 8
_MOVER_BIT = _HEAP_BITS * _MAX_HEAPS
_PASS = 0
_TAKES = np.arange(1, 1 << _HEAP_BITS, dtype=np.int64)
#: States expanded at once inside ``expand`` (its work arrays: ~8 KB a state).
_SLICE = 4096


@dataclass(frozen=True, slots=True)
class NimState:
    """A Nim position.

    Key bit layout (least significant bit on the right)::

        | objects left | 0... | mover - 1 | heap 8 (4 bits) | ... | heap 2 | heap 1 |
        ^ bit 48              ^ bit 32    ^ bit 28                 ^ bit 4  ^ bit 0

    Heaps are sorted in increasing order (unused trailing fields are 0).
    """

    heaps: tuple[int, ...]
    """Heap sizes, sorted increasing."""
    mover: int
    """The player on move, 1 or 2."""


class Nim(Game[NimState]):
    """Normal-play Nim with the given starting heaps (see the module docstring)."""

    name: ClassVar[str] = "nim"
    params: ClassVar[tuple[Param, ...]] = (
        Param("heaps", str, "1-3-5-7", "starting heap sizes separated by '-'"),
    )
    layer_span: ClassVar[int | None] = None  # a move can empty a whole heap
    state_type: ClassVar[type] = NimState
    rules: ClassVar[str] = """\
Nim (Bouton 1901): take objects from heaps; whoever takes the last object wins.

Rules
  The heaps start with the sizes the spec gives (heaps=1-3-5-7: heaps of 1, 3, 5 and 7
  objects). Players alternate, player 1 first: the mover takes 1 or more objects from
  one heap. The player who takes the last object wins: +1 if that is player 1, -1
  otherwise. A position is lost for the mover exactly when the xor of the heaps is 0.

Positions: space-separated name=value fields, or the word start
  heaps  the heap sizes now, comma-separated in any order, one per starting heap
         (0 for an empty heap)
  mover  the player on move, 1 or 2 (default 1)
  A move is written 100 x heap + take: heap numbers the heaps 1, 2, ... in increasing
  size (as show writes the position), take is how many objects it takes; of equal
  heaps only the first is offered. In heaps=1,3,5,7 move 402 takes 2 from the heap
  of 7 and 101 takes the single object of the first heap; show, play and the explorer
  name them "take 2 from heap 4" and "take 1 from heap 1". The player not on move has
  the single move pass (code 0): each stage is a game in which only one player
  chooses. Values are player 1's expected payoff.

Example: player 2 to move after player 1 took one object from the heap of 3
  gamedb build "nim(heaps=1-3-5-7)" --db nim.sqlite
  gamedb show nim.sqlite "heaps=1,2,5,7 mover=2"
"""

    def __init__(self, heaps: str = "1-3-5-7"):
        self.heaps = _parse_heaps(heaps)
        super().__init__(heaps="-".join(map(str, self.heaps)))
        self.layout = _layout(len(self.heaps))
        self.capabilities = Capabilities("move", impartial=True,
                                         positions_below=_positions_below)

    # -- reference face ------------------------------------------------------------

    def initial(self) -> Distribution[NimState]:
        """Return the start: every heap full, player 1 to move."""
        return [(1.0, NimState(self.heaps, 1))]

    def actions(self, s: NimState) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Return (player 1's, player 2's) moves; the player not on move passes."""
        if not any(s.heaps):
            return (), ()
        firsts = [i for i, h in enumerate(s.heaps) if h and (i == 0 or s.heaps[i - 1] != h)]
        moves = tuple(100 * (i + 1) + take for i in firsts for take in range(1, s.heaps[i] + 1))
        return (moves, (_PASS,)) if s.mover == 1 else ((_PASS,), moves)

    def action_name(self, s: NimState, player: int, action: int) -> str:
        """Name an action for people: ``take 2 from heap 3`` for the move code 302 (heaps
        counted from 1 as the position lists them), ``pass`` for the player not on move."""
        if player != s.mover:
            return "pass"
        return f"take {action % 100} from heap {action // 100}"

    def next(self, s: NimState, a: int, b: int) -> Distribution[NimState]:
        """Play the mover's move (``a`` for player 1, ``b`` for player 2)."""
        move = a if s.mover == 1 else b
        index, take = move // 100 - 1, move % 100
        heaps = list(s.heaps)
        heaps[index] -= take
        return [(1.0, NimState(tuple(sorted(heaps)), 3 - s.mover))]

    def value(self, s: NimState) -> float | None:
        """Return player 1's payoff once the heaps are empty (the mover has lost)."""
        if any(s.heaps):
            return None
        return -1.0 if s.mover == 1 else 1.0

    def layer(self, s: NimState) -> int:
        """Return the objects left."""
        return sum(s.heaps)

    def key(self, s: NimState) -> int:
        """Encode a state without any reduction."""
        fields = {f"heap{i}": h for i, h in enumerate(s.heaps, start=1)}
        return self.layout.encode({**fields, "mover": s.mover}, self.layer(s))

    def decode(self, key: int) -> NimState:
        """Decode a key."""
        fields = self.layout.decode(key)
        mover = fields.pop("mover")
        return NimState(tuple(fields.values()), mover)

    def canonical(self, s: NimState) -> Canonical:
        """Return the stored key: the same heaps with player 1 to move."""
        acts1, acts2 = self.actions(s)
        labels = ({a: a for a in acts1}, {b: b for b in acts2})
        swapped = s.mover == 2
        stored = NimState(s.heaps, 1) if swapped else s
        return Canonical(self.key(stored), swapped, labels)

    # -- layer face -------------------------------------------------------------------

    def expand(self, keys: Keys) -> Expansion:
        """Return the successors of canonical keys (vectorized; the per-state face took
        3 ms a position with 8 heaps of 15, so counting a big Nim took minutes).

        Player 1 moves (the canonical mover), player 2 passes; each successor is stored
        with the players swapped (weight -1), or is the end (+1: player 1 took the last
        object). Moves come in the reference face's order: heap by heap, take 1 up.
        """
        keys = np.asarray(keys, dtype=np.int64)
        if (keys >> _MOVER_BIT & 1).any():  # player 2 to move: not a canonical key
            return reference_expand(self, keys)
        shifts = _HEAP_BITS * np.arange(len(self.heaps), dtype=np.int64)
        heaps = keys[:, None] >> shifts & ((1 << _HEAP_BITS) - 1)  # (B, k), increasing
        valid = _offered(heaps)
        counts = valid.sum(axis=1)
        R, B = max(int(counts.max(initial=0)), 1), len(keys)
        rows = np.full((B, R), -1, np.int64)
        succ = np.full((B, R, 1, 1), TERMINAL, np.int64)
        weight = np.zeros((B, R, 1, 1), np.float64)
        for lo in range(0, B, _SLICE):
            part = slice(lo, lo + _SLICE)
            rows[part], succ[part, :, 0, 0], weight[part, :, 0, 0] = _moves(
                heaps[part], valid[part], R, shifts)
        cols = np.where(counts[:, None] > 0, _PASS, -1).astype(np.int64)
        return Expansion(keys, counts.astype(np.int64), (counts > 0).astype(np.int64),
                         rows, cols, succ, weight)

    # -- positions as text -----------------------------------------------------------

    def parse_position(self, text: str) -> NimState:
        """Read ``"heaps=1,3,5,7 mover=1"`` (heaps in any order, or ``start``)."""
        if text.strip() == "start":
            return self.initial()[0][1]
        fields = parse_fields(text)
        require_fields(fields, ("heaps",), ("mover",))
        rule = "heaps must be comma-separated integers"
        heaps = tuple(sorted(parse_integer(h, rule, fields["heaps"])
                             for h in fields["heaps"].split(",")))
        if len(heaps) != len(self.heaps):
            raise GameError(f"heaps must list {len(self.heaps)} heaps (0 for an empty one)")
        if any(h < 0 or h > top for h, top in zip(heaps, self.heaps)):
            raise GameError(f"heaps={shown(fields['heaps'])} cannot be reached from heaps "
                            f"{','.join(map(str, self.heaps))}")
        mover = fields.get("mover", "1")
        if mover not in ("1", "2"):
            raise GameError(f"mover must be 1 or 2, got {mover!r}")
        return NimState(heaps, int(mover))

    def format_position(self, s: NimState) -> str:
        """Write a position the way ``parse_position`` reads it."""
        return f"heaps={','.join(map(str, s.heaps))} mover={s.mover}"


def _layout(count: int) -> KeyLayout:
    """Declare the key of ``NimState`` with ``count`` heaps (drawn in its docstring)."""
    heaps = tuple(Field(f"heap{i + 1}", _HEAP_BITS * i, _HEAP_BITS) for i in range(count))
    names = [h.name for h in heaps]
    return KeyLayout("nim-v1", (*heaps, Field("mover", _MOVER_BIT, 1, bias=-1)),
                     columns=(*names, "mover"), derived=(("heaps", sql_list(names)),),
                     text=(("heaps", "heaps"), ("mover", "mover")))


def _offered(heaps: Keys) -> np.ndarray:
    """Which moves (heap i, take t) each state offers, flattened to (B, k x 15): take t
    <= the heap, and of equal heaps only the first."""
    first = np.ones(heaps.shape, dtype=bool)
    first[:, 1:] = heaps[:, 1:] != heaps[:, :-1]
    return (first[:, :, None] & (_TAKES <= heaps[:, :, None])).reshape(len(heaps), -1)


def _moves(heaps: Keys, valid: np.ndarray, R: int,
           shifts: Keys) -> tuple[Keys, Keys, np.ndarray]:
    """Labels, successor keys and weights of ``heaps``' offered moves, packed left into
    ``R`` columns in order (padding: label -1, ``TERMINAL`` with weight 0)."""
    B, k = heaps.shape
    state, move = np.nonzero(valid)
    heap, take = move // len(_TAKES), move % len(_TAKES) + 1
    after = heaps[state]
    after[np.arange(len(state)), heap] -= take
    after.sort(axis=1)
    left = heaps.sum(axis=1)[state] - take
    column = (np.cumsum(valid, axis=1) - 1)[state, move]
    labels, succ = np.full((B, R), -1, np.int64), np.full((B, R), TERMINAL, np.int64)
    weight = np.zeros((B, R), np.float64)
    labels[state, column] = 100 * (heap + 1) + take
    succ[state, column] = np.where(left == 0, TERMINAL,
                                   (after << shifts).sum(axis=1) | left << LAYER_SHIFT)
    weight[state, column] = np.where(left == 0, 1.0, -1.0)
    return labels, succ, weight


def _positions_below(s: NimState) -> int:
    """Count the positions below ``s`` (itself included, the empty heaps not): every
    sorted heaps ``b`` with ``b[i] <= s.heaps[i]`` is one (take from any heap in any
    order; the mover is folded into the key), so count the non-decreasing sequences
    under the sorted heaps, one heap at a time (``ways[v]``: those ending in ``v``).

    >>> _positions_below(NimState((1, 2), 1))  # (0,1) (0,2) (1,1) (1,2)
    4
    """
    ways = [1] * (s.heaps[0] + 1)
    for top in s.heaps[1:]:
        ways = [sum(ways[:v + 1]) for v in range(top + 1)]
    return sum(ways) - 1


def _parse_heaps(text: str) -> tuple[int, ...]:
    rule = "parameter heaps must be sizes separated by '-'"
    heaps = tuple(sorted(parse_integer(h, rule, text) for h in text.split("-")))
    if not 1 <= len(heaps) <= _MAX_HEAPS:
        raise GameError(f"parameter heaps must give 1..{_MAX_HEAPS} heaps, got {len(heaps)}")
    if any(not 1 <= h < 1 << _HEAP_BITS for h in heaps):
        raise GameError(f"parameter heaps={shown(text)} holds a size outside 1..{(1 << _HEAP_BITS) - 1}")
    return heaps
