"""Bit twiddling for hands of cards kept as integer masks.

Card ``c`` (1-based) lives in bit ``c - 1``: the hand {1, 3, 4} is ``0b1101``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeAlias

Mask: TypeAlias = int


def cards(mask: Mask) -> Iterator[int]:
    """Yield the cards of ``mask`` in increasing order.

    Uses the lowest-set-bit trick ``mask & -mask`` (python-chess ``scan_forward``).

    >>> list(cards(0b1101))
    [1, 3, 4]
    """
    while mask:
        low = mask & -mask
        yield low.bit_length()
        mask ^= low


def popcount(mask: Mask) -> int:
    """Count the cards in ``mask``.

    >>> popcount(0b1101)
    3
    """
    return mask.bit_count()


def full(n: int) -> Mask:
    """Return the hand holding cards 1..n.

    >>> bin(full(4))
    '0b1111'
    """
    return (1 << n) - 1


def without(mask: Mask, card: int) -> Mask:
    """Return ``mask`` with ``card`` removed (it must be present).

    >>> bin(without(0b1101, 3))
    '0b1001'
    """
    return mask & ~(1 << (card - 1))


def mask_of(hand: Iterable[int]) -> Mask:
    """Return the mask of an iterable of cards.

    >>> bin(mask_of([4, 1, 3]))
    '0b1101'
    """
    mask = 0
    for card in hand:
        mask |= 1 << (card - 1)
    return mask


def compress(mask: Mask, universe: Mask) -> Mask:
    """Relabel the cards of ``mask`` by their rank within ``universe`` (a software PEXT).

    >>> bin(compress(0b10100, 0b10110))   # cards 3, 5 of {2, 3, 5} are ranks 2, 3
    '0b110'
    """
    out, bit = 0, 1
    for card in cards(universe):
        if mask >> (card - 1) & 1:
            out |= bit
        bit <<= 1
    return out
