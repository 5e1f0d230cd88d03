"""The routes of ``gamedb serve``: the JSON API (``docs/api.md``) and the explorer page.

Safety rules, each with a test in ``tests/web/test_api.py``:

* only the files given on the command line are read: a request names one by its served
  name (the file name), looked up in a dict; no text of a request reaches the file system;
* every file is opened read-only (``open_db``), for one request at a time; ``/api/sql``
  runs one statement on a connection that cannot write (``store.export.run_query``),
  at most ``SQL_AT_ONCE`` at a time (one more gets 429), stopped after ``SQL_SECONDS``
  (400 saying so), answering at most ``SQL_ROWS`` rows;
* every parameter is capped (``MAX_PARAMETER`` characters) and every answer is bounded:
  a probe reads one position and its successors, a solve is capped at
  ``SOLVE_LIMIT`` positions and runs in a child process (``solving.py``), one at a time
  (a second gets 429), stopped after ``--solve-seconds`` (400 saying so), so it never
  slows the other requests;
* every error is JSON ``{"error": "..."}`` with a 4xx status: 422 for a served file
  that cannot be read (damaged since the server started), with what is wrong and never
  a folder of the server's; 500 only for a bug, which the server logs in one line and
  survives. A damaged file is listed by ``/api/dbs`` with its error: the others are
  served as before.
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from gamedb.explore import info_json, show_json, successors
from gamedb.games import GameError, load_game
from gamedb.store import GameDB, NotSolved, StoreError, open_db
from gamedb.store.errors import DATABASE_ERRORS, describe_database_error
from gamedb.store.export import QueryError, json_cell, paged_positions, run_query, sees_pages
from gamedb.store.lock import build_running
from gamedb.store.migrate import SchemaOutOfDate
from gamedb.web.solving import SOLVE_SECONDS, Solver, SolveRefused

#: Longest parameter accepted, in characters (a 13-card position is ~100).
MAX_PARAMETER = 1000
#: Most positions ``/api/solve`` may solve (``gamedb.subgame.solve_position``'s cap).
SOLVE_LIMIT = 200_000
#: Rows ``/api/sql`` answers at most (``truncated`` says when there were more).
SQL_ROWS = 1000
#: Seconds an ``/api/sql`` statement may run, reading page layers included.
SQL_SECONDS = 60.0
#: ``/api/sql`` statements running at once; one more gets 429.
SQL_AT_ONCE = 2
#: The page's files: name -> content type.
STATIC = {"index.html": "text/html; charset=utf-8", "explorer.js": "text/javascript",
          "board.js": "text/javascript", "explorer.css": "text/css"}
#: No script, style or image from anywhere but this server (no CDN), no framing.
HEADERS = {"Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'",
           "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"}


#: What a served file that cannot be read any more raises (damaged since the start).
_FILE_ERRORS: tuple[type[Exception], ...] = (StoreError, SchemaOutOfDate, *DATABASE_ERRORS)


class ApiError(Exception):
    """An answer with a 4xx (or 5xx) status and a one-line message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class ServedFiles:
    """The files given on the command line, by served name, opened read-only.

    Each request opens its file anew (about 10-25 ms) in the worker thread that answers
    it and closes it there: an SQLite connection must not cross threads, and a cached
    one would be closed by another thread at shutdown.
    """

    def __init__(self, paths: Sequence[Path]):
        self.paths = {path.name: path for path in paths}
        for path in paths:  # refuse an unreadable file at start, not at the first request
            with open_db(path):
                pass

    def unpathed(self, message: str) -> str:
        """``message`` with every served file's path replaced by its served name (the
        server never shows its folders)."""
        for name, path in self.paths.items():
            for spelled in {str(path.resolve()), str(path.absolute()), str(path)}:
                message = message.replace(spelled, name)
        return message

    def path(self, name: str) -> Path:
        """The path of the served file ``name`` (404 for any other name)."""
        if name not in self.paths:
            raise ApiError(404, f"no served file is named {name[:80]!r}; GET /api/dbs lists them")
        return self.paths[name]

    @contextmanager
    def open(self, name: str) -> Iterator[GameDB]:
        """Open the served file ``name`` for one request."""
        with open_db(self.path(name)) as db:
            yield db


