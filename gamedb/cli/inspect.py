"""Commands that read databases: info, show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from gamedb.cli._common import cli, signed, table, user_errors

if TYPE_CHECKING:  # the library is imported inside the commands (fast --help)
    from gamedb.store import DBInfo, Entry


@cli.command()
@click.argument("db_path", metavar="DB", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@user_errors
def info(db_path: Path, as_json: bool) -> None:
    """Show a database's spec, status, per-layer counts and timings, and root value.

    \b
    Example:
        gamedb info jujitsu_num_cards=8_ties=carry.sqlite --json
    """
    from gamedb.explore import info_json
    from gamedb.store import open_db

    with open_db(db_path) as db:
        summary = db.info()
    click.echo(json.dumps(info_json(summary), indent=2) if as_json else _info_table(summary))


def _info_table(info: DBInfo) -> str:
    root = "-" if info.root_value is None else signed(info.root_value)
    head = [f"spec        {info.spec}", f"status      {info.status}",
            f"states      {info.done:,} / {info.states:,}", f"root value  {root}", ""]
    progress = info.progress
    if info.status != "complete" and progress:
        head[-1:] = [f"progress    layer {progress.layer}: {progress.layer_done:,} / "
                     f"{progress.layer_states:,}; {progress.rate:,.0f} states/s; "
                     f"ETA {progress.eta_seconds:,.0f} s (as of the last chunk)", ""]
    rows = [(str(x.layer), f"{x.states:,}", f"{x.done:,}", f"{x.seconds:.2f}",
             f"{x.max_gap:.1e}" if x.done else "-") for x in info.layers]
    return "\n".join(head) + table(("layer", "states", "done", "seconds", "max gap"), rows)


@cli.command()
@click.argument("db_path", metavar="DB", type=click.Path(path_type=Path))
@click.argument("position")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@user_errors
def show(db_path: Path, position: str, as_json: bool) -> None:
    """Show a position's value, both players' legal moves and optimal strategies.

    POSITION is space-separated name=value fields (cards as comma-separated lists, an
    empty list as -), or the word start; `gamedb rules FAMILY` explains the fields. Every
    legal move is listed, those the equilibrium never plays with probability 0 (- marks
    a move the player does not have). In a values-only file the strategies are solved
    on demand from the stored successor values.

    \b
    Example:
        gamedb show j8.sqlite "hand1=1,3,5 hand2=2,4,6 pot=1 diff=0"
        gamedb show j8.sqlite start --json
    """
    from gamedb.explore import show_json
    from gamedb.games.base import named_actions
    from gamedb.store import open_db

    with open_db(db_path) as db:
        if as_json:
            click.echo(json.dumps(show_json(db, position)))
            return
        entry = db.probe(position)
        game = db.game
        actions = named_actions(game, game.parse_position(position))
    click.echo(_entry_table(game.spec, entry, game.action_noun, actions))


def _entry_table(spec: str, entry: Entry, noun: str, actions: dict[int, dict[int, str]]) -> str:
    head = [f"{spec}", f"position  {entry.position}", f"value     {signed(entry.value)}"]
    if not any(actions.values()):
        return "\n".join(head + ["(no moves here: the game is over or a chance draw is next)"])
    cells: dict[str, list[str]] = {}  # action name -> (player 1's, player 2's) probability
    for player in (1, 2):
        strategy = entry.strategies.get(player, {})
        for action, name in actions[player].items():
            cells.setdefault(name, ["-", "-"])[player - 1] = f"{strategy.get(action, 0.0):.4f}"
    rows = [(name, *cells[name]) for name in sorted(cells, key=_numbers_first)]
    return "\n".join(head + [""]) + table((noun, "player 1", "player 2"), rows)


def _numbers_first(name: str) -> tuple[bool, int, str]:
    """Sort key of action names: numbers by value, then words such as ``pass``."""
    number = name.lstrip("-").isdigit()
    return not number, int(name) if number else 0, name
