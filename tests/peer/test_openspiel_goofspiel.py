"""Agreement with an independent solver: OpenSpiel's value iteration on every state it enumerates.

OpenSpiel plays the last round by itself (positions with one card per hand never appear)
and pays ``point_difference`` as (p1 - p2) / 2 to player 1; gamedb pays p1 - p2, so its
values are compared with twice OpenSpiel's. OpenSpiel's positions carry the score, which
gamedb's ``point_difference`` keys leave out: ``diff=`` in the position banks it.

The stage games go to SciPy's HiGHS instead of OpenSpiel's ``lp_solver`` (cvxpy, which
the test extra does not install and whose default ECOS backend cvxpy no longer ships):
the enumeration, transitions and iteration stay OpenSpiel's, and HiGHS is ~10x faster.
The 4-card random runs take ~20 s each (marked slow).
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from scipy.optimize import linprog  # noqa: E402

from gamedb.store import open_db  # noqa: E402


def solve_zero_sum_matrix_game(game):  # type: ignore[no-untyped-def]
    """OpenSpiel's lp_solver entry point, solved by HiGHS: max v s.t. x A >= v, sum x = 1."""
    A = np.array(game.row_utilities(), dtype=float)
    m, k = A.shape
    cost = np.zeros(m + 1)
    cost[-1] = -1.0
    res = linprog(cost, A_ub=np.hstack([-A.T, np.ones((k, 1))]), b_ub=np.zeros(k),
                  A_eq=np.hstack([np.ones((1, m)), np.zeros((1, 1))]), b_eq=[1.0],
                  bounds=[(0, None)] * m + [(None, None)], method="highs")
    return res.x[:m], None, res.x[-1], -res.x[-1]


def _value_iteration():  # type: ignore[no-untyped-def]
    """Return OpenSpiel's value_iteration with its stage games solved by HiGHS."""
    name = "open_spiel.python.algorithms.lp_solver"
    try:
        import cvxpy  # noqa: F401
    except ImportError:  # value_iteration imports lp_solver, which imports cvxpy
        sys.modules.setdefault(name, types.ModuleType(name))
    from open_spiel.python.algorithms import value_iteration as module
    module.lp_solver = types.SimpleNamespace(  # type: ignore[attr-defined]
        solve_zero_sum_matrix_game=solve_zero_sum_matrix_game)
    return module.value_iteration


def openspiel_position(text: str, n: int) -> str:
    """Write an OpenSpiel goofspiel state string (``imp_info=False``) as a gamedb position."""
    fields = {name.strip(): value.split() for name, value in
              (line.split(":", 1) for line in text.strip().splitlines())}
    drawn = [int(c) for c in fields["Point card sequence"]]
    hand1, hand2 = fields["P0 hand"], fields["P1 hand"]
    points = [int(float(p)) for p in fields["Points"]]
    prizes = [c for c in range(1, n + 1) if c not in drawn]
    prize = f" prize={drawn[-1]}" if hand1 else ""
    return (f"hand1={','.join(hand1) or '-'} hand2={','.join(hand2) or '-'} "
            f"prizes={','.join(map(str, prizes)) or '-'}{prize} diff={points[0] - points[1]}")


CASES = [(n, order, returns) for n in (3, 4) for order in ("random", "descending", "ascending")
         for returns in ("win_loss", "point_difference")]


@pytest.mark.parametrize("n, order, returns", [
    pytest.param(*case, marks=[pytest.mark.slow] if case[:2] == (4, "random") else [])
    for case in CASES])
def test_every_openspiel_state_has_the_same_value(built, n: int, order: str, returns: str) -> None:  # type: ignore[no-untyped-def]
    game = pyspiel.load_game("goofspiel", {"num_cards": n, "points_order": order,
                                           "returns_type": returns})
    values = _value_iteration()(game, depth_limit=-1, threshold=1e-12)
    scale = 2.0 if returns == "point_difference" else 1.0
    spec = f"goofspiel(num_cards={n},points_order={order},returns_type={returns})"
    with open_db(built(spec)) as db:
        for text, value in values.items():
            position = openspiel_position(text, n)
            assert db.probe(position).value == pytest.approx(scale * value, abs=1e-7), position
    assert len(values) > 10
