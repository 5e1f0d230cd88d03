"""The game base class (contracts and defaults), capability records and spec strings.

A game has two faces of the same rules (DESIGN.md section 2):

* the **reference face**, per state and readable: ``initial``, ``actions``, ``next``,
  ``value``, ``layer``, ``decode``, ``canonical``;
* the **layer face**, vectorized: ``root`` and ``expand`` over arrays of canonical keys
  (its data lives in ``gamedb.games.expansion`` and is re-exported here).

Its key is declared once as a ``KeyLayout`` (``gamedb.games.layout``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeAlias, TypeVar

import numpy as np

from gamedb.games.expansion import (
    TERMINAL, Expansion, Root, reference_expand, root_of, successor_table, top_layer,
)
from gamedb.games.source import LayerSource
from gamedb.games.layout import LAYER_SHIFT, KeyLayout
from gamedb.types import Floats, Keys

S = TypeVar("S")
StateKey: TypeAlias = int
Distribution: TypeAlias = Sequence[tuple[float, S]]


# Every key holds its layer in bits LAYER_SHIFT (48) and up, so keys sort by layer: the
# builder then only ever appends to the SQLite B-trees (layers are solved in increasing
# order) and a layer is a key range (resume needs no index). Games keep their fields
# below bit 48 (``gamedb.games.layout``).

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
    commas: bool = False
    """The value is a comma-separated list: in a spec, the parts after it that hold no
    '=' continue it (``hackenbush(edges=0-1,1-2)``)."""

    def coerce(self, raw: str) -> Any:
        """Parse ``raw`` into this parameter's type, checking range and choices."""
        if self.kind is int:
            value: Any = parse_integer(raw, f"parameter {self.name} must be an integer")
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
class BuildCosts:
    """Per-position costs of today's builder for a family, measured on the 2-core
    reference machine at the largest size built (``docs/estimate.md``); read by
    ``gamedb.builder.estimate``."""

    memory: float
    """Peak bytes of memory per position with one worker."""
    parallel_memory: float
    """Peak bytes per position of the whole process tree with two workers (summed RSS)."""
    disk: float
    """Bytes of the finished file per position (with strategies)."""
    rate: float
    """Positions per second and worker, enumeration and writing included."""


@dataclass(frozen=True)
class Capabilities:
    """What generic code may ask of a family instead of testing its name.

    Like OpenSpiel's ``_GAME_TYPE``/``_GAME_INFO``: declared beside the rules, read by
    ``play/``, ``store/`` and ``cli/``.
    """

    action_noun: str
    """What an action is called in tables and prompts: "card", "bid", "move", "cell"."""
    round_points: Callable[[Any], int] | None = None
    """Points at stake in a round at a state (the higher action takes them, equal
    actions nobody): tricks, prize points. None for games without points."""
    prize_field: str | None = None
    """The state attribute holding a revealed prize (agents that bid by the prize)."""
    independent_prizes: bool = False
    """Prizes 1..``cards`` are drawn uniformly at random and tied prizes are discarded,
    so rounds are independent and per-prize closed forms apply (``play.level_k``)."""
    cards: int = 0
    """The prizes and each full hand are the cards 1..cards (agents that bid by the
    prize, ``play.agents.LevelK``); 0 for games without prize cards."""
    win_loss: bool = False
    """The payoff is the sign of the final point difference (win 1, draw 0, loss -1),
    not the difference itself (``play.level_k``)."""
    axes: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    """Range (low, high) of each position field, for plot axes."""
    score_in_key: bool = True
    """False where the score is not part of the key but banked in ``Canonical.offset``
    (Goofspiel's point difference): a position whose score no play gives is then stored
    under the key of its cards (``gamedb key`` gives it, with why no play reaches it)."""
    impartial: bool = False
    """Both players have the same moves in every position (Nim, Hackenbush): the build
    stores every position's Sprague-Grundy value (``gamedb.solver.grundy``)."""
    build_costs: BuildCosts | None = None
    """Measured build costs per position (None: ``gamedb.builder.estimate``'s generic guess)."""
    positions_below: Callable[[Any], int] | None = None
    """The exact number of canonical positions below a state, itself included and the
    ends not, by a formula (Nim's); ``gamedb solve`` refuses a subgame past its cap
    with it before enumerating anything. None: counted by enumeration."""


def format_spec(name: str, params: Mapping[str, Any]) -> str:
    """Write the canonical spec string (parameters sorted by name).

    >>> format_spec("jujitsu", {"ties": "carry", "num_cards": 3})
    'jujitsu(num_cards=3,ties=carry)'
    """
    body = ",".join(f"{k}={v}" for k, v in sorted(params.items()))
    return f"{name}({body})"


