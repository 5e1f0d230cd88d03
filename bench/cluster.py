"""The cost of ``--cluster local:2`` against ``--workers 2``: one build, both ways.

Runs the same ``gamedb build SPEC --quiet --json`` with ``--workers 2`` (forked workers
that inherit the layer below) and with ``--cluster local:2`` (a Dask LocalCluster in the
builder's process, one worker of two threads: the layer below scattered to it once per
layer, chunks grouped into tasks, results handed to the one writer), one after the
other. Prints wall seconds, CPU seconds of the whole process tree, the build's own
report, the bytes a worker receives per layer (the summary of the layer below, 8 B per
chance node; a real cluster's workers get them serialized), and checks that the two
files hold the same rows.

With ``--timeline N``, builds N times each way in turn instead, and prints when each
layer ends (seconds from the process's start, read in the build's own process): where
one way falls behind the other, at its start or layer by layer.

    nice -n 19 python bench/cluster.py --spec "goofspiel(num_cards=10,returns_type=point_difference)"
    python bench/cluster.py --spec "goofspiel(num_cards=11,returns_type=point_difference)" --timeline 3
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ENV, _direct, machine  # noqa: E402

_WRAPPER = (
    "import resource, subprocess, sys\n"
    "code = subprocess.call(sys.argv[1:])\n"
    "r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(r.ru_utime + r.ru_stime, r.ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)
#: Runs ``gamedb build`` in this process, printing (JSON, on stderr) the moments
#: (``time.perf_counter``: the system's monotonic clock on Linux, the same in every
#: process) at which each layer starts and ends (the runner's ``_Run.layer``).
_TIMELINE = (
    "import json, sys, time\n"
    "import gamedb.builder.runner as runner\n"
    "from gamedb.cli import cli\n"
    "marks = []\n"
    "solve = runner._Run.layer\n"
    "def layer(self, number, below):\n"
    "    marks.append([number, time.perf_counter()])\n"
    "    done = solve(self, number, below)\n"
    "    marks[-1].append(time.perf_counter())\n"
    "    return done\n"
    "runner._Run.layer = layer\n"
    "cli(sys.argv[1:], standalone_mode=False)\n"
    "print(json.dumps({'marks': marks, 'end': time.perf_counter()}), file=sys.stderr)\n"
)
SAME = """SELECT count(*) FROM a.states x JOIN b.states y USING (key)
          WHERE x.layer = y.layer AND x.value = y.value AND x.gap IS y.gap
          AND x.strategy1 IS y.strategy1 AND x.strategy2 IS y.strategy2"""


def run(spec: str, db: Path, extra: list[str]) -> dict[str, float]:
    """Build ``spec`` into ``db``; return wall and tree CPU seconds and the report."""
    args = _direct(["gamedb", "build", spec, "--db", str(db), "--quiet", "--json", *extra])
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _WRAPPER, *args], capture_output=True,
                          text=True, env=ENV)
    wall = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(f"{' '.join(args)} failed:\n{proc.stderr}")
    cpu, peak_kib = proc.stderr.strip().splitlines()[-1].split()
    report = json.loads(proc.stdout)
    return {"wall": wall, "cpu": float(cpu), "peak_mib": int(peak_kib) / 1024,
            "build_s": report["seconds"], "states": report["states"]}


def timeline(spec: str, db: Path, extra: list[str]) -> dict[str, Any]:
    """Build ``spec`` into a fresh ``db``; return the seconds from the process's start at
    which layer 1 starts (``first``), each layer ends (``ends``) and the build ends."""
    db.unlink(missing_ok=True)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _TIMELINE, "build", spec, "--db", str(db),
                           "--quiet", *extra], capture_output=True, text=True, env=ENV)
    if proc.returncode:
        raise SystemExit(f"{spec} {' '.join(extra)} failed:\n{proc.stderr}")
    got = json.loads(proc.stderr.strip().splitlines()[-1])
    marks = sorted(got["marks"])
    return {"first": marks[0][1] - start, "ends": {k: end - start for k, _, end in marks},
            "end": got["end"] - start}


def identical(first: Path, second: Path) -> bool:
    """True if every row of ``first`` is in ``second`` with the same columns."""
    with sqlite3.connect(first) as conn:
        conn.execute("ATTACH ? AS b", (str(second),))
        conn.execute("ATTACH ? AS a", (str(first),))
        rows = conn.execute("SELECT (SELECT count(*) FROM a.states), "
                            "(SELECT count(*) FROM b.states)").fetchone()
        return bool(rows[0] == rows[1] == conn.execute(SAME).fetchone()[0])


def scattered(spec: str) -> list[tuple[int, int, int]]:
    """(layer, positions, bytes of the layer-below summary sent to each worker)."""
    from gamedb.games import load_game

    face = load_game(spec).indexed_face()
    if face is None:
        return []
    layers = face.layers()
    return [(k, face.size(k), 8 * face.summary_size(k - 1) if k - 1 in layers else 0)
            for k in layers]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="goofspiel(num_cards=10,returns_type=point_difference)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeline", type=int, default=0, metavar="N",
                        help="build N times each way in turn; print when each layer ends")
    args = parser.parse_args()
    print(f"# {machine()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    modes = {"--workers": ["--workers", str(args.workers)],
             "--cluster": ["--cluster", f"local:{args.workers}"]}
    if args.timeline:
        print_timelines(args.spec, modes, args.timeline)
        return
    print("| layer | positions | layer below sent to each worker |\n|---:|---:|---:|")
    for layer, size, below in scattered(args.spec):
        print(f"| {layer} | {size:,} | {below / 2**20:.2f} MiB |")
    with tempfile.TemporaryDirectory() as tmp:
        files = {"--workers": Path(tmp) / "w.sqlite", "--cluster": Path(tmp) / "c.sqlite"}
        print("| command | wall s | tree CPU s | build s (report) | peak RSS MiB (largest process) |")
        print("|---|---:|---:|---:|---:|")
        for mode, extra in modes.items():
            got = run(args.spec, files[mode], extra)
            print(f"| `gamedb build \"{args.spec}\" --quiet {' '.join(extra)}` | {got['wall']:.1f} | "
                  f"{got['cpu']:.1f} | {got['build_s']:.1f} | {got['peak_mib']:.0f} |", flush=True)
        print("files identical (every state row):",
              identical(files["--workers"], files["--cluster"]))


def print_timelines(spec: str, modes: dict[str, list[str]], runs: int) -> None:
    """Build ``spec`` ``runs`` times each way in turn; print a row per build."""
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for run_number in range(1, runs + 1):
            for extra in modes.values():
                got = timeline(spec, Path(tmp) / "t.sqlite", extra)
                rows.append((run_number, " ".join(extra), got))
    layers = sorted(rows[0][2]["ends"])
    print("| run | command | layer 1 starts | " + " | ".join(f"layer {k} ends" for k in layers)
          + " | done | done - layer 1 start |")
    print("|---|---|" + "---:|" * (len(layers) + 3))
    for run_number, command, got in rows:
        ends = " | ".join(f"{got['ends'][k]:.3f}" for k in layers)
        print(f"| {run_number} | `{command}` | {got['first']:.3f} | {ends} | {got['end']:.3f} | "
              f"{got['end'] - got['first']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
