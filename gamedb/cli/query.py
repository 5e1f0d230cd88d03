"""Commands for the world outside gamedb: sql, key, export, ship, book."""

from __future__ import annotations

import csv
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gamedb.cli._common import cli, progress_bar, table, user_errors

if TYPE_CHECKING:  # the library is imported inside the commands (fast --help)
    from gamedb.store.export import KeyInfo


@cli.command(context_settings={"ignore_unknown_options": True})  # SQL may start "-- "
@click.argument("db_path", metavar="DB", type=click.Path(path_type=Path))
@click.argument("query", metavar="SQL")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of row objects.")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV with a header row.")
@click.option("--pages/--no-pages", default=None,
              help="See the positions of page layers too (big layers of big games, kept "
                   "as compressed pages): an aggregate per layer (count, sum, total, avg, "
                   "min, max of value, gap, layer; WHERE and GROUP BY on layer) reads a "
                   "summary of each page, at any size; any other statement first reads "
                   "them into temporary tables. Default: on for aggregates, and for other "
                   "statements when the pages hold at most 15,000,000 positions.")
@user_errors
def sql(db_path: Path, query: str, as_json: bool, as_csv: bool, pages: bool | None) -> None:
    """Run one SQL statement on a database opened read-only (writes fail).

    Views ``positions`` and ``position_strategies`` show decoded positions; see
    docs/format.md and docs/queries.md.

    \b
    Example:
        gamedb sql j8.sqlite "SELECT position, value FROM positions LIMIT 5"
        gamedb sql j8.sqlite "SELECT * FROM meta" --json
    """
    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    from gamedb.store import open_db
    from gamedb.store.export import page_layers_note, paged_positions, run_query, sees_pages
    from gamedb.store.sqlpages import reads_positions

    open_db(db_path).close()  # a gamedb file, said as every command says it, or refused
    paged = paged_positions(db_path)
    if pages is None:
        pages = sees_pages(query, paged)
    if paged and not pages and reads_positions(query) \
            and (note := page_layers_note(db_path)) is not None:
        click.echo(note, err=True)
    try:
        quiet = not (pages and paged) or not sys.stderr.isatty()  # no bar into a log
        with progress_bar(quiet, "page positions read") as on_progress, \
                run_query(db_path, query, pages=bool(pages and paged),
                          on_progress=on_progress) as (columns, rows):
            if on_progress is not None:
                on_progress.close()  # the positions are read: the bar leaves before the rows
            if as_json:
                _echo_json(columns, rows)
            elif as_csv:
                writer = csv.writer(sys.stdout, lineterminator="\n")
                writer.writerow(columns)
                for row in rows:  # row by row: `| head` reads the first at once
                    writer.writerow(row)
            else:
                _echo_table(columns, rows)
            sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into head: stop quietly, like other tools
        _quiet_stdout()


