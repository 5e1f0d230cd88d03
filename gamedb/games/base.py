"""The game protocol, spec strings and the layer-face data the builder consumes.

A game has two faces of the same rules (DESIGN.md section 2):

* the **reference face**, per state and readable: ``initial``, ``actions``, ``next``,
  ``value``, ``layer``, ``decode``, ``canonical``;
* the **layer face**, vectorized: ``root`` and ``expand`` over arrays of canonical keys.

``reference_expand`` derives a layer face from the reference face, so tests can demand
that both faces agree and tiny games need not write a vectorized face at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeAlias, TypeVar

import numpy as np
import numpy.typing as npt

S = TypeVar("S")
StateKey: TypeAlias = int
Distribution: TypeAlias = Sequence[tuple[float, S]]
Keys: TypeAlias = npt.NDArray[np.int64]
Floats: TypeAlias = npt.NDArray[np.float64]

#: Key of a successor that is terminal (its payoff is in ``Expansion.weight``).
TERMINAL = -1

#: Every key holds its layer in bits 48 and up, so keys sort by layer: the builder then
#: only ever appends to the SQLite B-trees (layers are solved in increasing order) and a
#: layer is a key range (resume needs no index). Games keep their fields below bit 48.
LAYER_SHIFT = 48


def layer_bounds(layer: int) -> tuple[int, int]:
    """Return the smallest and largest key a layer can hold.

    >>> layer_bounds(1)
    (281474976710656, 562949953421311)
    """
    return layer << LAYER_SHIFT, ((layer + 1) << LAYER_SHIFT) - 1


def layers_of(keys: Keys) -> Keys:
    """Return the layer of every key (its bits from ``LAYER_SHIFT`` up).

    >>> layers_of(np.array([3 << LAYER_SHIFT | 12345])).tolist()
    [3]
    """
    return np.asarray(keys, dtype=np.int64) >> LAYER_SHIFT


class GameError(ValueError):
    """A spec, parameter or position that does not describe a valid game or state."""


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of a game family."""

    name: str
    kind: type
    default: Any
    doc: str
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None

    def coerce(self, raw: str) -> Any:
        """Parse ``raw`` into this parameter's type, checking range and choices."""
        if self.kind is int:
            try:
                value: Any = int(raw)
            except ValueError:
                raise GameError(f"parameter {self.name} must be an integer, got {raw!r}") from None
            if (self.low is not None and value < self.low) or (
                self.high is not None and value > self.high
            ):
                raise GameError(
                    f"parameter {self.name}={value} is out of range {self.low}..{self.high}"
                )
            return value
        if self.choices and raw not in self.choices:
            raise GameError(
                f"parameter {self.name} must be one of {', '.join(self.choices)}, got {raw!r}"
            )
        return raw


@dataclass(frozen=True, slots=True)
class Canonical:
    """Where a real position is stored: its canonical key and how to read it back."""

    key: StateKey
    """Canonical key of the equivalence class."""
    swapped: bool
    """True when the stored position has the players swapped (value negated)."""
    actions: tuple[Mapping[int, int], Mapping[int, int]]
    """For real player 1 and 2: real action -> stored action label."""
    offset: float = 0.0
    """Payoff already banked that the key leaves out (e.g. the score in a
    point-difference game): real value = sign * stored value + offset."""

    def stored_player(self, player: int) -> int:
        """Return the stored player (1 or 2) that plays for real ``player``."""
        return 3 - player if self.swapped else player

    @property
    def sign(self) -> float:
        """Factor turning the stored value into real player 1's value."""
        return -1.0 if self.swapped else 1.0


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


