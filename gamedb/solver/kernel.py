"""Batched matrix-game kernel: a saddle-point check, then a dense simplex (numba).

Each game M (payoff to the row player, who maximises) is solved in three steps:

1. Pure saddle point: max_i min_j M_ij == min_j max_i M_ij, up to 1e-12 of the
   payoff range. Most positions of the product's games stop here, and so does every
   1 x n or n x 1 game.
2. Otherwise M is mapped affinely onto [1, 2], M' = 1 + (M - lo) / (hi - lo) > 0, and
   the column player's LP is solved from the slack basis with a condensed (Tucker)
   tableau of size (m + 1) x (n + 1):

       max  1.w   s.t.  M' w <= 1,  w >= 0.

3. The row player's u, the dual of that LP (min 1.u s.t. u M' >= 1, u >= 0), is read
   off the final objective row under the slack columns. With z = 1.w = 1.u at the
   optimum: v' = 1/z, y = w v', x = u v' and value = lo + (hi - lo) (v' - 1).

This is the classical reduction of a matrix game to an LP (T. S. Ferguson, *Game
Theory*, Part II, Section 4.4, "The pivot method").

Pivoting: Dantzig's most-negative-cost rule for up to m + n degenerate pivots, then
Bland's smallest-index rule. Only degenerate pivots can cycle and Bland's rule cannot
(R. G. Bland, Math. Oper. Res. 2, 1977), so the simplex terminates on the highly
degenerate games ({-1, 0, 1} entries, duplicated rows and columns) while keeping
Dantzig's speed (on random 13 x 13 {-1, 0, 1} games, switching at the first degenerate
pivot needs 50% more pivots). Right-hand sides within 1e-13 of zero are snapped to zero
so that degenerate ties are exact ties, which is all Bland's rule needs. Under Dantzig's
rule the ratio test is Harris' two-pass test (P. M. J. Harris, Math. Prog. 5, 1973):
among the rows whose ratio is within the longest step that takes no right-hand side
below -1e-13, the largest pivot wins, for stability. A game that does not finish gets a
NaN value; `solve_games` re-solves it on the reference path.

Each solution's gap (`game_gap`) is computed as soon as the game is solved, while its
payoffs are still in the CPU's caches (`solve_checked`); `solve_games` checks it.

Speed without changing a bit: the loops are written so that the compiler can keep
them free of data-dependent branches or vectorise them (running minima as selects,
the pivot row read from a copy), and no rounding is added, removed or reordered.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from gamedb.jit import njit
from gamedb.types import Floats, Ints

_SADDLE_TOL = 1e-12  # relative to the payoff range
_COST_TOL = 1e-11  # a reduced cost below -_COST_TOL may enter
_PIVOT_TOL = 1e-9  # smallest admissible pivot element (entries of M' lie in [1, 2])
_ZERO_RHS = 1e-13  # right-hand sides below this are snapped to exactly 0
_TINY = 1e-12  # relative probability below which an action is treated as unplayed
_GRID = 2.0**52  # probabilities are rounded to multiples of 2**-52 (see _normalize)

#: Games solved per compiled call (``solve_batch``): 16 k games of 6 x 6 are 4.5 MiB,
#: which the CPU's caches keep while the outputs of the slice are written.
SLICE = 16_384
_UNIT = 2.0**-52  # 1 / _GRID: dividing by a power of two is multiplying by its inverse

#: Work arrays: the tableau, basic and nonbasic labels, column maxima, the pivot row
_Work = tuple[Floats, Ints, Ints, Floats, Floats]

# Helpers are inlined into the batch loop: passing array views between compiled
# functions costs reference counting, which doubled the time of the saddle-point path.
_inline_jit = njit(cache=True, error_model="numpy", inline="always")


def solve_batch(
    payoffs: npt.ArrayLike, n_rows: npt.ArrayLike, n_cols: npt.ArrayLike
) -> tuple[Floats, Floats, Floats]:
    """Solve a batch of padded zero-sum matrix games with the compiled kernel.

    Args:
        payoffs: (B, R, C) payoffs to the row player. Only
            `payoffs[k, :n_rows[k], :n_cols[k]]` is read; the padding may hold anything.
        n_rows: (B,) integer row counts, 1 <= n_rows[k] <= R.
        n_cols: (B,) integer column counts, 1 <= n_cols[k] <= C.

    Returns:
        values (B,), row_strategies (B, R) and col_strategies (B, C), float64, with
        zeros in the padding. Every strategy is >= 0 and sums to exactly 1.0. A game
        with a non-finite entry, or one the simplex could not finish, has value NaN.
        Solutions are not verified here; `solve_games` does that.

    Raises:
        ValueError: if the shapes or the counts are inconsistent.
        TypeError: if the counts are not integers.
    """
    values, row_strategies, col_strategies, _, _ = solve_checked(payoffs, n_rows, n_cols)
    return values, row_strategies, col_strategies


def solve_checked(
    payoffs: npt.ArrayLike, n_rows: npt.ArrayLike, n_cols: npt.ArrayLike
) -> tuple[Floats, Floats, Floats, Floats, Floats]:
    """`solve_batch`, and the gap and the payoff range of each solution (`game_gap`).

    The gap is computed while the game is still in the CPU's caches; it is the double
    that ``matrix_game.batch_gaps`` returns for the same strategies. The range is NaN
    for a game with a non-finite payoff (its gap too), inf if it overflows.
    """
    matrices = np.ascontiguousarray(payoffs, dtype=np.float64)
    if matrices.ndim != 3:
        raise ValueError(f"payoffs must be (B, R, C), got shape {matrices.shape}")
    batch, max_rows, max_cols = matrices.shape
    rows = _as_counts(n_rows, batch, max_rows, "n_rows")
    cols = _as_counts(n_cols, batch, max_cols, "n_cols")
    values, gaps, ranges = np.empty(batch), np.empty(batch), np.empty(batch)
    row_strategies = np.zeros((batch, max_rows))
    col_strategies = np.zeros((batch, max_cols))
    for start in range(0, batch, SLICE):  # one slice's games stay in the cache
        part = slice(start, start + SLICE)
        _solve_all(matrices[part], rows[part], cols[part], values[part],
                   row_strategies[part], col_strategies[part], gaps[part], ranges[part])
    return values, row_strategies, col_strategies, gaps, ranges


def _as_counts(counts: npt.ArrayLike, batch: int, limit: int, name: str) -> Ints:
    array = np.asarray(counts)
    if array.shape != (batch,):
        raise ValueError(f"{name} must have shape ({batch},), got {array.shape}")
    if batch and not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"{name} must hold integers, got {array.dtype}")
    if batch and (array.min() < 1 or array.max() > limit):
        raise ValueError(f"{name} must lie in [1, {limit}]")
    return np.ascontiguousarray(array, dtype=np.int64)


@njit(cache=True, error_model="numpy")
def _solve_all(
    payoffs: Floats, n_rows: Ints, n_cols: Ints, values: Floats,
    row_strategies: Floats, col_strategies: Floats, gaps: Floats, ranges: Floats,
) -> None:
    """Solve and check every game of the batch, reusing one set of work arrays."""
    _, max_rows, max_cols = payoffs.shape
    tableau = np.empty((max_rows + 1, max_cols + 1))
    basic = np.empty(max_rows, dtype=np.int64)
    nonbasic = np.empty(max_cols, dtype=np.int64)
    col_max = np.empty(max_cols)
    pivot_row = np.empty(max_cols + 1)
    work = (tableau, basic, nonbasic, col_max, pivot_row)
    for k in range(payoffs.shape[0]):
        values[k], gaps[k], ranges[k] = _solve_one(
            payoffs[k], n_rows[k], n_cols[k], work, row_strategies[k], col_strategies[k])


@_inline_jit
def _solve_one(
    game: Floats, m: int, n: int, work: _Work, x: Floats, y: Floats
) -> tuple[float, float, float]:
    """Solve game[:m, :n] into x[:m], y[:n] (both zero on entry); return its value, the
    gap of (x, y) (`game_gap`) and the payoff range (NaN for a non-finite payoff).

    A saddle point's gap is (minmax + 0.0) - (maxmin + 0.0), which is what `game_gap`
    computes for pure strategies: each of its sums adds +-0 (a finite payoff times 0)
    and one payoff to 0.0, which gives that payoff, or +0 for a zero of either sign.
    """
    tableau, basic, nonbasic, col_max, pivot_row = work
    maxmin, best_row, lo, finite = _scan(game, m, n, col_max)
    minmax, best_col, hi = _column_extremes(col_max, n)
    if not finite:
        return np.nan, np.nan, np.nan
    scale = hi - lo
    value = np.nan  # if the range overflows, or the simplex does not finish
    if scale == np.inf:
        pass
    elif minmax - maxmin <= _SADDLE_TOL * scale:
        x[best_row] = 1.0
        y[best_col] = 1.0
        saddle: float = game[best_row, best_col]
        return saddle, (minmax + 0.0) - (maxmin + 0.0), scale
    else:
        _load(tableau, game, m, n, lo, scale, basic, nonbasic)
        if _simplex(tableau, m, n, basic, nonbasic, pivot_row):
            shifted_value = _read(tableau, m, n, basic, nonbasic, x, y)
            value = lo + scale * (shifted_value - 1.0)
    return value, game_gap(game, m, n, x, y), scale


@_inline_jit
def _scan(
    game: Floats, m: int, n: int, col_max: Floats
) -> tuple[float, int, float, bool]:
    """Fill col_max[:n]; return (max row minimum, its row, min entry, all finite).

    Written without branches on the data (a flag, not a running sum of ``a * 0``, for
    finiteness): the extremes are the same doubles as the plain comparisons give.
    """
    for j in range(n):
        col_max[j] = -np.inf
    maxmin = -np.inf
    lo = np.inf
    best_row = 0
    finite = True
    for i in range(m):
        row_min = np.inf
        for j in range(n):
            a = game[i, j]
            finite &= abs(a) < np.inf  # False for inf and NaN
            row_min = a if a < row_min else row_min
            column = col_max[j]
            col_max[j] = a if a > column else column
        if row_min > maxmin:
            maxmin = row_min
            best_row = i
        lo = min(lo, row_min)
    return maxmin, best_row, lo, finite


@_inline_jit
def _column_extremes(col_max: Floats, n: int) -> tuple[float, int, float]:
    """Return (min column maximum, its column, max entry)."""
    minmax = np.inf
    best_col = 0
    hi = -np.inf
    for j in range(n):
        if col_max[j] < minmax:
            minmax = col_max[j]
            best_col = j
        hi = max(hi, col_max[j])
    return minmax, best_col, hi


@_inline_jit
def _load(
    tableau: Floats, game: Floats, m: int, n: int,
    lo: float, scale: float, basic: Ints, nonbasic: Ints,
) -> None:
    """Write the slack-basis tableau of M' w <= 1 (rows: s_i = n + i; columns: w_j = j)."""
    for i in range(m):
        for j in range(n):
            tableau[i, j] = 1.0 + (game[i, j] - lo) / scale  # 1 / scale may overflow
        tableau[i, n] = 1.0
        basic[i] = n + i
    for j in range(n):
        tableau[m, j] = -1.0
        nonbasic[j] = j
    tableau[m, n] = 0.0


