"""Sets of reachable scores of win/loss Goofspiel's chance nodes, several words each.

The win/loss face (``goofspiel.winloss``) keeps, for each chance node (c, P) of layer k
(c a raw hand pattern, P the k prizes left), the set of scores d in -R_k..0 with which
it is reachable, bit d + R_k of a *score set* (the scores d > 0 are its player-swapped
twin's -d: the game is symmetric). A set is ``words`` int64 words of ``bits`` bits each
(bit i in word i // bits, bit i % bits of it), so no score range is too wide: 13 cards
need R_k + 1 = 46 bits, one word of the default 63 bits (63, not 64: words stay
non-negative, so a right shift brings in zeros). Tests choose fewer bits per word to
make small games span several words.

The forward pass moves a whole set at once: a bid that changes the score by s moves
every bit by s, across words (``_move``), and keeps the scores d' <= 0 that the prizes
left can still overturn (a window of bits); the rest are decided, so not stored. A
source set is first extended by its twin's mirrored scores up to d = the highest prize
(``_extend``), the only d > 0 that a draw can bring to d' <= 0.
"""

from __future__ import annotations

import numpy as np

from gamedb.games.goofspiel.keys import _points
from gamedb.types import Ints
from gamedb.jit import njit

#: Bits used of each int64 word of a score set.
WORD_BITS = 63


