"""What a build stores where: the strategy split and the page layers.

Pure decisions from the game's layer source and the build's options, shared by the
builder (``gamedb.builder``) and the estimate (``gamedb.builder.estimate``):

- ``strategy_split``: the first layer whose positions keep their strategies (13-card
  Goofspiel: from layer 11; all of layer 10 would add ~17 GB of strategies);
- ``page_split``: the layers below it are stored as pages of values under a product of
  keys (``store.pages.CODEC``), the cheapest form, for layers without strategies;
- ``page_plan``: every page layer and its key map; the other layers of at least
  ``page_min`` positions are keyed pages (``store.pages.ROWS``).
"""

from __future__ import annotations

from collections.abc import Mapping

from gamedb.games.base import GameError
from gamedb.games.source import LayerSource
from gamedb.store.pages import KeyMap

#: Default first layer with stored strategies in games of more than ``SMALL_GAME``
#: layers (13-card Goofspiel: 1.9 M positions with 11 or more cards in hand, ~0.7 GB of
#: JSON; all of layer 10 would add ~17 GB): the others are stored values only.
BIG_STRATEGIES_FROM = 11
#: Games of at most this many layers store every strategy by default.
SMALL_GAME = 10


def strategy_split(face: LayerSource | None, strategies_from: int | None) -> int:
    """Return the first layer that stores strategies, 0 for every layer.

    ``strategies_from`` None picks the default: every layer, except for a game with its
    own index (``Game.indexed_face``) of more than ``SMALL_GAME`` layers,
    ``BIG_STRATEGIES_FROM`` and up. A split at or below the lowest layer is none (0).
    """
    layers = list(face.layers()) if face is not None else [1]
    if strategies_from is None:
        big = face is not None and len(layers) > SMALL_GAME
        strategies_from = BIG_STRATEGIES_FROM if big else 0
    return strategies_from if strategies_from > min(layers) else 0


def first_rich_layer(source: LayerSource | None, split: int, values_only: bool) -> int:
    """Return the first layer that stores strategies: ``split`` (``strategy_split``),
    or past the top layer of ``source`` in a values-only build (None: a game whose
    keys are not enumerated yet, ``split``)."""
    return max(source.layers()) + 1 if values_only and source is not None else split


def page_split(face: LayerSource | None, spec: str, no_strategies_below: int,
               pages_below: int | None) -> int:
    """Return the first layer stored as rows or keyed pages, 0 for none stored as pages
    of values.

    ``pages_below`` None picks the default: the layers without strategies
    (``no_strategies_below``) of an indexed game of more than ``SMALL_GAME`` layers whose
    keys are products (``LayerSource.key_factors``); none in smaller games. An explicit
    layer must leave the layers with strategies out.

    Raises:
        GameError: ``pages_below`` asks for pages the game ``spec`` cannot have.
    """
    pageable = face is not None and face.key_factors(min(face.layers())) is not None
    if pages_below is None:
        big = face is not None and len(face.layers()) > SMALL_GAME
        return no_strategies_below if pageable and big and no_strategies_below > 1 else 0
    if pages_below <= (min(face.layers()) if face is not None else 1):
        return 0
    if not pageable or face is None:
        raise GameError(f"{spec} cannot store its layers as pages (its index gives no "
                        "product of key heads and tails); leave out --pages-below")
    if pages_below > no_strategies_below:
        why = f"--pages-below {pages_below}: page layers keep no strategies, and this build "
        if no_strategies_below <= min(face.layers()):
            raise GameError(f"{why}stores strategies in every layer; add --strategies-from "
                            f"{pages_below} (or --values-only) to store the layers below "
                            f"{pages_below} as pages")
        raise GameError(f"{why}stores them from layer {no_strategies_below}; give "
                        f"--pages-below {no_strategies_below} or less, or --strategies-from "
                        f"{pages_below}")
    return pages_below


def page_plan(source: LayerSource, sizes: Mapping[int, int], pages_below: int,
              page_min: int) -> dict[int, KeyMap | None]:
    """Return the page layers of a build: the layers below ``pages_below`` under their
    product of keys (values only), and the others of at least ``page_min`` positions
    (0: none) as keyed pages (None)."""
    plan: dict[int, KeyMap | None] = {}
    for layer in source.layers():
        if layer < pages_below:
            plan[layer] = keymap_of(source, layer)
        elif page_min and sizes[layer] >= page_min:
            plan[layer] = None
    return plan


def keymap_of(source: LayerSource, layer: int) -> KeyMap:
    """Return the keys of ``layer`` as a page layer of values holds them (its factors)."""
    factors = source.key_factors(layer)
    if factors is None:
        raise ValueError(f"layer {layer} of this game cannot be stored as pages")
    keymap = KeyMap(*factors)
    if keymap.size != source.size(layer):
        raise ValueError(f"layer {layer}: {keymap.size:,} keys in its factors, "
                         f"{source.size(layer):,} positions")
    return keymap


__all__ = ["BIG_STRATEGIES_FROM", "SMALL_GAME", "first_rich_layer", "keymap_of", "page_plan",
           "page_split", "strategy_split"]
