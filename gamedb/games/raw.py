"""The raw (uncanonical) layout of any game: every real position keyed separately.

Tests build a game both ways and demand that the canonical file answers every real
position like the raw one (``tests/conftest.py``'s ``raw_and_canonical``). One wrapper
does it for every family, so no game carries a raw path of its own: a raw key is the
game's unreduced ``key`` in its ``raw_layout`` (the declared layout, unless the canonical
one compresses real positions, as Goofspiel's base-3 ranks do), a real action is its own
label, and the layer face comes from the reference face (raw builds are small).
A raw layout may leave out only what the canonical one leaves out and banks as
``Canonical.offset``.

>>> from gamedb.games import load_game
>>> game = load_game("jujitsu(num_cards=3)", canonical_keys=False)
>>> game.key_layout, game.canonical_keys, game.num_cards
('jujitsu-v1-raw', False, 3)
"""

from __future__ import annotations

from gamedb.games.base import Canonical, Expansion, Game, S, reference_expand
from gamedb.types import Keys
from gamedb.games.source import LayerSource
from gamedb.games.wrapper import Wrapper


class RawKeys(Wrapper[S]):
    """``game`` with every real position stored under its own key (no reduction)."""

    canonical_keys = False

    def __init__(self, game: Game[S]):
        super().__init__(game)
        self.layout, self.canonical_keys = game.raw_layout, False

    @property
    def key_layout(self) -> str:
        """The game's layout name with ``-raw``."""
        return self.layout.name + "-raw"

    def key(self, s: S) -> int:
        """Encode ``s`` in the raw layout."""
        return self.game.key(s) if self.layout is self.game.layout else Game.key(self, s)

    def decode(self, key: int) -> S:
        """Decode a raw key."""
        return (self.game.decode(key) if self.layout is self.game.layout
                else Game.decode(self, key))

    def canonical(self, s: S) -> Canonical:
        """Return the raw key of ``s``; every action is its own label.

        The payoff the game banks outside its keys (``Canonical.offset``, e.g. the score
        in a point-difference game) is banked here too: raw layouts leave it out as well.
        """
        acts1, acts2 = self.actions(s)
        offset = self.game.canonical(s).offset
        return Canonical(self.key(s), False, ({a: a for a in acts1}, {b: b for b in acts2}),
                         offset)

    def expand(self, keys: Keys) -> Expansion:
        """Return the successors from the reference face."""
        return reference_expand(self, keys)

    def indexed_face(self) -> LayerSource | None:
        """None: an index covers the canonical keys; raw builds enumerate."""
        return None


__all__ = ["RawKeys"]
