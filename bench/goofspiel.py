"""Goofspiel benchmark: OpenSpiel's value iteration and gamedb, side by side in one run.

Every command runs as a child process (so imports and numba's cache load count) and is
timed from start to exit; the peak RSS of each child comes from ``os.wait4`` (the same
rusage as ``resource.getrusage(RUSAGE_CHILDREN)``, but per child). gamedb builds write
a fresh database, strategies included. Prints a markdown table.

    python bench/goofspiel.py --quick            # a minute: small sizes only
    python bench/goofspiel.py                    # peer on 4 cards, gamedb 8, 9 cards, pd 8..11
    python bench/goofspiel.py --only wl8,pd8 --timeout 600
    python bench/goofspiel.py --cold             # numba cache in a fresh directory

OpenSpiel's ``lp_solver`` needs cvxpy (its default backend ECOS is replaced by CLARABEL
where cvxpy no longer ships it); without cvxpy, or with ``--openspiel-lp highs``, the
stage games go to SciPy's HiGHS. The note column says which one ran.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = {  # seconds quoted in DESIGN.md / the issue for the same games
    "peer4": ("OpenSpiel value_iteration, cvxpy", 150.0),
    "wl8": ("C++/GLPK, values only", 53.0),
    "wl9": ("C++/GLPK, values only", 12.7 * 60),
}
TARGET = {"wl8": 20.0, "wl9": 300.0}


@dataclass
class Run:
    name: str
    command: str
    seconds: float | None
    rss_mb: float
    states: int | None = None
    solve_seconds: float | None = None
    note: str = ""


def spec(n: int, returns: str = "win_loss", order: str = "random") -> str:
    return f"goofspiel(num_cards={n},points_order={order},returns_type={returns})"


def run(name: str, argv: list[str], timeout: float, env: dict[str, str]) -> tuple[Run, str]:
    """Run ``argv`` to completion (or kill it at ``timeout``); time it and read its RSS."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                            text=True, cwd=ROOT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the wrapper and the command it runs
        out, _ = proc.communicate()
        return Run(name, " ".join(argv[1:]), None, 0.0, note=f"killed after {timeout:.0f} s"), out
    seconds = time.perf_counter() - start
    rss = _rss_of(out)  # RUSAGE_CHILDREN keeps the largest child so far: wait4 is per child
    if proc.returncode:
        return Run(name, " ".join(argv[1:]), None, rss, note=f"exit {proc.returncode}"), out
    return Run(name, " ".join(argv[1:]), seconds, rss), out


def _rss_of(output: str) -> float:
    match = re.search(r"^@@rss_kb=(\d+)$", output, re.M)
    return int(match.group(1)) / 1024 if match else 0.0


def wrapped(argv: list[str]) -> list[str]:
    """Run ``argv`` under this script's ``--wait4`` wrapper, which prints the child's peak RSS."""
    return [sys.executable, __file__, "--wait4", "--", *argv]


def wait4_main(argv: list[str]) -> int:
    pid = os.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    _, status, usage = os.wait4(pid, 0)
    sys.stdout.flush()
    print(f"@@rss_kb={usage.ru_maxrss}", flush=True)
    return os.waitstatus_to_exitcode(status)


def openspiel_main(n: int, order: str, highs: bool) -> int:
    """Child: time OpenSpiel's value iteration on ``n``-card goofspiel."""
    from openspiel_peer import value_iteration as load_value_iteration

    value_iteration, lp = load_value_iteration("highs" if highs else "auto")
    lp = "lp: " + lp
    import pyspiel
    start = time.perf_counter()
    game = pyspiel.load_game("goofspiel", {"num_cards": n, "points_order": order})
    values = value_iteration(game, depth_limit=-1, threshold=1e-9)
    print(json.dumps({"states": len(values), "seconds": time.perf_counter() - start, "lp": lp}))
    return 0


def bench_openspiel(n: int, timeout: float, env: dict[str, str], lp: str) -> Run:
    argv = wrapped([sys.executable, __file__, "--openspiel-child", str(n), "--openspiel-lp", lp])
    result, out = run(f"peer{n}", argv, timeout, env)
    result.command = f"OpenSpiel value_iteration(goofspiel(num_cards={n}))"
    match = re.search(r"^(\{.*\})$", out, re.M)
    if match:
        data = json.loads(match.group(1))
        result.states, result.solve_seconds, result.note = data["states"], data["seconds"], data["lp"]
    elif result.seconds is not None:
        result.note, result.seconds = f"failed: {out.strip()[-200:]}", None
    return result


