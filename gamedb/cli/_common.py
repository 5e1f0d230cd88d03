"""Shared pieces of the command line: the group, error handling, tables, progress bars.

Every command parses its arguments, calls one library function and formats the result:
a readable table by default, ``--json`` for programs. Library errors become one-line
messages with exit status 1; usage errors exit with 2 (click's convention).

The command modules import the library (numpy, numba, SQLAlchemy) inside the commands,
never at the top: ``gamedb --help`` and every command's help then start in a tenth of
the time (tests/test_cli_startup.py checks which modules help leaves loaded).
"""

from __future__ import annotations

import _thread
import functools
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any, ParamSpec, TypeVar

import click

P = ParamSpec("P")
R = TypeVar("R")


def user_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn library errors into click's one-line error with exit status 1."""
    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except Exception as exc:
            message = _user_error_message(exc, kwargs.get("db_path"))
            if message is None:
                raise
            raise click.ClickException(_printable(message)) from None
    return wrapper


def _printable(message: str) -> str:
    r"""Escape the characters of a message that are not printable (control characters,
    line separators): one line stays one line, whatever a file or an input held.

    >>> _printable("x\x1cy.sqlite: no such file")
    'x\\x1cy.sqlite: no such file'
    """
    if message.isprintable():
        return message
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)


def _user_error_message(exc: Exception, db_path: Any) -> str | None:
    """Return the one-line message for a library error, None for a bug."""
    # Imported here, not at the top: the command has loaded the library by now.
    from gamedb.games import GameError
    from gamedb.store import NotSolved, StoreError
    from gamedb.store.errors import (DATABASE_ERRORS, describe_database_error, is_corrupt,
                                      is_disk_full)
    from gamedb.store.migrate import SchemaOutOfDate

    if isinstance(exc, (GameError, StoreError, NotSolved, SchemaOutOfDate)):
        return str(exc)
    if isinstance(exc, MemoryError):  # e.g. a query whose answer does not fit
        return f"{f'{db_path}: ' if db_path else ''}out of memory: the answer is too big"
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    if is_disk_full(exc):  # the disk's fault, not the file's: never "damaged"
        named = getattr(exc, "filename", None) or db_path
        where = f"{named}: " if named else ""
        return f"{where}the disk is full: free some space and run again"
    if isinstance(exc, DATABASE_ERRORS):
        where = f"{db_path}: " if db_path else ""
        maybe = "" if is_corrupt(exc) else " or not a gamedb database"  # as DamagedFile
        return (f"{where}{describe_database_error(exc)} (the file is damaged{maybe}; "
                "rebuild it or restore a copy)")
    return None


