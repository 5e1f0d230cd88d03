"""Exact scoring of a Markov agent by layers over a file's stored positions (no LP).

Three vectorised passes over the stored (canonical) positions the agent can reach,
each a *pair* (position, the agent's seat there: a player-swapped successor puts it in
the other seat):

1. **down**, from the start: the agent is asked, in batches, at every pair that some
   opponent can reach against it; the successors of the moves it plays are the pairs
   of the layers below;
2. **up**, from the last layer: its expected payoff against the stored equilibrium and
   against its exact best response, and the best response's move, layer by layer from
   the successors' (``game.expand``: one matrix per position, no LP);
3. **down** again: how likely the best response's play reaches each pair, so the
   exploitability splits by layer and by position: at a pair, the agent's *loss* is
   the stored value minus what its move earns against the best response's move when
   both continue optimally (the stored values); the reach-weighted losses sum to what
   the best response gains beyond the game value.

Pass 2's moves are the exact best response itself, kept as an agent
(``SweepResult.best_response``: one move per pair, asked at real positions), so it can
be played, e.g. in OpenSpiel against the agent (``bench/openspiel_agents.py``).

The agent is asked at the stored position, whose cards are relabelled by rank (and
players swapped): this is the agent itself only when it plays alike at every real
position the stored one stands for (``symmetric``: uniform play, the equilibrium,
and the seeded MCTS agent of ``gamedb.openspiel.mcts``); other
agents are scored by ``gamedb.play.evaluate``'s recursion over real positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gamedb.games.base import Game, GameError
from gamedb.games.expansion import TERMINAL, Expansion, root_of
from gamedb.play.agents import Agent, Policy
from gamedb.play.stored import equilibrium_arrays
from gamedb.store import GameDB
from gamedb.types import Floats, Ints, Keys, OpenProgress

#: Pairs expanded at once (a batch's stage arrays: B x R x C x K doubles, several).
CHUNK = 8192


def is_symmetric(agent: Agent) -> bool:
    """True for an agent that declares it plays alike at every position stored as one."""
    return bool(getattr(agent, "symmetric", False))


def ask(agent: Agent, game: Game[Any], states: Sequence[Any], player: int) -> list[Policy]:
    """Return the agent's policies at ``states`` for ``player``: its own batch method
    ``policies(game, states, player)`` if it has one, else one ``policy`` call each."""
    batch = getattr(agent, "policies", None)
    if callable(batch):
        return list(batch(game, states, player))
    return [agent.policy(game, state, player) for state in states]


@dataclass(frozen=True, slots=True)
class LayerLoss:
    """What the best response gains beyond the value at one layer's positions."""

    layer: int
    """The layer (Goofspiel: cards left in each hand)."""
    positions: int
    """Pairs (stored position, the agent's seat there) the agent was asked at."""
    loss: tuple[float, float]
    """Reach-weighted loss of the agent in seat 1 and in seat 2 (module docstring)."""


@dataclass(frozen=True, slots=True)
class PositionLoss:
    """A position where the agent loses much against its best response."""

    seat: int
    """The agent's seat in the game (1 or 2)."""
    player: int
    """The agent's player at the stored position (the other one if it is swapped)."""
    position: str
    """The stored position (cards relabelled by rank), as ``gamedb show`` reads it."""
    reach: float
    """Probability that the best response's play against the agent reaches it."""
    loss: float
    """The agent's loss there, from its side (the stored value minus what it earns)."""


class SweptBestResponse:
    """The exact best response to a Markov agent that pass 2 found: at a real position
    it plays the move stored for the pair (the position's stored key, the agent's
    player there), ties to the smallest label. It answers alike at every real position
    of a stored one, in either seat, wherever the agent's play can lead, and nowhere
    else (so it is no agent to score against other opponents).

    Raises (``policy``):
        GameError: a position the agent's play cannot reach (or the game is decided).
    """

    def __init__(self, agent_name: str, codes: Ints, labels: Ints):
        self.name = f"best-response:{agent_name}"
        self._codes, self._labels = codes, labels

    def __len__(self) -> int:
        """The pairs it has a move for."""
        return len(self._codes)

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy:
        canon = game.canonical(state)
        code = int(canon.key) << 1 | (canon.stored_player(3 - player) - 1)
        at = int(np.searchsorted(self._codes, code))
        if at == len(self._codes) or int(self._codes[at]) != code:
            raise GameError(f"{self.name}: {game.format_position(state)} (player {player}) "
                            "is not reached by the agent's play")
        label = int(self._labels[at])
        return {next(a for a, lab in canon.actions[player - 1].items() if lab == label): 1.0}


