"""Game registry and spec strings: one line per family in ``GAMES``.

A spec names a game the way OpenSpiel does, parameters sorted:
``jujitsu(num_cards=8,ties=carry)``. The canonical spec is the game's identity in a
database file.

>>> game = load_game("jujitsu(num_cards=5)")
>>> game.spec
'jujitsu(num_cards=5,ties=carry)'
>>> load_game("chess")
Traceback (most recent call last):
...
gamedb.games.base.GameError: unknown game 'chess'; known games: goofspiel, hackenbush, jujitsu, nim, oshi_zumo, tictoe
"""

from __future__ import annotations

import re
from itertools import takewhile
from typing import Any

from gamedb.games.base import Game, GameError, Param, format_spec
from gamedb.games.goofspiel import Goofspiel
from gamedb.games.hackenbush import Hackenbush
from gamedb.games.jujitsu import Jujitsu
from gamedb.games.nim import Nim
from gamedb.games.oshi_zumo import OshiZumo
from gamedb.games.raw import RawKeys
from gamedb.games.tictoe import Tictoe

GAMES: dict[str, type[Game[Any]]] = {
    cls.name: cls for cls in (Jujitsu, Goofspiel, OshiZumo, Nim, Tictoe, Hackenbush)}

_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*(?:\((.*)\))?\s*$")


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split a spec string into the family name and validated, defaulted parameters.

    >>> parse_spec("jujitsu( ties=discard , num_cards=4 )")
    ('jujitsu', {'num_cards': 4, 'ties': 'discard'})
    """
    match = _SPEC.match(spec)
    if not match:
        raise GameError(f"malformed game spec {spec!r}: expected name(param=value,...)")
    name, body = match.group(1), match.group(2) or ""
    if name not in GAMES:
        raise GameError(_unknown_game(name))
    params: dict[str, Param] = {p.name: p for p in GAMES[name].params}
    values: dict[str, Any] = {}
    key = ""
    for part in _parameter_parts(body, params):
        previous, (key, eq, raw) = key, (s.strip() for s in part.partition("="))
        if not eq or not raw:
            raise GameError(f"malformed parameter {part!r} in {spec!r}: expected name=value"
                            + _list_hint(params.get(previous), previous, body))
        if key not in params:
            raise GameError(
                f"unknown parameter {key!r} for {name}; known: {', '.join(sorted(params))}"
            )
        if key in values:
            raise GameError(f"parameter {key!r} given twice in {spec!r}")
        values[key] = params[key].coerce(raw)
    for param in params.values():
        values.setdefault(param.name, param.default)
    return name, dict(sorted(values.items()))


def _parameter_parts(body: str, params: dict[str, Param]) -> list[str]:
    """Split a spec's body at commas, joining the parts with no '=' to a comma-list
    parameter before them (``Param.commas``).

    >>> _parameter_parts("edges=0-1, 1-2,x=3", {"edges": Param("edges", str, "", "", commas=True)})
    ['edges=0-1,1-2', 'x=3']
    """
    parts: list[str] = []
    for part in filter(None, (p.strip() for p in body.split(","))):
        before = parts[-1].partition("=")[0].strip() if parts else ""
        if "=" not in part and before in params and params[before].commas:
            parts[-1] += "," + part
        else:
            parts.append(part)
    return parts


def _unknown_game(name: str) -> str:
    """The message for an unknown family, with the family it nearly spells, if any.

    >>> _unknown_game("oshi-zumo")
    "unknown game 'oshi-zumo'; did you mean oshi_zumo?"
    >>> _unknown_game("goofpsiel")
    "unknown game 'goofpsiel'; did you mean goofspiel?"
    """
    def plain(text: str) -> str:  # case, '-' and '_' do not count
        return re.sub(r"[^a-z0-9]", "", text.lower())

    typed = plain(name)
    close = [known for known in GAMES if plain(known) == typed  # or letters swapped, or cut
             or sorted(plain(known)) == sorted(typed)
             or (len(typed) >= 4 and plain(known).startswith(typed)
                 and len(plain(known)) - len(typed) <= 2)]
    hint = f"did you mean {close[0]}?" if close else f"known games: {', '.join(sorted(GAMES))}"
    return f"unknown game {name!r}; {hint}"


def _list_hint(param: Param | None, name: str, body: str) -> str:
    """A hint for a list parameter written with commas (``heaps=1,3,5``), else ''."""
    if param is None or "-" not in str(param.default):
        return ""
    parts = [p.strip() for p in body.split(",")]
    start = next(i for i, p in enumerate(parts) if p.partition("=")[0].strip() == name)
    items = [parts[start].partition("=")[2].strip()]
    items += takewhile(lambda p: "=" not in p, parts[start + 1:])
    return f"; {name} are written with '-' between them, e.g. {name}={'-'.join(items)}"


def load_game(spec: str, *, canonical_keys: bool = True) -> Game[Any]:
    """Return the game named by ``spec``.

    Args:
        spec: e.g. ``"jujitsu(num_cards=8)"``; missing parameters take their defaults.
        canonical_keys: store each equivalence class once (rank compression, player
            swap). ``False`` keys every real position separately (for testing).

    Raises:
        GameError: unknown game, unknown parameter or a value out of range.

    >>> load_game("jujitsu(num_cards=3)").spec
    'jujitsu(num_cards=3,ties=carry)'
    """
    name, params = parse_spec(spec)
    game = GAMES[name].create(**params)
    return game if canonical_keys else RawKeys(game)


__all__ = ["GAMES", "Game", "GameError", "format_spec", "load_game", "parse_spec"]
