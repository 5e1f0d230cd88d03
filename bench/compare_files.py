"""Compare every stored position of two gamedb files of the same spec, rows or pages.

    python bench/compare_files.py A.sqlite B.sqlite

Reads both files layer by layer in key order (``GameDB.layer_rows``: rows and page
layers alike) and prints, per layer, the positions compared, whether the keys are the
same and the largest |difference| of the values (0 means bit-identical doubles, checked
on their bytes), and whether the gaps and both strategies (as the text a row holds: the
same doubles) are identical; exit status 1 if anything differs.
"""

from __future__ import annotations

import sys

import numpy as np

from gamedb.store.database import open_db


def layer_arrays(db, layer: int) -> tuple[np.ndarray, np.ndarray, list]:  # type: ignore[no-untyped-def]
    parts = list(db.layer_rows(layer, size=1 << 20, strategies=True))
    rest = [(g, a, b) for p in parts for g, a, b in zip(p.gaps, p.strategy1, p.strategy2)]
    return (np.concatenate([p.keys for p in parts]),
            np.concatenate([p.numbers() for p in parts]), rest)


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
            keys_a, values_a, rest_a = layer_arrays(first, layer)
            keys_b, values_b, rest_b = layer_arrays(second, layer)
            keys_same = len(keys_a) == len(keys_b) and bool((keys_a == keys_b).all())
            rest_same = rest_a == rest_b
            identical = keys_same and values_a.tobytes() == values_b.tobytes() and rest_same
            worst = float(np.abs(values_a - values_b).max()) if keys_same and len(keys_a) else 0.0
            kinds = ["pages" if layer in db.pages.layers else "rows" for db in (first, second)]
            print(f"layer {layer:>2}: {len(keys_a):>13,} positions ({kinds[0]} / {kinds[1]}), "
                  f"keys {'same' if keys_same else 'DIFFER'}, max |diff| {worst:.1e}, "
                  f"gaps and strategies {'same' if rest_same else 'DIFFER'}"
                  f"{', bit-identical' if identical else ''}")
            same &= identical
            total += len(keys_a)
    print(f"{total:,} positions: {'every value, gap and strategy identical' if same else 'DIFFERENT'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
