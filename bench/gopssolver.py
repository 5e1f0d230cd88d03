"""Side by side in one run: the C++ GOPSsolver (GLPK, values only) and ``gamedb build``.

GOPSsolver (github.com/matttang27/GOPSsolver) is built *outside* this repository, e.g.::

    apt-get install libglpk-dev
    git clone https://github.com/matttang27/GOPSsolver /work/gops     # or any copy
    cmake -S /work/gops/solver -B /work/gops/solver/build -DCMAKE_BUILD_TYPE=Release
    cmake --build /work/gops/solver/build -j2

Then ``python bench/gopssolver.py --gops /work/gops/solver/build/cpp_solver`` runs, one
after the other, for each game (``wl8``: 8-card win/loss, ``pd9``: 9-card point
difference, ``wl9``, ``pd10`` on request): ``cpp_solver --n N [--objective points]``, our
whole ``gamedb build SPEC --db X --quiet`` (strategies stored) and the same with
``--values-only`` (the like-for-like command: GOPSsolver keeps values only, in memory).
Each command is timed from start to exit; its process tree (our forked workers too)
is sampled every 0.1 s for the peak of the summed RSS and of the summed PSS (shared
pages counted once), and its CPU time is the rusage of the reaped tree. Counts:
ours = the rows of the file (positions, each a solved stage game); GOPSsolver's = its
EV cache entries at the end (its "misses") and its LP calls, from its own output.
Prints a markdown table with the machine and the load average before and after.

    python bench/gopssolver.py                          # wl8 and pd9
    python bench/gopssolver.py --only wl8 --workers 1
    python bench/gopssolver.py --only wl9 --peer-only   # GOPSsolver alone (~10-20 min)
    python bench/gopssolver.py --baseline /tmp/main-before   # and main before a change
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ENV, _direct, machine, memory, tree  # noqa: E402

GAMES = {  # name: (cards, our returns_type, GOPSsolver objective)
    "wl8": (8, "win_loss", "win"), "pd9": (9, "point_difference", "points"),
    "wl9": (9, "win_loss", "win"), "pd10": (10, "point_difference", "points"),
}


@dataclass
class Measured:
    """One whole command."""

    label: str
    command: str
    seconds: float
    cpu_seconds: float
    rss_mib: float
    pss_mib: float
    positions: int
    counted: str


def measure(label: str, argv: list[str], cwd: str,
            checkout: str | None = None) -> tuple[Measured, str]:
    """Run ``argv`` to its end; return wall, CPU and peak tree memory, and its output
    (``checkout``: gamedb is imported from that directory)."""
    start = time.perf_counter()
    env = dict(ENV, PYTHONPATH=checkout) if checkout else ENV
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, cwd=cwd)
    peak = [0, 0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            rss, pss = memory(tree(proc.pid))
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)
            time.sleep(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    assert proc.stdout is not None
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    done.set()
    sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv)} failed (exit {proc.returncode}):\n{output}")
    cpu = usage.ru_utime + usage.ru_stime
    return Measured(label, " ".join(argv), seconds, cpu, peak[0] / 2**20, peak[1] / 2**20, 0,
                    ""), output


def gops(binary: str, n: int, objective: str) -> Measured:
    argv = [binary, "--n", str(n)] + (["--objective", "points"] if objective == "points" else [])
    with tempfile.TemporaryDirectory() as tmp:
        run, output = measure(f"GOPSsolver {objective}", argv, tmp)
    entries = re.findall(r"cache: \d+ hits, (\d+) misses", output)
    calls = re.findall(r"lp: (\d+) calls", output)
    run.positions = int(entries[-1]) if entries else 0
    run.counted = f"EV cache entries (LP calls {int(calls[-1]):,})" if calls else "EV cache entries"
    run.command = "cpp_solver " + " ".join(argv[1:])
    return run


def ours(n: int, returns: str, extra: list[str], checkout: str | None = None) -> Measured:
    spec = f"goofspiel(num_cards={n})" if returns == "win_loss" else \
        f"goofspiel(num_cards={n},returns_type={returns})"
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "g.sqlite"
        argv = ["gamedb", "build", spec, "--db", str(db), "--quiet", *extra]
        run, _ = measure("gamedb " + (" ".join(extra) or "(strategies)"),
                         [sys.executable, "-m", "gamedb", *argv[1:]] if checkout
                         else _direct(argv), tmp, checkout)
        with sqlite3.connect(db) as conn:  # rows and page layers alike
            run.positions = conn.execute("SELECT sum(done) FROM layers").fetchone()[0]
    run.counted = "positions"
    run.command = " ".join(argv).replace(str(db), "X") + (f" ({checkout})" if checkout else "")
    return run


def table(name: str, runs: list[Measured]) -> str:
    peer = runs[0] if runs[0].label.startswith("GOPSsolver") else None
    lines = [f"**{name}**", "",
             "| command | wall s | CPU s | peak tree RSS MiB | peak tree PSS MiB | counted | "
             "count | PSS B per counted | wall ratio (GOPSsolver / this) |",
             "|---|---:|---:|---:|---:|---|---:|---:|---:|"]
    for r in runs:
        per = r.pss_mib * 2**20 / max(r.positions, 1)
        ratio = "peer" if r is peer else f"{peer.seconds / r.seconds:.1f}x" if peer else "-"
        lines.append(f"| `{r.command}` | {r.seconds:.1f} | {r.cpu_seconds:.1f} | "
                     f"{r.rss_mib:,.0f} | {r.pss_mib:,.0f} | {r.counted} | {r.positions:,} | "
                     f"{per:,.0f} | {ratio} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gops", default=os.environ.get("GOPS_SOLVER",
                                                         "/work/gops/solver/build/cpp_solver"))
    parser.add_argument("--only", default="wl8,pd9", help=f"comma-separated: {', '.join(GAMES)}")
    parser.add_argument("--workers", type=int, default=None, help="gamedb build --workers")
    parser.add_argument("--ours-only", action="store_true",
                        help="skip GOPSsolver (e.g. a second --workers setting of the same run)")
    parser.add_argument("--baseline", metavar="CHECKOUT", default=None,
                        help="also time our commands from this checkout (e.g. main before a "
                             "change, frozen outside the work tree), in the same run")
    parser.add_argument("--peer-only", action="store_true",
                        help="run GOPSsolver only (e.g. its long runs, wl9 or pd10, apart)")
    args = parser.parse_args()
    if not args.ours_only and not Path(args.gops).is_file():
        raise SystemExit(f"no GOPSsolver binary at {args.gops}: build it outside the repository "
                         "(see this script's docstring) and pass --gops PATH")
    extra = ["--workers", str(args.workers)] if args.workers else []
    print(f"{machine()}; load average before: {os.getloadavg()[0]:.1f}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n")
    for name in args.only.split(","):
        n, returns, objective = GAMES[name]
        runs = [] if args.ours_only else [gops(args.gops, n, objective)]
        if not args.peer_only:
            runs += [ours(n, returns, extra), ours(n, returns, ["--values-only", *extra])]
            if args.baseline:
                runs += [ours(n, returns, extra, args.baseline),
                         ours(n, returns, ["--values-only", *extra], args.baseline)]
        print(table(f"{name}: {n} cards, {returns}", runs) + "\n", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