@_inline_jit
def _simplex(
    tableau: Floats, m: int, n: int, basic: Ints, nonbasic: Ints, pivot_row: Floats
) -> bool:
    """Pivot to optimality; return False if the tableau went numerically bad."""
    bland = False
    degenerate = 0
    for _ in range(50 * (m + n) + 100):
        q = _entering(tableau, m, n, nonbasic, bland)
        if q < 0:
            return True
        p = _leaving(tableau, m, n, q, basic, bland)
        if p < 0:
            return False  # unbounded: impossible for M' > 0 unless rounding broke it
        if tableau[p, n] == 0.0:  # a degenerate pivot: only these can cycle
            degenerate += 1
            bland = bland or degenerate > m + n
        _pivot(tableau, m, n, p, q, pivot_row)
        basic[p], nonbasic[q] = nonbasic[q], basic[p]
    return False


@_inline_jit
def _entering(tableau: Floats, m: int, n: int, nonbasic: Ints, bland: bool) -> int:
    """Entering column: most negative cost (Dantzig) or smallest label (Bland), or -1.

    Dantzig's column is the first one whose cost is the smallest of those below
    -_COST_TOL, found as a running minimum that starts at -_COST_TOL.
    """
    best = -1
    if bland:
        for j in range(n):
            if tableau[m, j] < -_COST_TOL and (best < 0 or nonbasic[j] < nonbasic[best]):
                best = j
        return best
    lowest = -_COST_TOL
    for j in range(n):
        cost = tableau[m, j]
        best = j if cost < lowest else best
        lowest = cost if cost < lowest else lowest
    return best


