"""Goofspiel with ``committed=true``: each player fixes the whole bid order up front.

Before the first prize is revealed, each player chooses the order in which to bid all
``num_cards`` cards; the prizes are then revealed (shuffled, or in the fixed
``points_order``) and round i compares the two i-th bids as in plain Goofspiel
(``ties`` and ``returns_type`` as there). This is one matrix game over the ``n!`` orders
of each player (the "decide up front" form the Goofspiel rules page compares to Colonel
Blotto), paid the exact expectation over the prize orders: a payoff depends only on
the signs of the n bid comparisons, so each of the 3^n sign patterns is averaged once
over the n! prize orders (``payoff_matrix``).

Stored: one position, the start (``hand1=1..n hand2=1..n prizes=1..n``), whose actions
are the orders. An order's label is its index among the orders in lexicographic order
(``1-2-3`` is 0, ``3-2-1`` is 5) and its name is its bids round by round (``3-1-2``):
``show`` and ``key`` print names, the SQL views and ``probe`` labels. Refused beyond
6 cards: 7 cards make a 5,040 x 5,040 game (25 million payoffs, 400 MB of stage arrays
before the LP), 8 cards 1.6 billion payoffs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import permutations
from math import factorial
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from gamedb.bits import Mask, cards, full
from gamedb.games.base import (
    TERMINAL, Canonical, Capabilities, Distribution, Expansion, Game, GameError, Keys, shown,
)
from gamedb.games.goofspiel import Goofspiel
from gamedb.games.layout import Field, KeyLayout

#: Most cards per player: 6! = 720 orders; 7 would be 5,040 x 5,040 (module docstring).
MAX_CARDS = 6


@dataclass(frozen=True, slots=True)
class CommittedState:
    """The start: every card in both hands and every prize (n bits each in the key)."""

    hand1: Mask
    hand2: Mask
    prizes: Mask


@dataclass(frozen=True, slots=True)
class CommittedEnd:
    """The end: both players' orders (labels); its payoff is the matrix entry."""

    order1: int
    order2: int


def orders(n: int) -> npt.NDArray[np.int64]:
    """Return every order of the cards 1..n, lexicographic, one per row.

    >>> orders(3)[[0, 4]].tolist()
    [[1, 2, 3], [3, 1, 2]]
    """
    return np.array(list(permutations(range(1, n + 1))), dtype=np.int64).reshape(-1, n)


