"""A position for people and programs: the JSON of ``gamedb show --json`` and ``gamedb serve``.

The JSON of a position is built here once, for the command line and the web API alike
(``docs/api.md`` documents every field). Beside the value and both equilibrium
strategies it tells, as a tablebase explorer does, each action's value against the
opponent's equilibrium strategy and its loss against the player's best action
(``move_values``), and where a pair of actions leads by the game's own rules
(``successors``).

>>> import tempfile, pathlib
>>> from gamedb.builder import build
>>> from gamedb.store import open_db
>>> path = pathlib.Path(tempfile.mkdtemp()) / "j3.sqlite"
>>> _ = build("jujitsu(num_cards=3)", path)
>>> with open_db(path) as db:
...     shown = show_json(db, "start")
>>> [(m["name"], round(m["loss"], 6)) for m in shown["moves"]["1"]]
[('1', 0.0), ('2', 0.0), ('3', 0.0)]
>>> [(o.prob, o.position) for o in successors(db.game, "start", 3, 1)]
[(1.0, 'hand1=1,2 hand2=2,3 pot=0 diff=1')]
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from gamedb.games.base import Distribution, Game, GameError, named_actions, parse_integer
from gamedb.store import DamagedFile, DBInfo, Entry, GameDB, NotSolved


@dataclass(frozen=True, slots=True)
class MoveValue:
    """One action of one player, judged against the opponent's equilibrium strategy."""

    action: int
    """The action (a real card, bid or move code, as in ``actions``)."""
    name: str
    """The action's name for people (``pass`` for the player not on move)."""
    value: float
    """Player 1's expected payoff when the player plays this action and the opponent
    its equilibrium strategy."""
    loss: float
    """What the player gives up against its best action (>= 0; 0 for a best action)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """One position a move (or a chance draw) leads to."""

    prob: float
    """Its probability (1.0 without chance)."""
    position: str
    """The position, written the way ``gamedb show`` reads it."""
    label: str
    """The fields that tell it apart from the other outcomes ('' when it is alone),
    e.g. ``prize=3`` for a Goofspiel draw."""


def show_json(db: GameDB, position: Any, *, matrix: bool = False) -> dict[str, Any]:
    """Return what ``gamedb show --json`` prints for ``position`` (text or state).

    With ``matrix`` a decision position also carries ``matrix``: player 1's expected
    value of every pair of actions (rows: player 1's ``actions``, columns: player 2's),
    the stage game the build solved (left out where ``moves`` is).

    ``moves`` is left out where the file lacks a successor (the last layer of an opening
    book, an unfinished build). Before a chance draw each draw carries its ``value``.
    ``unreachable`` says why no play reaches the position (None: reachable, or the game
    cannot tell): its value is then that of the position as written, e.g. a Goofspiel
    score the cards played cannot give (the score is not part of the stored key).

    Raises:
        GameError: the text is not a valid position of the file's game.
        NotSolved: the position is not in the file.
    """
    game = db.game
    state = game.parse_position(position) if isinstance(position, str) else position
    entry = db.probe(state)
    try:
        moves: dict[int, list[MoveValue]] | None = move_values(db, state, entry)
    except NotSolved:  # a successor is not in the file: an opening book's last layer
        moves = None
    shown = position_json(game, state, entry, moves)
    shown["unreachable"] = game.unreachable(state)  # a position as typed, which is stored
    if matrix and moves is not None and any(moves.values()):
        shown["matrix"] = _stage_matrix(db, state).tolist()
    if (draws := game.chance(state)) is not None:
        try:
            values = successor_values(db, [s for _, s in draws])
        except NotSolved:  # below an opening book: the draws' values are not stored
            return shown
        for outcome, (_, s) in zip(shown["chance"], draws):
            outcome["value"] = values[s]
    return shown


def position_json(game: Game[Any], state: Any, entry: Entry,
                  moves: dict[int, list[MoveValue]] | None = None) -> dict[str, Any]:
    """Return the JSON of a solved position (``moves`` left out when None).

    ``spec``, ``position``, ``value``, ``strategy`` and ``actions`` are the contract
    of DESIGN.md section 5; ``names``, ``noun``, ``payoff``, ``chance`` and ``moves``
    were added for the explorer (``docs/api.md``).
    """
    actions = named_actions(game, state)
    strategy = {str(p): {str(a): prob for a, prob in sorted(s.items())}
                for p, s in entry.strategies.items()}
    shown: dict[str, Any] = {
        "spec": game.spec, "position": entry.position, "value": entry.value,
        **({} if entry.grundy is None else {"grundy": entry.grundy}),
        "strategy": strategy, "actions": {str(p): sorted(actions[p]) for p in (1, 2)},
        "names": {str(p): {str(a): name for a, name in sorted(actions[p].items())}
                  for p in (1, 2)},
        "noun": game.action_noun, "payoff": game.value(state),
        "chance": [_outcome_json(o) for o in chance_outcomes(game, state)]}
    if moves is not None:
        shown["moves"] = {str(p): [_move_json(m) for m in moves[p]] for p in (1, 2)}
    return shown


def info_json(info: DBInfo, running: bool | None = False) -> dict[str, Any]:
    """Return what ``gamedb info --json`` prints for a file's summary; ``running``: whether
    a build is running on it (``gamedb.store.lock.build_running``; None: unknown, a build
    on another host holds its lock)."""
    return {"spec": info.spec, "status": info.status, "running": running,
            "states": info.states, "done": info.done, "root_value": info.root_value,
            "path": info.path,
            "layers": [{**{name: getattr(layer, name) for name in layer.__slots__},
                        "stored_as": "pages" if layer.layer in info.page_layers else "rows"}
                       for layer in info.layers],
            "meta": info.meta}


def move_values(db: GameDB, state: Any, entry: Entry) -> dict[int, list[MoveValue]]:
    """Judge every action of both players against the opponent's equilibrium strategy.

    The expected value of each action pair is read from the stored values of its
    successors (chance draws weighted), the matrix game the build solved; an action's
    value is that row (column) against the opponent's equilibrium strategy. Positions
    where nobody moves (over, or before a chance draw) have no moves.

    Raises:
        NotSolved: a successor is not in the file (an unfinished build).
    """
    game = db.game
    if game.value(state) is not None or game.chance(state) is not None:
        return {1: [], 2: []}
    acts1, acts2 = game.actions(state)
    payoffs = _stage_matrix(db, state)
    x = np.array([entry.strategies.get(1, {}).get(a, 0.0) for a in acts1])
    y = np.array([entry.strategies.get(2, {}).get(b, 0.0) for b in acts2])
    rows, cols = payoffs @ y, x @ payoffs  # player 1's payoff either way
    names = named_actions(game, state)
    return {1: [MoveValue(a, names[1][a], _clean(v), _clean(rows.max() - v))
                for a, v in zip(acts1, rows)],
            2: [MoveValue(b, names[2][b], _clean(v), _clean(v - cols.min()))
                for b, v in zip(acts2, cols)]}


def _clean(number: float) -> float:
    """Round away float noise far below the stored solutions' gaps (<= 1e-9).

    >>> _clean(3.8e-17), _clean(-1e-17), _clean(0.25)
    (0.0, 0.0, 0.25)
    """
    return round(float(number), 12) + 0.0


def _stage_matrix(db: GameDB, state: Any) -> npt.NDArray[np.float64]:
    """Return the expected value of every action pair at a decision state."""
    game = db.game
    acts1, acts2 = game.actions(state)
    cells = [[game.next(state, a, b) for b in acts2] for a in acts1]
    values = successor_values(db, {child for row in cells for draws in row for _, child in draws})
    return np.array([[sum(p * values[child] for p, child in draws) for draws in row]
                     for row in cells], dtype=np.float64).reshape(len(acts1), len(acts2))


def successor_values(db: GameDB, states: Iterable[Any]) -> dict[Any, float]:
    """Return player 1's value of each state: payoffs of finished games, and the stored
    values of the others read in one batch (``GameDB.values_of``; a position's stored
    value becomes its real one by ``Canonical``'s sign and offset).

    Raises:
        NotSolved: a state is not in the file.
        DamagedFile: a stored value is not a finite number.
    """
    game, values, stored = db.game, {}, {}
    for s in states:
        payoff = game.value(s)
        if payoff is not None:
            values[s] = payoff
        elif game.chance(s) is not None:
            values[s] = db.value(s)
        else:
            stored[s] = game.canonical(s)
    found, numbers = db.values_of(np.unique(np.array([c.key for c in stored.values()], np.int64)))
    by_key = dict(zip(found.tolist(), numbers.tolist()))
    for s, canon in stored.items():
        if canon.key not in by_key:
            raise NotSolved(f"position not in {db.path.name}: {game.format_position(s)}")
        if not math.isfinite(by_key[canon.key]):
            raise DamagedFile(db.path, f"key {canon.key}: its value is not a finite number")
        values[s] = canon.sign * by_key[canon.key] + canon.offset + 0.0
    return values


def successors(game: Game[Any], position: str, a1: int | str, a2: int | str) -> list[Outcome]:
    """Return the positions player 1's ``a1`` and player 2's ``a2`` lead to, by the
    game's rules, with their chance probabilities.

    Raises:
        GameError: an invalid position, one where nobody moves, or an illegal action.
    """
    state = game.parse_position(position)
    text = game.format_position(state)
    if game.value(state) is not None:
        raise GameError(f"the game is over at {text}: no more moves")
    if game.chance(state) is not None:
        raise GameError(f"a chance draw comes first at {text}: pick one of its outcomes")
    names = named_actions(game, state)
    chosen = [_legal(game, names[p], p, a) for p, a in ((1, a1), (2, a2))]
    return _labelled(game, game.next(state, chosen[0], chosen[1]))


def chance_outcomes(game: Game[Any], state: Any) -> list[Outcome]:
    """Return the draws of a chance node (none for any other position)."""
    draws = game.chance(state)
    return _labelled(game, draws) if draws is not None else []


def _legal(game: Game[Any], legal: dict[int, str], player: int, action: int | str) -> int:
    number = action if isinstance(action, int) else parse_integer(
        action, f"the action of player {player} must be an integer")
    if number not in legal:
        names = ", ".join(f"{a} ({n})" if str(a) != n else n for a, n in legal.items())
        raise GameError(f"{number} is not a legal {game.action_noun} of player {player} "
                        f"here; legal: {names}")
    return number


def _labelled(game: Game[Any], draws: Distribution[Any]) -> list[Outcome]:
    """Label each outcome by its fields that differ from the others': the revealed
    prize alone where the game declares one (``Capabilities.prize_field``)."""
    texts = [game.format_position(s) for _, s in draws]
    fields = [text.split() for text in texts]
    shared = set.intersection(*map(set, fields)) if len(texts) > 1 else set(fields[0])
    prize = f"{game.capabilities.prize_field}="
    labels = [[x for x in f if x not in shared] for f in fields]
    labels = [[x for x in f if x.startswith(prize)] or f for f in labels]
    return [Outcome(float(prob), text, " ".join(label))
            for (prob, _), text, label in zip(draws, texts, labels)]


def _move_json(move: MoveValue) -> dict[str, Any]:
    return {"action": move.action, "name": move.name, "value": move.value, "loss": move.loss}


def _outcome_json(outcome: Outcome) -> dict[str, Any]:
    return {"prob": outcome.prob, "position": outcome.position, "label": outcome.label}


__all__ = ["MoveValue", "Outcome", "chance_outcomes", "info_json", "move_values",
           "position_json", "show_json", "successors"]