class _Group(click.Group):
    """The ``gamedb`` group: Ctrl-C in any command is one line and exit status 130.

    Click's own handling prints ``Aborted!`` and exits 1. Commands that can say more
    (``build``: where the work is saved) catch ``KeyboardInterrupt`` themselves first;
    a command writing a file writes it to a temporary name, so nothing partial is left.
    Run as the program, once the command is over a Ctrl-C has nothing left to stop:
    it is ignored, and one that lands while the interpreter exits prints no traceback.
    """

    _program = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run as the program (the console script, ``python -m gamedb``); click's test
        runner calls ``main`` and keeps its Ctrl-C."""
        self._program = True
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _interrupted_before_the_command)
        return self.main(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            if signal.getsignal(signal.SIGINT) is _interrupted_before_the_command:
                signal.signal(signal.SIGINT, _interrupt)  # the command's own
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)
        except click.UsageError as exc:  # e.g. a 100,000-digit --port: quote it cut short
            setattr(exc, "message", _cut_short(exc.message + _quote_hint(exc)))
            raise  # (click marks ``message`` Final)
        finally:
            if self._program:
                signal.signal(signal.SIGINT, signal.SIG_IGN)


def _quote_hint(exc: click.UsageError) -> str:
    """A hint for a position typed without quotes: its fields arrive as extra arguments.

    Returns the text to append to click's "Got unexpected extra argument" ('' otherwise).
    """
    if not exc.message.startswith("Got unexpected extra argument"):
        return ""
    first = exc.ctx.params.get("position") if exc.ctx is not None else None
    extra = re.search(r"\((.*)\)$", exc.message)
    words = [str(first or ""), *(extra.group(1).split() if extra else [])]
    fields = [w for w in words if re.fullmatch(r"[a-z_]+[0-9]?=\S*", w)]
    if len(fields) < 2:
        return ""
    return (f"; a position is one argument, quote the position: \"{' '.join(fields)}\"")


def _interrupted_before_the_command(_signum: int, _frame: Any) -> None:
    """Ctrl-C while click reads the arguments: nothing has started, nothing to save
    (click's own handling there says ``Aborted!`` and exits 1)."""
    click.echo("interrupted", err=True)
    raise SystemExit(130)


def _interrupt(_signum: int, frame: FrameType | None) -> None:
    """A command's Ctrl-C: Python's own (``KeyboardInterrupt``), except where Python can
    only print an exception and drop it (``_unraisable_here``): there the Ctrl-C was lost,
    a build ran on to the end (Ctrl-C while numba compiled), or numba's cache then failed
    on the object code its interrupted callback never stored. There another thread makes
    the signal pending again 10 ms later (made pending here, it would be handled at once,
    here again), until the first Python code out of that place raises it."""
    if _unraisable_here(frame):
        again = threading.Timer(0.01, _thread.interrupt_main, (signal.SIGINT,))
        again.daemon = True
        again.start()
        return
    raise KeyboardInterrupt


def _unraisable_here(frame: FrameType | None) -> bool:
    """True if ``frame`` runs inside a finalizer (``__del__``) or inside one of
    llvmlite's object-cache callbacks (ctypes; numba compiling), whose exceptions Python
    prints as "Exception ignored" and drops."""
    while frame is not None:
        name = frame.f_code.co_name
        if name == "__del__" or (name.startswith("_raw_object_cache_") and frame.f_globals.get(
                "__name__") == "llvmlite.binding.executionengine"):
            return True
        frame = frame.f_back
    return False


def _cut_short(message: str) -> str:
    """Shorten every long word of a message as the library's errors do.

    >>> _cut_short("Invalid value: '" + "9" * 500 + "' is not a valid integer.")
    "Invalid value: '99999999999999999999...' (500 characters) is not a valid integer."
    """
    if len(message) <= 200:
        return message
    from gamedb.games.base import shown

    quoted = re.sub(r"'([^'\s]{41,})'", lambda m: shown(m.group(1)), message)
    return re.sub(r"(?<![\S'])\S{41,}", lambda m: shown(m.group(0)), quoted)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gamedb")
def cli() -> None:
    """Solve simultaneous-move zero-sum games exactly and keep the strategies in SQLite."""


class _Bar:
    """A tqdm bar driven by the library's ``on_progress(done, total)`` callbacks.

    The bar appears at the first report or stage (a command that reports nothing, or
    fails first, draws none) and counts in whole numbers. With ``warm_up`` the clock
    restarts at the first report: the first chunk of a build carries the one-off
    compilation, which would otherwise make the rate and ETA absurd.
    """

    def __init__(self, unit: str, *, warm_up: bool = False):
        self._unit = unit
        self._bar: Any = None
        self._warming = warm_up

    def _shown(self, done: int = 0, total: int | None = None) -> Any:
        if self._bar is None:
            from tqdm import tqdm  # ~60 ms: only when a bar is shown

            if sys.stderr.isatty():
                self._bar = tqdm(unit=f" {self._unit}", dynamic_ncols=True, leave=False,
                                 initial=done, total=total)
            else:  # a log: whole lines now and then (the result line says how it ended)
                self._bar = tqdm(unit=f" {self._unit}", file=_Lines(sys.stderr), ncols=100,
                                 mininterval=_LOG_SECONDS, leave=False, initial=done,
                                 total=total)
        return self._bar

    def __call__(self, done: int, total: int | None) -> None:
        bar = self._shown(done, total)
        if self._warming:
            self._warming = False
            bar.reset(total=total)  # rate and ETA count from here
            bar.n = bar.last_print_n = bar.initial = done
            bar.refresh()
            return
        bar.total = total
        bar.update(done - bar.n)

    def eta(self, seconds: float) -> None:
        """Show ``seconds`` as the ETA instead of tqdm's own (a build's: its layers'
        positions weighted by their cost, ``gamedb.builder``)."""
        from tqdm import tqdm

        bar = self._shown()
        bar.bar_format = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}, {rate_fmt}{postfix}]"
        bar.set_postfix_str(f"ETA {tqdm.format_interval(seconds)}", refresh=False)

    def stage(self, text: str) -> None:
        """Show what the long command is doing now (e.g. before a total is known)."""
        self._shown().set_description_str(text)

    def close(self) -> None:
        """Clear the bar from the screen (before the result or an error is printed)."""
        if self._bar is not None:
            self._bar.close()


#: Seconds between progress lines written to a log (stderr not a terminal).
_LOG_SECONDS = 30.0


class _Lines:
    """A file for tqdm that turns its redraws (``\\r`` + text) into whole lines: a log
    gets one line per update instead of carriage-return fragments."""

    def __init__(self, stream: Any):
        self._stream = stream

    def write(self, text: str) -> None:
        line = text.replace("\r", "").rstrip()
        if line:
            self._stream.write(line + "\n")

    def flush(self) -> None:
        self._stream.flush()


@contextmanager
def progress_bar(quiet: bool, unit: str, *, warm_up: bool = False) -> Iterator[_Bar | None]:
    """Yield a progress callback with rate and ETA on stderr (None when ``quiet``).

    ``warm_up`` starts the rate and ETA at the first report (see `_Bar`).
    """
    if quiet:
        yield None
        return
    bar = _Bar(unit, warm_up=warm_up)
    try:
        yield bar
    finally:
        bar.close()


def vars_of(obj: Any) -> dict[str, Any]:
    """Return a slotted dataclass as a dict for JSON (no -0.0: a draw seen from the
    other side, e.g. ``evaluate``'s ``vs_equilibrium``, is 0.0).

    >>> from gamedb.play.score import AgentScore
    >>> vars_of(AgentScore("a", "s", 0.0, (0.0, -0.0), (0.0, 0.0), 0.0, 1.0))["vs_equilibrium"]
    (0.0, 0.0)
    """
    return {name: _unsigned_zero(getattr(obj, name)) for name in obj.__slots__}


def _unsigned_zero(value: Any) -> Any:
    if isinstance(value, float):
        return value + 0.0  # -0.0 + 0.0 is 0.0; every other float is itself
    if isinstance(value, tuple):
        return tuple(_unsigned_zero(v) for v in value)
    return value


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(headers, widths))]
    lines += ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


def signed(value: float, digits: int = 6) -> str:
    """Format a value with its sign, without printing rounding noise as ``-0.000000``.

    >>> signed(-1e-17), signed(0.25)
    ('+0.000000', '+0.250000')
    """
    return f"{round(value, digits) + 0.0:+.{digits}f}"
