"""Commands that read positions: info, show (from a file), solve (without one)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gamedb.cli._common import cli, progress_bar, signed, table, user_errors

if TYPE_CHECKING:  # the library is imported inside the commands (fast --help)
    from gamedb.games.base import Game
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
    precision = info.meta.get("precision")
    if isinstance(precision, dict) and isinstance(precision.get("max_error"), float):
        head[-1:] = [f"precision   page values {precision.get('page_values')}, largest error "
                     f"{precision['max_error']:.1e} (gamedb ship --precision)", ""]
    progress = info.progress
    if info.status != "complete" and progress:
        head[-1:] = [f"progress    layer {progress.layer}: {progress.layer_done:,} / "
                     f"{progress.layer_states:,}; {progress.rate:,.0f} states/s; "
                     f"ETA {progress.eta_seconds:,.0f} s (as of the last chunk)", ""]
    rows = [(str(x.layer), f"{x.states:,}", f"{x.done:,}", f"{x.seconds:.2f}",
             f"{x.max_gap:.1e}" if x.done else "-",
             "pages" if x.layer in info.page_layers else "rows") for x in info.layers]
    return "\n".join(head) + table(("layer", "states", "done", "seconds", "max gap", "stored"),
                                    rows)


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
    from gamedb.store import NotSolved, open_db

    from gamedb.explore import show_json

    with open_db(db_path) as db:
        try:
            if as_json:
                click.echo(json.dumps(show_json(db, position)))
                return
            entry = db.probe(position)
        except NotSolved as exc:  # e.g. a position no play reaches: solve it on its own
            raise click.ClickException(f"{exc}; {_solve_hint(db.game, position)}") from None
        click.echo(_entry_text(db.game, entry, position, as_json=False))


#: ``gamedb.subgame.MAX_POSITIONS``, written out so that ``solve --help`` need not import
#: the solver (tests/test_subgame.py checks that the two agree).
_MAX_POSITIONS = 200_000


@cli.command(name="solve")
@click.argument("spec")
@click.argument("position")
@click.option("--max-positions", default=_MAX_POSITIONS, show_default=True,
              type=click.IntRange(1, None),
              help="Refuse a position with more positions below it than this (the count "
                   "is printed); roughly 100,000 positions are solved a second.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@click.option("--quiet", is_flag=True, help="No progress on stderr (shown on a terminal).")
@user_errors
def solve_command(spec: str, position: str, max_positions: int, as_json: bool,
                  quiet: bool) -> None:
    """Solve a position of SPEC from itself down, without a database file.

    Prints what `gamedb show` prints for the position in a file of the whole game: its
    value and both players' legal moves and optimal strategies, text or JSON. Any
    position of the game will do, reachable or not, as long as few enough positions lie
    below it (--max-positions); a bigger one is refused with the positions counted.

    \b
    Example:
        gamedb solve "goofspiel(num_cards=13)" "hand1=5,7,10 hand2=6,7,8 prizes=4,6 prize=11 diff=-7"
        gamedb solve "jujitsu(num_cards=8)" "hand1=1,3,5 hand2=2,4,6 pot=1 diff=0" --json
    """
    from gamedb.subgame import solve_json, solve_position

    with progress_bar(quiet or not sys.stderr.isatty(), "states", warm_up=True) as bar:
        stage = bar.stage if bar else None
        if as_json:  # exactly what show --json prints, moves' values included
            shown = json.dumps(solve_json(spec, position, max_positions=max_positions,
                                          on_progress=bar, on_stage=stage))
        else:
            game, entry = solve_position(spec, position, max_positions=max_positions,
                                         on_progress=bar, on_stage=stage)
            shown = _entry_text(game, entry, position, as_json=False)
    click.echo(shown)


def _solve_hint(game: Game[Any], position: str) -> str:
    """``try: gamedb solve "SPEC" "POSITION"``, the position as ``show`` writes it."""
    text = game.format_position(game.parse_position(position))
    return f'try: gamedb solve "{game.spec}" "{text}"'


def _entry_text(game: Game[Any], entry: Entry, position: str, as_json: bool = False) -> str:
    """The table of both players' moves that ``show`` and ``solve`` print."""
    from gamedb.games.base import named_actions

    del as_json  # JSON is gamedb.explore's (show_json, solve_json)
    return _entry_table(game.spec, entry, game.action_noun,
                        named_actions(game, game.parse_position(position)))


def _entry_table(spec: str, entry: Entry, noun: str, actions: dict[int, dict[int, str]]) -> str:
    head = [f"{spec}", f"position  {entry.position}", f"value     {signed(entry.value)}"]
    if entry.grundy is not None:  # an impartial family
        head.append(f"grundy    {entry.grundy} ({'the mover wins' if entry.grundy else 'the mover loses'})")
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
