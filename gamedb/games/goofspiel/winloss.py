"""The layer source of win/loss Goofspiel: the point-difference index plus the score.

Only ``Goofspiel.indexed_face`` uses this module (random prize order, ties discarded,
``returns_type=win_loss``, at most ``MAX_CARDS`` cards); the point-difference face it
extends is ``goofspiel.index``. A win/loss value depends on the score, so a stored
position of layer k is (c, Q, p, d): c the *raw* hand pattern (``goofspiel-v1``'s
base-3 ``hands`` field, not reduced by the player swap), Q the k - 1 hidden prizes, p
the revealed prize and d <= 0 the score (the stored key of a position and of its
swapped twin is the one whose diff field is smaller; at d = 0 the smaller hand code).

Unlike point difference, not every (c, Q, p, d) can occur (after one round the hands
tell who won it), and the generic builder stores exactly the reachable, undecided ones.
So the face first runs a *forward pass* over the chance nodes (c, P, d) of every layer
(P the k prizes left): the root is reachable, and a reachable chance node reaches, for
each draw p in P and bids (a, b), the chance node (c', P - p, d + p * sign(a - b)) of
layer k - 1 unless that score is decided (more than the prizes left). A position
(c, Q, p, d) is stored iff its chance node (c, Q + p, d) is reachable. The scores
d <= 0 of a (c, P) are one set of bits (``goofspiel.scores``: the swapped twin holds
the others; one word up to 13 cards), so a bid moves all of them at once by a shift.

Key order is blocks (d, p, Q) with d increasing, then p, then Q's mask, each holding the
reachable patterns in increasing code: the face solves and writes in that order, and the
layer's *summary* is the chance values C_k[c, P, d] of both orientations of every
reachable chance node (the mean over the draws of the stored values, negated for the
swapped twin), accumulated in increasing p for every node as the generic builder sums
a successor's draws, so the stage games are the same doubles and the values agree bit
for bit. A decided successor contributes sign(d') / draws summed draws times, as there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import comb

import numpy as np

from gamedb.games.base import LAYER_SHIFT
from gamedb.games.goofspiel import groups
from gamedb.games.goofspiel.keys import (
    _HALF, _OFF_DIFF, _OFF_PRIZES, _OFF_TABLE, _decode_hands, _hands_code, _points,
)
from gamedb.games.goofspiel.index import (
    _rank_labels, after_bids, block_table, canonical_codes, chance_below, colex_table, masks_of,
    square_games,
)
from gamedb.games.goofspiel.scores import (
    WORD_BITS, count_scores, count_stored, edges, forward, has_score, score_rank, set_offsets,
    stored_by_set, words_for,
)
from gamedb.games.source import Chained
from gamedb.types import Floats, Ints
from gamedb.jit import njit

#: Largest game the face serves: every Goofspiel (``num_cards`` <= 13). Its tables: a
#: score set per (c, P) (8 bytes: 11 cards 91 MiB, 12 cards 481 MiB, 13 cards 2.6 GiB,
#: every layer's kept) and the moves of each pattern (``_transitions``).
MAX_CARDS = 13

ZERO = np.zeros(0, np.int64)

#: (positions, summary entries) per layer 1..n of the games whose forward pass takes
#: seconds to minutes, so that ``--estimate`` answers at once. Counted by that pass
#: (``reach``; CPU: 11 cards 10 s, 12 cards 53 s, 13 cards 334 s and 4.7 GB), which a
#: build runs again and checks against these (``tests/games/test_goofspiel_winloss.py``).
COUNTED: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {
    11: ((220, 17_930, 577_044, 10_086_492, 94_927_815, 337_437_822, 249_263_917,
          35_998_496, 1_090_440, 6_160, 11),
         (231, 9_295, 197_463, 2_574_413, 19_366_461, 57_527_145, 36_539_541, 4_620_412,
          121_160, 616, 1)),
    12: ((258, 23_232, 831_921, 16_728_864, 200_246_395, 1_270_700_460, 2_548_801_990,
          1_092_176_192, 101_703_078, 2_139_720, 8_844, 12),
         (270, 12_012, 284_127, 4_261_416, 40_713_808, 215_550_621, 371_724_154,
          139_712_062, 11_580_872, 213_972, 804, 1)),
    13: ((299, 29_484, 1_162_590, 26_133_208, 371_193_090, 3_226_489_308, 13_431_966_772,
          15_731_342_488, 4_162_470_012, 261_589_950, 3_961_320, 12_324, 13),
         (312, 15_210, 396_396, 6_647_702, 75_320_672, 545_399_313, 1_950_229_440,
          2_003_742_328, 472_243_872, 26_770_419, 360_120, 1_027, 1)),
}


def radius(n: int, k: int) -> int:
    """Return R_k, the largest |score| a chance node of layer k can hold undecided:
    at most the k highest prizes, and at most T // 2 (the key's bias).

    >>> [radius(4, k) for k in range(1, 5)]
    [4, 5, 5, 5]
    """
    return min(n * (n + 1) // 4, sum(range(n - k + 1, n + 1)))


class WinLossIndex(Chained):
    """The layer source (``games.source.LayerSource``) of win/loss Goofspiel with
    random prize order and discarded ties; keys are ``goofspiel-v1`` keys."""

    #: Bytes of a row's two strategy texts (``gamedb.builder.estimate``): 8 and 9 cards measured
    #: 76 and 89 B of JSON, rising with the cards (point difference: ~195 B).
    strategy_disk = 95

    def __init__(self, n: int, lay: Ints, *, word_bits: int = WORD_BITS,
                 group_target: int | None = None):
        """``lay``: the layout constants of the game's compiled helpers; ``word_bits``:
        bits used of each word of a score set (fewer in tests: several words at small n);
        ``group_target``: positions of a prize-set group (``goofspiel.groups``; fewer in
        tests: several groups at small n)."""
        self.n, self._lay, self.word_bits = n, lay, word_bits
        self.group_target = groups.GROUP_TARGET if group_target is None else group_target
        self._bounds: dict[int, Ints] = {}
        self._runs: dict[int, tuple[Ints, Ints]] = {}
        self.words = {k: words_for(radius(n, k) + 1, word_bits) for k in range(1, n + 1)}
        self.colex = colex_table(n)
        self._codes = {k: canonical_codes(n, k, lay, reduce=False) for k in range(1, n + 1)}
        self._tables: dict[int, tuple[Ints, Ints, np.ndarray]] = {}
        self._reach: dict[int, Ints] | None = None
        self._blocks: dict[int, tuple[Ints, Ints, Ints, Ints]] = {}
        self._sizes: dict[int, int] = {}
        self._offsets: dict[int, Ints] = {}
        self._set_starts: dict[int, Ints] = {}
        self._held: Cells | None = None  # a group's copy: the cells it holds (``with_cells``)
        self._last: tuple[tuple[int, int, int], tuple[Ints, Ints]] = ((0, 0, 0), (ZERO, ZERO))

    def with_word_bits(self, word_bits: int) -> WinLossIndex:
        """Return the face of the same game with score sets of ``word_bits`` bits a word
        (the same positions; tests spread small games' sets over several words)."""
        return WinLossIndex(self.n, self._lay, word_bits=word_bits,
                            group_target=self.group_target)

    def with_group_target(self, group_target: int) -> WinLossIndex:
        """Return the face of the same game cut in groups of about ``group_target``
        positions (tests: several groups at small n; another cut is another page cut)."""
        return WinLossIndex(self.n, self._lay, word_bits=self.word_bits,
                            group_target=group_target)

    def layers(self) -> range:
        """Layers 1..n: layer k reads the chance values of layer k - 1."""
        return range(1, self.n + 1)

    def table_bytes(self) -> int:
        """Every layer's score sets (``reach``) and moves (``tables``: 17 B a bid, kept
        for the forward pass), and the summary offsets of two adjacent layers."""
        cells = {k: comb(self.n, k) * len(codes) for k, codes in self._codes.items()}
        moves = sum(len(codes) * (8 + 9 * k * k) for k, codes in self._codes.items())
        offsets = [8 * (cells[k] + 1) for k in self.layers()]
        return (sum(8 * cells[k] * self.words[k] for k in self.layers()) + moves
                + max(a + b for a, b in zip(offsets, offsets[1:] + [0])))

    def size(self, layer: int) -> int:
        """Stored positions of ``layer`` (reachable and undecided): k per stored chance
        node, one for each draw (counted from the score sets, without the blocks)."""
        if layer not in self._sizes:
            if self._reach is None and self.n in COUNTED:  # no forward pass: minutes
                return COUNTED[self.n][0][layer - 1]
            if layer in self._blocks:
                self._sizes[layer] = int(self._blocks[layer][3][-1])
            else:
                n = self.n
                self._sizes[layer] = layer * count_stored(
                    self.reach()[layer], self.tables(layer)[0], self.words[layer],
                    radius(n, layer), self.word_bits)
        return self._sizes[layer]

    def summary_size(self, layer: int) -> int:
        """Entries of ``layer``'s summary: the chance values of its reachable chance
        nodes (c, P, d <= 0), each scores set's in turn (``scores.set_offsets``)."""
        if self._reach is None and self.n in COUNTED:
            return COUNTED[self.n][1][layer - 1]
        return int(self.offsets(layer)[-1])

    def offsets(self, layer: int) -> Ints:
        """Return where each (c, P)'s chance values start in ``layer``'s summary (kept
        for this layer and the one below: the builder climbs)."""
        if layer not in self._offsets:
            for old in [k for k in self._offsets if k < layer - 1]:
                del self._offsets[old]
            self._offsets[layer] = set_offsets(self.reach()[layer], self.words[layer])
        return self._offsets[layer]

    def set_starts(self, layer: int) -> Ints:
        """Return where each prize set's chance values start in ``layer``'s summary (colex
        order; one more entry: the summary's size)."""
        if layer not in self._set_starts:
            self._set_starts[layer] = self.offsets(layer)[::len(self._codes[layer])].copy()
        return self._set_starts[layer]

    def _set_numbers(self, layer: int) -> Ints:
        """The numbering of prize sets that ``reach()[layer]`` and ``offsets(layer)`` are
        laid out by: colex, or a group's own (``with_cells``)."""
        held = self._held
        return held.numbering if held is not None and held.layer == layer else self.colex

    def _copy(self) -> WinLossIndex:
        """A shallow copy (``for_layer``, ``with_cells`` replace what it holds), with no
        range kept from ``_positions``."""
        part = WinLossIndex.__new__(WinLossIndex)
        part.__dict__.update(self.__dict__)
        part._last = ((0, 0, 0), (ZERO, ZERO))
        return part

    def tables(self, k: int) -> tuple[Ints, Ints, np.ndarray]:
        """Return (twin, succ, sign) of layer k: the index of each pattern's swapped
        twin, the successor pattern of bids (a, b) in layer k - 1, and the bid's sign."""
        if k not in self._tables:
            lower = self._codes.get(k - 1, np.zeros(1, np.int64))
            self._tables[k] = _transitions(self._codes[k], lower, k, self._lay)
        return self._tables[k]

    def reach(self) -> dict[int, Ints]:
        """Return the reachable chance nodes of every layer (the forward pass, once)."""
        if self._reach is None:
            n, bits, words = self.n, self.word_bits, self.words
            # the set of (c, P) at (colex(P) * S_k + c) * words[k]: bit R_k + d for d <= 0
            root = np.zeros(words[n], np.int64)
            root[radius(n, n) // bits] = 1 << (radius(n, n) % bits)  # score 0
            reach = {n: root}
            for k in range(n, 1, -1):
                r, r_low = radius(n, k), radius(n, k - 1)
                reach[k - 1] = np.zeros(comb(n, k - 1) * len(self._codes[k - 1]) * words[k - 1],
                                        np.int64)
                twin, succ, sign = self.tables(k)
                forward(reach[k], reach[k - 1], masks_of(n, k), self.colex, edges(succ, sign),
                        twin, k, (r, r_low), len(self._codes[k - 1]),
                        (words[k], words[k - 1], words_for(r + n + 1, bits)), bits)
            self._reach = reach
            if n in COUNTED:
                self._check_counted()
        return self._reach

    def _check_counted(self) -> None:
        """Raise RuntimeError if the forward pass disagrees with ``COUNTED``."""
        reach = self.reach()
        counted = (tuple(self.size(k) for k in self.layers()),
                   tuple(count_scores(reach[k]) for k in self.layers()))
        if counted != COUNTED[self.n]:
            raise RuntimeError(f"{self.n}-card win/loss: the forward pass counts {counted}, "
                               f"not the recorded {COUNTED[self.n]}")

    def blocks(self, layer: int) -> tuple[Ints, Ints, Ints, Ints]:
        """Return the blocks (d, p, Q) of ``layer`` in key order and the offsets of
        their first positions (one more entry: the layer's size)."""
        if layer not in self._blocks:
            n, r = self.n, radius(self.n, layer)
            score, prize, hidden = _block_table(n, layer)
            by_set = stored_by_set(self.reach()[layer], self.tables(layer)[0], self.words[layer],
                                   r, self.word_bits, comb(n, layer))
            counts = by_set[self.colex[hidden | (1 << (prize - 1))], score + r]
            offsets = np.zeros(len(score) + 1, np.int64)
            np.cumsum(counts, out=offsets[1:])
            self._blocks[layer] = (score, prize, hidden, offsets)
        return self._blocks[layer]

    # -- key order (the protocol's second half; the builder uses these) ----------------

    def chunks(self, layer: int, target: int) -> list[tuple[int, int]]:
        """Cut the layer's key order at block boundaries, about ``target`` positions each,
        never across a run of one prize-set group (``goofspiel.groups``; any position
        is a valid start: ``accumulate`` takes any range)."""
        return groups.cut(self.runs(layer)[0], self.blocks(layer)[3], target)

    # -- prize-set groups (``goofspiel.groups``: map by Q, reduce by P) -----------------

    def set_bounds(self, size: int) -> Ints:
        """Return the groups of the prize sets of ``size`` cards (colex ranks
        bounds[g]..bounds[g+1]-1), packed by the work each set brings to the two kinds
        of task that use the cut: the positions of layer ``size + 1`` that hide it (a
        map task's), and the terms its chance nodes of layer ``size`` receive (a reduce
        task's: ``size`` an entry). One group for the n cards."""
        if size not in self._bounds:
            sets = comb(self.n, size)
            if size >= self.n:
                self._bounds[size] = np.array([0, sets], np.int64)
            else:
                _, _, hidden, offsets = self.blocks(size + 1)
                weights = np.bincount(self.colex[hidden], np.diff(offsets), minlength=sets)
                if size >= 1:
                    patterns = len(self._codes[size])
                    entries = np.diff(self.offsets(size)[::patterns])
                    weights = np.maximum(weights, size * entries)
                self._bounds[size] = groups.pack(weights.astype(np.int64), self.group_target)
        return self._bounds[size]

    def runs(self, layer: int) -> tuple[Ints, Ints]:
        """Return the runs of ``layer`` (``groups.runs``: first block of each, one more
        entry, and each run's map group, a group of the sets of ``layer - 1`` cards)."""
        if layer not in self._runs:
            hidden = self.blocks(layer)[2]
            group = np.searchsorted(self.set_bounds(layer - 1), self.colex[hidden], "right") - 1
            self._runs[layer] = groups.runs(group.astype(np.int64))
        return self._runs[layer]

    def map_groups(self, layer: int, target: int) -> dict[int, list[int]]:
        """Return, for each map group of ``layer``, the numbers of its ``chunks(layer,
        target)`` (its chunks are its keyed pages: their numbers are page numbers)."""
        starts, group = self.runs(layer)
        offsets = self.blocks(layer)[3]
        firsts = np.array([start for start, _ in self.chunks(layer, target)], np.int64)
        run = np.searchsorted(offsets[starts], firsts, "right") - 1
        out: dict[int, list[int]] = {}
        for number, g in enumerate(group[run].tolist()):
            out.setdefault(g, []).append(number)
        return out

    def for_layer(self, layer: int) -> WinLossIndex:
        """Return a copy holding the tables every map task of ``layer`` reads, whatever its
        group: the moves of ``layer`` and of the layer below, ``layer``'s blocks, runs and
        groups, and where its prize sets start in its summary. Not the score sets and their
        offsets: each task gets its group's (``group_cells``, ``with_cells``). What a
        cluster's workers are sent once a layer (13 cards: at most 0.2 GiB, where the
        score sets of two layers and their offsets take 3.5 GiB)."""
        self.runs(layer)
        part = self._copy()
        part._reach = {}
        part._tables = {k: self.tables(k) for k in (layer - 1, layer) if k >= 1}
        part._blocks = {layer: self.blocks(layer)}
        part._offsets = {}
        part._set_starts = {layer: self.set_starts(layer)}
        part._runs = {layer: self._runs[layer]}
        part._bounds = {size: self.set_bounds(size) for size in (layer - 1, layer)}
        part._sizes = {layer: self.size(layer)}
        return part

    def group_cells(self, layer: int, group: int) -> Cells:
        """Return the score sets the map task of group ``group`` of ``layer`` reads: those
        of the chance nodes (c, P) its positions (c, Q, p, d) belong to (P = Q + p, Q in
        the group), with their offsets in ``layer``'s summary, and those of the cells
        (c, Q) of the layer below (``group_slice``'s). 13 cards: ~12 MB a group of one
        prize set."""
        n, patterns, words = self.n, len(self._codes[layer]), self.words[layer]
        bounds = self.set_bounds(layer - 1)
        sets = _grown(masks_of(n, layer - 1)[bounds[group]:bounds[group + 1]], n)
        numbering = np.full(1 << n, -1, np.int64)
        numbering[sets] = np.arange(len(sets))
        cells = (self.colex[sets][:, None] * patterns + np.arange(patterns)).reshape(-1)
        reach = self.reach()[layer][(cells[:, None] * words + np.arange(words)).reshape(-1)]
        below = None if layer == 1 else self._slice_tables(layer, group)
        return Cells(layer, group, numbering, reach, self.offsets(layer)[cells], below)

    def with_cells(self, cells: Cells) -> WinLossIndex:
        """Return this copy (``for_layer(cells.layer)``) completed with one group's score
        sets (``group_cells``): the source its map task solves and adds up with, for the
        ranges of that group only."""
        part = self._copy()
        part._reach = {cells.layer: cells.reach}
        part._offsets = {cells.layer: cells.first}
        part._held = cells
        return part

    def cells_bytes(self, layer: int) -> Ints:
        """Return the bytes of each map group's ``group_cells`` of ``layer``
        (``builder.cluster_plan``), counted without making them."""
        n, low = self.n, layer - 1
        bounds = self.set_bounds(low)
        touched = [len(_grown(hidden, n)) for hidden in np.split(masks_of(n, low), bounds[1:-1])]
        cell = 8 * self.words[layer] + 8  # a score set and its offset
        out: Ints = np.array(touched, np.int64) * len(self._codes[layer]) * cell + (8 << n)
        if low >= 1:  # the cells below (``Slice``: score sets, offsets, one more; local)
            low_cells = np.diff(bounds) * len(self._codes[low])
            out += low_cells * (8 * self.words[low] + 8) + 8 + (8 << n)
        return out

    def map_group_sizes(self, layer: int) -> Ints:
        """Return the positions of each map group of ``layer`` (``builder.cluster_plan``)."""
        _, _, hidden, offsets = self.blocks(layer)
        per_set = np.bincount(self.colex[hidden], np.diff(offsets),
                              minlength=comb(self.n, layer - 1)).astype(np.int64)
        sizes: Ints = np.add.reduceat(per_set, self.set_bounds(layer - 1)[:-1])
        return sizes

    def stage_size(self, layer: int) -> int:
        """Return the rows of ``layer``'s stage games, and the terms each of its summary
        entries receives (one a draw): k for layer k (``builder.cluster_plan``)."""
        return layer

    def layer_bytes(self, layer: int) -> int:
        """Bytes of ``for_layer(layer)``'s tables (``builder.cluster_plan``)."""
        part = self.for_layer(layer)
        arrays = [*(a for t in part._tables.values() for a in t), *part._blocks[layer],
                  *part._set_starts.values(), *part._codes.values(), part.colex]
        return sum(int(a.nbytes) for a in arrays)

    def partition(self, layer: int, group: int, summary: Floats) -> Floats:
        """Return group ``group``'s part of ``layer``'s summary (the sets of ``layer``
        cards in it): one contiguous run, P-major."""
        lo, hi = self._part_range(layer, group)
        part: Floats = summary[lo:hi]
        return part

    def _cells(self, layer: int, group: int) -> tuple[int, int]:
        bounds, patterns = self.set_bounds(layer), len(self._codes[layer])
        return int(bounds[group]) * patterns, int(bounds[group + 1]) * patterns

    def group_slice(self, layer: int, group: int, part: Floats | None) -> Slice:
        """Return what the map task of group ``group`` of ``layer`` reads below, from that
        group's ``partition`` of layer ``layer - 1``'s summary (the same doubles as
        ``slice_below`` for any range of the group's runs)."""
        if layer == 1:
            return self.slice_below(1, 0, 1, None)
        held = self._held
        if held is None:  # the whole index
            below = self._slice_tables(layer, group)
        else:
            assert (held.layer, held.group) == (layer, group) and held.below is not None, \
                "a group's copy reads only its own group"
            below = held.below
        assert part is not None and len(part) == below.first[-1], "the group's part"
        return replace(below, chance=part)

    def _slice_tables(self, layer: int, group: int) -> Slice:
        """``group_slice`` without the chance values."""
        low = layer - 1
        lo, hi = self._cells(low, group)
        bounds, words = self.set_bounds(low), self.words[low]
        first = self.offsets(low)
        local = np.full(1 << self.n, -1, np.int64)
        sets = masks_of(self.n, low)[bounds[group]:bounds[group + 1]]
        local[sets] = np.arange(len(sets))
        return Slice(local, self.reach()[low][lo * words:hi * words].copy(),
                     first[lo:hi + 1] - first[lo], np.zeros(0))

    def contributions(self, layer: int, start: int, stop: int,
                      values: Floats) -> dict[int, tuple[Ints, Floats, Ints]]:
        """Return what the values of positions start..stop-1 add to ``layer``'s summary,
        by reduce group: (entries in the group's ``partition``, int32; terms; draws p,
        int8), in key order: 13 bytes a term, about one term a position (a map task
        makes its chunks' whole segments of them with ``dense``, which ``reduce`` adds as
        ``accumulate`` does)."""
        block, code = self._positions(layer, start, stop)
        score, prize, hidden, _ = self.blocks(layer)
        entry, term, at = _contributions(
            np.ascontiguousarray(values, np.float64), block, code, (score, prize, hidden),
            self.tables(layer)[0], self._set_numbers(layer), layer, (self.reach()[layer], self.offsets(layer)),
            (radius(self.n, layer), self.words[layer], self.word_bits))
        bounds, starts = self.set_bounds(layer), self.set_starts(layer)
        owner = np.searchsorted(bounds, self.colex[
            hidden[block[at]] | (1 << (prize[block[at]] - 1))], "right") - 1
        out: dict[int, tuple[Ints, Floats, Ints]] = {}
        for g in np.unique(owner).tolist():
            mine = owner == g
            base = starts[int(bounds[g])]
            out[g] = ((entry[mine] - base).astype(np.int32), term[mine],
                      prize[block[at[mine]]].astype(np.int8))
        return out

    def feeds(self, layer: int) -> dict[int, list[int]]:
        """Return, for each reduce group of ``layer``, the map groups whose positions
        (c, Q, p, d) add to it (P = Q + p in it)."""
        n, low = self.n, layer - 1
        sets = masks_of(n, low)
        group = np.searchsorted(self.set_bounds(low), np.arange(len(sets)), "right") - 1
        top = self.set_bounds(layer)
        out: dict[int, set[int]] = {}
        for p in range(n):
            free = (sets >> p) & 1 == 0
            owner = np.searchsorted(top, self.colex[sets[free] | (1 << p)], "right") - 1
            for h, g in set(zip(owner.tolist(), group[free].tolist())):
                out.setdefault(h, set()).add(g)
        return {h: sorted(gs) for h, gs in sorted(out.items())}

    def part_sizes(self, layer: int) -> list[int]:
        """Return the entries of each reduce group's ``partition`` of ``layer``."""
        groups = len(self.set_bounds(layer)) - 1
        return [int(b - a) for a, b in (self._part_range(layer, g) for g in range(groups))]

    def _part_range(self, layer: int, group: int) -> tuple[int, int]:
        bounds, starts = self.set_bounds(layer), self.set_starts(layer)
        return int(starts[bounds[group]]), int(starts[bounds[group + 1]])

    def dense(self, layer: int, group: int, piece: tuple[Ints, Floats, Ints]) -> Dense:
        """Return the ``contributions`` of a whole map task to reduce group ``group``
        (every chunk's, joined) as segments, one for each (P, p) they reach: a term for
        every chance value of P, in order. A chance value (c, P, d) gets exactly one
        term a draw p, from its position (c, P - p, p, d) or at d = 0 from its twin's,
        and P - p is in one map group, so the segments are whole: 8 bytes a term, not 13.
        Returns (spans: [start, stop) in the group's part, draws, values)."""
        entry, term, draw = piece
        bounds = self.set_bounds(layer)
        starts = self.set_starts(layer)[bounds[group]:bounds[group + 1] + 1]
        starts = starts - starts[0]
        counts = _segment_counts(entry, draw, starts)  # [set, draw]: terms
        sets, draws = np.nonzero(counts)
        spans = np.stack([starts[sets], starts[sets + 1]], axis=1)
        sizes = spans[:, 1] - spans[:, 0]
        at = np.zeros(len(sets) + 1, np.int64)
        np.cumsum(sizes, out=at[1:])
        index = np.full(counts.shape, -1, np.int64)
        index[sets, draws] = np.arange(len(sets))
        values = np.empty(int(at[-1]))
        # filled only once every segment has as many terms as slots (else ``index`` -1)
        if not (np.array_equal(counts[sets, draws], sizes)
                and _fill_segments(entry, term, draw, starts, index, at, values)):
            raise RuntimeError(f"layer {layer}: the terms for reduce group {group} are not "
                               "one a chance value and draw")
        return spans, draws.astype(np.int8), values

    @staticmethod
    def reduce(size: int, pieces: list[Dense]) -> Floats:
        """Return a group's part of a layer's summary (``size`` entries) from the map
        tasks' ``dense`` pieces for it, in any order: added in increasing draw p, each
        entry from 0.0, as ``accumulate`` adds them (the order within a draw is free:
        an entry gets one term a draw)."""
        part = np.zeros(size)
        segments = []
        for spans, draws, values in pieces:
            at = np.concatenate([[0], np.cumsum(spans[:, 1] - spans[:, 0])]).tolist()
            segments += [(d, a, b, values, o) for d, (a, b), o in
                         zip(draws.tolist(), spans.tolist(), at)]
        for _, a, b, values, o in sorted(segments, key=lambda s: s[0]):
            part[a:b] += values[o:o + b - a]
        return part

    def _positions(self, layer: int, start: int, stop: int) -> tuple[Ints, Ints]:
        """Return the block and the pattern of positions start..stop-1 (key order); the
        last range is kept (a chunk asks for its keys, actions, games and sums)."""
        if self._last[0] != (layer, start, stop):
            if not 0 <= start < stop <= self.size(layer):
                raise ValueError(f"range {start}..{stop} is not inside layer {layer}")
            score, prize, hidden, offsets = self.blocks(layer)
            self._last = ((layer, start, stop), _positions(
                start, stop, offsets, score, prize, hidden, self.reach()[layer],
                self.tables(layer)[0], self._set_numbers(layer), radius(self.n, layer),
                (self.words[layer], self.word_bits)))
        return self._last[1]

    def keys(self, layer: int, start: int, stop: int) -> Ints:
        """Return the keys of positions start..stop-1 in key order (increasing)."""
        block, code = self._positions(layer, start, stop)
        score, prize, hidden, _ = self.blocks(layer)
        lay = self._lay
        keys: Ints = ((layer << LAYER_SHIFT) | ((score[block] + lay[_HALF]) << lay[_OFF_DIFF])
                      | (prize[block] << lay[_OFF_TABLE]) | (hidden[block] << lay[_OFF_PRIZES])
                      | self._codes[layer][code])
        return keys

    def key_factors(self, layer: int) -> None:
        """None: a block holds only the hand classes its scores reach, so the keys are
        no product (page layers are not offered yet)."""
        return None

    def actions(self, layer: int, start: int, stop: int) -> tuple[Ints, Ints]:
        """Return the action labels (card ranks) of positions start..stop-1."""
        _, code = self._positions(layer, start, stop)
        row, col = _rank_labels(self._codes[layer], layer, self._lay)
        return row[code], col[code]

    def games(self, layer: int, start: int, stop: int,
              below: Floats | Slice | None) -> tuple[Floats, Ints, Ints]:
        """Return the k x k stage games of positions start..stop-1 in key order, from
        the summary of the layer below or from its ``slice_below`` for this range (the
        same doubles)."""
        block, code = self._positions(layer, start, stop)
        score, prize, hidden, _ = self.blocks(layer)
        _, succ, sign = self.tables(layer)
        payoffs = np.empty((stop - start, layer, layer))
        low = max(layer - 1, 1)  # layer 1's games read nothing below
        if isinstance(below, Slice):
            sets, chance, colex = (below.reach, below.first), below.chance, below.local
        else:
            sets, chance = (self.reach()[low], self.offsets(low)), chance_below(layer, below)
            colex = self._set_numbers(low)
        _games(block, code, (score, prize, hidden), layer, colex, succ, sign, chance,
               (*sets, self.tables(low)[0]), (radius(self.n, low), self.words[low],
                                               self.word_bits), payoffs)
        return square_games(payoffs)

    def slice_below(self, layer: int, start: int, stop: int, below: Floats | None) -> Slice:
        """Return what the stage games of positions start..stop-1 read of the layer
        below's summary ``below``: the chance values of the prize sets Q their blocks
        (d, p, Q) draw from, with those sets' score sets and offsets. The summary is
        P-major, so each Q is one run of it; a range of one block reads one run (13
        cards: at most 1.9 M chance values, 15 MB, of layer 8's 16 GB summary;
        ``bench/winloss_plan.py``)."""
        if layer == 1:
            return Slice(np.full(1 << self.n, -1, np.int64), ZERO, np.zeros(1, np.int64),
                         np.zeros(1))
        chance = chance_below(layer, below)
        block, _ = self._positions(layer, start, stop)
        hidden = self.blocks(layer)[2]
        low, patterns = layer - 1, len(self._codes[layer - 1])
        reach, first, words = self.reach()[low], self.offsets(low), self.words[low]
        sets = np.unique(hidden[np.unique(block)])
        cells = (self._set_numbers(low)[sets][:, None] * patterns + np.arange(patterns)).reshape(-1)
        runs = first[cells]
        local = np.full(1 << self.n, -1, np.int64)
        local[sets] = np.arange(len(sets))
        ends = np.append(runs[1:], 0)
        ends[patterns - 1::patterns] = first[cells[patterns - 1::patterns] + 1]
        sizes = ends - runs
        new_first = np.zeros(len(cells) + 1, np.int64)
        np.cumsum(sizes, out=new_first[1:])
        taken = [chance[a:b] for a, b in zip(runs[::patterns].tolist(),
                                              ends[patterns - 1::patterns].tolist())]
        words_at = (cells[:, None] * words + np.arange(words)).reshape(-1)
        return Slice(local, reach[words_at], new_first,
                     np.concatenate(taken) if taken else np.zeros(0))

    def accumulate(self, layer: int, start: int, stop: int, values: Floats,
                   summary: Floats) -> None:
        """Add the values of positions start..stop-1 (key order) to ``summary`` (zeros of
        ``summary_size`` at first): their chance nodes', in order, and at score 0 the
        twin's too (negated)."""
        block, code = self._positions(layer, start, stop)
        score, prize, hidden, _ = self.blocks(layer)
        _accumulate(np.ascontiguousarray(values, np.float64), block, code, (score, prize, hidden),
                    self.tables(layer)[0], self._set_numbers(layer), layer,
                    (self.reach()[layer], self.offsets(layer)),
                    (radius(self.n, layer), self.words[layer], self.word_bits), summary)


Dense = tuple[Ints, Ints, Floats]
"""A map task's terms for one reduce group, as whole segments (``WinLossIndex.dense``)."""


@dataclass(frozen=True, slots=True, eq=False)
class Slice:
    """What a range of a layer reads of the layer below (``WinLossIndex.slice_below``):
    the cells (c, Q) of a few prize sets Q, renumbered from 0 in the order of ``local``."""

    local: Ints
    """Prize-set mask -> its number in the slice (-1: not in it): the ``colex`` the
    stage games use instead of the layer's."""
    reach: Ints
    """The cells' score sets (``words`` a cell)."""
    first: Ints
    """Where each cell's chance values start in ``chance`` (one more entry: the end)."""
    chance: Floats
    """The chance values of the cells, in order."""


@dataclass(frozen=True, slots=True, eq=False)
class Cells:
    """The score sets one map task reads (``WinLossIndex.group_cells``)."""

    layer: int
    group: int
    numbering: Ints
    """Prize-set mask -> its number among the task's sets P of ``layer`` cards (-1: none)."""
    reach: Ints
    """The score sets of those P's cells (c, P), in that order."""
    first: Ints
    """Where each of those cells' chance values start in ``layer``'s summary."""
    below: Slice | None
    """The group's cells of the layer below, without their chance values (none for
    layer 1)."""


def _grown(hidden: Ints, n: int) -> Ints:
    """Return the distinct prize sets Q + p of the sets ``hidden`` (masks of n cards),
    p any card not in Q, in increasing mask (colex) order."""
    cards = np.int64(1) << np.arange(n, dtype=np.int64)
    grown = hidden[:, None] | cards
    sets: Ints = np.unique(grown[grown != hidden[:, None]])
    return sets


@njit(cache=True)
def _transitions(codes: Ints, lower: Ints, k: int, lay: Ints) -> tuple[Ints, Ints, np.ndarray]:
    """Return (twin, succ, sign) of layer k; ``lower``: the patterns of layer k - 1."""
    twin = np.empty(len(codes), np.int64)
    succ = np.zeros((len(codes), k, k), np.int64)
    sign = np.zeros((len(codes), k, k), np.int8)
    for c in range(len(codes)):
        h1, h2 = _decode_hands((k << LAYER_SHIFT) | codes[c], lay)
        twin[c] = np.searchsorted(codes, _hands_code(h1, h2, lay)[1])
        for a in range(k):
            for b in range(k):
                s, code, _ = after_bids(h1, h2, a, b, lay)
                sign[c, a, b] = s
                if k > 1:
                    succ[c, a, b] = np.searchsorted(lower, code)
    return twin, succ, sign


def _block_table(n: int, k: int) -> tuple[Ints, Ints, Ints]:
    """Return the blocks (d, p, Q) of layer k in key order: d from -R_k to 0, then the
    point-difference face's blocks (p, Q) (``goofspiel.index.block_table``)."""
    prize, hidden = block_table(n, k)
    scores = np.arange(-radius(n, k), 1, dtype=np.int64)
    return np.repeat(scores, len(prize)), np.tile(prize, len(scores)), np.tile(hidden, len(scores))


@njit(cache=True, inline="always")
def _stored(reach: Ints, twin: Ints, c: int, d: int, cp: int, r: int,
            words: tuple[int, int]) -> bool:
    """True if pattern c with score d <= 0 and prizes cp is a stored orientation and
    reachable (``words``: of a score set, and bits a word)."""
    return (d < 0 or twin[c] >= c) and has_score(reach, cp * len(twin) + c, words[0], d + r,
                                                 words[1])


@njit(cache=True)
def _positions(start: int, stop: int, offsets: Ints, score: Ints, prize: Ints, hidden: Ints,
               reach: Ints, twin: Ints, colex: Ints, r: int,
               words: tuple[int, int]) -> tuple[Ints, Ints]:
    """Return (block, pattern) of positions start..stop-1."""
    block, code = np.empty(stop - start, np.int64), np.empty(stop - start, np.int64)
    j = np.searchsorted(offsets, start, side="right") - 1
    i, o = offsets[j], 0
    while i < stop:
        cp = colex[hidden[j] | (1 << (prize[j] - 1))]
        for c in range(len(twin)):
            if i >= stop:
                break
            if _stored(reach, twin, c, score[j], cp, r, words):
                if i >= start:
                    block[o], code[o] = j, c
                    o += 1
                i += 1
        j += 1
    return block, code


@njit(cache=True)
def _games(block: Ints, code: Ints, blocks: tuple[Ints, Ints, Ints], k: int, colex: Ints,
           succ: Ints, sign: np.ndarray, chance: Floats, low: tuple[Ints, Ints, Ints],
           shape: tuple[int, int, int], out: Floats) -> None:
    """Fill out[i] with the stage game of position i: the chance value of each bid's
    successor (c', Q, d'), 0 - C[twin c', Q, -d'] for d' > 0, or the payoff of a decided
    one summed over the draws as ``_expand``. ``low``: the score sets, their offsets
    (``scores.set_offsets``) and the twins of layer k - 1; ``shape``: its R, words a
    set, bits a word."""
    score, prize, hidden = blocks
    reach, first, twin = low
    r_low, words, bits = shape
    patterns = len(twin)
    for i in range(len(block)):
        j, c = block[i], code[i]
        p, q = prize[j], hidden[j]
        left, cq = _points(q), colex[q]
        for a in range(k):
            for b in range(k):
                d = score[j] + p * sign[c, a, b]
                s = (d > 0) - (d < 0)
                if k == 1:
                    out[i, a, b] = 0.0 + s
                elif abs(d) > left:
                    w, total = s / (k - 1), 0.0
                    for _ in range(k - 1):
                        total += w
                    out[i, a, b] = total
                elif d <= 0:
                    cell = cq * patterns + succ[c, a, b]
                    out[i, a, b] = chance[score_rank(reach, first, cell, words, d + r_low, bits)]
                else:
                    cell = cq * patterns + twin[succ[c, a, b]]
                    # 0.0 - x: +0.0 for a zero sum, as the twin's own sum of -V / k was
                    out[i, a, b] = 0.0 - chance[score_rank(reach, first, cell, words, r_low - d,
                                                           bits)]


@njit(cache=True)
def _accumulate(values: Floats, block: Ints, code: Ints, blocks: tuple[Ints, Ints, Ints],
                twin: Ints, colex: Ints, k: int, sets: tuple[Ints, Ints],
                shape: tuple[int, int, int], out: Floats) -> None:
    """out[(c, P, d)] += V / k and, at d = 0, out[(twin, P, 0)] += -V / k, position by
    position (the twin of d < 0 is d > 0: not kept, it is -out[(c, P, d)])."""
    score, prize, hidden = blocks
    reach, first = sets
    r, words, bits = shape
    inv, patterns = 1.0 / k, len(twin)
    for i in range(len(block)):
        j, c = block[i], code[i]
        d, cp = score[j], colex[hidden[j] | (1 << (prize[j] - 1))]
        out[score_rank(reach, first, cp * patterns + c, words, d + r, bits)] += inv * values[i]
        t = twin[c]
        if d == 0 and t != c:
            twin_at = score_rank(reach, first, cp * patterns + t, words, r, bits)
            out[twin_at] += (-1.0 / k) * values[i]


@njit(cache=True)
def _segment_counts(entry: Ints, draw: Ints, starts: Ints) -> Ints:
    """Return counts[s, p]: the terms (``entry``, ``draw``) that fall in prize set s of a
    part whose sets start at ``starts`` (one more entry: the part's size), draw p."""
    counts = np.zeros((len(starts) - 1, 64), np.int64)
    for i in range(len(entry)):
        counts[np.searchsorted(starts, entry[i], "right") - 1, draw[i]] += 1
    return counts


@njit(cache=True)
def _fill_segments(entry: Ints, term: Floats, draw: Ints, starts: Ints, index: Ints,
                   at: Ints, values: Floats) -> bool:
    """values[at[index[s, p]] + entry - starts[s]] = term for every term; False unless
    every slot got exactly one."""
    filled = np.zeros(len(values), np.bool_)
    for i in range(len(entry)):
        s = np.searchsorted(starts, entry[i], "right") - 1
        slot = at[index[s, draw[i]]] + entry[i] - starts[s]
        if filled[slot]:
            return False
        filled[slot] = True
        values[slot] = term[i]
    return True


@njit(cache=True)
def _contributions(values: Floats, block: Ints, code: Ints, blocks: tuple[Ints, Ints, Ints],
                   twin: Ints, colex: Ints, k: int, sets: tuple[Ints, Ints],
                   shape: tuple[int, int, int]) -> tuple[Ints, Floats, Ints]:
    """The terms ``_accumulate`` adds, in its order: (summary entry, term, position)."""
    score, prize, hidden = blocks
    reach, first = sets
    r, words, bits = shape
    inv, patterns = 1.0 / k, len(twin)
    entry = np.empty(2 * len(block), np.int64)
    term = np.empty(2 * len(block))
    at = np.empty(2 * len(block), np.int64)
    o = 0
    for i in range(len(block)):
        j, c = block[i], code[i]
        d, cp = score[j], colex[hidden[j] | (1 << (prize[j] - 1))]
        entry[o] = score_rank(reach, first, cp * patterns + c, words, d + r, bits)
        term[o], at[o] = inv * values[i], i
        o += 1
        t = twin[c]
        if d == 0 and t != c:
            entry[o] = score_rank(reach, first, cp * patterns + t, words, r, bits)
            term[o], at[o] = (-1.0 / k) * values[i], i
            o += 1
    return entry[:o], term[:o], at[:o]


__all__ = ["Cells", "Dense", "MAX_CARDS", "Slice", "WinLossIndex", "radius"]