class Game(Generic[S]):
    """Base class of every game family: the contracts in one place, the dull defaults.

    A family subclasses it, sets ``name``, ``params``, ``layer_span``, ``state_type``
    and ``rules`` (checked by ``tests/games/test_rules.py``), calls ``super().__init__(**params)`` and sets ``layout`` (a
    ``KeyLayout``) and ``capabilities``; it writes ``initial``, ``actions``, ``next``,
    ``value``, ``layer``, ``canonical``, ``parse_position`` and ``format_position``, and
    may override the defaults below. Its keys are canonical: ``games.raw.RawKeys``
    keys every real position separately for any family (tests).

    Contracts (``tests/games/test_conformance.py`` checks them for every family):

    * **Keys** are non-negative ints with the layer in bits ``LAYER_SHIFT`` (48) and up
      and the fields of ``layout`` below, so keys sort by layer and a layer is a key
      range. ``decode(key)`` reads a key through ``layout``; ``key(s)`` encodes ``s``
      without reduction and ``canonical(s).key`` is the stored key of its class;
      ``raw_layout`` holds every real position apart (``RawKeys``).
    * **Layers** strictly decrease along every transition, by at most ``layer_span``
      (None: any), and ``layer_of(keys)`` is the layer of every key.
    * **Values** are player 1's payoffs: ``value(s)`` is None exactly for states that
      are not over. A stored (canonical) state is never terminal.
    * **Chance** nodes (``chance(s)`` is not None) are folded into ``initial`` and
      ``next`` and never stored.
    * **Expansion** (``expand``): keys share one layer; ``succ`` is ``TERMINAL`` where
      ``weight`` is a payoff (see ``Expansion``), and the expansion of ``keys[:1]``
      bounds the shape of every batch of the same layer
      (``solver.backward.batches`` sizes batches from it).
    """

    name: ClassVar[str]
    """The family's name in specs: ``"jujitsu"``."""
    params: ClassVar[tuple[Param, ...]] = ()
    layer_span: ClassVar[int | None] = None
    """How many layers below its own a successor can lie (None: any)."""
    state_type: ClassVar[type]
    """The frozen dataclass of a position; ``decode`` builds it from the key's fields."""
    layout: KeyLayout
    """The key encoding, declared once (fields by name, see ``gamedb.games.layout``)."""
    capabilities: Capabilities
    rules: ClassVar[str] = ""
    """The rules in words, every position field and example commands (``gamedb rules``)."""
    canonical_keys: bool = True
    """Each equivalence class is stored once (False only for ``games.raw.RawKeys``)."""

    def __init__(self, **params: Any):
        self.spec = format_spec(self.name, params)
        """The canonical spec, the game's identity in a file."""

    @classmethod
    def create(cls, **params: Any) -> Game[Any]:
        """Return the game of ``params`` (``load_game`` calls it; default ``cls(**params)``,
        a family may hand options to a variant class, as Goofspiel's ``dummy=`` does)."""
        return cls(**params)

    @property
    def raw_layout(self) -> KeyLayout:
        """The layout of unreduced keys (default ``layout``; see ``games.raw``)."""
        return self.layout

    @property
    def key_layout(self) -> str:
        """Names the key encoding; stored in every file and checked on open."""
        return self.layout.name

    @property
    def action_noun(self) -> str:
        """What an action is called in tables: "card", "bid", "move", "cell"."""
        return self.capabilities.action_noun

    def initial(self) -> Distribution[S]:
        """Return the start as [(probability, state)], chance folded in."""
        raise NotImplementedError

    def chance(self, s: S) -> Distribution[S] | None:
        """Return the draws of a chance node, None for any other state (default)."""
        return None

    def actions(self, s: S) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Return (player 1's, player 2's) actions; the player not on move passes (0)."""
        raise NotImplementedError

    def action_name(self, s: S, player: int, action: int) -> str:
        """Name an action for people (default: its label, e.g. the card itself)."""
        return str(action)

    def next(self, s: S, a: int, b: int) -> Distribution[S]:
        """Return the successors of the joint action (a, b), chance folded in."""
        raise NotImplementedError

    def value(self, s: S) -> float | None:
        """Return player 1's payoff if the game is over, else None."""
        raise NotImplementedError

    def layer(self, s: S) -> int:
        """Return the layer of ``s`` (strictly decreasing along every transition)."""
        raise NotImplementedError

    def key(self, s: S) -> StateKey:
        """Encode ``s`` in ``layout`` without any reduction (default: field by field)."""
        return self.layout.encode(_fields_of(s), self.layer(s))

    def decode(self, key: StateKey) -> S:
        """Decode a key through ``layout`` (a canonical key gives its representative)."""
        state: S = self.layout.decoder(self.state_type)(key)
        return state

    def canonical(self, s: S) -> Canonical:
        """Return where ``s`` is stored and how its real actions map to stored labels."""
        raise NotImplementedError

    def parse_position(self, text: str) -> S:
        """Read a position written as ``name=value`` fields (or ``start``)."""
        raise NotImplementedError

    def format_position(self, s: S) -> str:
        """Write a position the way ``parse_position`` reads it."""
        raise NotImplementedError

    def layer_of(self, keys: Keys) -> Keys:
        """Return the layer of every key (its bits from ``LAYER_SHIFT`` up)."""
        return layers_of(keys)

    def expand(self, keys: Keys) -> Expansion:
        """Return the successors of keys sharing one layer (default: the reference face)."""
        return reference_expand(self, keys)

    def unreachable(self, s: S) -> str | None:
        """Return why no play from the start reaches ``s`` (a position ``parse_position``
        accepts), or None: reachable, or not decided cheaply (default)."""
        return None

    def indexed_face(self) -> LayerSource | None:
        """Return the game's own layer source: a perfect index per layer, stage games
        from flat arrays (``games.source``), or None (default: the builder enumerates
        the keys and solves through ``expand``)."""
        return None

    def subgame(self, s: S) -> Game[S]:
        """Return this game played from ``s`` instead of the start (``gamedb solve``).

        The same rules, keys and spec: only ``initial`` differs (``s``, or its draws at
        a chance node; nothing when ``s`` is over), so the builder enumerates and
        solves exactly the positions below ``s``, and a file it writes reads like a
        file of the whole game. Default: the wrapper ``games.rooted.Rooted``.
        """
        from gamedb.games.rooted import Rooted  # imports this module

        return Rooted(self, s)


