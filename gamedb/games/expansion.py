"""The layer face's data: successors of a batch of keys as arrays, and how to derive
them from the per-state reference face (``reference_expand``).

A game's ``expand`` returns an ``Expansion``; the builder turns it into stage games
(``solver.backward.stage_matrices``). ``reference_expand`` derives one from the
reference face, so tests can demand that both faces agree and tiny games need not write
a vectorized face at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from gamedb.types import Floats, Keys

if TYPE_CHECKING:
    from gamedb.games.base import Distribution, Game

S = TypeVar("S")

#: Key of a successor that is terminal (its payoff is in ``Expansion.weight``).
TERMINAL = -1


@dataclass(frozen=True, slots=True)
class Expansion:
    """Successors of a batch of canonical keys, one entry per action pair and outcome.

    The stage matrix of state ``i`` is
    ``M[i, a, b] = sum_k (weight * V[succ] if succ >= 0 else weight)[i, a, b, k]``
    where ``V`` is the stored value of a canonical key: ``weight`` folds in the chance
    probability and the player-swap sign, or is the terminal payoff when ``succ`` is
    ``TERMINAL``. A ``TERMINAL`` entry beside other outcomes carries an immediate reward
    (prob x points banked this move, or ``Canonical.offset``). Padded actions and
    outcomes have ``succ == TERMINAL`` and weight 0.
    """

    keys: Keys
    """The expanded states, shape (B,)."""
    n_rows: Keys
    """Number of row (player 1) actions of each state, shape (B,)."""
    n_cols: Keys
    """Number of column (player 2) actions, shape (B,)."""
    row_actions: Keys
    """Stored label of each row action, shape (B, R), padding -1."""
    col_actions: Keys
    """Stored label of each column action, shape (B, C), padding -1."""
    succ: Keys
    """Canonical successor keys, shape (B, R, C, K), ``TERMINAL`` for payoffs."""
    weight: Floats
    """Probability x sign, or probability x terminal payoff, shape (B, R, C, K)."""


@dataclass(frozen=True, slots=True)
class Root(Generic[S]):
    """The initial distribution in canonical keys (chance folded in)."""

    keys: Keys
    weight: Floats
    """Probability x sign for each key (terminal roots do not occur)."""


def root_of(game: Game[Any]) -> Root[Any]:
    """Return the canonical keys and weights of the game's initial distribution."""
    keys, weights = [], []
    for prob, state in game.initial():
        canon = game.canonical(state)
        keys.append(canon.key)
        weights.append(prob * canon.sign)
    return Root(np.array(keys, dtype=np.int64), np.array(weights, dtype=np.float64))


def top_layer(game: Game[Any]) -> int:
    """Return the game's top layer: its start's (every move lowers the layer).

    >>> from gamedb.games import load_game
    >>> [top_layer(load_game(s)) for s in ("jujitsu(num_cards=6)", "goofspiel(num_cards=5)")]
    [6, 5]
    """
    return int(game.layer_of(root_of(game).keys).max())


def reference_expand(game: Game[Any], keys: Keys) -> Expansion:
    """Build the layer face of ``keys`` from the per-state reference face (slow, exact)."""
    rows: list[Any] = []
    for key in keys.tolist():
        state = game.decode(key)
        acts1, acts2 = game.actions(state)
        pairs = [[_outcomes(game, game.next(state, a, b)) for b in acts2] for a in acts1]
        rows.append((acts1, acts2, pairs))
    R = max((len(r[0]) for r in rows), default=1)
    C = max((len(r[1]) for r in rows), default=1)
    K = max((len(o) for r in rows for line in r[2] for o in line), default=1)
    out = _empty_expansion(keys, R, C, K)
    for i, (acts1, acts2, pairs) in enumerate(rows):
        out.n_rows[i], out.n_cols[i] = len(acts1), len(acts2)
        out.row_actions[i, : len(acts1)] = acts1
        out.col_actions[i, : len(acts2)] = acts2
        for a, line in enumerate(pairs):
            for b, outcomes in enumerate(line):
                for k, (succ, weight) in enumerate(outcomes):
                    out.succ[i, a, b, k], out.weight[i, a, b, k] = succ, weight
    return out


def _outcomes(game: Game[Any], dist: Distribution[Any]) -> list[tuple[int, float]]:
    """Merge a distribution into sorted (canonical key or TERMINAL, weight) pairs."""
    merged: dict[int, float] = {}
    terminal = 0.0
    for prob, state in dist:
        payoff = game.value(state)
        if payoff is not None:
            terminal += prob * payoff
            continue
        canon = game.canonical(state)
        merged[canon.key] = merged.get(canon.key, 0.0) + prob * canon.sign
        terminal += prob * canon.offset
    items = sorted(merged.items())
    return ([(TERMINAL, terminal)] if terminal or not items else []) + items


def successor_table(exp: Expansion, i: int) -> dict[tuple[int, int], dict[int, float]]:
    """Return state ``i`` of an expansion as {(row label, col label): {succ: weight}}.

    Outcomes with the same successor are merged and weights rounded to 12 decimals, so
    two faces that list outcomes in another order or split them compare equal (the
    conformance tests compare ``expand`` with ``reference_expand`` this way).
    """
    out: dict[tuple[int, int], dict[int, float]] = {}
    for a in range(int(exp.n_rows[i])):
        for b in range(int(exp.n_cols[i])):
            merged: dict[int, float] = {}
            for succ, weight in zip(exp.succ[i, a, b].tolist(), exp.weight[i, a, b].tolist()):
                merged[succ] = merged.get(succ, 0.0) + weight
            out[int(exp.row_actions[i, a]), int(exp.col_actions[i, b])] = {
                s: round(w, 12) for s, w in merged.items() if s != TERMINAL or round(w, 12)}
    return out


def _empty_expansion(keys: Keys, R: int, C: int, K: int) -> Expansion:
    B = len(keys)
    return Expansion(
        keys=np.asarray(keys, dtype=np.int64),
        n_rows=np.zeros(B, np.int64),
        n_cols=np.zeros(B, np.int64),
        row_actions=np.full((B, R), -1, np.int64),
        col_actions=np.full((B, C), -1, np.int64),
        succ=np.full((B, R, C, K), TERMINAL, np.int64),
        weight=np.zeros((B, R, C, K), np.float64),
    )


__all__ = ["TERMINAL", "Expansion", "Floats", "Keys", "Root", "reference_expand", "root_of",
           "successor_table", "top_layer"]
