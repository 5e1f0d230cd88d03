"""Green Hackenbush: erase an edge; what loses touch with the ground falls away.

A picture is a graph whose vertex 0 is the ground. Players alternate; the mover erases
one edge, and every edge no longer connected to the ground (through the edges left)
disappears with it. Who cannot move (no edge is left) loses: the player who erases the
last edge wins (+1). Both players have the same moves, so it is impartial: its
Sprague-Grundy value is nonzero exactly when the mover wins (Berlekamp, Conway, Guy).

References: E. R. Berlekamp, J. H. Conway, R. K. Guy, "Winning Ways for your
Mathematical Plays", vol. 1, chapter 7 (1982); T. S. Ferguson, "Game Theory", part I
section 7 (Green Hackenbush, the colon and fusion principles).

Parameters::

    edges  str  the edges u-v, comma-separated; vertex 0 is the ground; loops (u-u) and
                repeated edges allowed; 1..40 edges, every one connected to the ground
                (default: 0-1,1-2,1-3,0-4,4-5,5-0,0-0)

Edges are numbered 1, 2, ... in the order the spec lists them; a move is the number of
the edge it erases, 0 the pass of the player not on move, and is named for people by
the edge's number and ends (``edge 3 (1-2)``). A position is the set of
edges left (a mask: bit i - 1 is edge i) and the player on move.

Canonical keys: a position with player 2 to move is stored as the same edges with
player 1 to move, value negated (player swap). No graph symmetry is reduced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gamedb.games.base import (
    LAYER_SHIFT, TERMINAL, Canonical, Capabilities, Distribution, Expansion, Game, GameError,
    Keys, Param, parse_integer, reference_expand, shown,
)
from gamedb.games.layout import Field, KeyLayout
from gamedb.games.text import format_cards, parse_fields, require_fields

#: Most edges a picture may have: the mask of edges left must fit below the mover's bit.
MAX_EDGES = 40
_MOVER_BIT = MAX_EDGES
_PASS = 0
_DEFAULT = "0-1,1-2,1-3,0-4,4-5,5-0,0-0"


@dataclass(frozen=True, slots=True)
class HackenbushState:
    """A Hackenbush position.

    Key bit layout (least significant bit on the right)::

        | edges left | 0... | mover - 1 | 0... | edge E | ... | edge 2 | edge 1 |
        ^ bit 48            ^ bit 40           ^ bit E - 1       ^ bit 1  ^ bit 0
    """

    edges: int
    """Mask of the edges left: bit i - 1 is edge i."""
    mover: int
    """The player on move, 1 or 2."""


class Hackenbush(Game[HackenbushState]):
    """Green Hackenbush on the picture the spec draws (see the module docstring)."""

    name: ClassVar[str] = "hackenbush"
    params: ClassVar[tuple[Param, ...]] = (
        Param("edges", str, _DEFAULT, "edges u-v separated by ',' (vertex 0: the ground)",
              commas=True),
    )
    layer_span: ClassVar[int | None] = None  # erasing a bridge can drop many edges
    state_type: ClassVar[type] = HackenbushState
    rules: ClassVar[str] = """\
Green Hackenbush (Berlekamp, Conway, Guy 1982): erase edges of a picture standing on
the ground; whoever erases the last edge wins.

Rules
  The picture is the graph the spec draws: edges=0-1,1-2,1-3 is a stalk from the
  ground (vertex 0) to vertex 1 with two edges above it; a loop (1-1, or 0-0 at the
  ground) and repeated edges are allowed. Edges are numbered 1, 2, ... in the order
  the spec lists them. Players alternate, player 1 first: the mover erases one edge,
  and every edge no longer connected to the ground falls away with it. Who cannot
  move loses: +1 if player 1 erased the last edge, -1 otherwise. Both players have the
  same moves (an impartial game): show prints the position's Sprague-Grundy value
  (grundy), nonzero exactly when the mover wins.

Positions: space-separated name=value fields, or the word start
  edges  the numbers of the edges left, comma-separated (- when none is left); they
         must all hang from the ground through edges left
  mover  the player on move, 1 or 2 (default 1)
  A move is the number of the edge it erases, named with its ends as the spec writes
  them (edge 3 (1-2); play takes the number or the name); the player not on move has
  the single move pass (code 0): each stage is a game in which only one player
  chooses. Values are player 1's expected payoff.

Example: a stalk with two leaves, a triangle and a loop on the ground; player 2 to
move after player 1 erased the loop (edge 7)
  gamedb build "hackenbush(edges=0-1,1-2,1-3,0-4,4-5,5-0,0-0)" --db hb.sqlite
  gamedb show hb.sqlite "edges=1,2,3,4,5,6 mover=2"
