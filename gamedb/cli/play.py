"""Commands that play: match, tournament, play, plot."""

from __future__ import annotations

import itertools
import json
import math
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gamedb.cli._common import cli, progress_bar, table, user_errors, vars_of

if TYPE_CHECKING:  # the library is imported inside the commands (fast --help)
    from gamedb.play.cost import Cost
    from gamedb.play.tournament import Series
    from gamedb.store import GameDB

_DB = click.Path(path_type=Path)

#: The names ``gamedb.play.names.make_agent`` understands (the epilog of match and
#: tournament; here, so that their help need not import the library).
AGENT_NAMES = """\b
Agents:
  equilibrium           the stored equilibrium (solved on the fly without a DB)
  random                uniform over legal actions (= level-0)
  highest, lowest       always the highest / lowest card or bid
  matching              Goofspiel: bid the card equal to the prize (= level-1)
  level-K               Goofspiel: level k bids ((prize + k - 2) mod n) + 1
  bid-range-L-H         Oshi-Zumo: uniform bid in L..min(H, coins)
  two-else-one          Oshi-Zumo: bid 2 if you have 2 coins, else 1
  support-random        uniform within the equilibrium's support
  nash-range            uniform over every action between the lowest and the
                        highest of the equilibrium's support (Buro 2003)
  best-response:AGENT   the exact best response to AGENT (any name above)
  equilibrium-vs:AGENT  among the optimal strategies, the one that earns most
                        against AGENT (never below the game value)
  module:callable       a Python function (game, state, player) -> {action: prob}
  openspiel:module:attr an OpenSpiel policy (needs a DB and OpenSpiel)"""


_DB_OPTION = click.option("--db", "db_path", type=_DB,
                          help="Database for the equilibrium agents, when the first argument "
                               "is a SPEC (without one they solve on the fly: small games).")
_QUIET = click.option("--quiet", is_flag=True, help="No progress bar on stderr.")
_FORCE = click.option("--force", is_flag=True,
                      help="Run even when the work is estimated past 5 minutes (refused "
                           "by default, with the estimate).")


@cli.command(epilog=AGENT_NAMES)
@click.argument("target", metavar="DB|SPEC")
@click.argument("agent1")
@click.argument("agent2")
@_DB_OPTION
@click.option("--exact", is_flag=True,
              help="Evaluate exactly even a game too big for it (refused otherwise, up front: "
                   "minutes and gigabytes past 30,000 positions); refused with --games.")