@dataclass(frozen=True, slots=True)
class SweepResult:
    """The three passes' results, each payoff from the agent's side, per seat (1, 2)."""

    value: float
    vs_equilibrium: tuple[float, float]
    vs_best_response: tuple[float, float]
    layers: tuple[LayerLoss, ...]
    worst: tuple[PositionLoss, ...]
    best_response: SweptBestResponse
    """Pass 2's best response to the agent, as an agent (the module docstring)."""


@dataclass(slots=True)
class _Layer:
    codes: Ints  # key << 1 | (player - 1), sorted
    policy: Floats  # the agent's, over its own labels, (n, A)


def sweep(game: Game[Any], db: GameDB, agent: Agent, *, worst: int = 10,
          on_progress: OpenProgress | None = None) -> SweepResult:
    """Score ``agent`` (asked at the stored positions of ``db``) exactly: see the
    module docstring. ``worst`` positions (by reach x loss) are reported;
    ``on_progress(done, total)`` counts the pairs handled of those known so far."""
    root = root_of(game)
    roots = {seat: _codes(root.keys, np.where(root.weight > 0, seat, 3 - seat))
             for seat in (1, 2)}
    layers = _down(game, agent, np.concatenate(list(roots.values())), on_progress)
    table = _up(game, db, layers, on_progress)
    payoffs = {seat: table.at_roots(roots[seat], root.weight) for seat in (1, 2)}
    value = float(np.sum(root.weight * table.value[table.find(roots[1])[0]]))
    reach = {seat: _reach(game, layers, table, roots[seat], np.abs(root.weight))
             for seat in (1, 2)}
    layer_of = game.layer_of(table.codes >> 1)
    return SweepResult(
        value + 0.0,
        (payoffs[1][0], -payoffs[2][0]), (payoffs[1][1], -payoffs[2][1]),
        tuple(LayerLoss(layer, len(layers[layer].codes),
                        tuple(float(np.sum((reach[s] * table.loss)[layer_of == layer]))
                              for s in (1, 2)))  # type: ignore[arg-type]
              for layer in sorted(layers, reverse=True)),
        _worst(game, table, reach, worst),
        SweptBestResponse(agent.name, table.codes, table.label))


def _codes(keys: Keys, players: Ints) -> Ints:
    return (np.asarray(keys, np.int64) << 1) | (np.asarray(players, np.int64) - 1)


def _down(game: Game[Any], agent: Agent, start: Ints,
          on_progress: OpenProgress | None) -> dict[int, _Layer]:
    """Pass 1: ask the agent at every pair it can reach, top layer first."""
    pending: dict[int, list[Ints]] = {}
    _file(game, start, pending)
    layers: dict[int, _Layer] = {}
    done = known = 0
    while pending:
        layer = max(pending)
        codes = np.unique(np.concatenate(pending.pop(layer)))
        known += len(codes)
        policies = []
        for at in range(0, len(codes), CHUNK):
            part = codes[at:at + CHUNK]
            exp = game.expand(part >> 1)
            policy = _policies(game, agent, exp, part)
            _file(game, _children(exp, part, policy > 0), pending)
            policies.append(policy)
            done += len(part)
            if on_progress is not None:
                on_progress(done, known + sum(len(np.unique(np.concatenate(p)))
                                              for p in pending.values()))
        width = max(p.shape[1] for p in policies)
        layers[layer] = _Layer(codes, np.concatenate(
            [np.pad(p, ((0, 0), (0, width - p.shape[1]))) for p in policies]))
    return layers


def _file(game: Game[Any], codes: Ints, pending: dict[int, list[Ints]]) -> None:
    """Add pairs to the layers they belong to."""
    if not len(codes):
        return
    layer_of = game.layer_of(codes >> 1)
    for layer in np.unique(layer_of).tolist():
        pending.setdefault(int(layer), []).append(codes[layer_of == layer])


def _policies(game: Game[Any], agent: Agent, exp: Expansion, codes: Ints) -> Floats:
    """The agent's policy at each pair over its own labels (rows or columns)."""
    players = (codes & 1) + 1
    width = max(exp.row_actions.shape[1], exp.col_actions.shape[1])
    out = np.zeros((len(codes), width))
    states = [game.decode(int(k)) for k in (codes >> 1).tolist()]
    for player, labels in ((1, exp.row_actions), (2, exp.col_actions)):
        mine = np.flatnonzero(players == player)
        asked = ask(agent, game, [states[i] for i in mine], player)
        for i, policy in zip(mine.tolist(), asked):
            row = labels[i].tolist()
            for action, p in policy.items():
                out[i, row.index(action)] = p
    return out


