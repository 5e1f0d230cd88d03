"""Compiled helpers on hands of cards kept as integer masks, shared by the card games.

The pure-Python twins live in ``gamedb.bits`` (card ``c`` is bit ``c - 1``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gamedb.jit import njit


@njit(cache=True)
def fill_cards(mask: int | np.int64, out: npt.NDArray[np.int64]) -> None:
    """Write the cards of ``mask`` into ``out[:popcount(mask)]`` in increasing order."""
    j = 0
    while mask:
        low = mask & -mask
        c = 0
        while low >> c:
            c += 1
        out[j] = c
        j += 1
        mask ^= low
