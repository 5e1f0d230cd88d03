"""Reference answers computed on OpenSpiel's own game tree, independent of gamedb.

``solve`` is backward induction over ``pyspiel`` states (memoised by the state string,
which names the position fully: hands, past prizes, points; coins and field), each
simultaneous node's matrix game solved by SciPy's HiGHS: the same values OpenSpiel's
``value_iteration`` converges to, in one pass (~1 s for 4-card Goofspiel where
``value_iteration`` takes minutes). ``best_response`` is the value a player earns by
best responding, node by node, to a fixed OpenSpiel policy of the other; ``expected``
what two policies earn against each other.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.optimize import linprog


def matrix_game_value(payoffs: np.ndarray) -> float:
    """Value of the zero-sum game ``payoffs`` (row player maximises): max v s.t.
    x A >= v, sum x = 1, x >= 0."""
    rows, cols = payoffs.shape
    lower, upper = payoffs.min(axis=1).max(), payoffs.max(axis=0).min()
    if lower == upper:  # a saddle point (one row or one column included): no LP
        return float(lower)
    cost = np.zeros(rows + 1)
    cost[-1] = -1.0
    res = linprog(cost, A_ub=np.hstack([-payoffs.T, np.ones((cols, 1))]), b_ub=np.zeros(cols),
                  A_eq=np.hstack([np.ones((1, rows)), np.zeros((1, 1))]), b_eq=[1.0],
                  bounds=[(0, None)] * rows + [(None, None)], method="highs")
    assert res.status == 0, res.message
    return float(res.x[-1])


def _child(state: Any, joint: tuple[int, int]) -> Any:
    child = state.clone()
    child.apply_actions(list(joint))
    return child


def solve(state: Any, memo: dict[str, float]) -> float:
    """Return player 0's equilibrium value of ``state``."""
    key = str(state)
    if key in memo:
        return memo[key]
    if state.is_terminal():
        value = float(state.returns()[0])
    elif state.is_chance_node():
        value = sum(p * solve(state.child(a), memo) for a, p in state.chance_outcomes())
    else:
        acts0, acts1 = state.legal_actions(0), state.legal_actions(1)
        value = matrix_game_value(np.array([[solve(_child(state, (a, b)), memo) for b in acts1]
                                            for a in acts0]))
    memo[key] = value
    return value


def best_response(state: Any, policy: Any, responder: int, memo: dict[str, float]) -> float:
    """Return what ``responder`` (0 or 1) earns, his own side, best responding to
    ``policy`` played by the other player."""
    key = str(state)
    if key in memo:
        return memo[key]
    if state.is_terminal():
        value = float(state.returns()[responder])
    elif state.is_chance_node():
        value = sum(p * best_response(state.child(a), policy, responder, memo)
                    for a, p in state.chance_outcomes())
    else:
        theirs = policy.action_probabilities(state, 1 - responder)
        value = max(sum(q * best_response(
            _child(state, (mine, b) if responder == 0 else (b, mine)), policy, responder, memo)
            for b, q in theirs.items() if q > 0) for mine in state.legal_actions(responder))
    memo[key] = value
    return value


def expected(state: Any, policies: tuple[Any, Any]) -> float:
    """Return player 0's expected return when OpenSpiel's player ``i`` plays
    ``policies[i]`` (each asked for its own player only)."""
    if state.is_terminal():
        return float(state.returns()[0])
    if state.is_chance_node():
        return sum(p * expected(state.child(a), policies) for a, p in state.chance_outcomes())
    first, second = (policies[i].action_probabilities(state, i) for i in (0, 1))
    return sum(p * q * expected(_child(state, (a, b)), policies)
               for a, p in first.items() if p > 0 for b, q in second.items() if q > 0)
