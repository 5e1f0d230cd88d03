"""The distributed plan of win/loss Goofspiel, layer by layer, from the exact forward pass.

    python bench/winloss_plan.py --cards 13 --workers 64 --worker-gib 8 \
        --rates g11.sqlite [--rate 8=3.93 ...]

The plan is that of docs/cluster.md ("Win/loss Goofspiel at 13 cards"): layer k is
solved by one *map task per prize set Q* of its blocks (d, p, Q) (the k - 1 hidden
prizes), block after block, reading only the partition Q of the layer below's summary
(``WinLossIndex.slice_below``: one run of the P-major summary); a *reduce task per
prize set P* of layer k adds the k contributions V / k of each chance node (c, P, d) in
increasing p (the local builder's order, so the doubles are the same) into partition P
of layer k's summary, which stays on the workers for layer k + 1.

Every count comes from the face's forward pass (13 cards: about 6 minutes and 4.7 GB
here). The CPU rate per position of each layer's k x k stage games is the largest
measured in the given files (``layers.seconds / layers.done``: the workers' seconds of
the layer's chunks on this 2-core machine, so contention is in it); layers without a
measurement take the largest rate measured. Bytes per stored position are those of the
given files (keyed pages of values; the top layers keep strategies as rows).
"""

from __future__ import annotations

import argparse
import sqlite3
from dataclasses import dataclass
from math import comb

import numpy as np

from gamedb.games import load_game
from gamedb.games.goofspiel.winloss import WinLossIndex

#: Bytes of a worker process before any task (Python, NumPy, numba's compiled code,
#: Dask's worker), measured as a LocalCluster worker's RSS at its first task.
PROCESS = 300 << 20
#: Copies of a block's k x k games alive in the kernel (payoffs, tableau, strategies).
GAME_COPIES = 3


@dataclass(frozen=True)
class Layer:
    k: int
    positions: int
    summary: int
    tasks: int
    task_positions: int
    partition_in: int
    task_bytes: int
    reduce_tasks: int
    partition_out: int
    cpu_s: float
    wall_s: float
    net_in: int
    net_back: int
    disk: int


def rates(paths: list[str]) -> dict[int, float]:
    """Largest measured seconds per position of each k x k layer (k: cards in hand)."""
    out: dict[int, float] = {}
    for path in paths:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            for layer, done, seconds in conn.execute(
                    "SELECT layer, done, seconds FROM layers WHERE done > 100000"):
                out[layer] = max(out.get(layer, 0.0), seconds / done)
    return out


def bytes_per_position(paths: list[str]) -> float:
    """Bytes of the given files per stored position."""
    total = positions = 0
    for path in paths:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            size = conn.execute("SELECT page_count * page_size FROM pragma_page_count(), "
                                "pragma_page_size()").fetchone()[0]
            positions += conn.execute("SELECT sum(done) FROM layers").fetchone()[0]
        total += size
    return total / positions


def plan(face: WinLossIndex, workers: int, rate: dict[int, float],
         per_position: float) -> list[Layer]:
    n = face.n
    fallback = max(rate.values())
    layers = []
    for k in face.layers():
        _, _, hidden, offsets = face.blocks(k)
        blocks = np.diff(offsets)
        q_of = face.colex[hidden]
        per_q = np.bincount(q_of, weights=blocks, minlength=comb(n, k - 1)).astype(np.int64)
        patterns = len(face.tables(k)[0])
        if k > 1:
            low_first = face.offsets(k - 1)
            low_patterns = len(face.tables(k - 1)[0])
            sets = comb(n, k - 1)
            runs = np.diff(low_first[np.arange(sets + 1) * low_patterns])
            partition_in = int(runs.max()) * 8 + low_patterns * (face.words[k - 1] + 1) * 8
        else:
            partition_in = 0
        first = face.offsets(k)
        out_runs = np.diff(first[np.arange(comb(n, k) + 1) * patterns])
        task_positions = int(per_q.max())
        own_sets = (n - k + 1) * patterns * face.words[k] * 8  # the task's P = Q + p
        transitions = patterns * (k * k * 9 + 8)
        games = int(blocks.max()) * k * k * 8 * GAME_COPIES
        outputs = int(task_positions * (8 + 8 + per_position))  # values, V / k, pages
        task_bytes = PROCESS + partition_in + own_sets + transitions + games + outputs
        cpu = face.size(k) * rate.get(k, fallback)
        largest_task = task_positions * rate.get(k, fallback)
        tasks = int((per_q > 0).sum())
        wall = max(cpu / workers, largest_task) if tasks else 0.0
        layers.append(Layer(
            k, face.size(k), face.summary_size(k), tasks, task_positions, partition_in,
            task_bytes, comb(n, k), int(out_runs.max()) * 8, cpu, wall,
            net_in=(face.summary_size(k - 1) * 8 if k > 1 else 0),
            net_back=int(face.size(k) * (8 + per_position)), disk=int(face.size(k) * per_position)))
    return layers


