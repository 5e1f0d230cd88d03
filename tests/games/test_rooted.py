"""``Game.subgame``'s default wrapper: the wrapped game's face, only the start moved."""

from __future__ import annotations

import inspect

import pytest

from gamedb.games import GAMES, load_game
from gamedb.games.base import Game
from gamedb.games.expansion import root_of
from gamedb.games.raw import RawKeys
from gamedb.games.rooted import Rooted
from gamedb.games.wrapper import Wrapper

#: Base-class members the wrappers keep on purpose (they read only what is forwarded).
INHERITED = {"__init__", "subgame", "action_noun"}


def _overridable() -> set[str]:
    return {name for name, value in vars(Game).items()
            if inspect.isfunction(value) or isinstance(value, property)} - INHERITED


def test_the_wrapper_base_forwards_every_method_a_family_may_override() -> None:
    """A base default a wrapper inherited would silently replace the family's own
    (a vectorized ``expand``, a compressed ``key``): every one is forwarded."""
    missing = sorted(_overridable() - set(vars(Wrapper)))
    assert not missing, missing


@pytest.mark.parametrize("wrapper", [Rooted, RawKeys], ids=lambda cls: cls.__name__)
def test_each_wrapper_takes_every_overridable_method_from_the_base_or_itself(
        wrapper: type) -> None:
    """Neither wrapper reaches ``Game``'s defaults (both used to forward by hand)."""
    def owner(name: str) -> type:
        return next(cls for cls in wrapper.__mro__ if name in vars(cls))
    assert issubclass(wrapper, Wrapper)
    reached = sorted(name for name in _overridable() if owner(name) is Game)
    assert not reached, reached


def test_each_wrapper_changes_only_its_own_face() -> None:
    game = load_game("goofspiel(num_cards=4)")  # its raw layout differs from its layout
    start = game.parse_position("start")
    rooted, raw = game.subgame(start), RawKeys(game)
    assert rooted.key(start) == game.key(start) and rooted.indexed_face() is None
    assert rooted.expand.__func__ is Wrapper.expand  # type: ignore[attr-defined]
    assert (raw.key_layout, raw.canonical_keys) == (game.key_layout + "-raw", False)
    assert raw.layout == game.raw_layout != game.layout
    assert raw.decode(raw.key(start)) == start and raw.indexed_face() is None
    assert raw.action_name(start, 1, 3) == game.action_name(start, 1, 3)


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
