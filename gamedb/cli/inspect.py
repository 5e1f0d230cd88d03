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
    from gamedb.store import DBInfo


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

    from gamedb.store.lock import build_running

    with open_db(db_path) as db:
        summary = db.info()
    running = False if summary.status == "complete" else build_running(db_path)
    click.echo(json.dumps(info_json(summary, running), indent=2) if as_json
               else _info_table(summary, running is not False))


def _info_table(info: DBInfo, running: bool = True) -> str:
    root = "-" if info.root_value is None else signed(info.root_value)
    head = [f"spec        {info.spec}", f"status      {info.status}",
            f"states      {info.done:,} / {info.states:,}", f"root value  {root}", ""]
    book, source = info.meta.get("book_from_layer"), info.meta.get("book_source")
    if book is not None:
        made = f" of {source['name']}" if isinstance(source, dict) and "name" in source else ""
        head[-1:] = [f"book        an opening book{made}: layer {book} and up, verified "
                     "there; positions below it are not in this file", ""]
    precision = info.meta.get("precision")
    if isinstance(precision, dict) and isinstance(precision.get("max_error"), float):
        head[-1:] = [f"precision   page values {precision.get('page_values')}, largest error "
                     f"{precision['max_error']:.1e} (gamedb ship --precision)", ""]
    progress = info.progress
    if info.status != "complete" and not running:
        head[1] = (f"status      {info.status}, stopped: no build is running (run the same "
                   "build command to resume)")
    elif info.status != "complete" and progress:
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
    from gamedb.explore import show_json
    from gamedb.store import NotSolved, open_db
    from gamedb.store.errors import DamagedFile

    with open_db(db_path) as db:
        try:
            shown = show_json(db, position)
        except NotSolved as exc:  # e.g. a position no play reaches: solve it on its own
            # a complete file always holds its start: without it, it is damaged (its
            # spec in meta changed), whatever position was asked
            if db.meta.get("status") == "complete" and (
                    position.strip() == "start" or db.get("start") is None):
                start = db.game.format_position(db.game.parse_position("start"))
                raise DamagedFile(db.path, f"its start position {start} is not stored, yet "
                                  "the file is complete: its spec in meta or its rows "
                                  "changed; gamedb verify says more") from None
            raise click.ClickException(f"{exc}; {_solve_hint(db.game, position)}") from None
    click.echo(json.dumps(shown) if as_json else position_text(shown))


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
    position of the game will do, also one no file holds (an opening book's lower
    layers), as long as few enough positions lie below it (--max-positions; a bigger one
    is refused with the positions counted). One that no play reaches (a score the cards
    played cannot give) is solved as written, with a note that says why; one outside the
    rules (more points than the rounds played hold) is refused.

    \b
    Example:
        gamedb solve "goofspiel(num_cards=13)" "hand1=5,7,10 hand2=6,7,8 prizes=4,6 prize=11 diff=-7"
        gamedb solve "jujitsu(num_cards=8)" "hand1=1,3,5 hand2=2,4,6 pot=1 diff=0" --json
    """
    from gamedb.subgame import solve_json

    with progress_bar(quiet or not sys.stderr.isatty(), "states", warm_up=True) as bar:
        shown = solve_json(spec, position, max_positions=max_positions,
                           observer=bar)  # exactly what show prints, moves' values included
    click.echo(json.dumps(shown) if as_json else position_text(shown))


def _solve_hint(game: Game[Any], position: str) -> str:
    """``try: gamedb solve "SPEC" "POSITION"`` (the position as ``show`` writes it) where
    that command would solve it; else say that only a file of the game answers it."""
    from gamedb.subgame import MAX_POSITIONS, count_subgame

    state = game.parse_position(position)
    count = count_subgame(game.subgame(state), MAX_POSITIONS)
    if not count.complete:
        return ("too many positions below it to solve on demand: a file of the whole game "
                "answers it")
    return f'try: gamedb solve "{game.spec}" "{game.format_position(state)}"'


def position_text(shown: dict[str, Any]) -> str:
    """The text ``show`` and ``solve`` print for a position's JSON (``show --json``):
    value, then the chance draws with their values, or both players' moves with
    probability, value and loss (each player's own point of view)."""
    head = [shown["spec"], f"position  {shown['position']}", f"value     {signed(shown['value'])}"]
    if shown.get("unreachable"):
        head.append(f"note      {shown['unreachable']}: no play reaches this position; this "
                    "is the value of the position as written")
    if "grundy" in shown:  # an impartial family
        grundy = shown["grundy"]
        head.append(f"grundy    {grundy} ({'the mover wins' if grundy else 'the mover loses'})")
    if shown["payoff"] is not None:
        return "\n".join(head + [f"(the game is over: player 1's payoff {shown['payoff']:+g})"])
    if shown["chance"]:
        return "\n".join(head + ["(a chance draw is next: each draw, its probability and "
                                  "player 1's value after it)", ""]) + _draws_table(shown["chance"])
    return "\n".join(head + [""]) + _moves_table(shown)


def _draws_table(draws: list[dict[str, Any]]) -> str:
    rows = [(d["label"] or d["position"], f"{d['prob']:.4f}",
             signed(d["value"]) if "value" in d else "?") for d in draws]
    return table(("draw", "prob", "value"), rows)


def _moves_table(shown: dict[str, Any]) -> str:
    """Both players' legal moves: probability, and where the file has the successors,
    value (the player's own expected payoff against the other's equilibrium) and loss
    (what the move gives up against the player's best, >= 0)."""
    moves = shown.get("moves")
    columns = ("prob", "value", "loss") if moves is not None else ("prob",)
    cells: dict[str, list[str]] = {}  # move name -> both players' columns
    for player in (1, 2):
        key = str(player)
        judged = {m["action"]: m for m in moves[key]} if moves is not None else {}
        for action in shown["actions"][key]:
            name = shown["names"][key][str(action)]
            row = cells.setdefault(name, ["-"] * 2 * len(columns))
            at = (player - 1) * len(columns)
            row[at] = f"{shown['strategy'].get(key, {}).get(str(action), 0.0):.4f}"
            if action in judged:
                own = judged[action]["value"] * (1 if player == 1 else -1)
                row[at + 1:at + 3] = [signed(own, 4), f"{judged[action]['loss'] + 0.0:.4f}"]
    headers = (shown["noun"], *(f"p{p} {c}" for p in (1, 2) for c in columns))
    order = {name: i for i, name in enumerate(cells)}  # words in the game's own order
    rows = [(name, *cells[name])
            for name in sorted(cells, key=lambda n: (*_numbers_first(n)[:2], order[n]))]
    note = ("value: the player's own expected payoff when it plays the move and the other "
            "its equilibrium strategy; loss: what the move gives up against the player's best"
            if moves is not None else "(the moves' values are not in this file: the "
            "positions they lead to are not stored, e.g. below an opening book's last layer)")
    return table(headers, rows) + "\n" + note


def _numbers_first(name: str) -> tuple[bool, int, str]:
    """Sort key of action names: numbers by value, then words such as ``pass``."""
    number = name.lstrip("-").isdigit()
    return not number, int(name) if number else 0, name
