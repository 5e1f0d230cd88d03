"""Build a strategy database: the one place where games, solver and store meet.

One builder for every game: the game's layer source (``games.source``; its own index
where it has one, ``Game.indexed_face``, else its keys enumerated: ``builder.sources``)
gives the layers, their keys in order and their stage games; the runner
(``builder.runner``) solves them chunk by chunk, from the terminal end up, where the
executor puts the work (``builder.cluster``: this process, forked workers, or Dask); the
one writer appends each finished chunk (rows or pages) with its progress. The plan
(``builder.plan``) decides what is stored where; the estimate (``builder.estimate``) what it
costs; one observer (``builder.progress``) hears how it goes. The database is the
checkpoint: a restarted build asks the file what is done and continues, and a finished
file is left alone.

>>> import tempfile, pathlib
>>> report = build("jujitsu(num_cards=4)", pathlib.Path(tempfile.mkdtemp()) / "j4.sqlite")
>>> report.status, report.states, abs(report.root_value) < 1e-12
('complete', 32, True)
"""

from __future__ import annotations

import contextlib
import functools
import gc
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gamedb.builder.cluster import Executor, executor, processes_here
from gamedb.builder.estimate import WontFit, check_fits, estimate_for
from gamedb.builder.plan import first_rich_layer, page_plan, page_split, strategy_split
from gamedb.builder.progress import FirstReport, Observer, Quiet
from gamedb.builder.runner import RunCounts, root_value, run_layers
from gamedb.builder.sources import enumerated
from gamedb.games import load_game
from gamedb.games.base import Game, GameError, root_of
from gamedb.games.source import LayerSource
from gamedb.jit import needs_compiling
from gamedb.solver.grundy import grundy_values
from gamedb.solver.matrix_game import TOLERANCE
from gamedb.store.pages import PAGE_MIN, PAGE_TARGET
from gamedb.store.writer import Writer

