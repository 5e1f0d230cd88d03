"""The layer source of point-difference Goofspiel: a perfect index of its layers.

Only ``Goofspiel.indexed_face`` uses this module (random prize order, ties discarded,
``returns_type=point_difference``); it lives beside the rules so that they stay
readable and the command-line tools never import it. The design and the measurements
behind it are in ``docs/design-thirteen-cards.md`` (sections 1-3).

A stored position of layer k (k cards in each hand) is (h, Q, p): h the rank of its
canonical hand code (``goofspiel-v1``'s base-3 ``hands`` field) among the layer's
sorted codes, Q the k - 1 hidden prizes, p the revealed prize (not in Q). A
``goofspiel-v1`` key orders (p, Q, hands), so a layer in key order is a run of *blocks*
(p, Q) in ``block_table``'s order, each holding every hand class h in increasing code:
N_k = H_k * C(n, k - 1) * (n - k + 1) positions, H_k = 1 + (S_k - 1) / 2 hand classes
(S_k base-3 patterns, ``patterns``; only identical hands are their own player-swapped
twin). The builder solves the layer in that order, so the file is a pure append.

Stage games share W: the game of (h, Q, p) is ``p * sign(a - b) + W[a, b]`` with
``W[a, b] = +-C_{k-1}[succ(h, a, b), Q]``, where C_{k-1}[h', P] is the value of the
chance node (hand class h', prizes P, none revealed) of layer k - 1: the mean over
p' in P of V_{k-1}(h', P - p', p'), summed in increasing p' like the generic builder
(``accumulate`` adds the draws in that order), so the games are the same doubles and
the values agree bit for bit. The chance values are the layer's *summary*
(``games.source``): C_k has C(n, k) * H_k entries, P-major (C_k[P, h] at
colex(P) * H_k + h: a block (p, Q) of layer k + 1 reads the one run C_k[Q, .], in the
cache); the summary of layer n is the root value.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from math import comb, factorial

import numpy as np
import numpy.typing as npt

from gamedb.games.base import LAYER_SHIFT
from gamedb.games.card_kernels import fill_cards
from gamedb.games.goofspiel.keys import (
    _OFF_PRIZES, _OFF_TABLE, Int, _decode_hands, _hands_code,
)
from gamedb.games.source import Chained
from gamedb.types import Floats, Ints
from gamedb.jit import njit

Signs = npt.NDArray[np.int8]


def patterns(n: int, k: int) -> int:
    """Return S_k, the base-3 hand patterns of two k-card hands of n cards.

    Two hands sharing j cards span 2k - j ranks: (2k - j)! / (j! ((k - j)!)^2) strings.

    >>> [patterns(4, k) for k in range(1, 5)]
    [3, 13, 13, 1]
    """
    return sum(factorial(2 * k - j) // (factorial(j) * factorial(k - j) ** 2)
               for j in range(max(0, 2 * k - n), k + 1))


def layer_size(n: int, k: int) -> int:
    """Return N_k, the canonical positions of layer k of n-card Goofspiel.

    >>> sum(layer_size(13, k) for k in range(1, 14))
    1338932608
    """
    return (1 + (patterns(n, k) - 1) // 2) * comb(n, k - 1) * (n - k + 1)


@dataclass(frozen=True, slots=True, eq=False)
class Layer:
    """The tables of one layer: hand codes, prize sets and successor hand classes."""

    n: int
    k: int
    codes: Ints
    """Sorted canonical hand codes; h is an index into it."""
    hidden: Ints
    """The (k-1)-sets of prizes (Q) in increasing mask order (= colex order)."""
    succ: Ints
    """succ[h, a, b]: class of the hands after bids a, b (a-th card of each hand, from
    the lowest) in layer k - 1; -1 - class when that class is stored player-swapped."""
    sign: Signs
    """sign[h, a, b]: +1 if player 1's bid wins, -1 if player 2's does, 0 on a tie."""


class GoofspielIndex(Chained):
    """The layer source (``games.source.LayerSource``) of point-difference Goofspiel
    with random prize order and discarded ties; keys are ``goofspiel-v1`` keys."""

    #: Bytes of a row's two strategy texts (``gamedb.builder.estimate``), calibrated on 9-11 cards.
    strategy_disk = 195

    def __init__(self, n: int, lay: Ints):
        """``lay``: the layout constants of the game's compiled helpers."""
        self.n, self._lay = n, lay
        self.colex = colex_table(n)
        self._codes = {k: canonical_codes(n, k, lay) for k in range(1, n + 1)}
        self._layer: Layer | None = None

    def layers(self) -> range:
        """Layers 1..n: layer k reads the chance values of layer k - 1."""
        return range(1, self.n + 1)

    def table_bytes(self) -> int:
        """The hand codes and the largest layer's successors and signs (9 B a bid)."""
        codes = self._codes
        return (sum(c.nbytes for c in codes.values())
                + max(9 * len(codes[k]) * k * k for k in self.layers()))

    def size(self, layer: int) -> int:
        """N_k, counted from the tables (``layer_size`` is the formula)."""
        return len(self._codes[layer]) * comb(self.n, layer - 1) * (self.n - layer + 1)

    def layer(self, k: int) -> Layer:
        """Return the tables of layer k (the last one asked for is kept)."""
        if self._layer is None or self._layer.k != k:
            self._layer = _build_layer(self.n, k, self._codes, self._lay)
        return self._layer

    def summary_size(self, layer: int) -> int:
        """Entries of ``layer``'s summary: H_k * C(n, k) chance values."""
        return len(self._codes[layer]) * comb(self.n, layer)

    def chunks(self, layer: int, target: int) -> list[tuple[int, int]]:
        """Cut the layer's key order into ranges of whole blocks, about ``target`` each."""
        size, block = self.size(layer), len(self._codes[layer])
        step = max(1, target // block) * block
        return [(start, min(start + step, size)) for start in range(0, size, step)]

    def keys(self, layer: int, start: int, stop: int) -> Ints:
        """Return the keys of positions start..stop-1 in key order (increasing)."""
        prize, hidden, codes = self._sorted_blocks(layer, start, stop)
        lay = self._lay
        heads = (layer << LAYER_SHIFT) | (hidden << lay[_OFF_PRIZES]) | (prize << lay[_OFF_TABLE])
        keys: Ints = (heads[:, None] | codes[None, :]).reshape(-1)
        return keys

    def key_factors(self, layer: int) -> tuple[Ints, Ints, int]:
        """Return the layer's keys as (heads, tails, tail_bits): a head per block (p, Q)
        and a tail per hand class (the hands field, the key's lowest bits)."""
        prize, hidden = block_table(self.n, layer)
        lay = self._lay
        heads = (layer << LAYER_SHIFT) | (hidden << lay[_OFF_PRIZES]) | (prize << lay[_OFF_TABLE])
        return heads, self._codes[layer], int(lay[_OFF_PRIZES])

    def actions(self, layer: int, start: int, stop: int) -> tuple[Ints, Ints]:
        """Return the action labels of positions start..stop-1 in key order."""
        prize, _, codes = self._sorted_blocks(layer, start, stop)
        row, col = _rank_labels(codes, layer, self._lay)
        return np.tile(row, (len(prize), 1)), np.tile(col, (len(prize), 1))

    def games(self, layer: int, start: int, stop: int,
              below: Floats | None) -> tuple[Floats, Ints, Ints]:
        """Return the k x k stage games of positions start..stop-1 in key order."""
        chance = chance_below(layer, below)
        prize, hidden, _ = self._sorted_blocks(layer, start, stop)
        tables = self.layer(layer)
        payoffs = np.empty((stop - start, layer, layer))
        below_classes = len(self._codes[layer - 1]) if layer > 1 else 1
        _sorted_games(prize, hidden, layer, below_classes, self.colex, tables.succ,
                      tables.sign, chance, payoffs)
        return square_games(payoffs)

    def accumulate(self, layer: int, start: int, stop: int, values: Floats,
                   summary: Floats) -> None:
        """Add the values of positions start..stop-1 (key order) to ``summary``, which
        starts as zeros of ``summary_size``; after every chunk of the layer, in order,
        it is the layer's summary: the chance values, each the mean of its draws
        added in increasing p (the generic builder's order, so the same doubles)."""
        prize, hidden, codes = self._sorted_blocks(layer, start, stop)
        _accumulate(np.ascontiguousarray(values, np.float64), prize, hidden, len(codes),
                    layer, self.colex, summary)

    def _sorted_blocks(self, layer: int, start: int, stop: int) -> tuple[Ints, Ints, Ints]:
        """Return the blocks (prize p, hidden Q) of a range of whole blocks, and the codes."""
        codes = self._codes[layer]
        block = len(codes)
        if start % block or stop % block or not 0 <= start < stop <= self.size(layer):
            raise ValueError(f"range {start}..{stop} does not hold whole blocks of layer {layer}")
        prize, hidden = block_table(self.n, layer)
        first, last = start // block, stop // block
        return prize[first:last], hidden[first:last], codes


def chance_below(layer: int, below: Floats | None) -> Floats:
    """Return the summary that ``layer``'s stage games read (a dummy for layer 1, which
    reads none); ValueError when a higher layer is not given it."""
    if below is None and layer > 1:
        raise ValueError(f"layer {layer} needs the chance values of layer {layer - 1}")
    return np.zeros(1) if below is None else below


def square_games(payoffs: Floats) -> tuple[Floats, Ints, Ints]:
    """Return a batch of k x k stage games as (payoffs, n_rows, n_cols)."""
    counts = np.full(len(payoffs), payoffs.shape[1], np.int64)
    return payoffs, counts, counts.copy()


@functools.lru_cache(maxsize=4)
def block_table(n: int, k: int) -> tuple[Ints, Ints]:
    """Return the blocks (p, Q) of layer k in key order: p increasing, then Q's mask
    (cached and read-only: a sampled ``verify`` asks for one block at a time)."""
    pairs = [(p, q) for p in range(1, n + 1) for q in masks_of(n, k - 1).tolist()
             if not (q >> (p - 1)) & 1]
    table = np.array(pairs, np.int64).reshape(-1, 2)
    prize, hidden = table[:, 0].copy(), table[:, 1].copy()
    prize.flags.writeable = hidden.flags.writeable = False
    return prize, hidden


@njit(cache=True)
def _sorted_games(prize: Ints, hidden: Ints, k: int, classes: int, colex: Ints, succ: Ints,
                  sign: Signs, chance: Floats, out: Floats) -> None:
    """Fill out[i] with the games of the blocks (prize, hidden), hand classes in order:
    ``p * sign + W`` with W read from the chance values of layer k - 1 (``classes`` hand
    classes: a block reads one run of them, C_{k-1}[Q, .])."""
    i = 0
    for j in range(len(prize)):
        p, row = prize[j], colex[hidden[j]] * classes
        for h in range(succ.shape[0]):
            for a in range(k):
                for b in range(k):
                    w = _chance_value(chance, succ[h, a, b], row) if k > 1 else 0.0
                    out[i, a, b] = p * sign[h, a, b] + w
            i += 1


@njit(cache=True, inline="always")
def _chance_value(chance: Floats, s: Int, row: Int) -> float:
    """C_{k-1}[Q, s] for a successor class s (``Layer.succ``: -1 - class when stored
    player-swapped, so the value is negated), ``row`` the start of Q's run."""
    value: float = -chance[row - 1 - s] if s < 0 else chance[row + s]
    return value


@njit(cache=True)
def _accumulate(values: Floats, prize: Ints, hidden: Ints, classes: int, k: int,
                colex: Ints, out: Floats) -> None:
    """out[colex(P) * classes + h] += V(h, P - p, p) / k over the blocks, in order."""
    inv, i = 1.0 / k, 0
    for j in range(len(prize)):
        row = colex[hidden[j] | (1 << (prize[j] - 1))] * classes
        for h in range(classes):
            out[row + h] += inv * values[i]
            i += 1


def _build_layer(n: int, k: int, codes: dict[int, Ints], lay: Ints) -> Layer:
    """Compute the successor and sign tables of layer k (milliseconds)."""
    lower = codes.get(k - 1, np.zeros(1, np.int64))
    succ, sign = _transitions(codes[k], lower, k, lay)
    return Layer(n, k, codes[k], masks_of(n, k - 1), succ, sign)


def masks_of(n: int, size: int) -> Ints:
    """Return every ``size``-subset of n cards as a mask, increasing (= colex order).

    >>> masks_of(4, 2).tolist()
    [3, 5, 6, 9, 10, 12]
    """
    every = np.arange(1 << n, dtype=np.int64)
    counts = np.zeros(1 << n, np.int64)
    for bit in range(n):
        counts += (every >> bit) & 1
    masks: Ints = every[counts == size]
    return masks


def colex_table(n: int) -> Ints:
    """Return rank[mask]: the rank of a set among the sets of its size, in mask order.

    >>> colex_table(3)[[1, 2, 4, 3, 5, 6]].tolist()
    [0, 1, 2, 0, 1, 2]
    """
    rank = np.zeros(1 << n, np.int64)
    for size in range(n + 1):
        rank[masks_of(n, size)] = np.arange(comb(n, size))
    return rank


def canonical_codes(n: int, k: int, lay: Ints, *, reduce: bool = True) -> Ints:
    """Return the sorted canonical hand codes of layer k, from every pair of real hands
    (at most C(13, 6)^2 = 2.9 M pairs): the smaller of each pair's code and its player
    swap's (H_k classes), or with ``reduce`` False every raw pattern (S_k, win/loss)."""
    codes: Ints = np.unique(_pair_codes(masks_of(n, k), lay, reduce))
    return codes


@njit(cache=True)
def _pair_codes(masks: Ints, lay: Ints, reduce: bool) -> Ints:
    out = np.empty(len(masks) * len(masks), np.int64)
    i = 0
    for a in masks:
        for b in masks:
            code, twin = _hands_code(a, b, lay)
            out[i] = min(code, twin) if reduce else code
            i += 1
    return out


@njit(cache=True)
def _nth_card(mask: Int, i: int) -> Int:
    """Return the bit of the i-th (0-based, from the lowest) card of ``mask``."""
    for _ in range(i):
        mask &= mask - 1
    return mask & -mask


@njit(cache=True, inline="always")
def after_bids(h1: Int, h2: Int, a: int, b: int, lay: Ints) -> tuple[int, int, int]:
    """Return the sign of bids a, b (the a-th and b-th card of each hand, from the
    lowest) and the hands fields of the hands after them and of their player swap."""
    x, y = _nth_card(h1, a), _nth_card(h2, b)
    code, twin = _hands_code(h1 & ~x, h2 & ~y, lay)
    return (1 if x > y else (-1 if x < y else 0)), code, twin


@njit(cache=True)
def _transitions(codes: Ints, lower: Ints, k: int, lay: Ints) -> tuple[Ints, Signs]:
    """Return (succ, sign) of layer k (see ``Layer``); ``lower``: codes of layer k - 1."""
    succ = np.zeros((len(codes), k, k), np.int64)
    sign = np.zeros((len(codes), k, k), np.int8)
    for h in range(len(codes)):
        h1, h2 = _decode_hands((k << LAYER_SHIFT) | codes[h], lay)
        for a in range(k):
            for b in range(k):
                s, code, twin = after_bids(h1, h2, a, b, lay)
                sign[h, a, b] = s
                if k > 1:
                    r = np.searchsorted(lower, min(code, twin))
                    succ[h, a, b] = -1 - r if twin < code else r
    return succ, sign


@njit(cache=True)
def _rank_labels(codes: Ints, k: int, lay: Ints) -> tuple[Ints, Ints]:
    """Return the cards (1-based ranks) of both hands of each hand code, increasing."""
    row, col = np.empty((len(codes), k), np.int64), np.empty((len(codes), k), np.int64)
    for h in range(len(codes)):
        h1, h2 = _decode_hands((k << LAYER_SHIFT) | codes[h], lay)
        fill_cards(h1, row[h])
        fill_cards(h2, col[h])
    return row, col


__all__ = ["GoofspielIndex", "Layer", "after_bids", "block_table", "canonical_codes",
           "chance_below", "colex_table", "layer_size", "masks_of", "patterns", "square_games"]