class Game(Protocol[S]):
    """What the builder, the store and the players need of a game family."""

    name: str
    spec: str
    canonical_keys: bool
    key_layout: str
    """Names the key encoding; stored in every file and checked on open."""
    layer_span: int | None
    """How many layers below its own a successor can lie (None: any)."""
    action_noun: str
    """What an action is called in tables: "card", "bid", "move"."""
    rules: str
    """The rules in words, every position field and example commands (``gamedb rules``)."""

    def initial(self) -> Distribution[S]: ...
    def chance(self, s: S) -> Distribution[S] | None: ...
    def actions(self, s: S) -> tuple[tuple[int, ...], tuple[int, ...]]: ...
    def action_name(self, s: S, player: int, action: int) -> str: ...
    def next(self, s: S, a: int, b: int) -> Distribution[S]: ...
    def value(self, s: S) -> float | None: ...
    def layer(self, s: S) -> int: ...
    def key(self, s: S) -> StateKey: ...
    def decode(self, key: StateKey) -> S: ...
    def canonical(self, s: S) -> Canonical: ...
    def parse_position(self, text: str) -> S: ...
    def format_position(self, s: S) -> str: ...
    def layer_of(self, keys: Keys) -> Keys: ...
    def expand(self, keys: Keys) -> Expansion: ...


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


def named_actions(game: Game[S], s: S) -> dict[int, dict[int, str]]:
    """Return each player's legal actions at ``s`` with their names for people.

    A finished game and a position before a chance draw have none (nobody moves there).

    >>> from gamedb.games import load_game
    >>> game = load_game("tictoe")
    >>> named_actions(game, game.parse_position("board=X... mover=2"))
    {1: {0: 'pass'}, 2: {1: '1', 2: '2', 3: '3'}}
    """
    if game.value(s) is not None or game.chance(s) is not None:
        return {1: {}, 2: {}}
    return {p: {a: game.action_name(s, p, a) for a in acts}
            for p, acts in zip((1, 2), game.actions(s))}


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


def parse_fields(text: str) -> dict[str, str]:
    """Split a position written as space-separated ``name=value`` fields.

    >>> parse_fields("hand1=1,3 hand2=2,4 pot=0")
    {'hand1': '1,3', 'hand2': '2,4', 'pot': '0'}
    """
    fields: dict[str, str] = {}
    for token in text.split():
        name, eq, value = token.partition("=")
        if not eq or not name or not value:
            raise GameError(f"malformed field {token!r}: expected name=value")
        if name in fields:
            raise GameError(f"field {name!r} given twice")
        fields[name] = value
    return fields


def parse_cards(text: str, *, field_name: str, n: int) -> tuple[int, ...]:
    """Parse a comma-separated card list (``-`` is empty) of cards in 1..n.

    >>> parse_cards("5,1,3", field_name="hand1", n=6)
    (1, 3, 5)
    """
    if text == "-":
        return ()
    try:
        values = sorted(int(part) for part in text.split(","))
    except ValueError:
        raise GameError(f"{field_name} must be comma-separated integers or '-', got {text!r}") from None
    if len(set(values)) != len(values):
        raise GameError(f"{field_name} repeats a card: {text!r}")
    if any(not 1 <= v <= n for v in values):
        raise GameError(f"{field_name} holds a card outside 1..{n}: {text!r}")
    return tuple(values)


def format_cards(cards: Sequence[int]) -> str:
    """Write cards the way ``parse_cards`` reads them.

    >>> format_cards([1, 3]), format_cards([])
    ('1,3', '-')
    """
    return ",".join(map(str, cards)) if cards else "-"


def require_fields(fields: Mapping[str, str], required: Sequence[str], optional: Sequence[str] = ()) -> None:
    """Raise ``GameError`` for missing or unknown fields."""
    missing = [f for f in required if f not in fields]
    unknown = [f for f in fields if f not in required and f not in optional]
    if unknown:  # named first: a misspelt field is also a missing one
        also = f" (and position is missing {', '.join(missing)})" if missing else ""
        raise GameError(f"unknown field(s) {', '.join(unknown)}{also}; "
                        f"expected {', '.join([*required, *optional])}")
    if missing:
        raise GameError(f"position is missing {', '.join(missing)}")


def parse_int(fields: Mapping[str, str], name: str) -> int:
    """Read an integer field."""
    try:
        return int(fields[name])
    except ValueError:
        raise GameError(f"{name} must be an integer, got {fields[name]!r}") from None


__all__ = [
    "LAYER_SHIFT", "TERMINAL", "Canonical", "Distribution", "Expansion", "Game", "GameError",
    "Keys", "Param", "Root", "StateKey", "format_cards", "layer_bounds", "layers_of",
    "named_actions", "parse_cards", "parse_fields", "reference_expand", "root_of", "successor_table",
]