#: Positions per chunk and per transaction: large enough for fast bulk writes, small
#: enough to lose little.
CHUNK_SIZE = 32_768


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What a build did."""

    spec: str
    path: str
    status: str
    """``complete`` when the file holds every reachable position."""
    states: int
    """Canonical positions in the file."""
    solved: int
    """Positions solved by this run (0 when the file was already complete)."""
    seconds: float
    root_value: float | None
    fallbacks: int = 0
    """Stage games the fast kernel got wrong and the reference path fixed."""


def build(game: str | Game[Any], path: str | Path, *, workers: int = 1,
          chunk_size: int = CHUNK_SIZE, observer: Observer | None = None,
          values_only: bool = False, max_memory: int | None = None,
          strategies_from: int | None = None, cluster: str | None = None,
          pages_below: int | None = None, page_size: int = PAGE_TARGET,
          page_min: int | None = None) -> BuildReport:
    """Solve every reachable position of ``game`` into the SQLite file ``path``.

    Args:
        game: a spec string or a loaded game.
        path: the database file; a partial build of the same spec is resumed.
        workers: processes that expand and solve the chunks of big layers in parallel
            (one process writes); small layers never start them.
        chunk_size: positions per chunk and per transaction.
        observer: told the stage (enumerating, re-reading, solving, finalising: the
            enumeration of a big game takes minutes before any position is solved),
            the positions done of the total and the seconds left after every chunk
            (``builder.progress.Observer``; the command line's progress bar is one).
        values_only: store values but no strategies (for builds too large to keep
            them); a strategy is then one small LP over the stored successor values.
        max_memory: refuse (``WontFit``, before anything is enumerated) a build whose
            estimated peak memory exceeds this many bytes (``builder.estimate``).
            With ``cluster``, only the processes on this machine count.
        strategies_from: store strategies only in layers >= this one (the others as in
            a values-only file). None: every layer, except for games with their own
            index (``Game.indexed_face``) of more than 10 layers: from layer 11.
        cluster: run the chunks on a Dask cluster instead of ``workers`` processes
            (``builder.cluster.parse_address``: ``tcp://host:port`` or ``local:N``); it
            is reached before the file is opened, and this process still writes it.
        pages_below: store the layers below this one as compressed pages of values
            (``gamedb.store.pages``: no strategies, no ``states`` rows) instead of
            rows. None: a resumed file's own choice; for a new file, the layers
            without strategies of a game of more than 10 layers whose keys allow it
            (``builder.plan.page_split``), none in smaller games.
        page_size: values per page of a page layer, at most (a page holds whole
            blocks of the game's index; a resumed layer keeps its own); positions per
            page of a keyed page layer, about.
        page_min: store every other layer of at least this many positions as keyed
            pages (``store.pages.ROWS``: keys, values, gaps and strategies in each
            page; 0: none). None: a resumed file's own choice; ``PAGE_MIN`` for a new
            file of a game with its own index, 0 for the others (every layer rows, as
            SQL clients read them).
    """
    observer = Quiet() if observer is None else observer
    game = load_game(game) if isinstance(game, str) else game
    start = time.perf_counter()
    face = game.indexed_face()
    split = strategy_split(face, strategies_from)
    pages = page_split(face, game.spec, first_rich_layer(face, split, values_only), pages_below)
    fits = functools.partial(_refuse_if_too_big, game, face, processes_here(workers, cluster),
                             values_only, max_memory, strategies_from, pages_below, page_min)
    existed = Path(path).exists()
    if not existed:
        fits()  # refused before the file exists: nothing is left behind
    with _heap_frozen(), executor(workers, cluster) as run_on:  # unreachable: file left alone
        writer = Writer(Path(path), game, {"tolerance": TOLERANCE, "kernel": "numba-simplex"},
                        values_only=values_only, strategies_from=split, pages_below=pages,
                        pages_default=pages_below is None,
                        page_min=(page_min if page_min is not None else
                                  PAGE_MIN if face is not None else 0, page_min is None))
        try:
            if writer.complete:
                return _report(writer, game, 0, 0.0, 0)
            if existed:
                fits()
            run = _solve_all(game, face, writer, run_on, observer, chunk_size=chunk_size,
                             page_size=page_size, split=split, values_only=values_only)
            observer.stage("finalising")
            _write_grundy(game, writer)
            seconds = time.perf_counter() - start + float(writer.meta.get("seconds", 0.0))
            writer.finalize({"root_value": root_value(game, writer), "states": run.states,
                             "seconds": round(seconds, 3),
                             "root_keys": root_of(game).keys.tolist()})
            return _report(writer, game, run.solved, time.perf_counter() - start,
                           run.fallbacks)
        except SystemError as exc:
            if _interrupted(exc):  # Ctrl-C inside a compiled call: numba wraps it
                raise KeyboardInterrupt from None
            raise
        finally:
            writer.close()


def _solve_all(game: Game[Any], face: LayerSource | None, writer: Writer, run_on: Executor,
               observer: Observer, *, chunk_size: int, page_size: int, split: int,
               values_only: bool) -> RunCounts:
    """Take the game's layer source (its own index ``face``, else its keys enumerated),
    set its layers and page layers up in the file (once: a resumed file keeps its own),
    and solve what the file lacks: strategies from layer ``split``, none if
    ``values_only``."""
    enumerating, solving = _stage_texts(game)
    if face is None:
        observer.stage(enumerating)
    source = face if face is not None else enumerated(game, run_on)
    sizes = {layer: source.size(layer) for layer in source.layers()}
    writer.ensure_layers(sizes)
    writer.ensure_page_layers(page_plan(source, sizes, writer.pages_below, writer.page_min),
                              page_size)
    observer.stage(solving)
    if solving != "solving":  # the compiled solver is ready once the first chunk is in
        observer = FirstReport(observer, "solving")
    return run_layers(source, writer, run_on, chunk_size=chunk_size,
                      strategies_from=first_rich_layer(source, split, values_only),
                      observer=observer)


@contextlib.contextmanager
def _heap_frozen() -> Iterator[None]:
    """Freeze the objects alive when a build starts (``gc.freeze``) until it ends.

    They outlive the build (modules, compiled functions, the game), yet every full
    collection walked them: 130,000 objects, about 80 ms once Dask's import had
    allocated enough to start one (``--cluster local:2`` reached its cluster in 0.24 s,
    0.16 s frozen). Frozen, collections skip them, and the forked ``--workers``
    processes no longer write into their pages when they collect (Python's advice
    before a fork). Unfrozen after the build, so that a program building many times
    keeps nothing it would have freed; left alone if something else froze objects."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _write_grundy(game: Game[Any], writer: Writer) -> None:
    """Store the Sprague-Grundy value of every position of an impartial family, from
    the stored keys layer by layer (``gamedb.solver.grundy``)."""
    if game.capabilities.impartial:
        layers = {layer: writer.layer_values(layer)[0] for layer in writer.done_counts()}
        writer.write_grundy(grundy_values(game, layers))


def _interrupted(exc: BaseException | None) -> bool:
    """True if ``exc`` was caused by a KeyboardInterrupt (numba reports Ctrl-C during a
    compiled call as ``SystemError: ... returned a result with an exception set``)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _refuse_if_too_big(game: Game[Any], face: LayerSource | None, workers: int, values_only: bool,
                       max_memory: int | None, strategies_from: int | None,
                       pages_below: int | None, page_min: int | None) -> None:
    if max_memory is not None:
        try:
            guess = estimate_for(game, face, workers=workers, values_only=values_only,
                                 strategies_from=strategies_from, pages_below=pages_below,
                                 page_min=page_min)
        except WontFit:
            raise
        except GameError as exc:  # no estimate: say how to build it all the same
            raise WontFit(f"{exc}, so whether it fits this machine is not known: add "
                          "--force to build it anyway") from None
        check_fits(guess, max_memory)


#: Modules whose compiled (numba) functions every build runs, besides the game's own.
SOLVER_MODULES = ("gamedb.solver.kernel", "gamedb.solver.hashing", "gamedb.solver.matrix_game",
                  "gamedb.store.codec")
COMPILING = " (compiling first, once: 10-20 s; cached afterwards)"


def _stage_texts(game: Game[Any]) -> tuple[str, str]:
    """Return the enumeration's and the solve's stage texts, saying which compiles first."""
    return ("enumerating positions" + (COMPILING if needs_compiling(type(game).__module__) else ""),
            "solving" + (COMPILING if needs_compiling(*SOLVER_MODULES) else ""))


def _report(writer: Writer, game: Game[Any], solved: int, seconds: float,
            fallbacks: int) -> BuildReport:
    meta = writer.meta
    return BuildReport(game.spec, str(writer.path), str(meta.get("status")),
                       int(meta.get("states", 0)), solved, seconds, meta.get("root_value"),
                       fallbacks)
