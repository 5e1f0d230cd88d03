"""What a build will cost before it starts: positions, peak memory, disk and time.

Positions are counted exactly by the forward enumeration when there are few; otherwise
they are extrapolated over the family's size (its first integer parameter: the cards,
Oshi-Zumo's coins) from exact counts of smaller sizes, either geometrically (each card
multiplies Goofspiel's positions by an almost constant 5.8-8.4 and Jujitsu's by 3.05)
or as a power of the size (coins), whichever predicts the largest exact count better.
Memory, disk and time are linear in the positions, calibrated on builds of this
machine (see ``docs/estimate.md``).

>>> from gamedb.games import load_game
>>> guess = estimate(load_game("jujitsu(num_cards=8)"))
>>> guess.positions, guess.exact
(2686, True)
>>> big = estimate(load_game("goofspiel(num_cards=13,ties=carry)"))  # no index
>>> big.exact, 10**10 < big.positions < 10**11, big.memory_bytes > 10**12
(False, True, True)
>>> estimate(load_game("goofspiel(num_cards=13)")).positions  # the win/loss index's count
37216350858
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gamedb.games import GameError, format_spec, load_game
from gamedb.games.base import BuildCosts, Game, param_values
from gamedb.types import Keys
from gamedb.store.pages import PAGE_MIN
from gamedb.builder.plan import first_rich_layer, page_split, strategy_split
from gamedb.games.source import LayerSource
from gamedb.solver.backward import distinct_successors, enumerate_layers

#: Positions the exact count may enumerate (about a second) before extrapolating.
COUNT_BUDGET = 150_000

#: Successor entries (positions x joint moves) the exact count may expand.
ENTRY_BUDGET = 30_000_000

#: Seconds every build command spends starting (imports, loading compiled code).
BASE_SECONDS = 2.5

#: Peak resident memory of the builder beyond the interpreter, numpy and numba's code.
BASE_MEMORY = 200 * 2**20


#: Costs of a family that declares none (a guess: bigger than every measured family).
DEFAULT_COSTS = BuildCosts(1_000, 1_600, 300, 10_000)
#: A values-only file keeps no strategies: its rows are about this many bytes, and
#: building them is faster (9-card point-difference Goofspiel: 23 s, not 54 s).
VALUES_ONLY_DISK = 40
VALUES_ONLY_SPEEDUP = 2.0


#: The indexed builder, calibrated on 9-11-card point-difference Goofspiel on this
#: machine (docs/estimate.md): bytes and seconds of a values-only ``states`` row, the
#: extra of a row with strategies is the face's own (``LayerSource.strategy_disk``), and
#: each process's memory besides the summaries
#: (interpreter, numpy, numba's code, a chunk of games). The single writer bounds the
#: rate, so more workers do not make it faster.
INDEXED_ROW_DISK = 28  # 27.4 B measured at 13 cards (0004)
# Measured with the 2-parameter values-only rows (schema 0004): 11 cards 1.2 µs, 12 cards
# 1.5 µs per row; 10-card win/loss (every row with strategies) 3.0 µs per row.
INDEXED_ROW_SECONDS, INDEXED_STRATEGY_SECONDS = 1.5e-6, 1.5e-6
INDEXED_PROCESS = 250 * 2**20
#: A position of a page layer (``gamedb.store.pages``): its compressed value with
#: SQLite's share (13 cards: 9.79 GB for 1.337e9 page values and 1.9 M rows with
#: strategies) and the build's wall time per position, which the two solving workers set
#: (13 cards: 941 s without the kill's re-read; 11 cards: 0.58 us), BENCHMARKS.md.
PAGE_DISK = 7.0
PAGE_SECONDS = 0.7e-6
#: A position of a keyed page layer (``store.pages.ROWS``: key, value and, from the
#: strategy split, gap and strategies): bytes without strategies, the share of a row's
#: strategy text its compressed strategies take, and wall time (measured: values only
#: 3.8 B win/loss, 7.1 B point difference; with strategies 17-26 B win/loss (row text
#: 95 B), 43 B point difference (195 B): BENCHMARKS.md "Keyed pages").
KEYED_DISK, KEYED_STRATEGY_SHARE = 7.0, 0.2
KEYED_SECONDS = 1.0e-6


def costs_of(game: Game[Any]) -> BuildCosts:
    """The per-position costs ``game`` declares (``Capabilities.build_costs``)."""
    return game.capabilities.build_costs or DEFAULT_COSTS


#: Counts something of a game within a budget: the count, or None past it.
Counting = Callable[[Game[Any], int], "int | None"]


class WontFit(GameError):
    """A build that needs more memory than this machine has available."""


@dataclass(frozen=True, slots=True)
class Estimate:
    """What a build of ``spec`` will need (order of magnitude, not a promise)."""

    spec: str
    positions: int
    exact: bool
    """True when the positions were counted, False when extrapolated."""
    memory_bytes: int
    disk_bytes: int
    seconds: float
    processes: int = 1
    """Solvers on this machine: ``--workers`` processes, or the N threads of ``--cluster
    local:N`` (counted as processes: an upper bound)."""


def estimate(game: Game[Any], *, workers: int = 1, values_only: bool = False,
             budget: int = COUNT_BUDGET, strategies_from: int | None = None,
             pages_below: int | None = None, page_min: int | None = None) -> Estimate:
    """Estimate the cost of building every reachable position of ``game``
    (``strategies_from``, ``pages_below`` and ``page_min`` as ``build``'s: games with an
    indexed face only)."""
    return estimate_for(game, game.indexed_face(), workers=workers, values_only=values_only,
                        budget=budget, strategies_from=strategies_from,
                        pages_below=pages_below, page_min=page_min)


def estimate_for(game: Game[Any], face: LayerSource | None, *, workers: int = 1,
                 values_only: bool = False, budget: int = COUNT_BUDGET,
                 strategies_from: int | None = None, pages_below: int | None = None,
                 page_min: int | None = None) -> Estimate:
    """``estimate`` with the game's own index already made (``face``, from
    ``Game.indexed_face``, which takes 0.6 s at 13 cards: a build makes it once)."""
    if face is not None:
        return indexed_estimate(game.spec, face, workers=workers, values_only=values_only,
                                strategies_from=strategies_from, pages_below=pages_below,
                                page_min=page_min)
    positions, exact = count_positions(game, budget)
    costs = costs_of(game)
    speedup = (1 + 0.5 * (max(workers, 1) - 1)) * (VALUES_ONLY_SPEEDUP if values_only else 1)
    rate = costs.rate * speedup
    disk = VALUES_ONLY_DISK if values_only else costs.disk
    per_position = costs.parallel_memory if workers > 1 else costs.memory
    # the per-position costs were measured with two workers; each process beyond them
    # holds its own interpreter, numpy and compiled code (a LocalCluster's 64 workers:
    # over 3 GiB, where 200 MiB was said)
    processes = INDEXED_PROCESS * max(workers - 2, 0)
    return Estimate(game.spec, positions, exact,
                    round(BASE_MEMORY + processes + per_position * positions),
                    round(disk * positions), BASE_SECONDS + positions / rate, max(workers, 1))


def indexed_estimate(spec: str, face: LayerSource, *, workers: int = 1,
                     values_only: bool = False, strategies_from: int | None = None,
                     pages_below: int | None = None, page_min: int | None = None) -> Estimate:
    """The cost of a build through the game's own index (``Game.indexed_face``): exact
    counts per layer; memory is two layers' summaries, the face's tables and a few
    small processes, not the game; time and disk per row, with or without strategies, per page value, or
    per position of a keyed page layer."""
    split = strategy_split(face, strategies_from)
    sizes = {layer: face.size(layer) for layer in face.layers()}
    rich_from = first_rich_layer(face, split, values_only)
    paged_below = page_split(face, spec, rich_from, pages_below)
    least = PAGE_MIN if page_min is None else page_min
    keyed = {layer for layer, n in sizes.items()
             if layer >= paged_below and least and n >= least}
    rich = sum(n for layer, n in sizes.items() if layer >= rich_from and layer not in keyed)
    keyed_rich = sum(sizes[layer] for layer in keyed if layer >= rich_from)
    keyed_plain = sum(sizes[layer] for layer in keyed) - keyed_rich
    paged = sum(n for layer, n in sizes.items() if layer < paged_below)
    rows = sum(sizes.values()) - paged - keyed_rich - keyed_plain
    positions = sum(sizes.values())
    summaries = [face.summary_size(layer) for layer in face.layers()]
    pairs = max((a + b for a, b in zip(summaries, summaries[1:])), default=sum(summaries))
    memory = (1 + max(workers, 1)) * INDEXED_PROCESS + 8 * pairs + face.table_bytes()
    disk = (INDEXED_ROW_DISK * rows + PAGE_DISK * paged + face.strategy_disk * rich
            + KEYED_DISK * (keyed_plain + keyed_rich)
            + KEYED_STRATEGY_SHARE * face.strategy_disk * keyed_rich)
    seconds = (BASE_SECONDS + INDEXED_ROW_SECONDS * rows + PAGE_SECONDS * paged
               + INDEXED_STRATEGY_SECONDS * rich + KEYED_SECONDS * (keyed_plain + keyed_rich))
    return Estimate(spec, positions, True, round(memory), round(disk), seconds,
                    max(workers, 1))


def positions_of(game: Game[Any], budget: int = COUNT_BUDGET) -> tuple[int, bool]:
    """Return (positions, exact): from the game's own index when it has one (exact at
    any size: 13-card win/loss Goofspiel in 2 s), else ``count_positions``'."""
    face = game.indexed_face()
    if face is not None:
        return sum(face.size(layer) for layer in face.layers()), True
    return count_positions(game, budget)


