"""The distributed plan of win/loss Goofspiel, layer by layer, from the exact forward pass.

    python bench/winloss_plan.py --cards 13 --workers 64 --worker-gib 8 \
        [--rates g11.sqlite g12.sqlite] [--rate 8=3.93 ...]

The same table as ``gamedb build "goofspiel(num_cards=13)" --estimate --cluster ADDRESS
--cluster-workers 64 --worker-memory 8GiB`` (``gamedb.builder.cluster_plan``), with the
CPU rates of each k x k layer optionally re-measured from built files
(``layers.seconds / layers.done``: the workers' seconds, contention included; the
largest counts) or given by hand. Every count comes from the face's forward pass (13
cards: about 6 minutes and 4.7 GB here).
"""

from __future__ import annotations

import argparse
import sqlite3

from gamedb.builder import cluster_plan
from gamedb.games import load_game
from gamedb.games.goofspiel.winloss import WinLossIndex


def rates(paths: list[str]) -> dict[int, float]:
    """Largest measured seconds per position of each k x k layer (k: cards in hand)."""
    out: dict[int, float] = {}
    for path in paths:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            for layer, done, seconds in conn.execute(
                    "SELECT layer, done, seconds FROM layers WHERE done > 100000"):
                out[layer] = max(out.get(layer, 0.0), seconds / done)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=13)
    parser.add_argument("--workers", type=int, default=64)
    parser.add_argument("--worker-gib", type=float, default=8.0)
    parser.add_argument("--rates", nargs="+", default=[],
                        help="built win/loss files whose layers' seconds give the rates")
    parser.add_argument("--rate", action="append", default=[], metavar="K=µS",
                        help="a measured rate of k x k layers (the largest one counts)")
    args = parser.parse_args()
    measured = rates(args.rates)
    for given in args.rate:
        k, micro = given.split("=")
        measured[int(k)] = max(measured.get(int(k), 0.0), float(micro) * 1e-6)
    cluster_plan.RATES.update(measured)
    spec = f"goofspiel(num_cards={args.cards})"
    face = load_game(spec).indexed_face()
    assert isinstance(face, WinLossIndex)
    found = cluster_plan.plan(face, spec, args.workers, int(args.worker_gib * 2**30))
    print("rates (µs a position) by k: " + ", ".join(
        f"{k}: {s * 1e6:.2f}" for k, s in sorted(cluster_plan.RATES.items())) + "\n")
    print(cluster_plan.table(found))


if __name__ == "__main__":
    main()
