"""Commands that serve databases to other programs: serve (the JSON API and the
explorer page; needs the ``web`` extra) and datasette-metadata."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from gamedb.cli._common import cli, user_errors


@cli.command()
@click.argument("db_paths", metavar="DB...", nargs=-1, required=True,
                type=click.Path(path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0: every interface; mind who can reach it).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0: any free port, named in the first line).")
@click.option("--solve-seconds", default=30.0, show_default=True,
              type=click.FloatRange(0.1, 86_400),
              help="Longest an /api/solve (a position solved on demand) may run; one runs "
                   "at a time, in a process of its own.")
@click.option("--sql-seconds", default=60.0, show_default=True,
              type=click.FloatRange(0.1, 86_400),
              help="Longest an /api/sql statement may run (reading page layers included); "
                   "two run at a time.")
@user_errors
def serve(db_paths: tuple[Path, ...], host: str, port: int, solve_seconds: float,
          sql_seconds: float) -> None:
    """Serve databases read-only: a JSON API and an explorer page for the browser.

    Each file is served under its file name. GET / is the explorer; the API
    (/api/dbs, /api/show, /api/next, /api/solve, /api/sql) answers JSON, documented in
    docs/api.md. Needs the web extra: pip install -e ".[web]". Ctrl-C stops it.

    \b
    Example:
        gamedb serve data/jujitsu_num_cards=8_ties=carry.shipped.sqlite --port 8000
        curl "http://127.0.0.1:8000/api/show?db=jujitsu_num_cards=8_ties=carry.shipped.sqlite&position=start"
    """
    same = [path.resolve() for path in db_paths]
    if again := next((path for i, path in enumerate(db_paths) if same[i] in same[:i]), None):
        raise click.BadParameter(f"{again} is given twice (the same file); give it once",
                                 param_hint="DB...")
    names = [path.name for path in db_paths]
    if twice := next((name for name in names if names.count(name) > 1), None):
        raise click.BadParameter(f"two files are named {twice}: each is served by its file "
                                 "name, so serve one of them or copy it to another name",
                                 param_hint="DB...")
    run = _server()
    run(list(db_paths), host=host, port=port, solve_seconds=solve_seconds,
        sql_seconds=sql_seconds,
        on_ready=lambda url: click.echo(f"serving {len(db_paths)} file(s) at {url} "
                                        "(Ctrl-C stops)"))


@cli.command("datasette-metadata")
@click.argument("db_path", metavar="DB", type=click.Path(path_type=Path))
@user_errors
def datasette_metadata(db_path: Path) -> None:
    """Print Datasette metadata for a file: what every table, view and column means.

    Datasette browses a gamedb file as it is; with this metadata it also shows a title,
    descriptions, and canned queries (the start position, a position by key, layers).

    \b
    Example:
        gamedb datasette-metadata j8.sqlite > j8.metadata.json
        datasette j8.sqlite --metadata j8.metadata.json
    """
    from gamedb.store import open_db
    from gamedb.store.datasette import datasette_metadata as metadata

    with open_db(db_path) as db:
        click.echo(json.dumps(metadata(db), indent=2))


def _server() -> Callable[..., Any]:
    """Return ``gamedb.web.server.serve``, or a one-line error naming the extra."""
    from gamedb.web import EXTRA_MODULES, INSTALL

    try:
        from gamedb.web.server import serve as run  # Starlette, uvicorn: only here
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in EXTRA_MODULES:
            raise
        raise click.ClickException(f"gamedb serve needs the web extra ({exc.name} is not "
                                   f"installed): {INSTALL}") from None
    return run