def bench_gamedb(name: str, game_spec: str, timeout: float, env: dict[str, str],
                 workdir: Path) -> Run:
    db = workdir / f"{name}.sqlite"
    _remove(db)
    gamedb = [sys.executable, "-m", "gamedb"]
    result, out = run(name, wrapped([*gamedb, "build", game_spec, "--db", str(db), "--quiet"]),
                      timeout, env)
    result.command = f'gamedb build "{game_spec}"'
    solved = re.search(r"solved [\d,]+ in ([\d.]+) s", out)
    result.solve_seconds = float(solved.group(1)) if solved else None
    if result.seconds is not None:
        info = subprocess.run([*gamedb, "info", str(db), "--json"], capture_output=True,
                              text=True, env=env, cwd=ROOT, check=True)
        summary = json.loads(info.stdout)
        result.states = summary["states"]
        result.note = f"root value {summary['root_value']:+.6f}"
    elif "killed" not in result.note:
        result.note += f": {out.strip()[-200:]}"
    _remove(db)
    return result


def _remove(db: Path) -> None:
    for path in db.parent.glob(f"{db.name}*"):  # -wal, -shm, .lock
        path.unlink()


def numba_cache_state(env: dict[str, str]) -> str:
    cache = Path(env["NUMBA_CACHE_DIR"]) if "NUMBA_CACHE_DIR" in env else ROOT / "gamedb"
    found = list(cache.rglob("goofspiel*.nbi"))
    return f"warm ({len(found)} goofspiel entries)" if found else "cold (compiles on first use)"


def table(runs: list[Run], peer: Run | None) -> str:
    lines = ["| command | seconds (whole command) | build seconds (in process) | states "
             "| peak RSS MB | ratio | note |", "|---|---:|---:|---:|---:|---|---|"]
    for r in runs:
        secs = f"{r.seconds:.2f}" if r.seconds is not None else "-"
        solve = f"{r.solve_seconds:.2f}" if r.solve_seconds is not None else "-"
        states = f"{r.states:,}" if r.states is not None else "-"
        lines.append(f"| `{r.command}` | {secs} | {solve} | {states} | {r.rss_mb:.0f} "
                     f"| {ratio(r, peer)} | {r.note} |")
    return "\n".join(lines)


def ratio(r: Run, peer: Run | None) -> str:
    if r.seconds is None:
        return "-"
    if r.name.startswith("gamedb") and peer is not None and peer.seconds:
        parts = [f"{peer.seconds / r.seconds:.0f}x faster than the peer run above (whole command)"]
        if r.solve_seconds:
            parts.append(f"{peer.seconds / r.solve_seconds:.0f}x (in-process build)")
        if r.name == "gamedb4":
            parts.append(f"{REFERENCE['peer4'][1] / r.seconds:.0f}x vs the quoted 150 s")
        return "; ".join(parts)
    if r.name in REFERENCE:
        label, secs = REFERENCE[r.name]
        target = f", target < {TARGET[r.name]:.0f} s: {'met' if r.seconds < TARGET[r.name] else 'missed'}" \
            if r.name in TARGET else ""
        return f"{secs / r.seconds:.2f}x vs {label} ({secs:.0f} s){target}"
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes only (about a minute)")
    parser.add_argument("--only", default="", help="comma-separated: peer4, wl8, wl9, pd8..pd11")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per command")
    parser.add_argument("--cold", action="store_true", help="numba cache in a fresh directory")
    parser.add_argument("--workdir", type=Path, default=None, help="where databases go (tmp)")
    parser.add_argument("--openspiel-lp", choices=("cvxpy", "highs"), default="cvxpy",
                        help="OpenSpiel's own lp_solver (cvxpy, if installed) or a HiGHS shim")
    parser.add_argument("--wait4", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--openspiel-child", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("rest", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.wait4:
        return wait4_main(args.rest)
    if args.openspiel_child:
        return openspiel_main(args.openspiel_child, "random", args.openspiel_lp == "highs")
    from common import ENV
    env = dict(ENV)  # Python's usual bytecode cache, for the peer and us alike
    if args.cold:
        env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="numba-cold-")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-goofspiel-"))
    peer_n = 3 if args.quick else 4
    plan = [(f"peer{peer_n}", None), (f"gamedb{peer_n}", spec(peer_n))]
    if args.quick:
        plan += [("wl6", spec(6)), ("pd7", spec(7, "point_difference"))]
    else:
        plan += [("wl8", spec(8)), ("wl9", spec(9))]
        plan += [(f"pd{n}", spec(n, "point_difference")) for n in range(8, 12)]
    chosen = set(filter(None, args.only.split(",")))
    print(f"machine: {platform.platform()}, {os.cpu_count()} cpus, Python {platform.python_version()}")
    print(f"numba cache before the run: {numba_cache_state(env)}")
    runs: list[Run] = []
    peer: Run | None = None
    for name, game_spec in plan:
        if chosen and name not in chosen and not (name.startswith("gamedb") and f"peer{peer_n}" in chosen):
            continue
        if game_spec is None:
            peer = bench_openspiel(peer_n, args.timeout, env, args.openspiel_lp)
            runs.append(peer)
        else:
            runs.append(bench_gamedb(name, game_spec, args.timeout, env, workdir))
        print(table(runs[-1:], peer).splitlines()[-1], flush=True)
    print()
    print(table(runs, peer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
