"""Benchmark: Jujitsu builds, n = 8..13, against the per-state HiGHS reference path.

The 2002 solution of 8-card Jujitsu took 4 days. Targets (issue 2): the whole
``gamedb build "jujitsu(num_cards=8)"`` command under 3 s with the numba cache warm;
13 cards under 2 minutes with peak memory under 2 GB.

The peer measured in the same run is gamedb's own reference path: every canonical
position expanded through the per-state reference face and solved by SciPy/HiGHS, one
LP per position (OpenSpiel has no Jujitsu). Usage::

    python bench/jujitsu.py            # n = 8..13, reference path for n = 6..10
    python bench/jujitsu.py --max 11 --reference 6
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from common import gamedb_build, machine  # noqa: E402

from gamedb.games import load_game  # noqa: E402
from gamedb.games.base import reference_expand  # noqa: E402
from gamedb.solver.backward import ValueTable, enumerate_layers, stage_matrices  # noqa: E402
from gamedb.solver.reference import solve_lp  # noqa: E402


def reference_solve(spec: str) -> tuple[float, int]:
    """Solve every position with the reference face and one HiGHS LP each (no writes)."""
    start = time.perf_counter()
    game = load_game(spec)
    layers = enumerate_layers(game)
    table = ValueTable()
    for layer in sorted(layers):
        keys = layers[layer]
        payoffs = stage_matrices(reference_expand(game, keys), table)
        values = [solve_lp(matrix).value for matrix in payoffs]
        table.add(layer, keys, np.array(values))
    return time.perf_counter() - start, sum(map(len, layers.values()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min", type=int, default=8)
    parser.add_argument("--max", type=int, default=13)
    parser.add_argument("--reference", type=int, default=10,
                        help="largest n for the HiGHS reference path (default 10)")
    args = parser.parse_args()
    gamedb_build("jujitsu(num_cards=4)")  # warm the numba cache
    print(f"machine: {machine()}\n")
    print("| spec | gamedb s | states | peak MiB | reference (HiGHS) s | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for n in range(min(args.min, 6), args.max + 1):
        if n < args.min and n > args.reference:
            continue
        spec = f"jujitsu(num_cards={n})"
        run = gamedb_build(spec)
        states = run.output.split(" states")[0].rsplit(" ", 1)[-1]
        ref, ratio = "-", "-"
        if n <= args.reference:
            ref_s, _ = reference_solve(spec)
            ref, ratio = f"{ref_s:.2f}", f"{ref_s / run.seconds:.0f}x"
        print(f"| `{spec}` | {run.seconds:.2f} | {states} | {run.peak_mib:.0f} | {ref} | {ratio} |",
              flush=True)


if __name__ == "__main__":
    main()
