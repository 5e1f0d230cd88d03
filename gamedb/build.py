"""Build a strategy database: the one place where games, solver and store meet.

Layers are solved from the terminal end up; each transaction holds whole chunks (a
chunk of a big layer, or several small layers) with their states, strategies and
progress. The database is the checkpoint: a restarted build asks
the file what is done and continues, and a finished file is left alone.
A game with an indexed face (``Game.indexed_face``: point-difference Goofspiel, win/loss
Goofspiel up to 10 cards) skips the enumeration and is solved and written in key order by ``gamedb.build_indexed``.

>>> import tempfile, pathlib
>>> report = build("jujitsu(num_cards=4)", pathlib.Path(tempfile.mkdtemp()) / "j4.sqlite")
>>> report.status, report.states, abs(report.root_value) < 1e-12
('complete', 32, True)
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gamedb.build_indexed import IndexedRun, build_layers, root_value
from gamedb.cluster import Executor, Local, Pool, executor, ordered, processes_here
from gamedb.estimate import WontFit, check_fits, estimate, page_split
from gamedb.games import load_game
from gamedb.games.base import Game, GameError, root_of
from gamedb.types import Keys
from gamedb.games.indexed import first_rich_layer, strategy_split
from gamedb.jit import needs_compiling
from gamedb.solver.backward import (
    SolvedStates, ValueTable, batches, distinct_successors, enumerate_layers, solve_states,
)
from gamedb.solver.grundy import grundy_values
from gamedb.solver.matrix_game import TOLERANCE
from gamedb.store.codec import MIN_PROB, encode
from gamedb.store.pages import PAGE_MIN, PAGE_TARGET, PageRows, Sparse
from gamedb.store.writer import Chunk, ChunkCommitter, ChunkPages, ChunkRows, Writer

#: States per transaction: large enough for fast bulk writes, small enough to lose little.
CHUNK_SIZE = 32_768

Progress = Callable[[int, int], None]


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
          chunk_size: int = CHUNK_SIZE, on_progress: Progress | None = None,
          values_only: bool = False,
          on_stage: Callable[[str], None] | None = None,
          max_memory: int | None = None, strategies_from: int | None = None,
          cluster: str | None = None,
          on_eta: Callable[[float], None] | None = None,
          pages_below: int | None = None, page_size: int = PAGE_TARGET,
          page_min: int | None = None) -> BuildReport:
    """Solve every reachable position of ``game`` into the SQLite file ``path``.

    Args:
        game: a spec string or a loaded game.
        path: the database file; a partial build of the same spec is resumed.
        workers: processes that expand and solve the batches of big layers in parallel
            (one process writes); small layers never start them.
        chunk_size: states per transaction.
        on_progress: called with (states done, states total) after every chunk.
        values_only: store values but no strategies (for builds too large to keep
            them); a strategy is then one small LP over the stored successor values.
        on_stage: called with a short description when the build enters a phase
            (enumerating, solving, finalising): the enumeration of a big game takes
            minutes before any state is solved.
        max_memory: refuse (``WontFit``, before anything is enumerated) a build whose
            estimated peak memory exceeds this many bytes (``gamedb.estimate``).
            With ``cluster``, only the processes on this machine count.
        strategies_from: store strategies only in layers >= this one (the others as in
            a values-only file). None: every layer, except for games with an indexed
            face (``Game.indexed_face``) of more than 10 layers: from layer 11.
        cluster: run the chunks on a Dask cluster instead of ``workers`` processes
            (``gamedb.cluster.parse_address``: ``tcp://host:port`` or ``local:N``); it
            is reached before the file is opened, and this process still writes it.
        on_eta: called with the seconds left after every chunk: the work left over the
            run's rate, each layer's positions weighted by their cost (a position
            count's ETA is too low while the cheap endgame layers are solved).
        pages_below: store the layers below this one as compressed pages of values
            (``gamedb.store.pages``: no strategies, no ``states`` rows) instead of
            rows. None: a resumed file's own choice; for a new file, the layers
            without strategies of a game of more than 10 layers whose keys allow it
            (``page_split``), none in smaller games.
        page_size: values per page of a page layer, at most (a page holds whole
            blocks of the game's index; a resumed layer keeps its own).
        page_min: store every other layer of at least this many positions as keyed
            pages (``store.pages.ROWS``: keys, values, gaps and strategies in each
            page; 0: none; a page is one chunk). None: a resumed file's own choice;
            ``PAGE_MIN`` for a new file of a game with an indexed face, 0 for the
            others (every layer rows, as SQL clients read them).
    """
    stage = on_stage or (lambda text: None)
    game = load_game(game) if isinstance(game, str) else game
    start = time.perf_counter()
    split = split_layer(game, strategies_from)
    face = game.indexed_face()
    pages = page_split(face, game.spec, first_rich_layer(face, split, values_only), pages_below)
    fits = functools.partial(_refuse_if_too_big, game, processes_here(workers, cluster),
                             values_only, max_memory, strategies_from, pages_below, page_min)
    existed = Path(path).exists()
    if not existed:
        fits()  # refused before the file exists: nothing is left behind
    with executor(workers, cluster) as run_on:  # unreachable: the file is left alone
        return _build_into(game, Path(path), run_on, stage, start, fits if existed else None,
                           chunk_size=chunk_size, on_progress=on_progress,
                           values_only=values_only, split=split, on_eta=on_eta,
                           pages=(pages, pages_below is None), page_size=page_size,
                           page_min=(page_min if page_min is not None else
                                     PAGE_MIN if face is not None else 0, page_min is None))


def _build_into(game: Game[Any], path: Path, run_on: Executor, stage: Callable[[str], None],
                start: float, fits: Callable[[], None] | None, *, chunk_size: int,
                on_progress: Progress | None, values_only: bool, split: int,
                on_eta: Callable[[float], None] | None,
                pages: tuple[int, bool] = (0, False),
                page_size: int = PAGE_TARGET,
                page_min: tuple[int, bool] = (0, False)) -> BuildReport:
    """``build``'s work once the executor is ready: open (or resume) the file, refuse
    (``fits``) a resumed build too big, solve, finalise. ``pages``: the first row layer
    and whether it is only the default (a resumed file keeps its own); ``page_min``
    likewise."""
    writer = Writer(path, game, {"tolerance": TOLERANCE, "kernel": "numba-simplex"},
                    values_only=values_only, strategies_from=split, pages_below=pages[0],
                    pages_default=pages[1], page_min=page_min)
    try:
        if writer.complete:
            return _report(writer, game, 0, 0.0, 0)
        if fits is not None:
            fits()
        run = _solve_all(game, writer, stage, run_on=run_on, chunk_size=chunk_size,
                         on_progress=on_progress, values_only=values_only, split=split,
                         on_eta=on_eta, page_size=page_size)
        stage("finalising")
        _write_grundy(game, writer)
        seconds = time.perf_counter() - start + float(writer.meta.get("seconds", 0.0))
        writer.finalize({"root_value": root_value(game, writer), "states": run.states,
                         "seconds": round(seconds, 3),
                         "root_keys": root_of(game).keys.tolist()})
        return _report(writer, game, run.solved, time.perf_counter() - start, run.fallbacks)
    except SystemError as exc:
        if _interrupted(exc):  # Ctrl-C inside a compiled call: numba wraps it
            raise KeyboardInterrupt from None
        raise
    finally:
        writer.close()


def _write_grundy(game: Game[Any], writer: Writer) -> None:
    """Store the Sprague-Grundy value of every position of an impartial family, from
    the stored keys layer by layer (``gamedb.solver.grundy``)."""
    if game.capabilities.impartial:
        layers = {layer: writer.layer_values(layer)[0] for layer in writer.done_counts()}
        writer.write_grundy(grundy_values(game, layers))


def split_layer(game: Game[Any], strategies_from: int | None) -> int:
    """Return the first layer that stores strategies, 0 for every layer
    (``build``'s ``strategies_from``, ``games.indexed.strategy_split``)."""
    return strategy_split(game.indexed_face(), strategies_from)


def _solve_all(game: Game[Any], writer: Writer, stage: Callable[[str], None], *,
               run_on: Executor, chunk_size: int, on_progress: Progress | None,
               values_only: bool, split: int,
               on_eta: Callable[[float], None] | None = None,
               page_size: int = PAGE_TARGET) -> IndexedRun:
    """Solve and store what the file lacks: through the game's indexed face if it has
    one (``build_indexed``), else by enumerating every layer's keys."""
    face = game.indexed_face()
    enumerating, solving = _stage_texts(game)
    if solving != "solving":  # the compiled solver is ready once the first chunk is in
        on_progress = _before_first(on_progress, lambda: stage("solving"))
    if face is not None:
        stage(solving)
        return build_layers(face, writer, workers=run_on,
                            strategies_from=first_rich_layer(face, split, values_only),
                            pages_below=writer.pages_below, page_size=page_size,
                            page_min=writer.page_min,
                            chunk_size=chunk_size,
                            on_progress=on_progress, on_eta=on_eta, on_stage=stage)
    stage(enumerating)
    layers = _enumerate(game, run_on)
    writer.ensure_layers({k: len(v) for k, v in layers.items()})
    writer.ensure_page_layers({layer: None for layer, keys in layers.items()
                               if writer.page_min and len(keys) >= writer.page_min}, chunk_size)
    stage(solving)
    solved, fallbacks, _ = _solve_layers(game, layers, writer, run_on=run_on,
                                         chunk_size=chunk_size, on_progress=on_progress,
                                         values_only=values_only, split=split, on_eta=on_eta)
    return IndexedRun(sum(map(len, layers.values())), solved, fallbacks)


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


def _refuse_if_too_big(game: Game[Any], workers: int, values_only: bool,
                       max_memory: int | None, strategies_from: int | None,
                       pages_below: int | None, page_min: int | None) -> None:
    if max_memory is not None:
        try:
            guess = estimate(game, workers=workers, values_only=values_only,
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


def _before_first(on_progress: Progress | None, first: Callable[[], None]) -> Progress:
    """Return ``on_progress`` that calls ``first()`` once, before its first report."""
    pending = [first]

    def report(done: int, total: int) -> None:
        while pending:
            pending.pop()()
        if on_progress is not None:
            on_progress(done, total)
    return report


def _enumerate(game: Game[Any], workers: int | Executor) -> dict[int, Keys]:
    """``enumerate_layers``; a layer of several batches is expanded by ``workers``
    processes or on a cluster (started at the first such layer: small games never fork)."""
    run_on = Local(workers) if isinstance(workers, int) else workers
    if not run_on.parallel:
        return enumerate_layers(game)
    successors = functools.partial(distinct_successors, game)
    pools: list[Pool[Keys, Keys]] = []

    def map_batches(parts: list[Keys]) -> Iterator[Keys]:
        if len(parts) <= 1:
            return map(successors, parts)
        if not pools:
            pools.append(run_on.pool(successors))
        return pools[0].imap(parts)

    try:
        return enumerate_layers(game, map_batches)
    finally:
        for pool in pools:
            pool.stop()


def _solve_layers(game: Game[Any], layers: dict[int, Keys], writer: Writer, *, run_on: Executor,
                  chunk_size: int, on_progress: Progress | None,
                  values_only: bool, split: int = 0,
                  on_eta: Callable[[float], None] | None = None) -> tuple[int, int, ValueTable]:
    run = ChunkCommitter(writer, {k: len(v) for k, v in layers.items()}, chunk_size,
                         on_progress, on_eta=on_eta)
    table = ValueTable()
    for layer in sorted(layers):
        keys = layers[layer]
        if run.done.get(layer, 0) == len(keys):
            continue
        _load_needed(game, layer, layers, writer, table)
        old_keys, old_values = writer.layer_values(layer)
        todo = np.setdiff1d(keys, old_keys, assume_unique=True)
        new_keys, new_values = [old_keys], [old_values]
        with contextlib.closing(_solve_chunks(game, layer, todo, table, run_on, chunk_size,
                                              values_only or layer < split,
                                              layer in writer.pages.layers)) as chunks:  # stops the workers
            for (keys, rows), fell_back in chunks:
                new_keys.append(keys)
                new_values.append(rows.values)
                run.commit(rows, fell_back, sum(map(len, new_keys)))
        table.add(layer, np.concatenate(new_keys), np.concatenate(new_values))
    run.flush()
    return run.solved, run.fallbacks, table


def _load_needed(game: Game[Any], layer: int, layers: dict[int, Keys], writer: Writer,
                 table: ValueTable) -> None:
    """Hold exactly the lower layers that ``layer``'s successors may fall into."""
    span = game.layer_span
    needed = {l for l in layers if l < layer and (span is None or l >= layer - span)}
    table.keep(game, needed)
    for lower in sorted(needed - set(table.layers)):
        table.add(lower, *writer.layer_values(lower))


def _solve_chunks(game: Game[Any], layer: int, todo: Keys, table: ValueTable, run_on: Executor,
                  chunk_size: int, values_only: bool, paged: bool
                  ) -> Generator[tuple[tuple[Keys, Chunk], int], None, None]:
    chunks = [todo[i:i + chunk_size] for i in range(0, len(todo), chunk_size)]
    solve = functools.partial(_solve_chunk, game, layer, table=table, values_only=values_only,
                              paged=paged)
    if not run_on.parallel or len(chunks) <= 1:
        yield from map(solve, chunks)
        return
    yield from ordered(run_on, solve, chunks)  # the workers get the table once


def _solve_chunk(game: Game[Any], layer: int, chunk: Keys, table: ValueTable,
                 values_only: bool, paged: bool) -> tuple[tuple[Keys, Chunk], int]:
    """Solve one chunk of sorted keys; return its keys and its rows, or (``paged``) its
    one keyed page (``store.pages.ROWS``), and the fallbacks."""
    start = time.perf_counter()
    probe = game.expand(chunk[:1])
    per_state = int(np.prod(probe.succ.shape[1:]))
    parts = [solve_states(game, batch, table) for batch in batches(chunk, per_state)]
    fallbacks = sum(p.fallbacks for p in parts)
    if paged:
        return (chunk, _page(layer, parts, time.perf_counter() - start, values_only)), fallbacks
    return (chunk, _rows(layer, parts, time.perf_counter() - start, values_only)), fallbacks


def _page(layer: int, parts: list[SolvedStates], seconds: float, values_only: bool) -> ChunkPages:
    """Gather a chunk's solutions into one keyed page (its keys, values and, unless
    ``values_only``, gaps and strategies: ``store.pages.encode_rows``)."""
    keys = np.concatenate([p.expansion.keys for p in parts])
    values = np.concatenate([p.values for p in parts])
    gaps = np.concatenate([p.gaps for p in parts])
    rows = PageRows(keys, values)
    if not values_only:
        rows = PageRows(keys, values, gaps,
                        Sparse.joined([Sparse.of(p.row_strategies, p.expansion.row_actions,
                                                 MIN_PROB) for p in parts]),
                        Sparse.joined([Sparse.of(p.col_strategies, p.expansion.col_actions,
                                                 MIN_PROB) for p in parts]))
    return ChunkPages.keyed(layer, rows, gaps, seconds)


def _rows(layer: int, parts: list[SolvedStates], seconds: float, values_only: bool) -> ChunkRows:
    """Gather a chunk's solutions into rows: strategies as JSON text, in key order."""
    first: list[str] | None = None
    second: list[str] | None = None
    if not values_only:
        first = [t for p in parts for t in encode(p.row_strategies, p.expansion.row_actions)]
        second = [t for p in parts for t in encode(p.col_strategies, p.expansion.col_actions)]
    return ChunkRows(layer, np.concatenate([p.expansion.keys for p in parts]),
                     np.concatenate([p.values for p in parts]),
                     np.concatenate([p.gaps for p in parts]), first, second, seconds)


def _report(writer: Writer, game: Game[Any], solved: int, seconds: float,
            fallbacks: int) -> BuildReport:
    meta = writer.meta
    return BuildReport(game.spec, str(writer.path), str(meta.get("status")),
                       int(meta.get("states", 0)), solved, seconds, meta.get("root_value"),
                       fallbacks)