@click.option("--games", type=click.IntRange(1), help="Simulate this many games instead.")
@click.option("--seed", type=click.IntRange(min=0), help="Seed of the simulation.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@_FORCE
@_QUIET
@user_errors
def match(target: str, agent1: str, agent2: str, db_path: Path | None, exact: bool,
          games: int | None, seed: int | None, as_json: bool, force: bool, quiet: bool) -> None:
    """Play AGENT1 (player 1) against AGENT2: exact outcome, or a seeded simulation.

    The game is a database file (DB) or a SPEC, as in tournament. Progress (positions
    evaluated, or games played) goes to stderr.

    \b
    Example:
        gamedb match j6.sqlite equilibrium random
        gamedb match "jujitsu(num_cards=6)" equilibrium random --db j6.sqlite
        gamedb match j6.sqlite equilibrium highest --games 1000 --seed 1 --json
    """
    if exact and games:
        raise click.UsageError("--exact and --games exclude each other")
    from gamedb.play.names import make_agent
    from gamedb.play.tournament import play_match

    with ExitStack() as stack:
        game, db = _open_game(stack, target, db_path)
        a, b = make_agent(agent1, game, db), make_agent(agent2, game, db)
        # the cost of solving and walking first, then the walk's memory
        cost = _check_cost(game, [(agent1, agent2)], db, games, [(a, b)],
                           "simulate with --games 2000 (seconds)", force)
        if games is None and not exact and not force:
            _check_exact(game, db, [(a, b)], "simulate with --games 2000 (seconds), "
                                             "insist with --exact, or add --force")
        _solve_ahead(game, [(a, 1), (b, 2)], cost, quiet)
        unit = "games" if games else "positions"
        with progress_bar(quiet, unit) as on_progress:
            result = play_match(game, a, b, games=games, seed=seed, on_progress=on_progress)
    fields = vars_of(result)
    click.echo(json.dumps(fields) if as_json else "\n".join(  # text: only what applies
        f"{name:15} {_fmt(value)}" for name, value in fields.items() if value is not None))


@cli.command(epilog=AGENT_NAMES)
@click.argument("target", metavar="SPEC|DB")
@click.option("--agents", required=True, help="Comma-separated agent names.")
@click.option("--games", "lengths", default="10,20,30,50", show_default=True,
              help="Comma-separated series lengths.")
@_DB_OPTION
@click.option("--simulate", is_flag=True, help="Play seeded games instead of exact expectations.")
@click.option("--seed", type=click.IntRange(min=0), help="Seed of the simulation.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@_FORCE
@_QUIET
@user_errors
def tournament(target: str, agents: str, lengths: str, db_path: Path | None, simulate: bool,
               seed: int | None, as_json: bool, force: bool, quiet: bool) -> None:
    """Run round robins of the game among the agents, one table per series length.

    The game is a SPEC or a database file (DB), as in match. Progress (pairings
    played) goes to stderr.

    \b
    Example:
        gamedb tournament "goofspiel(num_cards=13,returns_type=point_difference)" \\
            --agents level-1,level-2,level-3,random --games 10,20,30,50
        gamedb tournament j6.sqlite --agents equilibrium,random,highest --json
    """
    from gamedb.play.names import make_agent
    from gamedb.play.tournament import round_robin

    names = [name.strip() for name in agents.split(",") if name.strip()]
    if len(names) < 2:
        raise click.UsageError(f"--agents needs two or more agents, got {len(names)}: "
                               f"{', '.join(names) or '(none)'}")
    if twice := next((name for i, name in enumerate(names) if name in names[:i]), None):
        raise click.UsageError(f"--agents names {twice} twice: name each agent once (its "
                               "row and column would be the same)")
    series_lengths = _lengths(lengths)
    with ExitStack() as stack:
        game, db = _open_game(stack, target, db_path)
        players = [make_agent(name, game, db) for name in names]
        # the cost of solving and walking first, then the walks' memory
        seats = [(i, j) for i in range(len(names)) for j in range(len(names)) if i != j]
        cost = _check_cost(game, [(names[i], names[j]) for i, j in seats], db,
                           sum(series_lengths) if simulate else None,
                           [(players[i], players[j]) for i, j in seats],
                           "play seeded games with --simulate (--seed S)", force)
        if not simulate and not force:
            _check_exact(game, db, list(itertools.combinations(players, 2)),
                         "play seeded games with --simulate (--seed S), or add --force")
        _solve_ahead(game, [(p, seat) for p in players for seat in (1, 2)], cost, quiet)
        with progress_bar(quiet, "pairings") as on_progress:
            series = round_robin(game, players, series_lengths, seed=seed,
                                 simulate_games=simulate, on_progress=on_progress)
    click.echo(json.dumps([_series_json(s) for s in series]) if as_json
               else "\n\n".join(_series_table(s) for s in series))


@cli.command()
@click.argument("db_path", metavar="DB", type=_DB)
@click.option("--seat", type=click.IntRange(1, 2), default=1, show_default=True,
              help="Your seat: player 1 or 2.")
@click.option("--seed", type=click.IntRange(min=0),
              help="Seed of the chance draws and the equilibrium's moves.")
@click.option("--force", is_flag=True,
              help="Play a file still being built even where solving the positions it "
                   "lacks is estimated past 5 minutes (refused otherwise).")
@user_errors
def play(db_path: Path, seat: int, seed: int | None, force: bool) -> None:
    """Play against the equilibrium in the terminal (moves from stdin, so scripts work).

    Type a card or bid; 'explain' or '?' shows the equilibrium's mixed strategy at the
    current and the previous position; 'quit' ends the game.

    \b
    Example:
        gamedb play j6.sqlite --seat 2 --seed 7
        printf '6\\n5\\n?\\n4\\n3\\n2\\n1\\n' | gamedb play j6.sqlite
    """
    from gamedb.play.session import play_session
    from gamedb.store import open_db

    with open_db(db_path) as db:  # an unfinished file's missing positions cost time
        _check_cost(db.game, [("equilibrium", "random")], db, None, [], "", force,
                    what="game against the equilibrium")
        play_session(db, _read_line, click.echo, seat=seat, seed=seed)


@cli.group()
def plot() -> None:
    """Draw strategies as PNG or SVG pictures (matplotlib)."""


@plot.command("strategy")
@click.argument("db_path", metavar="DB", type=_DB)
@click.argument("position")
@click.option("--output", "-o", required=True, help="FILE.png or FILE.svg")
@user_errors
def plot_strategy_command(db_path: Path, position: str, output: str) -> None:
    """Draw both players' strategies at POSITION as bars (every legal action, 0 included).

    \b
    Example:
        gamedb plot strategy oz.sqlite "coins1=10 coins2=10 pos=0" -o start.png
    """
    from gamedb.play.plot import check_output, plot_strategy, strategy_bars
    from gamedb.store import open_db
    from gamedb.store.errors import refuse_own_database

    path = check_output(output)
    refuse_own_database(path, db_path)
    with open_db(db_path) as db:
        bars = strategy_bars(db, position)
    click.echo(f"wrote {plot_strategy(bars, path)}")


@plot.command("heatmap")
@click.argument("db_path", metavar="DB", type=_DB)
@click.option("--x", "x_axis", required=True, help="FIELD or FIELD=LOW:HIGH, e.g. coins1=0:20")
@click.option("--y", "y_axis", required=True, help="FIELD or FIELD=LOW:HIGH")
@click.option("--fixed", multiple=True, help="Other fields, e.g. pos=0 (repeatable).")
@click.option("--what", default="value", show_default=True,
              help="value, prob:ACTION (player 1) or prob2:ACTION (player 2).")
@click.option("--output", "-o", required=True, help="FILE.png or FILE.svg")
@user_errors
def plot_heatmap_command(db_path: Path, x_axis: str, y_axis: str, fixed: tuple[str, ...],
                         what: str, output: str) -> None:
    """Draw a heatmap of value or of one action's probability over a 2-D slice.

    \b
    Example:
        gamedb plot heatmap oz.sqlite --x coins1 --y coins2 --fixed pos=0 --what prob:1 -o p1.png
    """
    from gamedb.play.plot import Axis, check_output, plot_heatmap, slice_grid
    from gamedb.store import open_db
    from gamedb.store.errors import refuse_own_database

    path = check_output(output)
    refuse_own_database(path, db_path)
    with open_db(db_path) as db:
        ranges = db.game.capabilities.axes
        grid = slice_grid(db, Axis.parse(x_axis, ranges), Axis.parse(y_axis, ranges),
                          " ".join(fixed), what)
    click.echo(f"wrote {plot_heatmap(grid, path)}")


def _check_exact(game: Any, db: GameDB | None, pairs: list[tuple[Any, Any]], instead: str) -> None:
    """Refuse up front an exact evaluation too big to walk (``check_exact``), counting
    the positions from the file (or the estimate, without one)."""
    from gamedb.play.evaluate import check_exact

    stored = db.meta.get("states") if db is not None else None
    if isinstance(stored, int):  # a finished file's count (db.info() would check every layer row)
        positions = stored
    else:
        from gamedb.builder.estimate import estimate
        from gamedb.games import GameError

        try:
            positions = estimate(game).positions
        except GameError:  # not countable in the budget: the cost check has spoken
            return
    for a, b in pairs:
        check_exact(game, a, b, positions, instead=instead)


def _check_cost(game: Any, named: list[tuple[str, str]], db: GameDB | None,
                games: int | None, pairs: list[tuple[Any, Any]], simulate: str,
                force: bool, what: str = "") -> Cost:
    """Estimate the matches of the agents ``named`` (``pairs``: the agents themselves)
    and, unless ``force``, refuse work past ``gamedb.play.cost.LIMIT_SECONDS`` before it
    starts; ``simulate`` says how to play seeded games instead of exact ones."""
    from gamedb.play.cost import check_cost, match_cost
    from gamedb.play.level_k import applies

    closed = games is None and all(applies(game, a, b) for a, b in pairs)  # closed forms
    stored = db.meta.get("states") if db is not None else None
    # the positions a file still being built lacks are solved on the fly, as without one
    unfinished = db.unfinished() if db is not None else ""
    cost = match_cost(game, named, has_file=db is not None and not unfinished, games=games,
                      closed_form=closed, stored=stored if isinstance(stored, int) else None)
    instead = (f"{db.path.name}: {unfinished}; run the same build command to resume it"
               if cost.solved and db is not None else
               "build a file (gamedb build SPEC --db FILE) and give it with --db"
               if cost.solved and db is None else
               "nest fewer equilibrium-vs: (each level solves the game once more)"
               if cost.answered else _BEST_RESPONSE_INSTEAD if cost.responses
               else "fewer --games" if games else simulate)
    if not force:
        what = what or ("match" if len(named) == 1 else "tournament")
        check_cost(cost, f"this {what} of {game.spec}", instead)
    return cost


#: What to do instead of a best response too costly to walk.
_BEST_RESPONSE_INSTEAD = ("a best response walks every position its opponent lets it reach, "
                          "whatever --games says: try a smaller game, or score the agent "
                          "against its best response with gamedb evaluate DB AGENT (by "
                          "layers for random and the equilibrium)")


def _solve_ahead(game: Any, seated: list[tuple[Any, int]], cost: Cost, quiet: bool) -> None:
    """Solve the ``equilibrium-vs:`` agents before play, with a bar of their positions
    solved of the estimate and its ETA (``--quiet``: none); else each would solve the
    whole game at its first move without a word."""
    if not cost.answered:
        return
    from gamedb.play.exploiting import solve_ahead

    with progress_bar(quiet, "positions") as on_progress:
        if on_progress is not None:
            on_progress(0, cost.answered)
            on_progress.stage("equilibrium-vs: solving")
        solve_ahead(game, seated, cost.answered, on_progress)


def _open_game(stack: ExitStack, target: str, db_path: Path | None) -> tuple[Any, GameDB | None]:
    """Return the game and database of a first argument that is a DB file or a SPEC.

    A SPEC takes its database from ``--db`` (optional); a DB file is the database, and
    ``--db`` may only repeat it.
    """
    from gamedb.games import GAMES
    from gamedb.store import open_db

    if not Path(target).exists() and ("(" in target or target in GAMES):
        db = stack.enter_context(open_db(db_path)) if db_path else None
        return _game_for(target, db), db
    if db_path is not None and Path(target).resolve() != db_path.resolve():
        raise click.UsageError(f"two databases: {target} and --db {db_path}; give one")
    db = stack.enter_context(open_db(Path(target)))
    return db.game, db


def _game_for(spec: str, db: GameDB | None) -> Any:
    from gamedb.games import GameError, load_game

    game = load_game(spec)
    if db is not None and db.game.spec != game.spec:
        raise GameError(f"--db holds {db.game.spec}, not {game.spec}")
    return db.game if db is not None else game


def _lengths(text: str) -> list[int]:
    """``--games`` of ``tournament``: a usage error (exit 2) as ``match --games 0`` is."""
    from gamedb.games import GameError
    from gamedb.games.base import parse_integer

    try:
        lengths = [parse_integer(part, "must be comma-separated integers", text)
                   for part in text.split(",")]
    except GameError as exc:
        raise click.BadParameter(str(exc), param_hint="'--games'") from None
    if any(n < 1 for n in lengths):
        raise click.BadParameter(f"{text[:40]!r}: every series length must be at least 1",
                                 param_hint="'--games'")
    return lengths


def _read_line(prompt: str) -> str | None:
    click.echo(prompt, nl=False)
    try:
        line = sys.stdin.readline()  # CliRunner swaps sys.stdin for scripted input
    except KeyboardInterrupt:  # "interrupted" on a line of its own, not after the prompt
        click.echo()
        raise
    except UnicodeDecodeError as exc:  # a strict UTF-8 stdin (PYTHONIOENCODING=utf-8)
        click.echo()
        raise click.ClickException(f"standard input: byte {exc.object[exc.start]:#04x} is "
                                   f"not {exc.encoding} text; moves are typed as text "
                                   "(e.g. 3, or quit)") from None
    if not line:
        click.echo()
        return None
    return line


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        return f"{round(value, 6) + 0.0:.6f}".rstrip("0").rstrip(".")  # no "-0"
    return str(value)


def _series_table(series: Series) -> str:
    kind = "expected totals" if series.exact else "simulated"
    head = f"Round robin, {series.games} games per pairing ({kind}, half in each seat)"
    rows = [(s.agent, _num(s.payoff), _num(s.points_for), _num(s.points_against),
             _num(s.points_for - s.points_against), _num(s.wins), _num(s.draws),
             _num(s.losses), ", ".join(s.beat) or "-") for s in series.standings]
    names = [s.agent for s in series.standings]
    grids = []
    for what in ("payoff", "points difference"):
        cell = {(p.agent, p.opponent): _num(p.payoff if what == "payoff"
                                            else p.points_for - p.points_against)
                for p in series.pairs}
        grids += ["", f"{what}, row vs column:",
                  table(("", *names), [(a, *(cell.get((a, b), "") for b in names))
                                       for a in names])]
    note = ("beat: the opponents against which the agent's payoff (the game's own: with "
            "win/loss returns +1 a win, -1 a loss) is positive; for, against and diff "
            "count points")
    return "\n".join([head, table(("agent", "payoff", "for", "against", "diff", "wins",
                                   "draws", "losses", "beat"), rows), note, *grids])


def _series_json(series: Series) -> dict[str, Any]:
    return {"games": series.games, "exact": series.exact,
            "standings": [vars_of(s) for s in series.standings],
            "pairs": [vars_of(p) for p in series.pairs]}


def _num(x: float) -> str:
    """One decimal; no "-0.0" (a draw seen from the other side, or a small loss)."""
    text = "-" if math.isnan(x) else f"{x:.1f}"
    return "0.0" if text == "-0.0" else text
