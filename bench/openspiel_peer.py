"""OpenSpiel's ``value_iteration`` as the peer solver, with its LP backend made explicit.

OpenSpiel's ``lp_solver`` needs cvxpy and one of its backends (ECOS by default; CLARABEL
where ECOS is missing): ``pip install -e ".[peer]"``. Two backends:

* ``"openspiel"``: OpenSpiel's own ``lp_solver`` (two LPs per stage game) — what the
  benchmarks measure;
* ``"highs"``: a stand-in solving the same LP with SciPy's HiGHS. The tests use it: no
  extra dependency, fast, and OpenSpiel's enumeration, transitions and iteration are
  unchanged, so the comparison stays independent of gamedb.

``"auto"`` takes OpenSpiel's own where cvxpy imports, else HiGHS.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

_LP_SOLVER = "open_spiel.python.algorithms.lp_solver"


def solve_zero_sum_matrix_game(game: Any) -> tuple[Any, None, float, float]:
    """``lp_solver.solve_zero_sum_matrix_game`` by HiGHS: max v s.t. x A >= v, sum x = 1.

    Returns OpenSpiel's 4-tuple; only the row strategy and the value are used by
    ``value_iteration``.
    """
    from scipy.optimize import linprog

    a = np.asarray(game.row_utilities(), dtype=float)
    m, n = a.shape
    cost = np.zeros(m + 1)
    cost[-1] = -1.0
    res = linprog(cost, A_ub=np.hstack([-a.T, np.ones((n, 1))]), b_ub=np.zeros(n),
                  A_eq=np.hstack([np.ones((1, m)), np.zeros((1, 1))]), b_eq=[1.0],
                  bounds=[(0, None)] * m + [(None, None)], method="highs")
    return res.x[:m], None, res.x[-1], -res.x[-1]


def value_iteration(lp: str = "highs") -> tuple[Callable[..., dict[str, float]], str]:
    """Return OpenSpiel's ``value_iteration`` function and a description of its LP.

    Args:
        lp: ``"highs"``, ``"openspiel"`` or ``"auto"`` (see the module docstring).
    """
    try:
        import cvxpy as cp
    except ImportError:
        cp = None
    if lp == "openspiel" and cp is None:
        raise RuntimeError("OpenSpiel's lp_solver needs cvxpy: pip install -e '.[peer]'")
    if lp == "highs" or cp is None:
        sys.modules.setdefault(_LP_SOLVER, types.ModuleType(_LP_SOLVER))  # skips cvxpy
        from open_spiel.python.algorithms import value_iteration as module
        module.lp_solver = types.SimpleNamespace(  # type: ignore[attr-defined]
            solve_zero_sum_matrix_game=solve_zero_sum_matrix_game)
        return module.value_iteration, "scipy HiGHS stand-in for lp_solver"
    from open_spiel.python.algorithms import lp_solver
    from open_spiel.python.algorithms import value_iteration as module
    backend = "ECOS"
    if "ECOS" not in cp.installed_solvers():
        lp_solver.LinearProgram.solve.__defaults__ = ("CLARABEL", {})
        backend = "CLARABEL (ECOS not installed)"
    module.lp_solver = lp_solver  # undo a stand-in installed earlier in this process
    return module.value_iteration, f"OpenSpiel lp_solver, cvxpy {cp.__version__} {backend}"
