"""Tables for docs/play.md: Jujitsu 4..8 equilibrium vs simple agents, and the exact
level-k table of 13-card Goofspiel (random prize order, point difference).

    python bench/level_k.py            # prints both tables as markdown
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from gamedb.builder import build
from gamedb.games import load_game
from gamedb.play.agents import Highest, Lowest, Uniform
from gamedb.play.equilibrium import Equilibrium
from gamedb.play.evaluate import evaluate, exploitability
from gamedb.play.level_k import level_k_table
from gamedb.store import open_db


def jujitsu_table(sizes: range = range(4, 9)) -> str:
    lines = ["| cards | opponent | win | draw | loss | expected payoff | seconds |",
             "|---:|---|---:|---:|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"j{n}.sqlite"
            build(f"jujitsu(num_cards={n})", path)
            with open_db(path) as db:
                eq = Equilibrium(db.game, db)
                for opponent in (Uniform(), Highest(), Lowest()):
                    start = time.perf_counter()
                    r = evaluate(db.game, eq, opponent)
                    lines.append(f"| {n} | {opponent.name} | {r.win:.4f} | {r.draw:.4f} | "
                                 f"{r.loss:.4f} | {r.payoff:+.4f} | "
                                 f"{time.perf_counter() - start:.1f} |")
                print(f"jujitsu {n}: exploitability of the stored equilibrium "
                      f"{exploitability(db.game, eq):.2e}", file=sys.stderr)
    return "\n".join(lines)


def level_k_markdown(n: int = 13) -> str:
    table = level_k_table(load_game(f"goofspiel(num_cards={n},returns_type=point_difference)"))
    levels = sorted({i for i, _ in table})
    head = "| row vs column | " + " | ".join(f"L{j}" for j in levels) + " | total diff |"
    lines = [head, "|---" * (len(levels) + 2) + "|"]
    for i in levels:
        cells = [f"{table[i, j].points_for:.2f}–{table[i, j].points_against:.2f}"
                 if i != j else "—" for j in levels]
        total = sum(table[i, j].payoff for j in levels if j != i)
        lines.append(f"| L{i} | " + " | ".join(cells) + f" | {total:+.2f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print("## Jujitsu: equilibrium (player 1) against simple agents\n")
    print(jujitsu_table())
    print("\n## Goofspiel 13, random prize order: level i (row) vs level j, points per game\n")
    print(level_k_markdown())
