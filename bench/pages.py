"""Page store against row store: one build command, two checkouts, side by side.

Runs ``gamedb build SPEC`` from checkout A (this one, page layers by default where the
game has them) and checkout B (a baseline, e.g. main before the page store, in rows)
in turn, A B A B ..., and prints per run: wall seconds, CPU seconds of the process
tree, peak PSS and RSS of the process tree (summed over the builder and its workers,
sampled every 0.2 s from /proc), and the file's size; then the medians and the ratios
A/B pair by pair (ratios hold while the machine's speed drifts).

    python bench/pages.py --spec "goofspiel(num_cards=11,returns_type=point_difference)" \\
        --baseline /path/to/main-checkout --runs 3 --workers 2

Each checkout runs with its own directory first on PYTHONPATH, so both use this
interpreter and its packages; a warm-up build of each compiles its numba cache first.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "bench"))
from common import memory, tree  # noqa: E402


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    pss_mib: float
    rss_mib: float
    size: int


def build(checkout: Path, spec: str, db: Path, extra: list[str]) -> Run:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    argv = [sys.executable, "-m", "gamedb", "build", spec, "--db", str(db), "--quiet", *extra]
    before = os.times()
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=checkout, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    peak_pss = peak_rss = 0.0
    while proc.poll() is None:
        rss, pss = memory(tree(proc.pid))
        peak_pss, peak_rss = max(peak_pss, pss), max(peak_rss, rss)
        time.sleep(0.2)
    wall = time.perf_counter() - start
    after = os.times()
    if proc.returncode != 0:
        raise SystemExit(f"{checkout}: build failed: {proc.stderr.read().decode()[-2000:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return Run(wall, cpu, peak_pss / 2**20, peak_rss / 2**20, db.stat().st_size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="goofspiel(num_cards=10,returns_type=point_difference)")
    parser.add_argument("--baseline", type=Path, required=True, help="checkout B")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--args", default="", help="more build options for A")
    parser.add_argument("--baseline-args", default="", help="more build options for B")
    parser.add_argument("--tmp", type=Path, default=None, help="where the files go")
    args = parser.parse_args()
    sides = {"A": (HERE, args.args.split()), "B": (args.baseline.resolve(), args.baseline_args.split())}
    runs: dict[str, list[Run]] = {"A": [], "B": []}
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        for name, (checkout, extra) in sides.items():  # warm-up: numba caches
            db = Path(tmp) / f"warm{name}.sqlite"
            build(checkout, "goofspiel(num_cards=5,returns_type=point_difference)", db,
                  [*extra, "--workers", "2"])
            db.unlink()
        for i in range(args.runs):
            for name, (checkout, extra) in sides.items():
                db = Path(tmp) / f"{name}{i}.sqlite"
                run = build(checkout, args.spec, db, [*extra, "--workers", str(args.workers)])
                runs[name].append(run)
                print(f"{name} run {i + 1}: wall {run.wall:8.1f} s  cpu {run.cpu:8.1f} s  "
                      f"peak tree PSS {run.pss_mib:7.0f} MiB (RSS {run.rss_mib:7.0f})  "
                      f"file {run.size / 1e9:7.3f} GB", flush=True)
                db.unlink()
    print(f"\n{args.spec}, {args.workers} workers, {args.runs} runs each, medians:")
    for name, (checkout, _) in sides.items():
        r = runs[name]
        print(f"  {name} {checkout}: wall {statistics.median(x.wall for x in r):.1f} s, "
              f"cpu {statistics.median(x.cpu for x in r):.1f} s, "
              f"PSS {statistics.median(x.pss_mib for x in r):.0f} MiB, "
              f"file {statistics.median(x.size for x in r) / 1e9:.3f} GB")
    for figure in ("wall", "cpu", "pss_mib", "size"):
        ratios = [getattr(b, figure) / getattr(a, figure) for a, b in zip(runs["A"], runs["B"])]
        print(f"  B/A {figure}: median {statistics.median(ratios):.2f}x "
              f"(min {min(ratios):.2f}, max {max(ratios):.2f})")


if __name__ == "__main__":
    main()
