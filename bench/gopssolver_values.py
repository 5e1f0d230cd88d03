"""Values side by side: every entry of the C++ GOPSsolver's EV cache against our file.

GOPSsolver (github.com/matttang27/GOPSsolver) is built outside this repository, as
``bench/gopssolver.py``'s docstring says. Its ``--cache-out PATH`` writes every solved
state it cached; this script reads that file (format below), maps each entry to the
position of our file that holds the same value, and compares::

    python bench/gopssolver_values.py --n 7                     # win/loss, temporary files
    python bench/gopssolver_values.py --n 7 --objective both    # and point difference
    python bench/gopssolver_values.py --n 9 --db wl9.sqlite --cache wl9.evc
    GOPSSOLVER=/path/to/cpp_solver python bench/gopssolver_values.py --n 5

``--db FILE`` (and ``--points-db FILE``) keep our file there: built with
``gamedb build SPEC --db FILE --quiet`` when it does not exist, read as it is when it
does. ``--cache FILE`` (``--points-cache``) likewise: ``cpp_solver --n N [--objective
points] --cache-out FILE`` when absent, reused when present (its own solve time is then
the ``duration_ms`` of its ``FILE.json``; our file's is ``meta.seconds``). Our side runs
with the interpreter and ``PYTHONPATH`` of this script.

The cache file (GOPSsolver ``ev_cache.cpp``, format 1): 24 header bytes (``GOPSEV1\\0``,
uint32 version 1, uint32 0, uint64 count), then ``count`` records of a uint64 key and a
float64 value, little-endian. The key packs A (bits 0-15), B (16-31), P (32-47), diff
(int8, 48-55), curP (56-63): player A's and B's cards, the prizes not yet revealed, the
score A minus B so far and the prize on the table; card c is bit c - 1. Before storing,
GOPSsolver (``solver.cpp``) turns a state so that diff >= 0 (and A > B as numbers when
diff = 0; A = B with diff = 0 is 0 by symmetry and never stored) and relabels the union
of both hands by rank ("compression"). Our key relabels the union by rank too, so an
entry is our position hand1=A, hand2=B, prizes=P, prize=curP, diff (its value in our file
is the stored value of its canonical key, negated where our stored twin is the swapped
one), or, if |diff| exceeds the points left, a decided position (not stored: its value is
sign(diff)). Values: win objective, +1 win, 0 tie, -1 loss, so P(win) - P(loss) for
player A, as our ``win_loss`` (OpenSpiel's returns); points objective, the expected
point difference of the rounds left (the prize on the table included), as the value we
store for ``point_difference`` (our ``diff`` is banked outside the key). GOPSsolver's
"guarantee" shortcut stores +-1 for a state one player wins whatever happens, without
solving it (its positions below are then never visited): we solve it, and the values
must agree all the same.

Prints, per game: entries, mapped (and decided among them), entries that could not be
mapped, max |GOPSsolver - ours| and the counts above 1e-12 and 1e-9 (also per layer, a
layer being the cards left in each hand), our positions that no entry reaches, the time
each side took, the root values and the worst entries.
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import sys
import tempfile
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gopssolver import measure  # noqa: E402

from gamedb.games.base import TERMINAL  # noqa: E402
from gamedb.games.goofspiel.game import GoofspielState  # noqa: E402
from gamedb.games.layout import Field, Ternary  # noqa: E402
from gamedb.store import StoreError, open_db  # noqa: E402
from gamedb.store.database import GameDB  # noqa: E402
from gamedb.solver.exact import solve_exact  # noqa: E402
from gamedb.types import Floats, Ints  # noqa: E402

MAGIC = b"GOPSEV1\0"
HEADER = struct.Struct("<8sIIQ")
RECORD = np.dtype([("key", "<u8"), ("value", "<f8")])
DEFAULT_BINARY = "/work/gops/solver/build/cpp_solver"
THRESHOLDS = (1e-12, 1e-9)


@dataclass(frozen=True)
class Cache:
    """GOPSsolver's cached states, one array entry each (A as our player 1)."""

    hand1: Ints
    hand2: Ints
    prizes: Ints
    prize: Ints
    diff: Ints
    values: Floats

    def __len__(self) -> int:
        return len(self.values)