def _fields_of(s: Any) -> dict[str, int]:
    return {name: getattr(s, name) for name in s.__dataclass_fields__}


def param_values(game: Game[Any]) -> dict[str, Any]:
    """Return the value of each of ``game``'s parameters by name (as its spec gives it;
    a family keeps each parameter as an attribute of the same name).

    >>> from gamedb.games import load_game
    >>> param_values(load_game("oshi_zumo(coins=5)"))
    {'coins': 5, 'size': 3, 'min_bid': 1, 'alesia': False}
    """
    return {p.name: getattr(game, p.name) for p in game.params}


def named_actions(game: Game[S], s: S) -> dict[int, dict[int, str]]:
    """Return each player's legal actions at ``s`` with their names for people.

    A finished game and a position before a chance draw have none (nobody moves there).

    >>> from gamedb.games import load_game
    >>> game = load_game("tictoe")
    >>> named_actions(game, game.parse_position("board=X... mover=2"))
    {1: {0: 'pass'}, 2: {1: 'top right', 2: 'bottom left', 3: 'bottom right'}}
    """
    if game.value(s) is not None or game.chance(s) is not None:
        return {1: {}, 2: {}}
    return {p: {a: game.action_name(s, p, a) for a in acts}
            for p, acts in zip((1, 2), game.actions(s))}


#: Longest integer text read from a user: more digits than any game's number needs, and far
#: below the 4300 digits past which ``int`` itself refuses (with a traceback-worthy error).
MAX_DIGITS = 30


def parse_integer(text: str, rule: str, whole: str | None = None) -> int:
    """Read ``text`` as an integer, or raise ``GameError`` stating ``rule``.

    Args:
        text: the user's text (a number of up to ``MAX_DIGITS`` characters).
        rule: what the text must be, for the message ("pot must be an integer").
        whole: the text to quote in the message if ``text`` is one part of it.

    >>> parse_integer(" 12", "pot must be an integer")
    12
    >>> parse_integer("9" * 5000, "pot must be an integer")
    Traceback (most recent call last):
    ...
    gamedb.games.base.GameError: pot must be an integer, got '99999999999999999999...' (5,000 characters)

    Only ASCII digits, with a sign at most: Python's ``int`` also reads ``0_0`` and
    full-width or other scripts' digits, which a position never holds.

    >>> parse_integer("0_0", "diff must be an integer")
    Traceback (most recent call last):
    ...
    gamedb.games.base.GameError: diff must be an integer, got '0_0'
    """
    if len(text) <= MAX_DIGITS and INTEGER.fullmatch(text):
        return int(text)
    raise GameError(f"{rule}, got {shown(text if whole is None else whole)}")


#: What ``parse_integer`` reads: ASCII digits, a sign, spaces around.
INTEGER = re.compile(r"\s*[+-]?[0-9]+\s*", re.ASCII)


def shown(text: str, limit: int = 20) -> str:
    """Quote user text for a message, cut short when long.

    >>> shown("abc"), shown("x" * 50, limit=5)
    ("'abc'", "'xxxxx...' (50 characters)")
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}"[:-1] + f"...' ({len(text):,} characters)"


__all__ = [
    "INTEGER", "LAYER_SHIFT", "MAX_DIGITS", "TERMINAL", "BuildCosts", "Canonical", "Capabilities", "Distribution",
    "Expansion", "Floats", "Game", "GameError", "Keys", "Param", "Root", "StateKey",
    "format_spec", "layer_bounds", "layers_of", "named_actions", "param_values", "parse_integer",
    "reference_expand", "root_of", "shown", "successor_table", "top_layer",
]
