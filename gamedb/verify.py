"""Check a database from its own contents: every stage game re-derived and re-checked.

For each stored position the stage matrix is rebuilt from the stored values of its
successors (through the game's layer face), and the stored strategies must form an
equilibrium of it with the stored value: ``max_i (M y)_i - min_j (x M)_j <= tolerance``
and ``min_j (x M)_j - tol <= value <= max_i (M y)_i + tol``.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from gamedb.solver.backward import ValueTable, batches, stage_matrices
from gamedb.solver.exact import solve_exact
from gamedb.solver.matrix_game import TOLERANCE, solve_games
from gamedb.store import open_db

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class StageGames:
    """A batch of stored positions with their re-derived stage games."""

    layer: int
    keys: npt.NDArray[np.int64]
    n_rows: npt.NDArray[np.int64]
    n_cols: npt.NDArray[np.int64]
    payoffs: Floats
    """Stage matrices (B, R, C) rebuilt from stored successor values (padded)."""
    values: Floats
    """Stored values (B,)."""
    row_strategies: Floats
    col_strategies: Floats


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """Outcome of ``verify``."""

    states: int
    checked: int
    max_gap: float
    failures: int
    failing_keys: list[int] = field(default_factory=list)
    layers: dict[int, tuple[int, float, int]] = field(default_factory=dict)
    """layer -> (checked, max gap, failures)."""
    max_exact_error: float | None = None
    """With ``exact``: largest |stored value - exact rational value|."""

    @property
    def ok(self) -> bool:
        """True when every checked position is an equilibrium within tolerance."""
        return self.failures == 0 and self.checked > 0


def stage_games(path: str | Path, *, sample: int | None = None,
                seed: int = 0) -> Iterator[StageGames]:
    """Yield stored positions' stage games and stored solutions, layer by layer.

    Args:
        path: the database file.
        sample: check only this many positions drawn at random (all when None).
        seed: seed of the sample.
    """
    with open_db(path) as db:
        game = db.game
    conn = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True)
    try:
        # Keys go through int64, never float64: keys of layer 32 and up exceed 2**53.
        rows = conn.execute("SELECT key, layer, value FROM states ORDER BY key").fetchall()
        keys = np.array([r[0] for r in rows], dtype=np.int64)
        layer_of = np.array([r[1] for r in rows], dtype=np.int64)
        values = np.array([r[2] for r in rows], dtype=np.float64)
        table = ValueTable()
        table.add(-1, keys, values)
        chosen = np.ones(len(keys), bool)
        if sample is not None and sample < len(keys):
            chosen[:] = False
            chosen[np.random.default_rng(seed).choice(len(keys), sample, replace=False)] = True
        for layer in sorted(set(layer_of[chosen].tolist())):
            mine = (layer_of == layer) & chosen
            probe = game.expand(keys[mine][:1])
            for batch in batches(keys[mine], int(np.prod(probe.succ.shape[1:]))):
                exp = game.expand(batch)
                x, y = _strategies(conn, exp.keys, exp.row_actions, exp.col_actions,
                                   dense=sample is None)
                yield StageGames(layer, batch, exp.n_rows, exp.n_cols, stage_matrices(exp, table),
                                 table.lookup(batch), x, y)
    finally:
        conn.close()


def _strategies(conn: sqlite3.Connection, keys: npt.NDArray[np.int64],
                row_labels: npt.NDArray[np.int64], col_labels: npt.NDArray[np.int64], *,
                dense: bool = True) -> tuple[Floats, Floats]:
    """Read the stored strategies of ``keys`` into action-position arrays.

    A batch's JSON objects are parsed by one ``json.loads`` call and placed with array
    operations (~0.3 µs a probability). A label that is not an action of its position
    is left out, so the strategy no longer sums to 1 and the check fails.
    """
    query = "SELECT key, strategy1, strategy2 FROM states WHERE "
    if dense:  # every key of the range is wanted: one range scan
        rows = conn.execute(query + "key BETWEEN ? AND ?", (int(keys[0]), int(keys[-1]))).fetchall()
    else:
        rows = []
        for start in range(0, len(keys), 500):
            part = keys[start:start + 500].tolist()
            rows += conn.execute(query + f"key IN ({','.join('?' * len(part))})", part).fetchall()
    out = (np.zeros(row_labels.shape), np.zeros(col_labels.shape))
    if not rows:
        return out
    skey = np.array([row[0] for row in rows], dtype=np.int64)
    pos = np.searchsorted(keys, skey).clip(0, len(keys) - 1)
    mine = keys[pos] == skey
    for column, labels, target in ((1, row_labels, out[0]), (2, col_labels, out[1])):
        parsed = json.loads("[" + ",".join(row[column] or "{}" for row in rows) + "]")
        sizes = np.fromiter(map(len, parsed), dtype=np.int64, count=len(parsed))
        action = np.fromiter(map(int, itertools.chain.from_iterable(parsed)), dtype=np.int64,
                             count=int(sizes.sum()))
        prob = np.fromiter(itertools.chain.from_iterable(d.values() for d in parsed),
                           dtype=np.float64, count=len(action))
        sel = np.repeat(mine, sizes)
        where, action, prob = np.repeat(pos, sizes)[sel], action[sel], prob[sel]
        hits = labels[where] == action[:, None]
        known = hits.any(axis=1)
        np.add.at(target, (where[known], np.argmax(hits[known], axis=1)), prob[known])
    return out


def verify(path: str | Path, *, tolerance: float = TOLERANCE, sample: int | None = None,
           exact: bool = False, seed: int = 0) -> VerifyReport:
    """Re-check the stored positions of the file at ``path``.

    Args:
        path: the database file.
        tolerance: largest admissible gap, relative to each stage game's payoff range.
        sample: check this many random positions instead of all (for huge files).
        exact: also re-solve every checked stage game in rational arithmetic and require
            the stored value to match the exact value of the stored stage matrix.
        seed: seed of the sample.
    """
    per_layer: dict[int, tuple[int, float, int]] = {}
    failing: list[int] = []
    exact_error = 0.0
    with open_db(path) as db:
        values_only = bool(db.meta.get("values_only"))
    check = _check_values if values_only else _check
    for games in stage_games(path, sample=sample, seed=seed):
        gaps, bad = check(games, tolerance)
        if exact:
            errors = _exact_errors(games)
            exact_error = max(exact_error, float(errors.max(initial=0.0)))
            bad |= errors > tolerance * np.maximum(1.0, np.abs(games.payoffs).max(axis=(1, 2)))
        checked, worst, fails = per_layer.get(games.layer, (0, 0.0, 0))
        per_layer[games.layer] = (checked + len(gaps), max(worst, float(gaps.max(initial=0.0))),
                                  fails + int(bad.sum()))
        failing.extend(games.keys[bad][: 20 - len(failing)].tolist())
    checked = sum(c for c, _, _ in per_layer.values())
    with open_db(path) as db:
        states = db.info().done
    return VerifyReport(states, checked, max((g for _, g, _ in per_layer.values()), default=0.0),
                        sum(f for _, _, f in per_layer.values()), failing, per_layer,
                        exact_error if exact else None)


def _check_values(games: StageGames, tolerance: float) -> tuple[Floats, npt.NDArray[np.bool_]]:
    """For a values-only file: re-solve each stage game and compare with the stored value.

    The "gap" reported is |stored value - re-solved value| (no strategies are stored).
    """
    solution = solve_games(games.payoffs, games.n_rows, games.n_cols)
    errors = np.abs(solution.values - games.values)
    scale = np.maximum(1.0, np.abs(games.payoffs).max(axis=(1, 2)))
    return errors, errors > tolerance * scale


def _exact_errors(games: StageGames) -> Floats:
    """|stored value - exact value| of each stage game, solved with Fractions."""
    errors = np.empty(len(games.keys))
    for i, (rows, cols) in enumerate(zip(games.n_rows.tolist(), games.n_cols.tolist())):
        solution = solve_exact(games.payoffs[i, :rows, :cols])
        errors[i] = abs(float(solution.value) - games.values[i])
    return errors


def _check(games: StageGames, tolerance: float) -> tuple[Floats, npt.NDArray[np.bool_]]:
    M, x, y = games.payoffs, games.row_strategies, games.col_strategies
    R, C = M.shape[1:]
    # Padded actions must not count: they carry zero probability in x, y; mask them out.
    best_row = np.einsum("brc,bc->br", M, y)
    worst_col = np.einsum("br,brc->bc", x, M)
    row_pad = np.arange(R)[None, :] >= games.n_rows[:, None]
    col_pad = np.arange(C)[None, :] >= games.n_cols[:, None]
    upper = np.where(row_pad, -np.inf, best_row).max(axis=1)
    lower = np.where(col_pad, np.inf, worst_col).min(axis=1)
    gaps = upper - lower
    scale = np.maximum(1.0, np.abs(np.where(row_pad[:, :, None] | col_pad[:, None, :], 0, M)).max(axis=(1, 2)))
    sums_ok = np.isclose(x.sum(1), 1, atol=1e-9) & np.isclose(y.sum(1), 1, atol=1e-9)
    bad = ((gaps > tolerance * scale) | ~sums_ok | (x < 0).any(1) | (y < 0).any(1)
           | (games.values > upper + tolerance * scale) | (games.values < lower - tolerance * scale))
    return gaps, bad

