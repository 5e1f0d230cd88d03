"""Tictoe: tic-tac-toe on a 2x2 board.

X (player 1) moves first; players alternate placing a mark on an empty cell, the player
not on move passes (the single action 0). Two marks in a row horizontally or vertically
(not diagonally) win (+1 for X, -1 for O); a full board without such a line is a draw.
X always wins: after X's first mark O can block only one of its two neighbours.

References: the turn-based test case of DESIGN.md section 3 (a smallest game with
moves that are not bids or cards).

Parameters: none (spec ``tictoe()``).

Cells are numbered 0..3 row by row (``0 1 / 2 3``); a move's label is its cell, and
its name for people the cell's place (``top left`` .. ``bottom right``).

Canonical keys: the 8 symmetries of the square map lines to lines, and swapping the
players (X <-> O, mover swapped) negates the value; of the 16 images of a position the
one with the smallest key is stored, and real cells map to stored cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from gamedb.bits import Mask, cards, popcount
from gamedb.games.base import (
    Canonical, Capabilities, Distribution, Game, GameError, Param, shown,
)
from gamedb.games.layout import Field, KeyLayout
from gamedb.games.text import parse_fields, require_fields

_CELLS = 4
_LINES = (0b0011, 0b1100, 0b0101, 0b1010)  # rows 0 1 and 2 3, columns 0 2 and 1 3
# The dihedral group of the square as cell permutations: cell c goes to _SYMMETRIES[k][c].
_SYMMETRIES = ((0, 1, 2, 3), (1, 3, 0, 2), (3, 2, 1, 0), (2, 0, 3, 1),
               (0, 2, 1, 3), (3, 1, 2, 0), (1, 0, 3, 2), (2, 3, 0, 1))
_PASS = 0
_CELL_NAMES = ("top left", "top right", "bottom left", "bottom right")
_BOARD_SQL = " || ".join(f"CASE WHEN x >> {c} & 1 THEN 'X' WHEN o >> {c} & 1 "
                         f"THEN 'O' ELSE '.' END" for c in range(_CELLS))
#: The key of ``TictoeState``, declared once.
_LAYOUT = KeyLayout(
    "tictoe-v1",
    (Field("x", 0, _CELLS), Field("o", _CELLS, _CELLS),
     Field("mover", 2 * _CELLS, 1, bias=-1)),
    columns=("board", "mover"), derived=(("board", _BOARD_SQL),),
    text=(("board", "board"), ("mover", "mover")))


@dataclass(frozen=True, slots=True)
class TictoeState:
    """A 2x2 tic-tac-toe position.

    Key bit layout (least significant bit on the right)::

        | empty cells | 0... | mover - 1 | O (4 bits) | X (4 bits) |
        ^ bit 48             ^ bit 8     ^ bit 4      ^ bit 0

    Cell ``c`` (0..3, row by row) is bit ``c`` of a mark field.
    """

    x: Mask
    """Cells holding an X (player 1)."""
    o: Mask
    """Cells holding an O (player 2)."""
    mover: int
    """The player on move, 1 or 2."""


class Tictoe(Game[TictoeState]):
    """Tic-tac-toe on a 2x2 board (see the module docstring)."""

    name: ClassVar[str] = "tictoe"
    params: ClassVar[tuple[Param, ...]] = ()
    layer_span: ClassVar[int | None] = 1  # every move fills one cell
    state_type: ClassVar[type] = TictoeState
    layout = _LAYOUT
    capabilities = Capabilities("cell")
    rules: ClassVar[str] = """\
Tic-Toe: tic-tac-toe on a 2x2 board.

Rules
  X (player 1) moves first; the players alternate placing their mark on an empty cell.
  Two marks in a row horizontally or vertically (not diagonally) win: +1 for X, -1 for
  O; a full board without such a line is a draw (0). X always wins: after X's first
  mark O can block only one of its two neighbours.

Positions: space-separated name=value fields, or the word start
  board  the 4 cells row by row (top left, top right, bottom left, bottom right),
         each X, O or . for empty: board=X.O. has X top left and O bottom left
  mover  the player on move, 1 (X) or 2 (O); optional, the board tells
  A move is the cell to mark, numbered row by row:  0 1
                                                    2 3
  show, play and the explorer name it by its place: top left, top right, bottom left,
  bottom right (play takes the name or the number). The player not on move has the
  single move pass (code 0). Values are X's payoff.