"""

    def __init__(self, edges: str = _DEFAULT):
        self.edges = _parse_edges(edges)
        super().__init__(edges=",".join(f"{u}-{v}" for u, v in self.edges))
        self.layout = _layout(len(self.edges))
        self.capabilities = Capabilities("edge", impartial=True)
        self._incident = _incidence(self.edges)
        self._full = (1 << len(self.edges)) - 1
        self._dense = _renumbered(self.edges)

    # -- reference face ------------------------------------------------------------

    def initial(self) -> Distribution[HackenbushState]:
        """Return the start: every edge, player 1 to move."""
        return [(1.0, HackenbushState(self._full, 1))]

    def actions(self, s: HackenbushState) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Return (player 1's, player 2's) moves; the player not on move passes."""
        if not s.edges:
            return (), ()
        moves = tuple(i + 1 for i in range(len(self.edges)) if s.edges >> i & 1)
        return (moves, (_PASS,)) if s.mover == 1 else ((_PASS,), moves)

    def action_name(self, s: HackenbushState, player: int, action: int) -> str:
        """Name an action for people: ``edge 3 (1-2)`` for erasing edge 3, which joins
        vertices 1 and 2 (as the spec lists it), ``pass`` for the player not on move."""
        if player != s.mover:
            return "pass"
        u, v = self.edges[action - 1]
        return f"edge {action} ({u}-{v})"

    def next(self, s: HackenbushState, a: int, b: int) -> Distribution[HackenbushState]:
        """Erase the mover's edge (``a`` for player 1, ``b`` for player 2) and what falls."""
        edge = a if s.mover == 1 else b
        left = self.grounded(s.edges & ~(1 << (edge - 1)))
        return [(1.0, HackenbushState(left, 3 - s.mover))]

    def value(self, s: HackenbushState) -> float | None:
        """Return player 1's payoff once no edge is left (the mover has lost)."""
        if s.edges:
            return None
        return -1.0 if s.mover == 1 else 1.0

    def layer(self, s: HackenbushState) -> int:
        """Return the number of edges left."""
        return s.edges.bit_count()

    def canonical(self, s: HackenbushState) -> Canonical:
        """Return the stored key: the same edges with player 1 to move."""
        acts1, acts2 = self.actions(s)
        labels = ({a: a for a in acts1}, {b: b for b in acts2})
        swapped = s.mover == 2
        stored = HackenbushState(s.edges, 1) if swapped else s
        return Canonical(self.key(stored), swapped, labels)

    def grounded(self, mask: int) -> int:
        """Return the edges of ``mask`` connected to the ground through edges of ``mask``."""
        reached, todo, kept = {0}, [0], 0
        while todo:
            vertex = todo.pop()
            for edge, other in self._incident.get(vertex, ()):
                if mask >> edge & 1:
                    kept |= 1 << edge
                    if other not in reached:
                        reached.add(other)
                        todo.append(other)
        return kept

    # -- layer face -------------------------------------------------------------------

    def expand(self, keys: Keys) -> Expansion:
        """Return the successors of canonical keys sharing one layer (vectorized).

        Every state of layer L has its L edges as moves (player 1 on move, player 2
        passes); each successor is stored with the players swapped (weight -1), or is
        the end of the game (+1: player 1 erased the last edge).
        """
        keys = np.asarray(keys, dtype=np.int64)
        if (keys >> _MOVER_BIT & 1).any():  # player 2 to move: not a canonical key
            return reference_expand(self, keys)
        masks = keys & self._full
        layer = int(np.bitwise_count(masks[0])) if len(keys) else 1
        bits = (masks[:, None] >> np.arange(len(self.edges))) & 1  # (B, E)
        rows = np.argsort(-bits, axis=1, kind="stable")[:, :layer]  # set edges, increasing
        erased = masks[:, None] & ~(np.int64(1) << rows)
        left = self._grounded_all(erased.ravel()).reshape(erased.shape)
        ended = left == 0
        succ = np.where(ended, TERMINAL, left | np.bitwise_count(left).astype(np.int64) << LAYER_SHIFT)
        B = len(keys)
        return Expansion(keys, np.full(B, layer, np.int64), np.ones(B, np.int64),
                         (rows + 1).astype(np.int64), np.zeros((B, 1), np.int64),
                         succ.reshape(B, layer, 1, 1),
                         np.where(ended, 1.0, -1.0).reshape(B, layer, 1, 1))

    def _grounded_all(self, masks: Keys) -> Keys:
        """``grounded`` of many masks at once: the ground's reach spreads edge by edge
        until it stops (vertices renumbered 0..V-1, V <= edges + 1, so a mask fits)."""
        reached, kept = np.ones_like(masks), np.zeros_like(masks)
        while True:
            before = kept
            for i, (u, v) in enumerate(self._dense):
                on = (masks >> i & 1 & ((reached >> u) | (reached >> v))).astype(bool)
                reached = np.where(on, reached | (1 << u) | (1 << v), reached)
                kept = np.where(on, kept | (1 << i), kept)
            if (kept == before).all():
                return kept

    # -- positions as text -----------------------------------------------------------

    def parse_position(self, text: str) -> HackenbushState:
        """Read ``"edges=1,2,4 mover=1"`` (edge numbers in any order, or ``start``)."""
        if text.strip() == "start":
            return self.initial()[0][1]
        fields = parse_fields(text)
        require_fields(fields, ("edges",), ("mover",))
        mask = self._parse_mask(fields["edges"])
        loose = mask & ~self.grounded(mask)
        if loose:
            edge = (loose & -loose).bit_length()
            u, v = self.edges[edge - 1]
            raise GameError(f"edges={shown(fields['edges'])}: edge {edge} ({u}-{v}) does not "
                            "hang from the ground (vertex 0) through the edges listed")
        mover = fields.get("mover", "1")
        if mover not in ("1", "2"):
            raise GameError(f"mover must be 1 or 2, got {shown(mover)}")
        return HackenbushState(mask, int(mover))

    def _parse_mask(self, text: str) -> int:
        """Read the edges left, ``1,2,4`` (``-`` for none), as a mask."""
        if text == "-":
            return 0
        rule = "edges must be comma-separated edge numbers or '-'"
        numbers = [parse_integer(part, rule, text) for part in text.split(",")]
        if len(set(numbers)) != len(numbers):
            raise GameError(f"edges repeats an edge: {shown(text)}")
        if any(not 1 <= i <= len(self.edges) for i in numbers):
            raise GameError(f"edges holds an edge number outside 1..{len(self.edges)} "
                            f"(the spec's edges in order): {shown(text)}")
        return sum(1 << (i - 1) for i in numbers)

    def format_position(self, s: HackenbushState) -> str:
        """Write a position the way ``parse_position`` reads it."""
        numbers = [i + 1 for i in range(len(self.edges)) if s.edges >> i & 1]
        return f"edges={format_cards(numbers)} mover={s.mover}"