def count_positions(game: Game[Any], budget: int = COUNT_BUDGET, *,
                    counter: Counting | None = None) -> tuple[int, bool]:
    """Return (positions, exact): counted within ``budget``, else extrapolated.
    ``counter`` counts something else the same way (``counter(game, budget)``: the
    count, or None past the budget)."""
    counter = counter or _count_within
    exact = counter(game, budget)
    if exact is not None:
        return exact, True
    size = _size_param(game)
    if size is None:
        raise GameError(f"{game.spec} has more than {budget:,} positions and no size "
                        "parameter to extrapolate over")
    counts = _smaller_counts(game, size, budget, counter)
    return _extrapolate(counts, param_values(game)[size]), False


def check_fits(estimate_: Estimate, available: int | None) -> None:
    """Raise ``WontFit`` (one line with the estimate) when the memory will not do."""
    if available is not None and estimate_.memory_bytes > available:
        fewer = (f"with {estimate_.processes} workers: fewer workers (--workers N, "
                 "--cluster local:N) need less, or " if estimate_.processes > 2 else "")
        raise WontFit(f"{estimate_.spec} needs about {size(estimate_.memory_bytes)} of "
                      f"memory and this machine has {size(available)} available "
                      f"({describe(estimate_)}); {fewer}add --force to try anyway")