Example: O to move after X took the top left cell
  gamedb build tictoe --db tictoe.sqlite
  gamedb show tictoe.sqlite "board=X... mover=2"
"""

    def __init__(self) -> None:
        super().__init__()

    # -- reference face ------------------------------------------------------------

    def initial(self) -> Distribution[TictoeState]:
        """Return the empty board, X to move."""
        return [(1.0, TictoeState(0, 0, 1))]

    def actions(self, s: TictoeState) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Return (player 1's, player 2's) moves; the player not on move passes."""
        if self.value(s) is not None:
            return (), ()
        empty = tuple(c - 1 for c in cards(~(s.x | s.o) & (1 << _CELLS) - 1))
        return (empty, (_PASS,)) if s.mover == 1 else ((_PASS,), empty)

    def action_name(self, s: TictoeState, player: int, action: int) -> str:
        """Name an action for people: the cell's place (``top left`` for cell 0),
        ``pass`` for the player not on move."""
        return _CELL_NAMES[action] if player == s.mover else "pass"

    def next(self, s: TictoeState, a: int, b: int) -> Distribution[TictoeState]:
        """Mark the mover's cell (``a`` for X, ``b`` for O)."""
        if s.mover == 1:
            return [(1.0, TictoeState(s.x | 1 << a, s.o, 2))]
        return [(1.0, TictoeState(s.x, s.o | 1 << b, 1))]

    def value(self, s: TictoeState) -> float | None:
        """Return +1 for an X line, -1 for an O line, 0 for a full board, else None."""
        if any(s.x & line == line for line in _LINES):
            return 1.0
        if any(s.o & line == line for line in _LINES):
            return -1.0
        return 0.0 if s.x | s.o == (1 << _CELLS) - 1 else None

    def layer(self, s: TictoeState) -> int:
        """Return the number of empty cells."""
        return _CELLS - popcount(s.x | s.o)

    def canonical(self, s: TictoeState) -> Canonical:
        """Return the smallest key over symmetries and player swap, with the cell map."""
        acts1, acts2 = self.actions(s)
        best: tuple[int, bool, tuple[int, ...]] | None = None
        for perm in _SYMMETRIES:
            x, o = _permute(s.x, perm), _permute(s.o, perm)
            for swapped, image in ((False, TictoeState(x, o, s.mover)),
                                   (True, TictoeState(o, x, 3 - s.mover))):
                if best is None or self.key(image) < best[0]:
                    best = (self.key(image), swapped, perm)
        assert best is not None
        key, swapped, best_perm = best
        maps = tuple({a: (best_perm[a] if s.mover == p else _PASS) for a in acts}
                     for p, acts in ((1, acts1), (2, acts2)))
        return Canonical(key, swapped, (maps[0], maps[1]))

    # -- positions as text -----------------------------------------------------------

    def parse_position(self, text: str) -> TictoeState:
        """Read ``"board=X.O. mover=1"`` (cells row by row, or ``start``)."""
        if text.strip() == "start":
            return self.initial()[0][1]
        fields = parse_fields(text)
        require_fields(fields, ("board",), ("mover",))
        board = fields["board"].upper()
        if len(board) != _CELLS or set(board) - set("XO."):
            raise GameError(f"board must be {_CELLS} cells of X, O or '.', got {shown(fields['board'])}")
        x = sum(1 << c for c, mark in enumerate(board) if mark == "X")
        o = sum(1 << c for c, mark in enumerate(board) if mark == "O")
        if popcount(x) - popcount(o) not in (0, 1):
            raise GameError(f"board={fields['board']} cannot happen: X moves first and players alternate")
        mover = 1 if popcount(x) == popcount(o) else 2
        if fields.get("mover", str(mover)) != str(mover):
            raise GameError(f"mover={fields['mover']} is wrong for board={fields['board']}: "
                            f"player {mover} is on move")
        return TictoeState(x, o, mover)

    def format_position(self, s: TictoeState) -> str:
        """Write a position the way ``parse_position`` reads it."""
        board = "".join("X" if s.x >> c & 1 else "O" if s.o >> c & 1 else "." for c in range(_CELLS))
        return f"board={board} mover={s.mover}"


def _permute(mask: Mask, perm: tuple[int, ...]) -> Mask:
    return sum(1 << perm[c] for c in range(_CELLS) if mask >> c & 1)
