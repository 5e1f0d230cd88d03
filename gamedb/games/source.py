"""The layer source: what the one builder (``gamedb.builder``) asks of a game.

A build solves a game layer by layer in the source's order, each layer in chunks of
consecutive positions *in key order* (so the file is a pure append), and each chunk's
stage games from a *summary* of the layers below it. Two kinds of source exist:

- a game's own perfect index (``Game.indexed_face()``: point-difference and win/loss
  Goofspiel, ``games.goofspiel.index`` and ``.winloss``): keys, action labels and stage
  games are computed from flat tables, and a layer's summary is a few bytes per position
  (Goofspiel: the values of its chance nodes);
- the enumerating source (``gamedb.builder.sources``) for every other game: the keys are
  found by a forward walk, the stage games come from ``Game.expand``, and a layer's
  summary is its values in key order. It is also the reference the indexed sources are
  tested against.

A source is pure: it is copied to each worker process (or pickled to a Dask worker)
with the summary its layer reads, and every call depends only on its arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from gamedb.types import Floats, Ints, Keys


class LayerSource(Protocol):
    """Contracts of a layer source (``tests/build/test_sources.py`` checks each source
    against the enumerating one)."""

    strategy_disk: int
    """Bytes of a row's two strategy texts in a finished file (``gamedb.builder.estimate``)."""

    def table_bytes(self) -> int:
        """Return the bytes of the source's own tables that a build holds besides the
        summaries (``gamedb.builder.estimate``; forked workers share them)."""
        ...

    def layers(self) -> Sequence[int]:
        """Return the layers in solving order (each reads only layers before it)."""
        ...

    def size(self, layer: int) -> int:
        """Return the number of canonical positions of ``layer``."""
        ...

    def needs(self, layer: int) -> Sequence[int]:
        """Return the layers whose summaries ``layer``'s stage games read."""
        ...

    def below(self, layer: int, summaries: Mapping[int, Floats]) -> Any:
        """Return what ``games`` reads for ``layer``, from the summaries of ``needs``
        (made once a layer, in the builder, and sent once to each worker)."""
        ...

    def summary_size(self, layer: int) -> int:
        """Return the number of entries of ``layer``'s summary."""
        ...

    def chunks(self, layer: int, target: int) -> list[tuple[int, int]]:
        """Split the layer's positions in key order (0 = the smallest key) into ranges
        of about ``target`` whose stage games can be built on their own; the ranges
        depend only on the game, ``layer`` and ``target``, and every range start of one
        target's cut is a valid start for any other's (a resumed build cuts anew)."""
        ...

    def keys(self, layer: int, start: int, stop: int) -> Keys:
        """Return the keys of positions start..stop-1 in key order (increasing)."""
        ...

    def actions(self, layer: int, start: int, stop: int) -> tuple[Ints, Ints]:
        """Return the stored action labels (B, R) and (B, C) of positions start..stop-1,
        in the order of the stage games' rows and columns (-1 in the padding)."""
        ...

    def games(self, layer: int, start: int, stop: int, below: Any) -> tuple[Floats, Ints, Ints]:
        """Return the padded stage games (payoffs, n_rows, n_cols) of positions
        start..stop-1, from ``below`` (``LayerSource.below``)."""
        ...

    def accumulate(self, layer: int, start: int, stop: int, values: Floats,
                   summary: Floats) -> None:
        """Add the values of positions start..stop-1 to ``summary`` (zeros of
        ``summary_size`` at first); after all of the layer's ranges, in order, it is the
        layer's summary (the same doubles whatever the chunks)."""
        ...

    def key_factors(self, layer: int) -> tuple[Ints, Ints, int] | None:
        """Return (heads, tails, tail_bits) when the layer's keys, in key order, are every
        ``head | tail`` of the sorted ``heads`` and ``tails`` (tails below
        ``2**tail_bits``, runs of ``len(tails)`` whole ranges of ``chunks``), so that the
        layer can be stored as pages of values alone (``gamedb.store.pages``); None if not."""
        ...


class Chained:
    """The summary plumbing of a source whose layer reads only the layer before it in
    ``layers()`` (Goofspiel's indexes): ``below`` is that layer's summary, None for the
    first."""

    def layers(self) -> Sequence[int]:
        raise NotImplementedError

    def needs(self, layer: int) -> Sequence[int]:
        """The layer before ``layer`` in solving order (none for the first)."""
        order = list(self.layers())
        at = order.index(layer)
        return order[at - 1:at] if at else []

    def below(self, layer: int, summaries: Mapping[int, Floats]) -> Floats | None:
        """The summary of the layer before, or None for the first layer."""
        needed = self.needs(layer)
        return summaries[needed[0]] if needed else None


__all__ = ["Chained", "LayerSource"]