@_inline_jit
def _leaving(
    tableau: Floats, m: int, n: int, q: int, basic: Ints, bland: bool
) -> int:
    """Leaving row by the ratio test, or -1; see the module docstring for ties.

    The bound's minimum takes every row's ratio and keeps it only for a pivot element
    above _PIVOT_TOL (a select, not a branch: the same minimum in the same order).
    """
    slack = 0.0 if bland else _ZERO_RHS
    bound = np.inf  # the longest step that leaves no rhs below -slack
    for i in range(m):
        a = tableau[i, q]
        ratio = (max(tableau[i, n], 0.0) + slack) / a
        bound = min(bound, ratio) if a > _PIVOT_TOL else bound
    best = -1
    for i in range(m):
        a = tableau[i, q]
        if a <= _PIVOT_TOL or max(tableau[i, n], 0.0) / a > bound:
            continue
        if best < 0 or (basic[i] < basic[best] if bland else a > tableau[best, q]):
            best = i
    return best


@_inline_jit
def _pivot(
    tableau: Floats, m: int, n: int, p: int, q: int, pivot_row: Floats
) -> None:
    """Exchange the basic variable of row p with the nonbasic one of column q.

    The other rows subtract a copy of the new row p: the compiler vectorises that
    loop (reading row p of the tableau itself, it could not rule out that the rows
    overlap). Column q of the copy is not the pivot's inverse, but no row keeps
    what it computes there: it is overwritten by -factor * inverse.
    """
    inverse = 1.0 / tableau[p, q]
    for j in range(n + 1):
        scaled = tableau[p, j] * inverse
        tableau[p, j] = scaled
        pivot_row[j] = scaled
    tableau[p, q] = inverse
    for i in range(m + 1):
        factor = tableau[i, q]
        if i == p or factor == 0.0:
            continue
        for j in range(n + 1):
            tableau[i, j] -= factor * pivot_row[j]
        tableau[i, q] = -factor * inverse
        if i < m and abs(tableau[i, n]) < _ZERO_RHS:
            tableau[i, n] = 0.0