def create_app(paths: Sequence[Path], *, solve_seconds: float = SOLVE_SECONDS,
               sql_seconds: float = SQL_SECONDS) -> Starlette:
    """Return the ASGI application serving ``paths`` (each must be a gamedb file); an
    ``/api/solve`` runs for at most ``solve_seconds``, an ``/api/sql`` statement for at
    most ``sql_seconds``.

    Raises:
        NotAGameDB, SchemaOutOfDate, SpecMismatch: a file cannot be served.
    """
    files = ServedFiles(paths)
    solver = Solver(SOLVE_LIMIT, solve_seconds)
    sql_slots = threading.BoundedSemaphore(SQL_AT_ONCE)
    pages = {name: resources.files("gamedb.web").joinpath("static").joinpath(name).read_bytes()
             for name in STATIC}
    routes = [
        Route("/", _page(pages, "index.html")),
        Route("/favicon.ico", _no_icon),
        *(Route(f"/static/{name}", _page(pages, name)) for name in STATIC),
        Route("/api/dbs", _api(files, lambda q: _dbs(files))),
        Route("/api/show", _api(files, lambda q: _show(files, q))),
        Route("/api/next", _api(files, lambda q: _next(files, q))),
        Route("/api/solve", _api(files, lambda q: _solve(solver, q))),
        Route("/api/sql", _api(files, lambda q: _sql(files, q, sql_slots, sql_seconds))),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: _http_error})


def _page(pages: dict[str, bytes], name: str) -> Callable[[Request], Any]:
    async def page(request: Request) -> Response:
        return Response(pages[name], media_type=STATIC[name], headers=HEADERS)
    return page


async def _no_icon(request: Request) -> Response:
    return Response(status_code=204, headers=HEADERS)  # browsers ask; a 404 would be logged


Query = dict[str, str]


def _api(files: ServedFiles, answer: Callable[[Query], Any]) -> Callable[[Request], Any]:
    """Wrap an answer: parameters in, JSON out, every error as JSON with its status.

    The answer runs in a worker thread (SQLite and the solver block), so a slow request
    never stalls the others.
    """
    def respond(request: Request) -> Response:
        try:
            return JSONResponse(answer(_query(request)), headers=HEADERS)
        except Exception as exc:  # noqa: BLE001  (every error becomes JSON)
            status, message = _error(exc, request.url.path)
            return JSONResponse({"error": files.unpathed(message)}, status_code=status,
                                headers=HEADERS)
    return respond


def _query(request: Request) -> Query:
    seen: set[str] = set()
    for name, _ in request.query_params.multi_items():  # thousands fit in 16 KiB: a set
        if name in seen:
            raise ApiError(400, f"parameter {name[:40]!r} is given twice")
        seen.add(name)
    query = dict(request.query_params)
    for name, value in query.items():
        if len(value) > MAX_PARAMETER:
            raise ApiError(400, f"parameter {name[:40]!r} is too long: {len(value):,} "
                           f"characters (at most {MAX_PARAMETER:,})")
    return query


def _error(exc: Exception, where: str) -> tuple[int, str]:
    """Return the status and one-line message of an error (those of a served file that
    cannot be read, and bugs, are logged)."""
    if isinstance(exc, (ApiError, SolveRefused)):
        return exc.status, str(exc)
    if isinstance(exc, GameError):
        return 400, str(exc)
    if isinstance(exc, NotSolved):
        return 404, str(exc)
    if isinstance(exc, (StoreError, SchemaOutOfDate)):  # damaged since the server started
        status, message = 422, str(exc)
    elif isinstance(exc, DATABASE_ERRORS):
        status, message = 422, f"{describe_database_error(exc)} (a damaged file?)"
    else:
        status, message = 500, "internal error (logged by the server)"
    print(f"gamedb serve: {where}: {type(exc).__name__}: {exc}"[:500],
          file=sys.stderr, flush=True)
    return status, message


