"""``Game.subgame``'s default wrapper: the wrapped game's face, only the start moved."""

from __future__ import annotations

import inspect

import pytest

from gamedb.games import GAMES, load_game
from gamedb.games.base import Game
from gamedb.games.expansion import root_of
from gamedb.games.rooted import Rooted

#: Base-class members the wrapper keeps on purpose (they read only what it forwards).
INHERITED = {"__init__", "subgame", "action_noun"}


def test_the_wrapper_forwards_every_method_a_family_may_override() -> None:
    """A base default the wrapper inherited would silently replace the family's own
    (a vectorized ``expand``, a compressed ``key``): every one is forwarded."""
    members = {name for name, value in vars(Game).items()
               if inspect.isfunction(value) or isinstance(value, property)}
    missing = sorted(members - INHERITED - set(vars(Rooted)))
    assert not missing, missing


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_subgame_of_the_start_is_the_whole_game(name: str) -> None:
    game = load_game(name)
    start = [s for _, s in game.initial()]
    if len(start) > 1:  # a chance draw first: the position before it
        start = [game.parse_position("start")]
    sub = game.subgame(start[0])
    assert (sub.spec, sub.key_layout, sub.canonical_keys) == (game.spec, game.key_layout, True)
    assert sub.indexed_face() is None
    assert root_of(sub).keys.tolist() == root_of(game).keys.tolist()
    assert root_of(sub).weight.tolist() == pytest.approx(root_of(game).weight.tolist())
