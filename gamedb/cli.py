"""The ``gamedb`` command line: thin click commands over the library.

Every command parses its arguments, calls one library function and formats the result:
a readable table by default, ``--json`` for programs. Library errors become one-line
messages with exit status 1; usage errors exit with 2 (click's convention).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click
from tqdm import tqdm

from gamedb.build import CHUNK_SIZE, BuildReport, build
from gamedb.games import GAMES, GameError, load_game
from gamedb.store import Entry, NotSolved, StoreError, open_db
from gamedb.store.errors import DATABASE_ERRORS, describe_database_error
from gamedb.store.database import DBInfo
from gamedb.store.migrate import SchemaOutOfDate, upgrade_file
from gamedb.verify import VerifyReport, verify

F = TypeVar("F", bound=Callable[..., Any])
_USER_ERRORS = (GameError, StoreError, NotSolved, SchemaOutOfDate)


def _user_errors(func: F) -> F:
    """Turn library errors into click's one-line error with exit status 1."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except _USER_ERRORS as exc:
            raise click.ClickException(str(exc)) from None
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            raise click.ClickException(f"{where}{exc.strerror or exc}") from None
        except DATABASE_ERRORS as exc:
            where = f"{kwargs['db_path']}: " if kwargs.get("db_path") else ""
            raise click.ClickException(
                f"{where}{describe_database_error(exc)} (the file is damaged or not a gamedb "
                "database; rebuild it or restore a copy)") from None
    return wrapper  # type: ignore[return-value]


@click.group()
@click.version_option(package_name="gamedb")
def cli() -> None:
    """Solve simultaneous-move zero-sum games exactly and keep the strategies in SQLite."""


@cli.command()
def games() -> None:
    """List the game families and their parameters.

    \b
    Example:
        gamedb games
    """
    for name, cls in sorted(GAMES.items()):
        click.echo(f"{name}")
        for p in cls.params:
            extra = "|".join(p.choices) if p.choices else f"{p.low}..{p.high}"
            click.echo(f"  {p.name:<14} {extra:<28} {p.doc} (default: {p.default})")


def default_db_path(spec: str) -> Path:
    """Return ``data/<spec>.sqlite`` with the spec written as a file name.

    >>> default_db_path("jujitsu(num_cards=8,ties=carry)").as_posix()
    'data/jujitsu_num_cards=8_ties=carry.sqlite'
    """
    return Path("data") / (re.sub(r"[(),]+", "_", spec).strip("_") + ".sqlite")


@cli.command(name="build")
@click.argument("spec")
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Database file (default: data/<spec>.sqlite). A partial build resumes.")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Processes solving chunks in parallel.")
@click.option("--chunk-size", default=CHUNK_SIZE, show_default=True,
              type=click.IntRange(1, 10_000_000), help="States per transaction.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@_user_errors
def build_command(spec: str, db_path: Path | None, workers: int, chunk_size: int,
                  quiet: bool) -> None:
    """Solve every reachable position of SPEC into a SQLite database.

    \b
    Example:
        gamedb build "jujitsu(num_cards=8)"
        gamedb build "jujitsu(num_cards=13)" --db j13.sqlite --workers 2
    """
    game = load_game(spec)
    path = db_path or default_db_path(game.spec)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with _progress_bar(quiet, "states") as on_progress:
            report = build(game, path, workers=workers, chunk_size=chunk_size,
                           on_progress=on_progress)
    except KeyboardInterrupt:
        click.echo(f"interrupted: every finished chunk is saved in {path}; "
                   "run the same command to resume", err=True)
        raise SystemExit(130) from None
    click.echo(_format_report(report))


@contextmanager
def _progress_bar(quiet: bool, unit: str) -> Iterator[Callable[[int, int], None] | None]:
    if quiet:
        yield None
        return
    bar = tqdm(unit=f" {unit}", unit_scale=True, dynamic_ncols=True, leave=False)

    def update(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)

    try:
        yield update
    finally:
        bar.close()


def _format_report(report: BuildReport) -> str:
    if report.solved == 0:
        return f"{report.path}: already complete ({report.states:,} states), nothing to do"
    rate = report.solved / report.seconds if report.seconds else 0.0
    return (f"{report.path}: {report.status}, {report.states:,} states, solved "
            f"{report.solved:,} in {report.seconds:.2f} s ({rate:,.0f}/s), "
            f"root value {report.root_value:+.6f}")


@cli.command()
@click.argument("db_path", metavar="DB", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@_user_errors
def info(db_path: Path, as_json: bool) -> None:
    """Show a database's spec, status, per-layer counts and timings, and root value.

    \b
    Example:
        gamedb info data/jujitsu_num_cards=8_ties=carry.sqlite --json
    """
    with open_db(db_path) as db:
        summary = db.info()
    click.echo(json.dumps(_info_json(summary), indent=2) if as_json else _info_table(summary))


def _info_json(info: DBInfo) -> dict[str, Any]:
    return {"spec": info.spec, "status": info.status, "states": info.states,
            "done": info.done, "root_value": info.root_value, "path": info.path,
            "layers": [vars_of(layer) for layer in info.layers],
            "meta": info.meta}


def vars_of(obj: Any) -> dict[str, Any]:
    """Return a slotted dataclass as a dict."""
    return {name: getattr(obj, name) for name in obj.__slots__}


def _info_table(info: DBInfo) -> str:
    root = "-" if info.root_value is None else f"{info.root_value:+.6f}"
    head = [f"spec        {info.spec}", f"status      {info.status}",
            f"states      {info.done:,} / {info.states:,}", f"root value  {root}", ""]
    progress = info.meta.get("progress")
    if info.status != "complete" and progress:
        head[-1:] = [f"progress    layer {progress['layer']}: {progress['layer_done']:,} / "
                     f"{progress['layer_states']:,}; {progress['rate']:,.0f} states/s; "
                     f"ETA {progress['eta_seconds']:,.0f} s (as of the last chunk)", ""]
    rows = [(str(x.layer), f"{x.states:,}", f"{x.done:,}", f"{x.seconds:.2f}",
             f"{x.max_gap:.1e}") for x in info.layers]
    return "\n".join(head) + _table(("layer", "states", "done", "seconds", "max gap"), rows)


def _table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(headers, widths))]
    lines += ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