async def _http_error(request: Request, exc: Exception) -> Response:
    """Unknown paths (404) and methods other than GET (405), as JSON."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    return JSONResponse({"error": f"{request.method} {request.url.path[:80]}: "
                                  f"{getattr(exc, 'detail', 'error')}"},
                        status_code=status, headers=HEADERS)


def _required(query: Query, name: str) -> str:
    if not query.get(name, "").strip():
        raise ApiError(400, f"missing parameter {name!r}")
    return query[name]


def _sql(files: ServedFiles, query: Query, slots: threading.BoundedSemaphore,
         seconds: float) -> dict[str, Any]:
    """One read-only SQL statement on a served file (``gamedb sql``'s, page layers
    included): its columns and up to ``SQL_ROWS`` rows."""
    path, statement = files.path(_required(query, "db")), _required(query, "q")
    if not slots.acquire(blocking=False):
        raise ApiError(429, f"{SQL_AT_ONCE} SQL statements are running: try again when one "
                            "has ended")
    try:
        with run_query(path, statement, pages=sees_pages(statement, paged_positions(path)),
                       seconds=seconds) as (columns, rows):
            kept = list(itertools.islice(rows, SQL_ROWS + 1))
    except QueryError as exc:
        raise ApiError(400, str(exc)) from None
    finally:
        slots.release()
    return {"db": path.name, "columns": columns,
            "rows": [[json_cell(cell) for cell in row] for row in kept[:SQL_ROWS]],
            "truncated": len(kept) > SQL_ROWS}


def _dbs(files: ServedFiles) -> dict[str, Any]:
    """Every served file with its info, or with what is wrong with it (one damaged file
    does not hide the others)."""
    listed: list[dict[str, Any]] = []
    for name in files.paths:
        try:
            with files.open(name) as db:
                summary = db.info()
            running = False if summary.status == "complete" else build_running(files.paths[name])
            info = info_json(summary, running)
        except _FILE_ERRORS as exc:
            listed.append({"name": name, "error": files.unpathed(_error(exc, name)[1])})
            continue
        listed.append({"name": name, "info": info | {"path": name}})  # never a directory
    return {"dbs": listed}


def _show(files: ServedFiles, query: Query) -> dict[str, Any]:
    with files.open(_required(query, "db")) as db:
        return show_json(db, _required(query, "position"), matrix=_flag(query, "matrix"))


def _flag(query: Query, name: str) -> bool:
    """A parameter that is ``1`` (yes) or ``0`` (no); absent is no."""
    value = query.get(name, "0")
    if value not in ("0", "1"):
        raise ApiError(400, f"parameter {name!r} is 1 (the {name}) or 0 (none), got "
                            f"{value[:40]!r}")
    return value == "1"


def _next(files: ServedFiles, query: Query) -> dict[str, Any]:
    if query.get("spec") and query.get("db"):
        raise ApiError(400, "give db or spec, not both (the file's game, or a game by its "
                            "spec)")
    if query.get("spec"):
        game = load_game(query["spec"])
    else:
        with files.open(_required(query, "db")) as db:
            game = db.game
    outcomes = successors(game, _required(query, "position"), _required(query, "a1"),
                          _required(query, "a2"))
    return {"spec": game.spec, "outcomes": [
        {"prob": o.prob, "position": o.position, "label": o.label} for o in outcomes]}


def _solve(solver: Solver, query: Query) -> dict[str, Any]:
    spec, position = _required(query, "spec"), _required(query, "position")
    if not _has_subgame():
        raise ApiError(501, "this gamedb has no subgame solver (gamedb.subgame)")
    return solver.solve(spec, position)


@functools.cache
def _has_subgame() -> bool:
    return importlib.util.find_spec("gamedb.subgame") is not None
