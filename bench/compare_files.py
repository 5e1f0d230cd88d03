"""Compare every stored position of two gamedb files of the same spec, rows or pages.

    python bench/compare_files.py A.sqlite B.sqlite

Reads both files layer by layer in key order (``GameDB.layer_rows``: rows and page
layers alike), streaming a window of ``WINDOW`` positions of each at a time (a 10-card
win/loss file is 98.5 M positions: loading layers whole took 22.7 GB), and prints, per layer, the positions compared, whether the keys are the
same and the largest |difference| of the values (0 means bit-identical doubles, checked
on their bytes), and whether the gaps and both strategies (as the text a row holds: the
same doubles) are identical; exit status 1 if anything differs.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from itertools import zip_longest

import numpy as np

from gamedb.store.database import open_db


#: Positions of each file compared at a time.
WINDOW = 1 << 20


def windows(db, layer: int) -> Iterator[tuple[np.ndarray, np.ndarray, list]]:  # type: ignore[no-untyped-def]
    """Yield the layer's (keys, values, [(gap, strategy1, strategy2)]) in windows of
    ``WINDOW`` positions (the last: the rest), whatever the batches the file gives."""
    keys: list[np.ndarray] = []
    values: list[np.ndarray] = []
    rest: list = []
    held = 0
    for part in db.layer_rows(layer, size=WINDOW, strategies=True):
        keys.append(part.keys)
        values.append(part.numbers())
        rest += zip(part.gaps, part.strategy1, part.strategy2)
        held += len(part.keys)
        while held >= WINDOW:
            k, v = np.concatenate(keys), np.concatenate(values)
            yield k[:WINDOW], v[:WINDOW], rest[:WINDOW]
            keys, values, rest, held = [k[WINDOW:]], [v[WINDOW:]], rest[WINDOW:], held - WINDOW
    if held:
        yield np.concatenate(keys), np.concatenate(values), rest


def compare_layer(first, second, layer: int) -> tuple[int, bool, float, bool, bool]:  # type: ignore[no-untyped-def]
    """Return (positions, keys same, max |diff| of the values, gaps and strategies
    same, bit-identical) of one layer of both files."""
    count, keys_same, rest_same, bits_same, worst = 0, True, True, True, 0.0
    for pair in zip_longest(windows(first, layer), windows(second, layer)):
        if None in pair:  # one file has more positions
            return count, False, worst, False, False
        (keys_a, values_a, rest_a), (keys_b, values_b, rest_b) = pair
        count += len(keys_a)
        if len(keys_a) != len(keys_b) or not (keys_a == keys_b).all():
            return count, False, worst, False, False
        if len(keys_a):
            worst = max(worst, float(np.abs(values_a - values_b).max()))
        bits_same &= values_a.tobytes() == values_b.tobytes()
        rest_same &= rest_a == rest_b
    return count, keys_same, worst, rest_same, keys_same and bits_same and rest_same


def main(a: str, b: str) -> int:
    same = True
    with open_db(a) as first, open_db(b) as second:
        if first.meta["spec"] != second.meta["spec"]:
            print(f"different specs: {first.meta['spec']} and {second.meta['spec']}")
            return 1
        layers = first.stored_layers()
        if layers != second.stored_layers():
            print(f"different layers: {layers} and {second.stored_layers()}")
            return 1
        total = 0
        for layer in layers:
            count, keys_same, worst, rest_same, identical = compare_layer(first, second, layer)
            kinds = ["pages" if layer in db.pages.layers else "rows" for db in (first, second)]
            print(f"layer {layer:>2}: {count:>13,} positions ({kinds[0]} / {kinds[1]}), "
                  f"keys {'same' if keys_same else 'DIFFER'}, max |diff| {worst:.1e}, "
                  f"gaps and strategies {'same' if rest_same else 'DIFFER'}"
                  f"{', bit-identical' if identical else ''}")
            same &= identical
            total += count
    print(f"{total:,} positions: {'every value, gap and strategy identical' if same else 'DIFFERENT'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