def _layout(count: int) -> KeyLayout:
    """Declare the key of ``HackenbushState`` with ``count`` edges (drawn in its docstring)."""
    return KeyLayout("hackenbush-v1", (Field("edges", 0, count, cards=True),
                                       Field("mover", _MOVER_BIT, 1, bias=-1)),
                     columns=("edges", "mover", "edges_mask"),
                     text=(("edges", "edges"), ("mover", "mover")))


def _renumbered(edges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """The edges over vertices renumbered 0, 1, ... in order of appearance (0 stays 0).

    >>> _renumbered(((0, 7), (7, 900), (900, 0)))
    ((0, 1), (1, 2), (2, 0))
    """
    number = {0: 0}
    for u, v in edges:
        for x in (u, v):
            number.setdefault(x, len(number))
    return tuple((number[u], number[v]) for u, v in edges)


def _incidence(edges: tuple[tuple[int, int], ...]) -> dict[int, list[tuple[int, int]]]:
    """Return vertex -> [(edge index, other end)] (a loop is listed once)."""
    incident: dict[int, list[tuple[int, int]]] = {}
    for i, (u, v) in enumerate(edges):
        incident.setdefault(u, []).append((i, v))
        if v != u:
            incident.setdefault(v, []).append((i, u))
    return incident


def _parse_edges(text: str) -> tuple[tuple[int, int], ...]:
    """Read ``"0-1,1-2,1-1"``: 1..MAX_EDGES edges u-v, each connected to the ground."""
    parts = [p.strip() for p in text.split(",")]
    if not 1 <= len(parts) <= MAX_EDGES:
        raise GameError(f"parameter edges must give 1..{MAX_EDGES} edges, got {len(parts)}")
    edges = tuple(_parse_edge(part, text) for part in parts)
    reached, grew = {0}, True
    while grew:  # the vertices connected to the ground
        grew = False
        for u, v in edges:
            if (u in reached) != (v in reached):
                reached |= {u, v}
                grew = True
    for i, (u, v) in enumerate(edges, start=1):
        if u not in reached:
            raise GameError(f"parameter edges: edge {i} ({u}-{v}) is not connected to the "
                            "ground (vertex 0)")
    return edges


def _parse_edge(part: str, text: str) -> tuple[int, int]:
    """Read one edge ``u-v`` of vertices 0..999."""
    rule = "parameter edges must be edges u-v separated by ',' (e.g. edges=0-1,1-2)"
    ends = part.split("-")
    if len(ends) != 2:
        raise GameError(f"{rule}, got {shown(part)} in {shown(text)}")
    u, v = (parse_integer(end.strip(), rule, text) for end in ends)
    if not (0 <= u <= 999 and 0 <= v <= 999):
        raise GameError(f"parameter edges: vertex numbers are 0..999, got {shown(part)}")
    return u, v
