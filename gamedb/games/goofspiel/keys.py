"""Goofspiel's keys: the declared layouts and the compiled helpers that read them.

The rules live in ``goofspiel.py``; this module holds what turns positions into keys and
keys into successors, fast: the canonical and raw ``KeyLayout`` declarations (the bit
diagram is ``GoofspielState``'s), the array of layout constants the compiled helpers take
(``lay``, indexed by ``_N`` .. ``_HALF``), the base-3 hands field, canonical keys and the
layer face's ``_expand``. The indexed faces (``goofspiel.index``, ``goofspiel.winloss``)
and the variants (``goofspiel.rounds``) build on the same helpers.
"""

from __future__ import annotations

import numpy as np

from gamedb.games.base import LAYER_SHIFT, GameError
from gamedb.types import Floats, Ints
from gamedb.games.card_kernels import fill_cards
from gamedb.games.layout import Constant, Field, KeyLayout, Ternary
from gamedb.jit import njit

# Indices into the array of layout constants handed to the compiled helpers (``_layout``
# derives it from the declared ``KeyLayout``).
_N, _CARRY, _WL, _ORDER, _OFF_PRIZES, _OFF_TABLE, _OFF_DIFF, _HALF = range(8)
Int = int | np.int64  # an integer inside compiled code


def _layout(n: int, carry: bool, win_loss: bool, order: int) -> tuple[KeyLayout, np.ndarray]:
    """Declare the key (see ``GoofspielState``); return it and the kernels' constants."""
    total = n * (n + 1) // 2
    hand_bits = (3**n - 1).bit_length()
    off_table = hand_bits + n
    layout = _declare(n, carry, win_loss, (Ternary(("hand1", "hand2"), 0, hand_bits, n),),
                      (Field("prize", off_table, (total if carry else n).bit_length()),
                       Constant("pot")))
    prize = layout.bit_field("prize")
    constants = np.array([n, carry, win_loss, order, layout.bit_field("prizes").offset,
                          prize.offset, prize.offset + prize.width, total // 2], np.int64)
    return layout, constants


def _raw_layout(n: int, carry: bool, win_loss: bool) -> KeyLayout:
    """Declare the raw key: real hands as masks, prize and pot apart."""
    prize_bits, off_table = n.bit_length(), 3 * n
    pot_bits = (n * (n + 1) // 2).bit_length()
    return _declare(n, carry, win_loss, (
        Field("hand1", 0, n, cards=True, high="high1"),
        Field("hand2", n, n, cards=True, high="high2")), (
        Field("prize", off_table, prize_bits),
        Field("pot", off_table + prize_bits, pot_bits) if carry else Constant("pot")),
        canonical=False)


def _declare(n: int, carry: bool, win_loss: bool, hands: tuple[Field | Ternary, ...],
             table: tuple[Field | Constant, ...], canonical: bool = True) -> KeyLayout:
    total = n * (n + 1) // 2
    off_diff = max(f.offset + f.width for f in table if isinstance(f, Field))
    diff_bits = (2 * (total // 2)).bit_length() if win_loss else 0
    if off_diff + diff_bits > LAYER_SHIFT:
        raise GameError(f"goofspiel keys with num_cards={n} need {off_diff + diff_bits} bits; "
                        f"{LAYER_SHIFT} fit{'' if canonical else ' (use canonical keys)'}")
    diff = (Field("diff", off_diff, LAYER_SHIFT - off_diff, bias=total // 2) if win_loss
            else Constant("diff"))
    text = (("hand1", "hand1"), ("hand2", "hand2"), ("prizes", "prizes"), ("prize", "prize"),
            *((("pot", "pot"),) if carry else ()), *((("diff", "diff"),) if win_loss else ()))
    return KeyLayout(
        "goofspiel-v1", (*hands, Field("prizes", sum(f.width for f in hands), n, cards=True),
                         *table, diff),
        columns=("hand1", "hand2", "prizes", "prize", "pot", "diff", "high1", "high2",
                 "hand1_mask", "hand2_mask"), text=text)


@njit(cache=True)
def _hands_code(h1: Int, h2: Int, lay: Ints) -> tuple[int, int]:
    """Return the hands field of (h1, h2) and of the swapped pair (h2, h1)."""
    return ternary_hands(h1, h2)


@njit(cache=True)
def ternary_hands(h1: Int, h2: Int) -> tuple[int, int]:
    """The base-3 hands field (``layout.Ternary``) of (h1, h2) and of (h2, h1)."""
    union, code, twin, power = h1 | h2, 0, 0, 1
    while union:  # walking the union in order relabels it by rank
        low = union & -union
        if not h2 & low:
            code, twin = code + power, twin + 2 * power
        elif not h1 & low:
            code, twin = code + 2 * power, twin + power
        power *= 3
        union ^= low
    return code, twin


@njit(cache=True)
def _decode_hands(key: Int, lay: Ints) -> tuple[int, int]:
    return hands_of(key & ((1 << lay[_OFF_PRIZES]) - 1), key >> LAYER_SHIFT)


@njit(cache=True)
def hands_of(code: int, k: int) -> tuple[int, int]:
    """Both rank masks of a base-3 hands field with ``k`` cards each."""
    h1, h2, c1, c2, bit = 0, 0, 0, 0, 1
    while c1 < k or c2 < k:
        digit = code % 3
        code //= 3
        if digit != 2:
            h1, c1 = h1 | bit, c1 + 1
        if digit != 1:
            h2, c2 = h2 | bit, c2 + 1
        bit <<= 1
    return h1, h2


@njit(cache=True)
def _points(mask: Int) -> int:
    total, card = 0, 1
    while mask:
        total += card * (mask & 1)
        mask >>= 1
        card += 1
    return total


@njit(cache=True)
def _assemble(hands: Int, prizes: Int, table: Int, diff: Int, k: int, lay: Ints) -> int:
    key = (k << LAYER_SHIFT) | hands | (prizes << lay[_OFF_PRIZES]) | (table << lay[_OFF_TABLE])
    out: int = key | ((diff + lay[_HALF]) << lay[_OFF_DIFF]) if lay[_WL] else key
    return out


@njit(cache=True)
def _canonical(h1: Int, h2: Int, prizes: Int, prize: Int, pot: Int, diff: Int, lay: Ints,
               reduce: bool) -> tuple[int, bool]:
    k = 0
    h = h1
    while h:
        h &= h - 1
        k += 1
    code, twin = _hands_code(h1, h2, lay)
    reach = _points(prizes) + prize + pot + 1  # beyond it only the sign of diff matters
    if reduce:
        diff = min(max(diff, -reach), reach)
    a = _assemble(code, prizes, prize + pot, diff, k, lay)
    b = _assemble(twin, prizes, prize + pot, -diff, k, lay)
    return (b, True) if reduce and b < a else (a, False)


@njit(cache=True)
def _expand(keys: Ints, k: int, lay: Ints) -> tuple[Ints, Ints, Ints, Floats]:
    B, wl, carry = keys.shape[0], lay[_WL], lay[_CARRY]
    draws = (k - 1 if lay[_ORDER] == 0 else 1) if k > 1 else 1
    K = draws + (1 if not wl and k > 1 else 0)
    row = np.empty((B, k), np.int64)
    col = np.empty((B, k), np.int64)
    succ = np.full((B, k, k, K), -1, np.int64)
    weight = np.zeros((B, k, k, K), np.float64)
    reveal = np.empty(draws, np.int64)
    for i in range(B):
        key = keys[i]
        h1, h2 = _decode_hands(key, lay)
        prizes = (key >> lay[_OFF_PRIZES]) & ((1 << lay[_N]) - 1)
        table = (key >> lay[_OFF_TABLE]) & ((1 << (lay[_OFF_DIFF] - lay[_OFF_TABLE])) - 1)
        diff = ((key >> lay[_OFF_DIFF]) & ((1 << (LAYER_SHIFT - lay[_OFF_DIFF])) - 1)) - lay[_HALF]
        diff = diff if wl else 0
        fill_cards(h1, row[i])
        fill_cards(h2, col[i])
        if k > 1:
            _fill_draws(prizes, lay[_ORDER], reveal)
        left = _points(prizes)
        for a in range(k):
            for b in range(k):
                x, y = row[i, a], col[i, b]
                delta = table if x > y else (-table if x < y else 0)
                pot = table if x == y and carry else 0
                d = diff + delta
                if k == 1:
                    weight[i, a, b, 0] = ((d > 0) - (d < 0)) if wl else delta
                    continue
                if not wl:
                    weight[i, a, b, draws] = delta
                elif abs(d) > left + pot:  # decided: no draw can change the sign
                    weight[i, a, b, :] = ((d > 0) - (d < 0)) / draws
                    continue
                code, twin = _hands_code(h1 & ~(1 << (x - 1)), h2 & ~(1 << (y - 1)), lay)
                for j in range(draws):
                    p = reveal[j]
                    rest = prizes & ~(1 << (p - 1))
                    s1 = _assemble(code, rest, p + pot, d, k - 1, lay)
                    s2 = _assemble(twin, rest, p + pot, -d, k - 1, lay)
                    succ[i, a, b, j] = min(s1, s2)
                    weight[i, a, b, j] = (-1.0 if s2 < s1 else 1.0) / draws
    return row, col, succ, weight


@njit(cache=True)
def _fill_draws(prizes: Int, order: Int, out: Ints) -> None:
    if order == 0:
        fill_cards(prizes, out)
        return
    j = 0
    low = prizes & -prizes
    while low >> j:
        j += 1
    high = 0
    while prizes >> high:
        high += 1
    out[0] = high if order == 1 else j