def words_for(width: int, bits: int = WORD_BITS) -> int:
    """Return the words a set of ``width`` scores takes at ``bits`` bits a word.

    >>> words_for(55), words_for(91), words_for(91, 8)
    (1, 2, 12)
    """
    if not 1 <= bits <= WORD_BITS:
        raise ValueError(f"a score set word holds 1..{WORD_BITS} bits, not {bits}")
    return -(-width // bits)


@njit(cache=True, inline="always")
def _ones(width: int) -> int:
    """Return the lowest ``width`` (0..63) bits set (int64 arithmetic wraps at 63)."""
    ones: int = ~(np.int64(-1) << width)
    return ones


@njit(cache=True, inline="always")
def _popcount(x: int) -> int:
    """Return the set bits of a non-negative int64 (SWAR; the top byte sums to < 64).
    https://graphics.stanford.edu/~seander/bithacks.html#CountBitsSetParallel"""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    count: int = (x * 0x0101010101010101) >> 56
    return count


@njit(cache=True, inline="always")
def _bits_from(sets: Ints, at: int, words: int, first: int, bits: int) -> int:
    """Return ``bits`` bits of the set at ``sets[at:at + words]`` from its bit
    ``first`` on (any integer: bits outside the set are zeros)."""
    q = first // bits  # floor: a negative ``first`` starts before the set
    b = first - q * bits
    v = sets[at + q] >> b if 0 <= q < words else 0
    if b and 0 <= q + 1 < words:
        v |= (sets[at + q + 1] << (bits - b)) & _ones(bits)
    return v


@njit(cache=True, inline="always")
def _move(source: Ints, words: int, shift: int, lo: int, hi: int, bits: int,
          out: Ints) -> bool:
    """out = the set ``source`` (``words`` words) with every bit i moved to i + shift,
    only bits lo..hi kept (``len(out)`` words); return False if that is empty."""
    some = False
    for j in range(len(out)):
        base = j * bits
        first, last = max(lo - base, 0), min(hi - base, bits - 1)
        v = _bits_from(source, 0, words, base - shift, bits) if first <= last else 0
        out[j] = v & (_ones(last - first + 1) << first) if v else 0
        some |= out[j] != 0
    return some


def edges(succ: Ints, sign: np.ndarray) -> tuple[Ints, Ints, Ints]:
    """Return each pattern's distinct moves as (start, to, how): pattern c moves to
    pattern ``to[e]`` of the layer below with the bid's sign ``how[e] - 1``, for e in
    ``start[c]..start[c + 1] - 1`` (bids that give the same move are one: 13 cards'
    layers 7-9 have 58-78% as many moves as bids)."""
    patterns, k = succ.shape[0], succ.shape[1]
    moves = (succ.reshape(patterns, k * k) * 3 + sign.reshape(patterns, k * k) + 1)
    moves.sort(axis=1)
    fresh = np.ones(moves.shape, bool)
    fresh[:, 1:] = moves[:, 1:] != moves[:, :-1]
    start = np.zeros(patterns + 1, np.int64)
    np.cumsum(fresh.sum(axis=1), out=start[1:])
    kept = moves[fresh]
    return start, kept // 3, kept % 3


@njit(cache=True, inline="always")
def _extend(reach: Ints, at: int, twin_at: int, words: int, r: int, reach_up: int,
            bits: int, out: Ints) -> bool:
    """out = the scores -R..reach_up of a chance node: its stored set (bits 0..R, d <= 0)
    and, mirrored, its twin's (d > 0 at bit R + d: the twin holds -d at bit R - d);
    return False if it is empty."""
    out[:] = 0
    out[:words] = reach[at:at + words]
    for d in range(1, min(reach_up, r) + 1):
        i = r - d
        if (reach[twin_at + i // bits] >> (i % bits)) & 1:
            out[(r + d) // bits] |= np.int64(1) << ((r + d) % bits)
    for j in range(len(out)):
        if out[j]:
            return True
    return False


@njit(cache=True)
def forward(reach: Ints, lower: Ints, sets: Ints, colex: Ints, moves: tuple[Ints, Ints, Ints],
            twin: Ints, k: int, radii: tuple[int, int], patterns_low: int,
            words: tuple[int, int, int], bits: int) -> None:
    """Mark in ``lower`` the stored chance nodes of layer k - 1 (scores d' <= 0) that
    the reachable chance nodes of layer k (``reach``: the set of (c, P) at
    ``(colex(P) * S_k + c) * words[0]``) reach without being decided (|d'| <= the
    prizes left). ``moves``: ``edges``; ``radii``: R_k and R_{k-1}; ``words``: of a set
    of layer k, of layer k - 1, and of a set of layer k extended by its twin's scores
    up to d = the highest prize (``_extend``: a draw p moves d to d + p, 0 or d - p).
    A draw moves a set one of three ways, computed once for all its moves."""
    patterns = len(twin)
    start, to, how = moves
    (w, w_low, w_ext), (r, r_low) = words, radii
    ext, moved = np.zeros(w_ext, np.int64), np.zeros((3, w_low), np.int64)
    for ip in range(len(sets)):
        for c in range(patterns):
            at = (ip * patterns + c) * w
            filled = _extend(reach, at, (ip * patterns + twin[c]) * w, w, r,
                             w_ext * bits - r - 1, bits, ext)  # at least the highest prize
            rest = sets[ip] if filled else 0
            while rest:
                low = rest & -rest
                rest ^= low
                q = sets[ip] ^ low
                p, left, cq = _points(low), _points(q), colex[q]
                some = False
                for s in range(3):
                    some |= _move(ext, w_ext, p * (s - 1) + r_low - r, max(r_low - left, 0),
                                  r_low, bits, moved[s])
                base = cq * patterns_low
                if not some:
                    continue
                if w_low == 1:  # every game up to 13 cards: one word a set
                    for e in range(start[c], start[c + 1]):
                        lower[base + to[e]] |= moved[how[e], 0]
                    continue
                for e in range(start[c], start[c + 1]):
                    cell = (base + to[e]) * w_low
                    for j in range(w_low):
                        lower[cell + j] |= moved[how[e], j]


@njit(cache=True, inline="always")
def has_score(reach: Ints, cell: int, words: int, i: int, bits: int) -> bool:
    """True if bit i (score i - R) of the set of cell ``colex(P) * S + c`` is set."""
    return bool((reach[cell * words + i // bits] >> (i % bits)) & 1)


@njit(cache=True)
def set_offsets(reach: Ints, words: int) -> Ints:
    """Return first[cell]: the scores held by the sets before ``cell`` (one more entry:
    all of them), so that a layer's reachable (c, P, d <= 0) are numbered 0.. in order."""
    cells = len(reach) // words
    first = np.empty(cells + 1, np.int64)
    total = 0
    for cell in range(cells):
        first[cell] = total
        for j in range(words):
            total += _popcount(reach[cell * words + j])
    first[cells] = total
    return first


@njit(cache=True)
def count_scores(reach: Ints) -> int:
    """Return the scores held by all the sets (``set_offsets``' last entry)."""
    total = 0
    for word in reach:
        total += _popcount(word)
    return total


@njit(cache=True, inline="always")
def score_rank(reach: Ints, first: Ints, cell: int, words: int, i: int, bits: int) -> int:
    """Return the number (``set_offsets``) of score bit i of the set of ``cell``: the
    bits set before it in the layer."""
    at, q = cell * words, i // bits
    rank: int = first[cell]
    for j in range(q):
        rank += _popcount(reach[at + j])
    return rank + _popcount(reach[at + q] & _ones(i % bits))


@njit(cache=True, inline="always")
def _stored_word(reach: Ints, twin: Ints, cell: int, j: int, words: int, r: int,
                 bits: int) -> int:
    """Return the bits of word j of ``cell``'s score set that are stored chance nodes:
    d < 0 always (bits 0..R - 1), d = 0 (bit R) only when the cell's hand pattern c is
    no greater than its twin's."""
    c = cell % len(twin)
    top = r if twin[c] >= c else r - 1  # the highest stored bit
    base = j * bits
    if base > top:
        return 0
    v: int = reach[cell * words + j]
    if top - base < bits - 1:
        v &= _ones(top - base + 1)
    return v


@njit(cache=True)
def count_stored(reach: Ints, twin: Ints, words: int, r: int, bits: int) -> int:
    """Return the stored chance nodes (c, P, d) of a layer (``_stored_word``)."""
    total = 0
    for cell in range(len(reach) // words):
        for j in range(words):
            total += _popcount(_stored_word(reach, twin, cell, j, words, r, bits))
    return total


@njit(cache=True)
def stored_by_set(reach: Ints, twin: Ints, words: int, r: int, bits: int, nsets: int) -> Ints:
    """Return counts[colex(P), d + R]: the stored chance nodes (c, P, d), d <= 0."""
    counts = np.zeros((nsets, r + 1), np.int64)
    patterns = len(twin)
    for cell in range(len(reach) // words):
        cp = cell // patterns
        for j in range(words):
            v = _stored_word(reach, twin, cell, j, words, r, bits)
            while v:
                low = v & -v
                v ^= low
                counts[cp, j * bits + _popcount(low - 1)] += 1
    return counts


__all__ = ["WORD_BITS", "count_scores", "count_stored", "edges", "forward", "has_score", "score_rank", "set_offsets",
           "stored_by_set", "words_for"]