def read_cache(path: Path) -> Cache:
    """Read a ``--cache-out`` file; raise ``ValueError`` (one line) if it is not one."""
    with open(path, "rb") as f:
        head = f.read(HEADER.size)
        if len(head) < HEADER.size:
            raise ValueError(f"{path}: {len(head)} bytes, shorter than a GOPSsolver cache header")
        magic, version, _, count = HEADER.unpack(head)
        if magic != MAGIC or version != 1:
            raise ValueError(f"{path}: not a GOPSsolver EV cache of format 1 "
                             f"(magic {magic!r}, version {version})")
        size = path.stat().st_size
        if size != HEADER.size + count * RECORD.itemsize:
            raise ValueError(f"{path}: {size:,} bytes, but its header counts {count:,} records "
                             f"({HEADER.size + count * RECORD.itemsize:,} bytes)")
        records = np.fromfile(f, RECORD, count)
    key = records["key"]
    a, b, p = (((key >> np.uint64(shift)) & np.uint64(0xFFFF)).astype(np.int64)
               for shift in (0, 16, 32))
    diff = ((key >> np.uint64(48)) & np.uint64(0xFF)).astype(np.uint8).view(np.int8)
    prize = (key >> np.uint64(56)).astype(np.int64)
    return Cache(a, b, p, prize, diff.astype(np.int64), records["value"].astype(np.float64))


def popcounts(masks: Ints) -> Ints:
    """Cards in each mask."""
    bits = np.unpackbits(masks.astype("<u2").view(np.uint8).reshape(-1, 2), axis=1)
    counts: Ints = bits.sum(axis=1).astype(np.int64)
    return counts


def points(masks: Ints, n: int) -> Ints:
    """Sum of the cards (prizes) of each mask."""
    total = np.zeros(len(masks), np.int64)
    for card in range(1, n + 1):
        total += card * ((masks >> (card - 1)) & 1)
    return total


def hands_codes(h1: Ints, h2: Ints, n: int) -> tuple[Ints, Ints]:
    """The base-3 hands field of (h1, h2) and of the swapped (h2, h1) (``layout.Ternary``:
    the union relabelled by rank, digit 0 both hold it, 1 only the first, 2 only the
    second), vectorised."""
    code = np.zeros(len(h1), np.int64)
    twin = np.zeros(len(h1), np.int64)
    power = np.ones(len(h1), np.int64)
    for card in range(n):
        one, two = (h1 >> card) & 1, (h2 >> card) & 1
        code += power * (one & (1 - two)) + 2 * power * (two & (1 - one))
        twin += power * (two & (1 - one)) + 2 * power * (one & (1 - two))
        power *= np.where(one | two, 3, 1)
    return code, twin


@dataclass(frozen=True)
class Mapped:
    """Where each cache entry lands in our game."""

    keys: Ints
    """Our stored (canonical) key; -1 for a decided position."""
    signs: Floats
    """+1, or -1 where our stored twin is the swapped position."""
    decided: Floats
    """sign(diff) for a decided position (not stored), NaN for the others."""
    layers: Ints
    """Cards left in each hand."""


def map_entries(cache: Cache, db: GameDB) -> Mapped:
    """Our canonical key of every entry (``Goofspiel.canonical``, vectorised from the
    file's declared key layout), or its value if it is decided."""
    game = db.game
    layout = game.layout
    n = int(game.num_cards)  # type: ignore[attr-defined]
    win_loss = game.returns_type == "win_loss"  # type: ignore[attr-defined]
    hands = next(f for f in layout.fields if isinstance(f, Ternary))
    prizes_field, prize_field = layout.bit_field("prizes"), layout.bit_field("prize")
    layers = popcounts(cache.hand1)
    left = points(cache.prizes, n) + cache.prize
    decided = np.full(len(cache), np.nan)
    if win_loss:
        over = np.abs(cache.diff) > left
        decided[over] = np.sign(cache.diff[over])
    code, twin = hands_codes(cache.hand1, cache.hand2, n)
    common = (layers << 48) | (cache.prizes << prizes_field.offset) \
        | (cache.prize << prize_field.offset)
    own = common | (code << hands.offset)
    swapped = common | (twin << hands.offset)
    if win_loss:
        diff = layout.bit_field("diff")
        reach = left + 1  # as Goofspiel.canonical: a decided diff is clamped (never stored)
        clamped = np.clip(cache.diff, -reach, reach)
        own |= (clamped + diff.bias) << diff.offset
        swapped |= (-clamped + diff.bias) << diff.offset
    keys = np.minimum(own, swapped)
    signs = np.where(swapped < own, -1.0, 1.0)
    keys[~np.isnan(decided)] = -1
    return Mapped(keys, signs, decided, layers)