def available_memory(meminfo: Path = Path("/proc/meminfo")) -> int | None:
    """Return ``MemAvailable`` in bytes (Linux), or None where it is unknown."""
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def describe(e: Estimate) -> str:
    """One line: ``about 5.1e+10 positions, 19 TiB memory, 5.2 TiB disk, 12 days``."""
    count = f"{e.positions:,}" if e.exact else f"about {e.positions:.1e}"
    return (f"{count} positions, {size(e.memory_bytes)} memory, {size(e.disk_bytes)} disk, "
            f"{duration(e.seconds)}")


def size(n: float) -> str:
    """Bytes in binary units: ``size(3 * 2**30) == '3.0 GiB'``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def duration(seconds: float) -> str:
    """``duration(90) == '1.5 min'``."""
    for unit, length in (("days", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= length:
            return f"{seconds / length:.1f} {unit}"
    return f"{seconds:.1f} s"


class _OverBudget(Exception):
    pass


def _count_within(game: Game[Any], budget: int) -> int | None:
    """Count the positions by enumerating them, or None past ``budget`` positions."""
    seen = entries = 0

    def counted(parts: list[Keys]) -> Iterator[Keys]:
        nonlocal seen, entries
        states = sum(map(len, parts))
        seen, entries = seen + states, entries + states * game.expand(parts[0][:1]).succ.size
        if seen > budget or entries > ENTRY_BUDGET:
            raise _OverBudget
        return map(lambda keys: distinct_successors(game, keys), parts)

    try:
        return sum(map(len, enumerate_layers(game, counted).values()))
    except (_OverBudget, MemoryError):
        return None


def _size_param(game: Game[Any]) -> str | None:
    params = game.params
    return next((p.name for p in params if p.kind is int), None)


def _smaller_counts(game: Game[Any], param: str, budget: int,
                    counter: Counting) -> list[tuple[int, int]]:
    """Exact counts (size, positions) at sizes below the game's, up to the budget."""
    low = next(p.low for p in game.params if p.name == param)
    target = param_values(game)[param]
    sizes = sorted({low + round((target - 1 - low) * (i / 47) ** 2) for i in range(48)})
    counts: list[tuple[int, int]] = []
    for value in sizes:  # every small size, then sparser ones (Oshi-Zumo's 1000 coins)
        try:
            smaller = _resized(game, param, value)
        except GameError:  # a size the other parameters rule out (rounds=4 of 3 cards)
            continue
        count = counter(smaller, budget)
        if count is None:
            break
        if count > 0:
            counts.append((value, count))
    if len(counts) < 3:
        raise GameError(f"too few small sizes of {game.spec} to extrapolate from")
    return counts[-3:]


def _resized(game: Game[Any], param: str, value: int) -> Game[Any]:
    params = {name: _spelled(value) for name, value in param_values(game).items()}
    return load_game(format_spec(game.name, {**params, param: value}))


def _spelled(value: Any) -> Any:
    """A parameter as a spec writes it (``alesia=false``, not ``False``)."""
    return str(value).lower() if isinstance(value, bool) else value


def _extrapolate(counts: Iterable[tuple[int, int]], target: int) -> int:
    """Extend the last two counts to ``target`` with the model (geometric or power)
    that best predicts the last count from the two before it."""
    (x0, c0), (x1, c1), (x2, c2) = counts

    def geometric(xa: int, ca: int, xb: int, cb: int, x: int) -> float:
        return float(cb * (cb / ca) ** ((x - xb) / (xb - xa)))

    def power(xa: int, ca: int, xb: int, cb: int, x: int) -> float:
        return float(cb * (x / xb) ** (math.log(cb / ca) / math.log(xb / xa)))

    best = min((geometric, power), key=lambda f: abs(math.log(f(x0, c0, x1, c1, x2) / c2)))
    return round(best(x1, c1, x2, c2, target))
