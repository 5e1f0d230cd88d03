"""Benchmark: Oshi-Zumo builds against OpenSpiel's value iteration, side by side.

Targets (issue 3): the whole ``gamedb build "oshi_zumo(coins=50,size=3,min_bid=1)"``
command, and the same with ``min_bid=0``, under 2 s each with the numba cache warm.
The peer is OpenSpiel's ``value_iteration`` on ``oshi_zumo(coins=10)`` (~26 s in
DESIGN.md section 4); gamedb builds the same game in the same run.

Every row is a whole command in a fresh process (Python start and imports included),
timed by a small wrapper process whose ``getrusage(RUSAGE_CHILDREN)`` gives that one
command's peak RSS. OpenSpiel's ``lp_solver`` needs cvxpy; without it the stage games
are solved by SciPy's HiGHS (the note under the table says which). Usage::

    python bench/oshi_zumo.py                 # OpenSpiel with 10 coins, gamedb 10 and 50
    python bench/oshi_zumo.py --openspiel-coins 6
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import gamedb_build, machine, timed  # noqa: E402


def openspiel_solve(coins: int) -> None:
    """Run OpenSpiel's value iteration on oshi_zumo(coins) and print what it solved."""
    import pyspiel
    from openspiel_peer import value_iteration as load_value_iteration

    value_iteration, backend = load_value_iteration("auto")
    game = pyspiel.load_game("oshi_zumo", {"coins": coins, "size": 3, "min_bid": 1,
                                           "horizon": 2 * coins + 1})
    values = value_iteration(game, depth_limit=-1, threshold=1e-9)
    root = str(game.new_initial_state())
    print(json.dumps({"states": len(values), "root_value": values[root], "backend": backend}))


def gamedb_row(spec: str, repeat: int) -> tuple[str, list[float], int, float]:
    """Time the whole ``gamedb build SPEC`` on a fresh file, ``repeat`` times."""
    runs = [gamedb_build(spec) for _ in range(repeat)]
    states = int(re.search(r"([\d,]+) states", runs[0].output).group(1).replace(",", ""))  # type: ignore[union-attr]
    return f'gamedb build "{spec}"', [r.seconds for r in runs], states, max(r.peak_mib for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openspiel-coins", type=int, default=10)
    parser.add_argument("--coins", type=int, nargs="+", default=[10, 50],
                        help="gamedb builds (size=3, min_bid 1 and 0)")
    parser.add_argument("--repeat", type=int, default=5,
                        help="runs of each gamedb command (median, min-max reported)")
    parser.add_argument("--solve-openspiel", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.solve_openspiel is not None:
        return openspiel_solve(args.solve_openspiel)
    gamedb_build("oshi_zumo(coins=3,size=1)")  # warm the numba cache
    peer = timed([sys.executable, __file__, "--solve-openspiel", str(args.openspiel_coins)])
    solved = json.loads(peer.output.splitlines()[-1])
    peer_s = peer.seconds
    rows = [(f"OpenSpiel value_iteration oshi_zumo(coins={args.openspiel_coins},size=3,min_bid=1)",
             [peer_s], int(solved["states"]), peer.peak_mib)]
    rows.append(gamedb_row("oshi_zumo(coins=1,size=1)", args.repeat))  # the floor: start-up
    rows += [gamedb_row(f"oshi_zumo(coins={n},size=3,min_bid={m})", args.repeat)
             for n in args.coins for m in (1, 0)]
    print(f"machine: {machine()}\n")
    print(f"| command | seconds (median) | min-max of {args.repeat} | states | peak RSS MiB "
          f"| OpenSpiel ({args.openspiel_coins} coins) s / this |")
    print("|---|---:|---:|---:|---:|---:|")
    for command, seconds, states, peak in rows:
        mid = statistics.median(seconds)
        spread = f"{min(seconds):.2f}-{max(seconds):.2f}" if len(seconds) > 1 else ""
        print(f"| `{command}` | {mid:.2f} | {spread} | {states:,} | {peak:.0f} | {peer_s / mid:.1f}x |")
    print(f"\nOpenSpiel states include terminal ones; its LP backend: {solved['backend']}; "
          f"root value {solved['root_value']:+.6f}. gamedb states are canonical (player swap).")


if __name__ == "__main__":
    main()
