"""Compiled hash tables for non-negative int64 keys: de-duplication and look-ups.

``np.unique`` sorts all its input and ``searchsorted`` jumps through a large sorted
array; both cost O(n log n) cache misses on the tens of millions of successor keys a big
layer produces. Open addressing with linear probing (Knuth's multiplicative hash) does
each key in O(1), and only the distinct keys are sorted.

>>> unique_keys(np.array([5, 3, 5, 9, 3]))
array([3, 5, 9])
>>> index = KeyIndex(np.array([10, 20, 30]))
>>> index.find(np.array([30, 10, 11]))
array([ 2,  0, -1])
"""

from __future__ import annotations

from gamedb.jit import njit
import numpy as np
import numpy.typing as npt

from gamedb.types import Floats, Keys

_EMPTY = -1
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # 2**64 / phi: Knuth's multiplicative hash



def _capacity_bits(n: int) -> int:
    """Bits of a power-of-two capacity at least twice ``n`` (load factor <= 1/2)."""
    return max(4, int(2 * max(n, 1) - 1).bit_length())


@njit(cache=True)
def _slot(key: np.int64 | int, bits: int) -> np.int64:
    slot: np.int64 = np.int64((np.uint64(key) * _GOLDEN) >> np.uint64(64 - bits))
    return slot


@njit(cache=True)
def _unique(keys: Keys, bits: int) -> Keys:
    mask = (1 << bits) - 1
    table = np.full(1 << bits, _EMPTY, np.int64)
    out = np.empty(keys.shape[0], np.int64)
    count = 0
    for key in keys:
        slot = _slot(key, bits)
        while table[slot] != _EMPTY and table[slot] != key:
            slot = (slot + 1) & mask
        if table[slot] == _EMPTY:
            table[slot] = key
            out[count] = key
            count += 1
    return out[:count]


def unique_keys(keys: Keys) -> Keys:
    """Return the distinct keys of ``keys`` (all >= 0), sorted; like ``np.unique``."""
    flat: Keys = np.ascontiguousarray(keys, dtype=np.int64).ravel()
    if len(flat) == 0:
        return np.empty(0, np.int64)
    distinct = _unique(flat, _capacity_bits(len(flat)))
    distinct.sort()
    return distinct


@njit(cache=True)
def _build(keys: Keys, bits: int) -> tuple[Keys, Keys]:
    mask = (1 << bits) - 1
    table = np.full(1 << bits, _EMPTY, np.int64)
    where = np.empty(1 << bits, np.int64)
    for i in range(keys.shape[0]):
        slot = _slot(keys[i], bits)
        while table[slot] != _EMPTY:
            slot = (slot + 1) & mask
        table[slot] = keys[i]
        where[slot] = i
    return table, where


@njit(cache=True)
def _position(table: Keys, where: Keys, key: np.int64 | int, bits: int) -> np.int64 | int:
    """Where ``key`` was indexed, -1 if it was not."""
    mask = (1 << bits) - 1
    slot = _slot(key, bits)
    while table[slot] != _EMPTY:
        if table[slot] == key:
            found: np.int64 = where[slot]
            return found
        slot = (slot + 1) & mask
    return -1


@njit(cache=True)
def _find(table: Keys, where: Keys, queries: Keys, bits: int) -> Keys:
    out = np.empty(queries.shape[0], np.int64)
    for i in range(queries.shape[0]):
        out[i] = _position(table, where, queries[i], bits)
    return out


@njit(cache=True)
def _weighted_sums(table: Keys, where: Keys, values: Floats, succ: Keys, weight: Floats,
                   bits: int) -> tuple[Floats, int]:
    n, k = succ.shape
    out = np.empty(n, np.float64)
    for i in range(n):
        total = 0.0
        for j in range(k):
            key = succ[i, j]
            if key < 0:  # a payoff, not a position
                total += weight[i, j]
                continue
            pos = _position(table, where, key, bits)
            if pos < 0:
                return out, i * k + j
            total += weight[i, j] * values[pos]
        out[i] = total
    return out, -1


class KeyIndex:
    """Positions of distinct non-negative keys, found in O(1) each."""

    def __init__(self, keys: Keys):
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        self._bits = _capacity_bits(len(keys))
        self._table, self._where = _build(keys, self._bits)

    def find(self, queries: Keys) -> Keys:
        """Return the position of each query in the indexed keys, -1 where absent."""
        queries = np.ascontiguousarray(queries, dtype=np.int64).ravel()
        result: Keys = _find(self._table, self._where, queries, self._bits)
        return result

    def weighted_sums(self, values: npt.NDArray[np.float64], succ: Keys,
                      weight: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], int]:
        """Return ``sum_k weight[i, k] * (values[pos(succ[i, k])] if succ >= 0 else 1)``
        for every row ``i`` of the (N, K) arrays, in one pass (no (N, K) temporaries),
        and the flat index of the first absent key (-1 if none).

        >>> index = KeyIndex(np.array([10, 20]))
        >>> index.weighted_sums(np.array([1.0, -1.0]), np.array([[10, 20], [20, -1]]),
        ...                     np.array([[0.5, 0.5], [0.25, 3.0]]))
        (array([0.  , 2.75]), -1)
        """
        sums, missing = _weighted_sums(self._table, self._where, values,
                                       np.ascontiguousarray(succ, dtype=np.int64),
                                       np.ascontiguousarray(weight, dtype=np.float64), self._bits)
        return sums, int(missing)