@_inline_jit
def _read(
    tableau: Floats, m: int, n: int,
    basic: Ints, nonbasic: Ints, x: Floats, y: Floats,
) -> float:
    """Read w (rhs of basic w_j) and u (costs under the slacks); return v' = 1/z."""
    for i in range(m):
        if basic[i] < n:
            y[basic[i]] = tableau[i, n]
    for j in range(n):
        if nonbasic[j] >= n:
            x[nonbasic[j] - n] = tableau[m, j]
    _normalize(x, m)
    _normalize(y, n)
    value: float = 1.0 / tableau[m, n]
    return value


@_inline_jit
def _normalize(p: Floats, k: int) -> None:
    """Clip p[:k] at 0 and rescale it so that it sums to exactly 1.0.

    Every entry is rounded to a multiple of 2**-52, and the largest one is set to 1
    minus the others. Partial sums of such numbers are exact, so the strategy sums to
    1.0 in any summation order (numpy's pairwise sum, math.fsum, a plain loop).
    """
    total = 0.0
    for i in range(k):
        if not p[i] > 0.0:
            p[i] = 0.0
        total += p[i]
    # Probabilities below _TINY of the total are round-off of the simplex, not play:
    # storing them would list never-played actions (the gap check still guards).
    for i in range(k):
        if p[i] < _TINY * total:
            total -= p[i]
            p[i] = 0.0
    if not total > 0.0:
        p[:k] = 1.0 / k  # unreachable for a finished simplex; keeps p a distribution
        total = 1.0
    largest = 0
    factor = _GRID / total
    for i in range(k):
        p[i] = ((p[i] * factor + _GRID) - _GRID) * _UNIT  # round to nearest 2**-52
        if p[i] > p[largest]:
            largest = i
    rest = 0.0
    for i in range(k):
        if i != largest:
            rest += p[i]
    p[largest] = 1.0 - rest


@_inline_jit
def game_gap(game: Floats, m: int, n: int, x: Floats, y: Floats) -> float:
    """Return max_i (M y)_i - min_j (x M)_j of game[:m, :n], each sum in index order
    from 0.0 (the loops of ``matrix_game.batch_gaps``, so the same double)."""
    best_row = -np.inf
    for i in range(m):
        total = 0.0
        for j in range(n):
            total += game[i, j] * y[j]
        if np.isnan(total) or total > best_row:  # a NaN (strategy) sticks: check fails
            best_row = total
    best_col = np.inf
    for j in range(n):
        total = 0.0
        for i in range(m):
            total += x[i] * game[i, j]
        if np.isnan(total) or total < best_col:
            best_col = total
    gap: float = best_row - best_col
    return gap