def check_mapping(cache: Cache, db: GameDB, mapped: Mapped, keys: Ints, values: Floats,
                  sample: int = 2000) -> None:
    """Recompute a sample of keys with ``Goofspiel.canonical`` and read the values with
    ``GameDB.value``; raise ``AssertionError`` if the vectorised mapping differs."""
    game = db.game
    rng = np.random.default_rng(0)
    for i in rng.choice(len(cache), min(sample, len(cache)), replace=False).tolist():
        state = GoofspielState(int(cache.hand1[i]), int(cache.hand2[i]), int(cache.prizes[i]),
                               int(cache.prize[i]), 0, int(cache.diff[i]))
        if game.value(state) is not None:
            assert mapped.keys[i] == -1 and mapped.decided[i] == game.value(state), i
            continue
        canon = game.canonical(state)
        assert (canon.key, canon.sign) == (mapped.keys[i], mapped.signs[i]), (i, canon)
    for i in rng.choice(len(cache), min(sample // 10, len(cache)), replace=False).tolist():
        state = GoofspielState(int(cache.hand1[i]), int(cache.hand2[i]), int(cache.prizes[i]),
                               int(cache.prize[i]), 0, int(cache.diff[i]))
        ours = lookup(keys, values, mapped, np.array([i]))[0]
        if not np.isnan(ours):
            assert ours == db.value(state), (i, ours, db.value(state))


def stored(db: GameDB) -> tuple[Ints, Floats]:
    """Every stored key of the file and its value, in key order (a page layer's pages
    decoded as arrays: ``GameDB.layer_rows`` would make Python rows of them)."""
    keys: list[Ints] = []
    values: list[Floats] = []
    for layer in db.stored_layers():
        if layer in db.pages.layers:
            for page in db.pages.layer_pages(layer):
                keys.append(page.keys)
                values.append(page.values)
            continue
        for rows in db.layer_rows(layer, size=1 << 20, strategies=False):
            keys.append(rows.keys)
            values.append(rows.numbers())
    return np.concatenate(keys), np.concatenate(values)


def lookup(keys: Ints, values: Floats, mapped: Mapped, which: Ints) -> Floats:
    """Our value of the entries ``which`` (NaN: not in the file)."""
    out: Floats = mapped.decided[which].copy()
    want = which[mapped.keys[which] >= 0]
    at = np.searchsorted(keys, mapped.keys[want]).clip(0, max(len(keys) - 1, 0))
    found = keys[at] == mapped.keys[want] if len(keys) else np.zeros(len(want), bool)
    got = np.full(len(want), np.nan)
    got[found] = mapped.signs[want][found] * values[at[found]]
    out[np.searchsorted(which, want)] = got
    return out


@dataclass(frozen=True)
class Comparison:
    """GOPSsolver's values against ours, entry by entry."""

    ours: Floats
    """Our value of each entry (NaN: could not be mapped)."""
    difference: Floats
    """GOPSsolver minus ours (NaN: not mapped)."""
    unreached: int
    """Our stored positions that no entry maps to."""
    symmetric: int
    """Those among them with equal hands and diff 0 (GOPSsolver: 0.0 by its symmetry
    rule, never cached)."""
    symmetric_max: float
    """The largest |our value| of those (0 by symmetry)."""
    unreached_layers: dict[int, int]
    """The other unreached positions per layer."""


def compare(cache: Cache, mapped: Mapped, keys: Ints, values: Floats,
            db: GameDB) -> Comparison:
    """Our value of every entry and the difference."""
    ours = lookup(keys, values, mapped, np.arange(len(cache)))
    reached = np.unique(mapped.keys[mapped.keys >= 0])
    missed = ~np.isin(keys, reached, assume_unique=True)
    layout = db.game.layout
    hands = next(f for f in layout.fields if isinstance(f, Ternary))
    equal = (keys >> hands.offset) & ((1 << hands.width) - 1) == 0  # every digit 0
    if isinstance(diff := layout.field("diff"), Field):
        equal &= (keys >> diff.offset) & diff.mask == diff.bias
    symmetric = missed & equal
    other = keys[missed & ~equal] >> 48
    return Comparison(ours, cache.values - ours, int(missed.sum()), int(symmetric.sum()),
                      float(np.abs(values[symmetric]).max(initial=0.0)),
                      dict(zip(*(x.tolist() for x in np.unique(other, return_counts=True)))))


def compare_files(cache: Cache, db: GameDB) -> tuple[Mapped, Ints, Floats, Comparison]:
    """Map every entry to our file (checked on a sample against ``Goofspiel.canonical``
    and ``GameDB.value``), read our stored values and compare."""
    mapped = map_entries(cache, db)
    keys, values = stored(db)
    check_mapping(cache, db, mapped, keys, values)
    return mapped, keys, values, compare(cache, mapped, keys, values, db)


def describe(cache: Cache, i: int, n: int) -> str:
    """One entry as our position text (cards relabelled by rank, as GOPSsolver keeps them)."""
    def listed(mask: int) -> str:
        return ",".join(str(c) for c in range(1, n + 1) if mask >> (c - 1) & 1) or "-"
    return (f"hand1={listed(int(cache.hand1[i]))} hand2={listed(int(cache.hand2[i]))} "
            f"prizes={listed(int(cache.prizes[i]))} prize={int(cache.prize[i])} "
            f"diff={int(cache.diff[i])}")


def report(cache: Cache, mapped: Mapped, result: Comparison, n: int, worst: int) -> list[str]:
    """The lines that say how the values compare."""
    ok = ~np.isnan(result.ours)
    gap = np.abs(result.difference[ok])
    lines = [f"entries {len(cache):,}; mapped {int(ok.sum()):,} "
             f"({int((~np.isnan(mapped.decided)).sum()):,} of them decided positions, value "
             f"sign(diff), not stored); not mapped {int((~ok).sum()):,}",
             f"max |GOPSsolver - ours| {gap.max() if len(gap) else 0.0:.3e}; "
             + "; ".join(f"above {t:g}: {int((gap > t).sum()):,}" for t in THRESHOLDS),
             f"our stored positions no entry maps to: {result.unreached:,}: "
             f"{result.symmetric:,} with equal hands and diff 0 (GOPSsolver answers 0.0 "
             f"there and caches nothing; ours max |value| {result.symmetric_max:.1e}), "
             f"{result.unreached - result.symmetric:,} others (per layer: "
             f"{result.unreached_layers or '-'})",
             "layer | entries | mapped | decided | max |diff| | > 1e-12 | > 1e-9"]
    for layer in range(int(mapped.layers.max(initial=0)), 0, -1):
        at = mapped.layers == layer
        d = np.abs(result.difference[at & ok])
        lines.append(f"{layer} | {int(at.sum()):,} | {int((at & ok).sum()):,} | "
                     f"{int((at & ~np.isnan(mapped.decided)).sum()):,} | "
                     f"{d.max() if len(d) else 0.0:.3e} | "
                     + " | ".join(f"{int((d > t).sum()):,}" for t in THRESHOLDS))
    if (~ok).any():
        lines.append("not mapped, first ones: " + "; ".join(
            describe(cache, i, n) for i in np.flatnonzero(~ok)[:5].tolist()))
    order = np.argsort(-np.where(ok, np.abs(result.difference), -1.0))[:worst]
    for i in order.tolist():
        if ok[i] and result.difference[i] != 0:
            lines.append(f"  {describe(cache, i, n)}: GOPSsolver {float(cache.values[i])!r}, "
                         f"ours {float(result.ours[i])!r}, difference {result.difference[i]:+.3e}")
    return lines


def exact_stage(db: GameDB, key: int, child: dict[int, float]) -> Fraction:
    """The exact value of the stage game of stored ``key`` whose successors have the
    values ``child`` (stored keys -> value, as floats): the matrix summed in rationals
    (each float exactly, each weight, 1/draws or a round's points, as the small fraction
    it is) and solved by the rational simplex (``gamedb.solver.exact``)."""
    expansion = db.game.expand(np.array([key], np.int64))
    succ, weight = expansion.succ[0], expansion.weight[0]
    rows, cols = int(expansion.n_rows[0]), int(expansion.n_cols[0])
    matrix = [[sum((Fraction(float(w)).limit_denominator(1000)
                    * (Fraction(child[int(k)]) if k != TERMINAL else 1)
                    for k, w in zip(succ[a, b].tolist(), weight[a, b].tolist()) if w),
                   Fraction(0)) for b in range(cols)] for a in range(rows)]
    return solve_exact(matrix).value


@dataclass(frozen=True)
class Resolved:
    """One entry's stage game re-solved exactly, in our stored orientation."""

    key: int
    successors: int
    spread: float
    """The largest |GOPSsolver - ours| among the successors' values."""
    ours: float
    exact_ours: Fraction
    """The exact value of the stage game built from our successors' values."""
    gops: float
    exact_gops: Fraction
    """The same from GOPSsolver's successors' values."""


def resolve(cache: Cache, mapped: Mapped, result: Comparison, db: GameDB, keys: Ints,
            values: Floats, i: int) -> Resolved:
    """Re-solve entry ``i``'s stage game exactly from each side's successor values."""
    key = int(mapped.keys[i])
    sign = float(mapped.signs[i])
    succ = np.unique(db.game.expand(np.array([key], np.int64)).succ)
    succ = succ[succ != TERMINAL]
    ours = dict(zip(succ.tolist(), values[np.searchsorted(keys, succ)].tolist()))
    order = np.argsort(mapped.keys, kind="stable")
    hit = order[np.searchsorted(mapped.keys[order], succ).clip(0, len(order) - 1)]
    # GOPSsolver's value of each successor in our orientation (0.0: its symmetry rule)
    gops = {k: float(mapped.signs[h] * cache.values[h]) if mapped.keys[h] == k else 0.0
            for k, h in zip(succ.tolist(), hit.tolist())}
    spread = max((abs(ours[k] - gops[k]) for k in ours), default=0.0)
    return Resolved(key, len(succ), spread, sign * float(result.ours[i]),
                    exact_stage(db, key, ours), sign * float(cache.values[i]),
                    exact_stage(db, key, gops))


def investigate(cache: Cache, mapped: Mapped, result: Comparison, db: GameDB, keys: Ints,
                values: Floats, i: int) -> list[str]:
    """Say which side's value of entry ``i`` is the exact value of its own stage game."""
    r = resolve(cache, mapped, result, db, keys, values, i)
    return [f"  exact re-solve of key {r.key} ({r.successors} successors, max |successor "
            f"difference| {r.spread:.2e}):",
            f"    from our successors: exact {float(r.exact_ours)!r}, ours {r.ours!r} "
            f"(off by {float(Fraction(r.ours) - r.exact_ours):+.2e})",
            f"    from GOPSsolver's successors: exact {float(r.exact_gops)!r}, GOPSsolver "
            f"{r.gops!r} (off by {float(Fraction(r.gops) - r.exact_gops):+.2e})"]


def solve_gops(binary: str, n: int, objective: str, path: Path) -> str:
    """Run GOPSsolver into ``path`` unless it exists; return how long it took."""
    if path.exists():
        meta = json.loads(Path(f"{path}.json").read_text()) if Path(f"{path}.json").exists() else {}
        said = (meta.get("run", {}).get("N", n), meta.get("config", {}).get("objective", objective))
        if said != (n, objective):
            raise SystemExit(f"error: {path} holds GOPSsolver's {said[1]} cache of {said[0]} "
                             f"cards (its .json), not {objective} at {n}")
        ms = meta.get("run", {}).get("duration_ms")
        return f"reused {path} (its own solve time {ms / 1000:.1f} s)" if ms is not None else \
            f"reused {path} (time unknown)"
    if not Path(binary).is_file():
        raise SystemExit(f"error: no GOPSsolver binary at {binary}: build it outside the "
                         "repository (bench/gopssolver.py's docstring) and pass --gops PATH "
                         "or set GOPSSOLVER")
    argv = [binary, "--n", str(n), "--objective", objective, "--cache-out", str(path)]
    run, _ = measure("GOPSsolver", argv, str(path.parent))
    return f"cpp_solver --n {n} --objective {objective}: {run.seconds:.1f} s wall, " \
        f"{run.cpu_seconds:.1f} s CPU, peak RSS {run.rss_mib:,.0f} MiB"


def build_ours(spec: str, path: Path, workers: int | None) -> str:
    """Build our file into ``path`` unless it exists; return how long it took."""
    if path.exists():
        with open_db(path) as db:
            if db.meta.get("spec") != spec:
                raise SystemExit(f"error: {path} holds {db.meta.get('spec')}, not {spec}")
            if db.meta.get("status") != "complete":
                raise SystemExit(f"error: {path} is not a finished build: run the same "
                                 "gamedb build command to finish it")
            return f"reused {path} (its build took {db.meta.get('seconds', float('nan')):.1f} s)"
    argv = [sys.executable, "-m", "gamedb", "build", spec, "--db", str(path), "--quiet",
            *(["--workers", str(workers)] if workers else [])]
    run, _ = measure("gamedb", argv, str(path.parent), os.environ.get("PYTHONPATH"))
    return f"gamedb build {spec} --quiet{f' --workers {workers}' if workers else ''}: " \
        f"{run.seconds:.1f} s wall, {run.cpu_seconds:.1f} s CPU, peak tree RSS " \
        f"{run.rss_mib:,.0f} MiB"


def side_by_side(n: int, objective: str, binary: str, cache_path: Path, db_path: Path,
                 workers: int | None, worst: int, exact: int) -> tuple[list[str], float]:
    """Run (or reuse) both sides for one game; return the report and the max difference."""
    returns = "win_loss" if objective == "win" else "point_difference"
    spec = (f"goofspiel(num_cards={n},points_order=random,returns_type={returns},"
            "ties=discard)")
    lines = [f"## {n} cards, GOPSsolver --objective {objective} against {spec}",
             "GOPSsolver: " + solve_gops(binary, n, objective, cache_path),
             "ours: " + build_ours(spec, db_path, workers)]
    start = time.perf_counter()
    cache = read_cache(cache_path)
    with open_db(db_path) as db:
        mapped, keys, values, result = compare_files(cache, db)
        root = db.meta.get("root_value")
        report_lines = report(cache, mapped, result, n, worst)
        ok = ~np.isnan(result.ours) & (mapped.keys >= 0)
        order = np.argsort(-np.where(ok, np.abs(result.difference), -1.0))[:exact]
        for i in order.tolist():
            if ok[i] and abs(result.difference[i]) > THRESHOLDS[0]:
                report_lines += [f"  {describe(cache, i, n)}:",
                                 *investigate(cache, mapped, result, db, keys, values, i)]
    lines += [f"units: {'P(win) - P(loss) of player 1 (A)' if objective == 'win' else 'points'}"
              f"; our file holds {len(keys):,} positions; compared in "
              f"{time.perf_counter() - start:.1f} s",
              *report_lines,
              f"root value: ours {root!r}; GOPSsolver 0 (A = B with diff 0: its symmetry "
              "rule answers 0.0 without solving or caching the root)"]
    ok = ~np.isnan(result.ours)
    return lines, float(np.abs(result.difference[ok]).max(initial=0.0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=7, help="cards (default 7)")
    parser.add_argument("--objective", choices=("win", "points", "both"), default="win")
    parser.add_argument("--gops", default=os.environ.get("GOPSSOLVER", DEFAULT_BINARY),
                        help="the cpp_solver binary (default: $GOPSSOLVER, else "
                             f"{DEFAULT_BINARY})")
    parser.add_argument("--db", type=Path, help="our win/loss file (built if absent)")
    parser.add_argument("--cache", type=Path, help="GOPSsolver's win cache (solved if absent)")
    parser.add_argument("--points-db", type=Path, help="our point-difference file")
    parser.add_argument("--points-cache", type=Path, help="GOPSsolver's points cache")
    parser.add_argument("--workers", type=int, default=None, help="gamedb build --workers")
    parser.add_argument("--worst", type=int, default=5, help="worst entries shown (default 5)")
    parser.add_argument("--exact", type=int, default=2,
                        help="of the worst entries above 1e-12, how many to re-solve exactly "
                             "(default 2)")
    args = parser.parse_args()
    if not 1 <= args.n <= 13:
        parser.error(f"--n must be 1..13 (gamedb's Goofspiel), got {args.n}")
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average "
          f"{os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        for objective in ("win", "points") if args.objective == "both" else (args.objective,):
            db = args.db if objective == "win" else args.points_db
            cache = args.cache if objective == "win" else args.points_cache
            tag = f"{'wl' if objective == 'win' else 'pd'}{args.n}"
            try:
                lines, _ = side_by_side(args.n, objective, args.gops,
                                        cache or Path(tmp) / f"{tag}.evc",
                                        db or Path(tmp) / f"{tag}.sqlite", args.workers,
                                        args.worst, args.exact)
            except (ValueError, OSError, StoreError) as exc:
                raise SystemExit(f"error: {exc}") from None
            print("\n".join(lines) + "\n", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