def _gb(b: float) -> str:
    return f"{b / 1e9:,.1f}" if b >= 1e8 else f"{b / 1e9:,.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=13)
    parser.add_argument("--workers", type=int, default=64)
    parser.add_argument("--worker-gib", type=float, default=8.0)
    parser.add_argument("--rates", nargs="+", required=True,
                        help="built win/loss files whose layers' seconds give the rates")
    parser.add_argument("--rate", action="append", default=[], metavar="K=µS",
                        help="a measured rate of k x k layers, e.g. from `gamedb info` of a "
                             "file no longer at hand (the largest one counts)")
    args = parser.parse_args()
    face = load_game(f"goofspiel(num_cards={args.cards})").indexed_face()
    assert isinstance(face, WinLossIndex)
    rate = rates(args.rates)
    for given in args.rate:
        k, micro = given.split("=")
        rate[int(k)] = max(rate.get(int(k), 0.0), float(micro) * 1e-6)
    per_position = bytes_per_position(args.rates)
    rows = plan(face, args.workers, rate, per_position)
    print(f"{args.cards}-card win/loss on {args.workers} workers of {args.worker_gib:g} GiB "
          f"(1 thread each); rates (µs a position) by k: "
          + ", ".join(f"{k}: {s * 1e6:.2f}" for k, s in sorted(rate.items()))
          + f"; {per_position:.2f} B a stored position\n")
    print("| layer k | positions | summary GB | map tasks | largest task (positions) | "
          "partition in (MB) | task memory (MiB) | reduce tasks | partition out (MB) | "
          "CPU h | wall min | network in / back GB | disk GB |")
    print("|---:" * 13 + "|")
    for r in reversed(rows):
        print(f"| {r.k} | {r.positions:,} | {_gb(r.summary * 8)} | {r.tasks:,} | "
              f"{r.task_positions:,} | {r.partition_in / 1e6:,.1f} | {r.task_bytes / 2**20:,.0f} | "
              f"{r.reduce_tasks:,} | {r.partition_out / 1e6:,.1f} | {r.cpu_s / 3600:,.3f} | "
              f"{r.wall_s / 60:,.1f} | {_gb(r.net_in)} / {_gb(r.net_back)} | {_gb(r.disk)} |")
    cpu = sum(r.cpu_s for r in rows)
    wall = sum(r.wall_s for r in rows)
    worst = max(r.task_bytes for r in rows)
    held = max((rows[i].summary + (rows[i - 1].summary if i else 0)) * 8 / args.workers
               for i in range(len(rows)))
    print(f"\ntotal: {sum(r.positions for r in rows):,} positions, {cpu / 3600:,.2f} CPU h, "
          f"{wall / 60:,.0f} min of wall on {args.workers} workers (layers one after the "
          f"other, each as long as its share of CPU or its largest task), "
          f"{_gb(sum(r.disk for r in rows))} GB of file; largest task {worst / 2**30:.2f} GiB "
          f"+ summaries held per worker {held / 2**30:.2f} GiB "
          f"(of {args.worker_gib:g} GiB)")


if __name__ == "__main__":
    main()