def _quiet_stdout() -> None:
    """Point standard output at /dev/null after a broken pipe, so that the interpreter's
    last flush at exit finds nothing to complain about (the Python docs' recipe)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


#: Rows per block of the streamed table: its column widths are those of the rows so far.
_BLOCK = 1000


def _echo_table(columns: list[str], rows: Any) -> None:
    """Print rows as a table block by block, so the first rows show at once and memory
    stays bounded; a column widens (never narrows) when a later block needs it."""
    widths = [len(c) for c in columns]
    first = True
    for block in _blocks(rows, _BLOCK):
        cells = [tuple(_cell(v) for v in row) for row in block]
        widths = [max(w, *(len(r[i]) for r in cells)) for i, w in enumerate(widths)]
        lines = ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells]
        if first:
            lines.insert(0, "  ".join(h.rjust(w) for h, w in zip(columns, widths)))
            first = False
        click.echo("\n".join(lines))
    if first:  # no rows: the header alone
        click.echo(table(tuple(columns), []))


def _blocks(rows: Any, size: int) -> Any:
    """Yield lists of up to ``size`` rows; the first block is shorter (shown at once)."""
    block: list[Any] = []
    limit = min(size, 100)
    for row in rows:
        block.append(row)
        if len(block) >= limit:
            yield block
            block, limit = [], size
    if block:
        yield block


def _echo_json(columns: list[str], rows: Any) -> None:
    from gamedb.store.export import json_cell

    click.echo("[", nl=False)
    for i, row in enumerate(rows):
        cells = dict(zip(columns, map(json_cell, row)))
        click.echo(("," if i else "") + "\n  " + json.dumps(cells, allow_nan=False), nl=False)
    click.echo("\n]")


def _cell(value: Any) -> str:
    return "NULL" if value is None else str(value)


@cli.command()
@click.argument("spec")
@click.argument("position")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@user_errors
def key(spec: str, position: str, as_json: bool) -> None:
    """Print where POSITION is stored: canonical key, layer, swap, action labels.

    Needs no database: other tools use it to look positions up with plain SQL
    (``SELECT * FROM strategies WHERE key = ...``), mapping stored labels back to real
    cards with the printed table.

    \b
    Example:
        gamedb key "jujitsu(num_cards=8)" "hand1=2,7 hand2=4,8 pot=0 diff=-2"
        gamedb key "oshi_zumo(coins=50)" "coins1=17 coins2=34 pos=3" --json
    """
    from gamedb.store.export import key_info

    info = key_info(spec, position)
    click.echo(json.dumps(_key_json(info)) if as_json else _key_table(info))


def _key_json(info: KeyInfo) -> dict[str, Any]:
    return {"spec": info.spec, "position": info.position, "key": info.key,
            "layer": info.layer, "swapped": info.swapped,
            "stored_position": info.stored_position, "offset": info.offset,
            "unreachable": info.unreachable,
            "players": {str(p): {"stored_player": info.stored_player[p],
                                 "actions": {str(a): label for a, label in info.actions[p].items()}}
                        for p in (1, 2)}}


def _key_table(info: KeyInfo) -> str:
    head = [info.spec, f"position         {info.position}", f"key              {info.key}",
            f"layer            {info.layer}", f"swapped          {'yes' if info.swapped else 'no'}",
            f"stored position  {info.stored_position}",
            *([f"note             {info.unreachable}: no play reaches this position; its "
               "cards are stored under this key (the score is not part of it)"]
              if info.unreachable else []), ""]
    rows = [(str(p), str(info.stored_player[p]), info.names.get(p, {}).get(a, str(a)), str(label))
            for p in (1, 2) for a, label in info.actions[p].items()]
    return "\n".join(head) + table(("player", "stored player", "real", "stored"), rows)


@cli.command(name="export")
@click.argument("db_path", metavar="DB", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["csv", "jsonl"]), default="jsonl",
              show_default=True, help="CSV: one row per position, player and action.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              help="Write to this file (default: standard output).")
@click.option("--force", is_flag=True,
              help="Replace --output if it exists (once the export is complete).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@user_errors
def export_command(db_path: Path, fmt: str, output: Path | None, force: bool,
                   quiet: bool) -> None:
    """Export every stored position, decoded, with its value and strategies.

    A position is the canonical representative of its class (ranks as cards, players
    maybe swapped); strategies are given in stored labels and as real actions of it.
    CSV has a row per strategy entry, and one with empty action columns for a position
    without stored strategies. An --output that exists is refused (--force replaces it).

    \b
    Example:
        gamedb export j8.sqlite --format csv --output j8.csv
        gamedb export j8.sqlite | head -3
    """
    from gamedb.store import open_db
    from gamedb.store.export import export, export_to_file

    with open_db(db_path) as db:
        if unfinished := db.unfinished():
            click.echo(f"warning: {db_path}: {unfinished}; the export holds those stored "
                       "so far", err=True)
    if output is not None:
        with progress_bar(quiet, "positions") as on_progress:
            count = export_to_file(db_path, output, fmt, on_progress=on_progress,
                                   replace=force)
        click.echo(f"{output}: {count:,} positions")
        return
    try:
        export(db_path, sys.stdout, fmt)
    except BrokenPipeError:  # e.g. piped into head: stop quietly, like other tools
        _quiet_stdout()


@cli.command(name="ship")
@click.argument("db_path", metavar="DB", type=click.Path(path_type=Path))
@click.option("--precision", type=click.Choice(["float64", "float32"]), default="float64",
              show_default=True,
              help="float32: write a smaller copy (--output) whose page layers hold each "
                   "value rounded to float32 (about half their bytes); the largest error "
                   "is measured, printed and kept in the file (gamedb info shows it).")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              help="The float32 copy (required with --precision float32; DB is only read).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@user_errors
def ship_command(db_path: Path, precision: str, output: Path | None, quiet: bool) -> None:
    """Make a finished database ready to publish: journal_mode=DELETE, VACUUM, SHA-256.

    Prints the checksum line in ``sha256sum`` format (append it to SHA256SUMS).

    \b
    Example:
        gamedb ship data/jujitsu_num_cards=8_ties=carry.shipped.sqlite
        gamedb ship g13.sqlite --precision float32 -o g13.f32.sqlite
    """
    from gamedb.store.ship import ship, ship_float32

    if precision == "float64":
        if output is not None:
            raise click.UsageError("--output is for --precision float32 (a float64 file is "
                                   "shipped in place)")
        report = ship(db_path)
    else:
        if output is None:
            raise click.UsageError("--precision float32 writes a new file: give --output")
        with progress_bar(quiet, "values") as on_progress:
            small = ship_float32(db_path, output, on_progress=on_progress)
        report = small.report
        click.echo(f"{output}: {small.values:,} page values rounded to float32, largest "
                   f"error {small.max_error:.2e}", err=True)
    click.echo(f"{report.sha256}  {Path(report.path).name}")
    click.echo(f"{report.path}: shipped, {report.size:,} bytes", err=True)


@cli.command(name="book")
@click.argument("db_path", metavar="DB", type=click.Path(path_type=Path))
@click.argument("output", metavar="OUTPUT", type=click.Path(path_type=Path))
@click.option("--from-layer", "from_layer", type=click.IntRange(min=0), required=True,
              help="Keep this layer and every layer above it (Goofspiel, Jujitsu: the "
                   "positions with at least this many cards in hand).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@user_errors
def book_command(db_path: Path, output: Path, from_layer: int, quiet: bool) -> None:
    """Write an opening book: the top layers of a finished database, with strategies.

    The layers are verified in DB first (each position against its successors); the
    book is a new, shipped (VACUUMed) gamedb file that every command reads. Prints its
    checksum line in ``sha256sum`` format.

    \b
    Example:
        gamedb book g13.sqlite g13.book.sqlite --from-layer 12
    """
    from gamedb.book import make_book

    with progress_bar(quiet, "positions verified") as on_progress:
        book = make_book(db_path, output, from_layer, on_progress=on_progress)
    click.echo(f"{book.sha256}  {Path(book.path).name}")
    click.echo(f"{book.path}: {book.positions:,} positions of layers {book.from_layer} and up, "
               f"verified in {db_path.name} (max gap {book.max_gap:.1e}), {book.size:,} bytes",
               err=True)