def payoff_matrix(n: int, prize_orders: npt.NDArray[np.int64], carry: bool,
                  win_loss: bool) -> npt.NDArray[np.float64]:
    """Return player 1's expected payoff for every pair of orders (rows: player 1).

    Args:
        n: cards per player.
        prize_orders: the equally likely prize orders, one per row.
        carry: tied rounds carry their points to the next prize (``ties=carry``).
        win_loss: pay the sign of the point difference, else the difference.

    >>> payoff_matrix(2, orders(2), False, False).tolist()  # 1-2 against 2-1
    [[0.0, 0.0], [0.0, 0.0]]
    """
    signs = (np.arange(3 ** n)[:, None] // 3 ** np.arange(n) % 3) - 1   # pattern -> signs
    diff = np.zeros((len(signs), len(prize_orders)))
    pot = np.zeros_like(diff)
    for i in range(n):
        stake = prize_orders[None, :, i] + pot
        diff += signs[:, i, None] * stake
        pot = np.where((signs[:, i, None] == 0) & carry & (i < n - 1), stake, 0.0)
    per_pattern = (np.sign(diff) if win_loss else diff).mean(axis=1)
    bids = orders(n)
    pattern = ((np.sign(bids[:, None, :] - bids[None, :, :]) + 1) * 3 ** np.arange(n)).sum(axis=2)
    matrix: npt.NDArray[np.float64] = per_pattern[pattern]
    return matrix


class GoofspielCommitted(Game[Any]):
    """Committed Goofspiel: one matrix game over bid orders (module docstring)."""

    name: ClassVar[str] = "goofspiel"
    params = Goofspiel.params
    layer_span: ClassVar[int | None] = None
    state_type: ClassVar[type] = CommittedState
    rules: ClassVar[str] = Goofspiel.rules
    dummy, rounds, committed = "false", 0, "true"

    def __init__(self, num_cards: int = 4, points_order: str = "random",
                 returns_type: str = "win_loss", ties: str = "discard"):
        n = num_cards
        if n > MAX_CARDS:
            raise GameError(
                f"committed=true with num_cards={n} is a {factorial(n):,} x {factorial(n):,} "
                f"matrix game ({factorial(n) ** 2:,} payoffs, about "
                f"{16 * factorial(n) ** 2 / 2**30:,.1f} GiB of stage arrays); "
                f"refused beyond {MAX_CARDS} cards")
        super().__init__(committed="true", num_cards=n, points_order=points_order,
                         returns_type=returns_type, ties=ties)
        self.num_cards, self.points_order, self.returns_type, self.ties = (
            n, points_order, returns_type, ties)
        self.layout = KeyLayout("goofspiel-committed-v1", tuple(
            Field(name, i * n, n, cards=True) for i, name in enumerate(("hand1", "hand2", "prizes"))),
            columns=("hand1", "hand2", "prizes", "hand1_mask", "hand2_mask", "prizes_mask"),
            text=(("hand1", "hand1"), ("hand2", "hand2"), ("prizes", "prizes")))
        self.capabilities = Capabilities("bids")

    @cached_property
    def orders(self) -> npt.NDArray[np.int64]:
        """Every order of the cards, row ``label`` is the order labelled ``label``."""
        return orders(self.num_cards)

    @cached_property
    def matrix(self) -> npt.NDArray[np.float64]:
        """Player 1's expected payoff of every pair of orders (``payoff_matrix``)."""
        n = self.num_cards
        prize_orders = {"random": orders(n), "ascending": np.arange(1, n + 1)[None],
                        "descending": np.arange(n, 0, -1)[None]}[self.points_order]
        return payoff_matrix(n, prize_orders, self.ties == "carry",
                             self.returns_type == "win_loss")

    # -- reference face ------------------------------------------------------------

    def initial(self) -> Distribution[Any]:
        """Return the start (no chance before the orders are chosen)."""
        hand = full(self.num_cards)
        return [(1.0, CommittedState(hand, hand, hand))]

    def actions(self, s: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Return the labels of every order, for both players."""
        labels = tuple(range(len(self.orders)))
        return labels, labels

    def action_name(self, s: Any, player: int, action: int) -> str:
        """Name an order by its bids round by round: ``3-1-2``."""
        return "-".join(str(card) for card in self.orders[action].tolist())

    def next(self, s: Any, a: int, b: int) -> Distribution[Any]:
        """Play order ``a`` against order ``b``: the game is over."""
        return [(1.0, CommittedEnd(a, b))]

    def value(self, s: Any) -> float | None:
        """Return the expected payoff of two orders, None at the start."""
        return float(self.matrix[s.order1, s.order2]) if isinstance(s, CommittedEnd) else None

    def layer(self, s: Any) -> int:
        """Return the cards in hand: ``num_cards`` at the start, 0 at the end."""
        return 0 if isinstance(s, CommittedEnd) else self.num_cards

    def canonical(self, s: Any) -> Canonical:
        """Return the start's key; every order is its own label."""
        labels = {a: a for a in range(len(self.orders))}
        return Canonical(self.key(s), False, (labels, labels))

    def expand(self, keys: Keys) -> Expansion:
        """Return the start's stage game: the payoff matrix, every entry terminal."""
        keys = np.asarray(keys, dtype=np.int64)
        count, size = len(keys), len(self.orders)
        labels = np.broadcast_to(np.arange(size), (count, size)).copy()
        sizes = np.full(count, size, np.int64)
        return Expansion(keys, sizes, sizes.copy(), labels, labels.copy(),
                         np.full((count, size, size, 1), TERMINAL, np.int64),
                         np.broadcast_to(self.matrix[None, :, :, None],
                                         (count, size, size, 1)).copy())

    # -- positions as text -----------------------------------------------------------

    def parse_position(self, text: str) -> CommittedState | CommittedEnd:
        """Read ``start`` (or the start written out), or the end: ``order1=3-1-2 order2=...``."""
        hand = full(self.num_cards)
        start = CommittedState(hand, hand, hand)
        if text.strip().startswith("order1="):
            return self._parse_end(text)
        if text.strip() not in ("start", self.format_position(start)):
            raise GameError(f"committed=true has one position, the start "
                            f"({self.format_position(start)}); got {shown(text.strip())}")
        return start

    def format_position(self, s: CommittedState | CommittedEnd) -> str:
        """Write the start (every card in both hands and every prize), or the end (both
        players' orders, as ``action_name`` writes them)."""
        if isinstance(s, CommittedEnd):
            return (f"order1={self.action_name(s, 1, s.order1)} "
                    f"order2={self.action_name(s, 2, s.order2)}")
        return " ".join(f"{name}={','.join(map(str, cards(mask))) or '-'}" for name, mask in (
            ("hand1", s.hand1), ("hand2", s.hand2), ("prizes", s.prizes)))

    def _parse_end(self, text: str) -> CommittedEnd:
        """Read ``order1=A order2=B``, each an order of the cards 1..n written ``3-1-2``."""
        fields = dict(part.partition("=")[::2] for part in text.split())
        if sorted(fields) != ["order1", "order2"]:
            raise GameError("the end of committed=true is written order1=... order2=...; "
                            f"got {shown(text)}")
        labels = {"-".join(map(str, row)): label for label, row in enumerate(self.orders.tolist())}
        for name in ("order1", "order2"):
            if fields[name] not in labels:
                raise GameError(f"{name} must be an order of the cards 1..{self.num_cards} written "
                                f"with '-' (e.g. {next(iter(labels))}), got {shown(fields[name])}")
        return CommittedEnd(labels[fields["order1"]], labels[fields["order2"]])


__all__ = ["CommittedEnd", "CommittedState", "GoofspielCommitted", "MAX_CARDS", "orders",
           "payoff_matrix"]
