"""Issue 12 step 2: the indexed solve of point-difference Goofspiel, timed, in bounded memory.

    python bench/goofspiel_indexed.py 8 9 10 11 [--build 8 9] [--check]

For each N, a fresh process solves ``goofspiel(num_cards=N,returns_type=point_difference)``
through its index with ``gamedb.builder.runner.solved_in_memory`` (the builder's
arithmetic in one process: values, strategies and gaps computed and verified, then
dropped: nothing is written) and prints per-layer seconds; this script
reports its wall time and the peak RSS of its whole process tree (sampled from /proc
every 20 ms; the solve is one process). ``--build N`` also times today's whole command
``gamedb build SPEC --db TMP --quiet`` (all CPUs, strategies written) the same way, and
with ``--check`` compares every stored value of that file with the indexed solve (max
|difference|, outside the timing). ``--first`` prints player 1's equilibrium bid
probabilities (cards 1..N) for each first prize. The numba cache is warmed first.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ENV, _direct, machine  # noqa: E402


def spec(n: int) -> str:
    """The point-difference spec of n cards."""
    return f"goofspiel(num_cards={n},returns_type=point_difference)"


def solve(n: int) -> dict[str, object]:
    """Solve n cards in this process, keeping nothing; return per-layer facts."""
    import numpy as np

    from gamedb.games import load_game
    from gamedb.builder.runner import solved_in_memory
    start = time.perf_counter()
    game = load_game(spec(n))
    face = game.indexed_face()
    assert face is not None
    layers: dict[int, list[float]] = {}
    first: dict[int, list[float]] = {}
    last = time.perf_counter()
    gap = fallbacks = 0.0
    root = float("nan")
    for chunk in solved_in_memory(face, 50_000):
        now = time.perf_counter()
        row = layers.setdefault(chunk.layer, [0, 0.0])
        row[0] += chunk.stop - chunk.start
        row[1] += now - last
        last = now
        gap = max(gap, float(np.max(chunk.solution.gaps)))
        fallbacks += chunk.solution.fallbacks
        root = float(chunk.summary[0])
        if chunk.layer == n:
            first = first_prizes(game, face, chunk)
    return {"n": n, "seconds": time.perf_counter() - start, "layers": layers,
            "max_gap": gap, "fallbacks": fallbacks, "root_value": root, "first": first}


def first_prizes(game, face, chunk) -> dict[int, list[float]]:  # type: ignore[no-untyped-def]
    """Player 1's equilibrium bids (probability of each card) for each first prize."""
    keys = face.keys(chunk.layer, chunk.start, chunk.stop)  # key order
    return {game.decode(int(key)).prize: [round(float(x), 6) for x in row]
            for key, row in zip(keys, chunk.solution.row_strategies)}


def tree_rss(root: int) -> int:
    """Return the summed resident bytes of ``root`` and all its descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:
            pass
    return total


def measured(args: list[str]) -> tuple[float, float, str]:
    """Run ``args``; return wall seconds, peak tree RSS in MiB and stdout."""
    start = time.perf_counter()
    proc = subprocess.Popen(_direct(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=ENV)
    peak, done = [0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], tree_rss(proc.pid))
            done.wait(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    out, err = proc.communicate()
    seconds = time.perf_counter() - start
    done.set()
    sampler.join()
    if proc.returncode:
        raise RuntimeError(f"{' '.join(args)} failed:\n{out}{err}")
    return seconds, peak[0] / 2**20, out


def check(n: int, db: str) -> float:
    """Return max |stored value - indexed value| over every position of ``db``."""
    import numpy as np

    from gamedb.games import load_game
    from gamedb.builder.runner import solved_in_memory
    from gamedb.store.database import open_db
    face = load_game(spec(n)).indexed_face()
    assert face is not None
    values: dict[int, list[np.ndarray]] = {}
    for chunk in solved_in_memory(face, 50_000):
        values.setdefault(chunk.layer, []).append(chunk.solution.values)
    worst = 0.0
    with open_db(db) as stored:  # rows and page layers alike, in key order
        for layer in face.layers():
            got = np.concatenate([rows.numbers() for rows in stored.layer_rows(layer, strategies=False)])
            worst = max(worst, float(np.abs(np.concatenate(values[layer]) - got).max()))
    return worst


def report_solve(n: int, show_first: bool = False) -> None:
    """Time the indexed solve of n cards in a child process and print it."""
    seconds, peak, out = measured([sys.executable, __file__, "--child", str(n)])
    facts = json.loads(out)
    per_layer = " ".join(f"k{k}:{rows:,}/{sec:.2f}s" for k, (rows, sec) in
                         sorted(facts["layers"].items(), key=lambda kv: int(kv[0])))
    total = sum(rows for rows, _ in facts["layers"].values())
    print(f"indexed  n={n:2d} positions={total:,} wall={seconds:.1f}s peak_tree={peak:,.0f} MiB "
          f"solve={facts['seconds']:.1f}s max_gap={facts['max_gap']:.1e} "
          f"fallbacks={facts['fallbacks']:.0f} root={facts['root_value']:+.6f}", flush=True)
    print(f"         {per_layer}", flush=True)
    if show_first:
        for prize, row in sorted(facts["first"].items(), key=lambda kv: int(kv[0])):
            print(f"         first prize {int(prize):2d}: " + " ".join(f"{x:.3f}" for x in row))


def report_build(n: int, compare: bool) -> None:
    """Time today's ``gamedb build`` of n cards and print it (and the comparison)."""
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        db = str(Path(tmp) / "g.sqlite")
        seconds, peak, _ = measured(["gamedb", "build", spec(n), "--db", db, "--quiet"])
        print(f"gamedb build n={n:2d} wall={seconds:.1f}s peak_tree={peak:,.0f} MiB "
              f"(file {os.path.getsize(db) / 2**20:,.0f} MiB)", flush=True)
        if compare:
            print(f"         max |stored - indexed| over every position: {check(n, db):.3g}",
                  flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cards", type=int, nargs="*")
    ap.add_argument("--build", type=int, nargs="*", default=[])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--first", action="store_true",
                    help="print player 1's equilibrium bids for each first prize")
    ap.add_argument("--child", type=int)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(solve(args.child)))
        return
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f} at start", flush=True)
    solve(4)  # numba's cache: compiled once, outside the timings
    for n in args.build:
        report_build(n, args.check)
    for n in args.cards:
        report_solve(n, args.first)


if __name__ == "__main__":
    main()