@cli.command()
@click.argument("db_path", metavar="DB", type=click.Path(path_type=Path))
@click.argument("position")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@_user_errors
def show(db_path: Path, position: str, as_json: bool) -> None:
    """Show a position's value and both players' optimal strategies.

    POSITION is space-separated name=value fields (cards as comma-separated lists, an
    empty list as -), or the word start.

    \b
    Example:
        gamedb show j8.sqlite "hand1=1,3,5 hand2=2,4,6 pot=1 diff=0"
        gamedb show j8.sqlite start --json
    """
    with open_db(db_path) as db:
        entry = db.probe(position)
        spec, noun = db.game.spec, db.game.action_noun
    click.echo(json.dumps(_entry_json(spec, entry)) if as_json else _entry_table(spec, entry, noun))


def _entry_json(spec: str, entry: Entry) -> dict[str, Any]:
    strategy = {str(p): {str(a): prob for a, prob in sorted(s.items())}
                for p, s in entry.strategies.items()}
    return {"spec": spec, "position": entry.position, "value": entry.value,
            "strategy": strategy}


def _entry_table(spec: str, entry: Entry, noun: str) -> str:
    head = [f"{spec}", f"position  {entry.position}", f"value     {entry.value:+.6f}"]
    actions = sorted({a for s in entry.strategies.values() for a in s})
    if not actions:
        return "\n".join(head + ["(no moves here: the game is over or a chance draw is next)"])
    rows = [(str(a), *(f"{entry.strategies[p].get(a, 0.0):.4f}" for p in (1, 2)))
            for a in actions]
    return "\n".join(head + [""]) + _table((noun, "player 1", "player 2"), rows)


@cli.command(name="verify")
@click.argument("db_path", metavar="DB", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@_user_errors
def verify_command(db_path: Path, as_json: bool) -> None:
    """Re-derive every stored stage game from stored values and re-check its solution.

    Exit status 0 when every position is an equilibrium within 1e-9, 1 otherwise.

    \b
    Example:
        gamedb verify data/jujitsu_num_cards=8_ties=carry.sqlite
    """
    report = verify(db_path)
    click.echo(json.dumps(_verify_json(report)) if as_json else _verify_table(report))
    if not report.ok:
        raise SystemExit(1)


def _verify_json(report: VerifyReport) -> dict[str, Any]:
    return {"ok": report.ok, "checked": report.checked, "max_gap": report.max_gap,
            "failures": report.failures, "failing_keys": report.failing_keys,
            "layers": {str(k): {"checked": c, "max_gap": g, "failures": f}
                       for k, (c, g, f) in sorted(report.layers.items())}}


def _verify_table(report: VerifyReport) -> str:
    rows = [(str(k), f"{c:,}", f"{g:.1e}", str(f))
            for k, (c, g, f) in sorted(report.layers.items(), reverse=True)]
    verdict = "sound" if report.ok else f"{report.failures} position(s) FAIL, e.g. keys {report.failing_keys[:5]}"
    return (_table(("layer", "checked", "max gap", "failures"), rows)
            + f"\n\n{report.checked:,} positions checked, max gap {report.max_gap:.1e}: {verdict}")


@cli.command(name="upgrade")
@click.argument("db_path", metavar="DB", type=click.Path(path_type=Path))
@_user_errors
def upgrade_command(db_path: Path) -> None:
    """Upgrade a database file written by an older gamedb to the current schema.

    \b
    Example:
        gamedb upgrade old.sqlite
    """
    before, after = upgrade_file(db_path)
    click.echo(f"{db_path}: schema {before} -> {after}" if before != after
               else f"{db_path}: already at schema {after}")