def _children(exp: Expansion, codes: Ints, played: np.ndarray) -> Ints:
    """The pairs below: successors of the agent's played moves against any move."""
    players = (codes & 1) + 1
    rows = np.arange(exp.succ.shape[1])[None, :] < exp.n_rows[:, None]
    cols = np.arange(exp.succ.shape[2])[None, :] < exp.n_cols[:, None]
    first = (players == 1)[:, None, None]
    mine_rows = played[:, :exp.succ.shape[1]]
    mine_cols = played[:, :exp.succ.shape[2]]
    moves = np.where(first, mine_rows[:, :, None] & cols[:, None, :],
                     rows[:, :, None] & mine_cols[:, None, :])
    take = moves[..., None] & (exp.succ != TERMINAL)
    child_players = np.where(exp.weight > 0, players[:, None, None, None],
                             3 - players[:, None, None, None])
    return np.unique(_codes(exp.succ[take], child_players[take]))


@dataclass(slots=True)
class _Table:
    """Pass 2's results for every pair, in code order (layers increasing)."""

    codes: Ints
    value: Floats  # stored value of the pair's position, player 1's side
    vs_eq: Floats  # player 1's side, the agent in the pair's seat vs the equilibrium
    vs_br: Floats  # ... vs the best response
    loss: Floats  # the agent's loss at the pair (module docstring), its side
    reply: Ints  # the best response's move (index into its labels)
    label: Ints  # ... its label

    def find(self, codes: Ints) -> tuple[Ints, np.ndarray]:
        """Indices of ``codes`` and whether each is present."""
        at = np.minimum(np.searchsorted(self.codes, codes), max(len(self.codes) - 1, 0))
        return at, (self.codes[at] == codes) if len(self.codes) else np.zeros(codes.shape, bool)

    def at_roots(self, codes: Ints, weight: Floats) -> tuple[float, float]:
        at, _ = self.find(codes)
        return (float(np.sum(weight * self.vs_eq[at])), float(np.sum(weight * self.vs_br[at])))



def _up(game: Game[Any], db: GameDB, layers: dict[int, _Layer],
        on_progress: OpenProgress | None) -> _Table:
    """Pass 2: payoffs against the equilibrium and the best response, lowest layer first."""
    table = _Table(*(np.zeros(0, t) for t in (np.int64, float, float, float, float, np.int64,
                                              np.int64)))
    total, done = sum(len(lay.codes) for lay in layers.values()), 0
    for layer in sorted(layers):
        codes, policy = layers[layer].codes, layers[layer].policy
        parts = [_up_chunk(game, db, table, codes[at:at + CHUNK], policy[at:at + CHUNK])
                 for at in range(0, len(codes), CHUNK)]
        table = _Table(np.concatenate([table.codes, codes]), *(
            np.concatenate([getattr(table, f), *(p[i] for p in parts)])
            for i, f in enumerate(("value", "vs_eq", "vs_br", "loss", "reply", "label"))))
        done += len(codes)
        if on_progress is not None:
            on_progress(done, total)
    return table


