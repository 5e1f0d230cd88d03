"""Prize-set groups: how a win/loss Goofspiel layer is cut for a distributed build.

A position of layer k is (c, Q, p, d); its stage game reads the layer below only at the
prize set Q, and its value goes to the chance nodes (c, P, d) of its own layer with
P = Q + p. The prize sets of one size, in colex order (= increasing mask), are packed
into consecutive *groups* of about ``target`` positions, and that one cut serves both
directions:

- **map**: the task of group G of layer k solves every position whose Q is in G. Those
  are, in key order (d, p, Q, c), one *run* of blocks in each (d, p), and the task reads
  only G's part of layer k - 1's summary, which is one contiguous run of it (P-major);
- **reduce**: the task of group H of layer k adds up the contributions V / k of the
  positions whose P is in H into H's part of layer k's summary, which is what the map
  task of group H of layer k + 1 reads.

A layer's chunks (and so its keyed pages) never cross a run: a local build and a
cluster build cut the same pages. With a single group per layer the runs are the
whole layer and the chunks are the ones every earlier build cut.
"""

from __future__ import annotations

import numpy as np

from gamedb.types import Ints

#: Positions a map task solves, about (13 cards: layer 8's largest prize set alone is
#: 10.5 M positions, a task of ~0.7 GiB and 40 CPU s; ``bench/winloss_plan.py``).
GROUP_TARGET = 8_000_000


def pack(weights: Ints, target: int) -> Ints:
    """Return the bounds of consecutive groups of ``weights`` (each group's total at most
    ``target`` unless one item alone is more): group g is items bounds[g]..bounds[g+1]-1.

    >>> pack(np.array([3, 3, 3, 9, 1, 1]), 6).tolist()
    [0, 2, 3, 4, 6]
    """
    bounds, total = [0], 0
    for i, weight in enumerate(weights.tolist()):
        if total and total + weight > target:
            bounds.append(i)
            total = 0
        total += weight
    bounds.append(len(weights))
    return np.array(bounds, np.int64)


def runs(block_group: Ints) -> tuple[Ints, Ints]:
    """Return the runs of a layer: consecutive blocks of one group merged (start block of
    each run, one more entry: the number of blocks), and the group of each run.

    >>> starts, groups = runs(np.array([0, 0, 1, 1, 0, 1]))
    >>> starts.tolist(), groups.tolist()
    ([0, 2, 4, 5, 6], [0, 1, 0, 1])
    """
    change = np.flatnonzero(np.diff(block_group)) + 1
    starts = np.concatenate([[0], change, [len(block_group)]]).astype(np.int64)
    return starts, block_group[starts[:-1]]


def cut(starts: Ints, offsets: Ints, target: int) -> list[tuple[int, int]]:
    """Cut every run (``starts``: its first block; blocks start at ``offsets``) at block
    boundaries into ranges of at least ``target`` positions (the last of a run: the rest);
    empty runs give no range."""
    ranges: list[tuple[int, int]] = []
    ends = offsets[starts].tolist()
    bounds = offsets.tolist()
    for run in range(len(starts) - 1):
        first, stop = ends[run], ends[run + 1]
        last = first
        for block in range(int(starts[run]) + 1, int(starts[run + 1]) + 1):
            if bounds[block] - last >= target or (bounds[block] == stop and stop > last):
                ranges.append((last, bounds[block]))
                last = bounds[block]
    return ranges


__all__ = ["GROUP_TARGET", "cut", "pack", "runs"]