def _up_chunk(game: Game[Any], db: GameDB, below: _Table, codes: Ints,
              policy: Floats) -> tuple[Floats, Floats, Floats, Floats, Ints, Ints]:
    keys, back = np.unique(codes >> 1, return_inverse=True)
    exp = game.expand(keys)
    stored = equilibrium_arrays(db, keys, exp)
    players = (codes & 1) + 1
    succ, weight = exp.succ[back], exp.weight[back]
    child = _codes(np.maximum(succ, 0), np.where(weight > 0, players[:, None, None, None],
                                                  3 - players[:, None, None, None]))
    at, found = below.find(child.reshape(-1))
    at, found = at.reshape(child.shape), found.reshape(child.shape) & (succ != TERMINAL)

    def stage(values: Floats) -> Floats:
        ahead = values[at] if len(values) else np.zeros(at.shape)
        summed: Floats = np.sum(np.where(succ == TERMINAL, weight,
                                         np.where(found, weight * ahead, 0.0)), axis=3)
        return summed

    m_eq, m_br, m_v = stage(below.vs_eq), stage(below.vs_br), stage(below.value)
    rows, cols = m_v.shape[1:]
    first = players == 1
    policy = np.pad(policy, ((0, 0), (0, max(0, rows - policy.shape[1], cols - policy.shape[1]))))
    mine_r, mine_c = policy[:, :rows], policy[:, :cols]
    eq_row, eq_col = stored.row[back], stored.col[back]
    vs_eq = np.where(first, np.einsum("ia,iab,ib->i", mine_r, m_eq, eq_col),
                     np.einsum("ia,iab,ib->i", eq_row, m_eq, mine_c))
    by_col = np.einsum("ia,iab->ib", mine_r, m_br)  # the agent plays rows
    by_row = np.einsum("iab,ib->ia", m_br, mine_c)  # the agent plays columns
    col_ok = np.arange(cols)[None, :] < exp.n_cols[back][:, None]
    row_ok = np.arange(rows)[None, :] < exp.n_rows[back][:, None]
    best_col = np.argmin(np.where(col_ok, by_col, np.inf), axis=1)
    best_row = np.argmax(np.where(row_ok, by_row, -np.inf), axis=1)
    reply = np.where(first, best_col, best_row)
    n = np.arange(len(codes))
    vs_br = np.where(first, by_col[n, best_col], by_row[n, best_row])
    value = stored.values[back]
    v_col = np.einsum("ia,iab->ib", mine_r, m_v)[n, best_col]
    v_row = np.einsum("iab,ib->ia", m_v, mine_c)[n, best_row]
    loss = np.where(first, value - v_col, v_row - value)
    label = np.where(first, exp.col_actions[back, best_col], exp.row_actions[back, best_row])
    return value, vs_eq, vs_br, loss, reply, label


def _reach(game: Game[Any], layers: dict[int, _Layer], table: _Table, start: Ints,
           weight: Floats) -> Floats:
    """Pass 3: the probability of each pair when the best response plays the agent."""
    reach = np.zeros(len(table.codes))
    at, _ = table.find(start)
    np.add.at(reach, at, weight)
    for layer in sorted(layers, reverse=True):
        codes, policy = layers[layer].codes, layers[layer].policy
        first_at, _ = table.find(codes[:1])
        base = int(first_at[0])
        for lo in range(0, len(codes), CHUNK):
            part, mine = codes[lo:lo + CHUNK], policy[lo:lo + CHUNK]
            here = reach[base + lo: base + lo + len(part)]
            if not here.any():
                continue
            exp = game.expand(part >> 1)
            rows, cols = exp.succ.shape[1:3]
            mine = np.pad(mine, ((0, 0), (0, max(0, rows - mine.shape[1], cols - mine.shape[1]))))
            reply = table.reply[base + lo: base + lo + len(part)]
            _spread_reach(exp, part, mine, reply, here, table, reach)
    return reach


def _spread_reach(exp: Expansion, codes: Ints, mine: Floats, reply: Ints, here: Floats,
                  table: _Table, reach: Floats) -> None:
    rows, cols = exp.succ.shape[1:3]
    players = (codes & 1) + 1
    first = (players == 1)[:, None, None]
    n = np.arange(len(codes))
    reply_cols, reply_rows = np.zeros((len(codes), cols)), np.zeros((len(codes), rows))
    reply_cols[n, np.minimum(reply, cols - 1)] = 1.0
    reply_rows[n, np.minimum(reply, rows - 1)] = 1.0
    joint = np.where(first, mine[:, :rows, None] * reply_cols[:, None, :],
                     reply_rows[:, :, None] * mine[:, None, :cols])
    flow = (here[:, None, None, None] * joint[..., None] * np.abs(exp.weight))
    take = (flow > 0) & (exp.succ != TERMINAL)
    child = _codes(exp.succ[take], np.where(exp.weight > 0, players[:, None, None, None],
                                             3 - players[:, None, None, None])[take])
    at, found = table.find(child)
    np.add.at(reach, at[found], flow[take][found])


def _worst(game: Game[Any], table: _Table, reach: dict[int, Floats],
           count: int) -> tuple[PositionLoss, ...]:
    share = np.concatenate([reach[1] * table.loss, reach[2] * table.loss])
    out = []
    for i in np.argsort(-share, kind="stable")[:count].tolist():
        seat, at = divmod(i, len(table.codes))
        if share[i] <= 1e-12:
            break
        code = int(table.codes[at])
        out.append(PositionLoss(seat + 1, (code & 1) + 1,
                                game.format_position(game.decode(code >> 1)),
                                float(reach[seat + 1][at]), float(table.loss[at])))
    return tuple(out)


__all__ = ["CHUNK", "LayerLoss", "PositionLoss", "SweepResult", "SweptBestResponse",
           "is_symmetric", "ask", "sweep"]
