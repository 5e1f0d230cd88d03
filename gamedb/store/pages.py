"""Page layers: a layer's values in key order, cut into compressed pages (BLOBs).

A row layer stores one ``states`` row per position (any SQLite client reads it); a page
layer stores the values of a layer of a big game in ``pages`` rows of ``page_size``
values each, in increasing key, with no keys at all (the Syzygy way: compressed blocks
and a small index). A layer's keys are a *product*: every key is ``head | tail`` for a
head of the sorted ``heads`` and a tail of the sorted ``tails`` (all below
``2**tail_bits``), in key order ``heads[i] | tails[j]`` is position ``i * len(tails) + j``
(Goofspiel: a head is a layer, a revealed prize and the hidden prizes; a tail a pair of
hands). So a position's page and place are two binary searches, and the standalone
``gamedb.probe`` reads them with ``bisect``.

Codec ``f64-shuffle-zlib``: the page's float64 values, little-endian, byte-shuffled
(all first bytes, then all second bytes, ...: the exponent bytes of nearby values
repeat, as Blosc's shuffle exploits); a first byte r, then the r lowest byte planes as
they are, then the others zlib-compressed. Lossless. Measured on 10-card
point-difference layers 5-7 (docs/format.md): 6.78 B/value with everything compressed
at level 1 (7.3 M values/s a core; 7.4-7.7 B unshuffled; lzma and bz2 save under 2% at
5x the time), but the six low planes are noise (zlib keeps 97-100% of them), so they are
stored as they are (r = 6): the same 6.79 B/value at 40 M values/s. Pages whose low
bytes are often zero (short binary fractions: win/loss values) compress every plane.

>>> import numpy as np
>>> values = np.array([0.5, -1.0, 2.25])
>>> decode_page(encode_page(values), 3).tolist()
[0.5, -1.0, 2.25]
>>> layout = KeyMap(np.array([0x100, 0x300]), np.array([1, 2, 7]), 8)
>>> layout.keys(0, 6).tolist() == [0x101, 0x102, 0x107, 0x301, 0x302, 0x307]
True
>>> layout.rank(np.array([0x302, 0x303, 0x101])).tolist()
[4, -1, 0]
"""

from __future__ import annotations

import sqlite3
import zlib
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from gamedb.store.errors import DamagedFile
from gamedb.types import Floats, Ints


#: The codec of the pages a build writes (``page_layers.codec``): lossless doubles.
CODEC = "f64-shuffle-zlib"
#: The codec of ``gamedb ship --precision float32``: each value rounded to a float.
FLOAT32 = "f32-shuffle-zlib"
#: The codec of a *keyed* page layer: each page holds its keys, values and, in a layer
#: with strategies, gaps and both strategies (``encode_rows``); any layer of any game.
ROWS = "rows-shuffle-zlib"
#: Codec -> (numpy dtype, low byte planes stored as they are when they look like noise).
CODECS = {CODEC: ("<f8", 6), FLOAT32: ("<f4", 2)}
#: zlib level: 1 is 30% faster than 6 and 1.5% larger on Goofspiel values.
LEVEL = 1
#: Values per page, at most (a page holds whole ``tails`` runs: see ``page_size``).
PAGE_TARGET = 65_536
#: A build's layers of at least this many positions are page layers by default
#: (``gamedb build --page-min``): smaller games stay rows that any SQLite client reads.
PAGE_MIN = 65_536
#: Decoded pages a reader keeps (a page is at most 512 KiB of doubles).
CACHED_PAGES = 16


class PageError(ValueError):
    """A page or a layer's key layout that this reader cannot decode."""


@contextmanager
def damage_said(path: Path, where: str) -> Iterator[None]:
    """Turn a ``PageError`` into ``DamagedFile`` naming the file and ``where`` in it."""
    try:
        yield
    except PageError as exc:
        raise DamagedFile(path, f"{where}: {exc}") from None


def encode_page(values: Floats, level: int = LEVEL, codec: str = CODEC) -> bytes:
    """Return one page of values in ``codec``: a byte r, the r low byte planes as they
    are, then the other planes zlib-compressed (``f32-...``: the values rounded to
    float32 first)."""
    dtype, noise = CODECS[codec]
    typed = np.ascontiguousarray(values, dtype=dtype)
    planes = np.ascontiguousarray(typed.view(np.uint8).reshape(-1, typed.itemsize).T)
    raw = noise if _noisy(planes) else 0
    return bytes([raw]) + planes[:raw].tobytes() + zlib.compress(planes[raw:].tobytes(), level)


def _noisy(planes: npt.NDArray[np.uint8]) -> bool:
    """True when the low mantissa bytes look like noise (few zero bytes in the lowest
    plane): zlib would spend its time on them for nothing."""
    return bool(planes.shape[1] and np.count_nonzero(planes[0] == 0) < planes.shape[1] // 16)


def decode_page(data: bytes, count: int, codec: str = CODEC) -> Floats:
    """Return the ``count`` values of one page; ``PageError`` if it does not decode."""
    if codec not in CODECS:
        raise PageError(f"unknown page codec {codec!r} (this gamedb reads {', '.join(CODECS)})")
    width = np.dtype(CODECS[codec][0]).itemsize
    raw = data[0] if data else 9
    if raw > width or len(data) < 1 + raw * count:
        raise PageError(f"a page's header is damaged ({len(data)} bytes, {count} values)")
    try:
        packed = data[1:1 + raw * count] + zlib.decompress(data[1 + raw * count:])
    except (zlib.error, TypeError) as exc:
        raise PageError(f"a page does not decompress ({exc})") from None
    if len(packed) != width * count:
        raise PageError(f"a page holds {len(packed)} bytes, not {width * count} "
                        f"({count} values)")
    shuffled = np.frombuffer(packed, np.uint8).reshape(width, count)
    values: Floats = (np.ascontiguousarray(shuffled.T).view(CODECS[codec][0]).reshape(-1)
                      .astype(np.float64))
    return values


#: ``encode_rows`` flags (its first byte).
_STRATEGIES, _EVERY_PROB = 1, 2
_GRID = 2.0 ** 52  # the kernel's probabilities are multiples of 2**-52 (solver.kernel)
#: ``_pack``: a plane is compressed if its first _SAMPLE bytes shrink to _WORTH or less.
_SAMPLE, _WORTH = 4096, 0.9


@dataclass(frozen=True, slots=True, eq=False)
class Sparse:
    """One player's strategies of consecutive positions: position i plays
    ``labels[ends[i-1]:ends[i]]`` with ``probs[...]`` (non-zero probabilities only)."""

    sizes: Ints
    labels: Ints
    probs: Floats

    @classmethod
    def of(cls, probs: Floats, labels: Ints, min_prob: float) -> Sparse:
        """From padded (B, A) probabilities and labels (the solver's): the entries of at
        least ``min_prob``, in column order (as ``store.codec.encode`` writes them)."""
        played = probs >= min_prob
        return cls(played.sum(axis=1).astype(np.int64), labels[played].astype(np.int64),
                   probs[played].astype(np.float64))

    @classmethod
    def joined(cls, parts: list[Sparse]) -> Sparse:
        """The strategies of consecutive runs of positions, one after the other."""
        return cls(np.concatenate([p.sizes for p in parts]),
                   np.concatenate([p.labels for p in parts]),
                   np.concatenate([p.probs for p in parts]))

    def padded(self, rows: Ints) -> tuple[Floats, Ints]:
        """Return the strategies of positions ``rows`` as padded (len(rows), A) arrays."""
        ends = np.cumsum(self.sizes)
        starts = ends - self.sizes
        width = int(self.sizes[rows].max()) if len(rows) else 0
        probs = np.zeros((len(rows), max(width, 1)))
        labels = np.full((len(rows), max(width, 1)), -1, np.int64)
        for slot in range(width):
            has = self.sizes[rows] > slot
            where = starts[rows[has]] + slot
            probs[has, slot] = self.probs[where]
            labels[has, slot] = self.labels[where]
        return probs, labels


@dataclass(frozen=True, slots=True, eq=False)
class PageRows:
    """The decoded contents of one page: keys, values and, in a layer with strategies,
    gaps and both players' strategies."""

    keys: Ints
    values: Floats
    gaps: Floats | None = None
    first: Sparse | None = None
    second: Sparse | None = None


def encode_rows(rows: PageRows, level: int = LEVEL) -> bytes:
    """Return one page of codec ``ROWS``: a flags byte, then sections (a little-endian
    uint32 length, then the bytes): the key deltas (the first is 0: the page's
    ``first_key`` is its first key), the values and, with strategies, the gaps and each
    player's support sizes, labels and probabilities (docs/format.md).

    A support of one stores no probability (it is 1.0) and a support of k, k - 1 (the
    last is 1 minus the others, exactly: the kernel's probabilities are multiples of
    2**-52 summing to 1.0); a page where that does not hold stores them all."""
    keys = np.asarray(rows.keys, np.int64)
    sections = [_pack(np.diff(keys, prepend=keys[:1]), "<u8", level),
                _pack(rows.values, "<f8", level)]
    flags = 0
    if rows.first is not None and rows.second is not None and rows.gaps is not None:
        flags |= _STRATEGIES
        players = (rows.first, rows.second)
        kept = [_kept(player.sizes) for player in players]
        implied = all(_implied_exact(player, k) for player, k in zip(players, kept))
        flags |= 0 if implied else _EVERY_PROB
        sections.append(_pack(rows.gaps, "<f8", level))
        for player, k in zip(players, kept):
            stored = player.probs[k] if implied else player.probs
            sections += [_pack(player.sizes, "<u2", level), _pack(player.labels, "<i8", level),
                         _pack(stored, "<f8", level)]
    return bytes([flags]) + b"".join(len(part).to_bytes(4, "little") + part
                                     for part in sections)


def _sections(data: bytes) -> tuple[int, list[bytes]]:
    """Split a page of codec ``ROWS`` into its flags and sections."""
    if not data or data[0] & ~(_STRATEGIES | _EVERY_PROB):
        raise PageError("a page's flags are damaged")
    flags, parts, at = data[0], [], 1
    while at < len(data):
        size = int.from_bytes(data[at:at + 4], "little")
        if at + 4 + size > len(data):
            raise PageError("a page's sections are damaged")
        parts.append(data[at + 4:at + 4 + size])
        at += 4 + size
    if len(parts) != (9 if flags & _STRATEGIES else 2):
        raise PageError(f"a page holds {len(parts)} sections")
    return flags, parts


def decode_numbers(data: bytes, count: int, codec: str) -> tuple[Floats, Floats | None]:
    """Return the values and the gaps (None: a page without them) of one page of any
    codec, decoding nothing else (no keys, no strategies); ``PageError`` if it does not
    decode."""
    if codec != ROWS:
        return decode_page(data, count, codec), None
    flags, parts = _sections(data)
    values = _unpack(parts[1], "<f8", count).astype(np.float64)
    if not flags & _STRATEGIES:
        return values, None
    return values, _unpack(parts[2], "<f8", count).astype(np.float64)


def decode_rows(data: bytes, count: int, first_key: int) -> PageRows:
    """Inverse of ``encode_rows``; ``PageError`` if the page does not decode."""
    flags, parts = _sections(data)
    keys = np.cumsum(_unpack(parts[0], "<u8", count).astype(np.int64)) + first_key
    values = _unpack(parts[1], "<f8", count).astype(np.float64)
    if not flags & _STRATEGIES:
        return PageRows(keys, values)
    players = []
    for sizes_part, labels_part, probs_part in (parts[3:6], parts[6:9]):
        sizes = _unpack(sizes_part, "<u2", count).astype(np.int64)
        total = int(sizes.sum())
        labels = _unpack(labels_part, "<i8", total).astype(np.int64)
        if flags & _EVERY_PROB:
            probs = _unpack(probs_part, "<f8", total).astype(np.float64)
        else:
            kept = _kept(sizes)
            probs = np.ones(total)
            probs[kept] = _unpack(probs_part, "<f8", int(kept.sum()))
            probs[~kept] = _implied(sizes, probs, kept)
        players.append(Sparse(sizes, labels, probs))
    gaps = _unpack(parts[2], "<f8", count).astype(np.float64)
    return PageRows(keys, values, gaps, players[0], players[1])


def _kept(sizes: Ints) -> npt.NDArray[np.bool_]:
    """The entries a page stores: all but the last of each support."""
    kept = np.ones(int(sizes.sum()), bool)
    kept[np.cumsum(sizes)[sizes > 0] - 1] = False
    return kept


def _implied(sizes: Ints, probs: Floats, kept: npt.NDArray[np.bool_]) -> Floats:
    """The last probability of each support: 1 minus the others (exact on the grid)."""
    others = np.where(kept, probs, 0.0)
    ends = np.cumsum(sizes)[sizes > 0]
    sums = np.add.reduceat(others, ends - sizes[sizes > 0]) if len(ends) else others[:0]
    last: Floats = 1.0 - sums
    return last


def _implied_exact(player: Sparse, kept: npt.NDArray[np.bool_]) -> bool:
    """True when every last probability (not ``kept``) is 1 minus the others, exactly."""
    probs = player.probs
    if not len(probs):
        return True
    on_grid = np.array_equal(np.floor(probs * _GRID), probs * _GRID) and (probs <= 1.0).all()
    return bool(on_grid and np.array_equal(_implied(player.sizes, probs, kept), probs[~kept]))


def _pack(numbers: npt.ArrayLike, dtype: str, level: int) -> bytes:
    """Return ``numbers`` as ``dtype`` byte planes (like ``encode_page``): a byte whose
    bit b says plane b is zlib-compressed (then a uint32 length and the stream), else
    stored as it is (``count`` bytes). A plane is compressed when its first
    ``_SAMPLE`` bytes shrink by ``_WORTH``: mantissa noise is stored, not compressed."""
    typed = np.ascontiguousarray(numbers, dtype=dtype)
    planes = np.ascontiguousarray(typed.view(np.uint8).reshape(-1, typed.itemsize).T)
    mask, parts = 0, []
    for b, plane in enumerate(planes):
        data = plane.tobytes()
        sample = data[:_SAMPLE]
        if len(zlib.compress(sample, level)) < _WORTH * len(sample):
            packed = zlib.compress(data, level)
            mask |= 1 << b
            parts.append(len(packed).to_bytes(4, "little") + packed)
        else:
            parts.append(data)
    return bytes([mask]) + b"".join(parts)


def _unpack(data: bytes, dtype: str, count: int) -> npt.NDArray[np.generic]:
    """Inverse of ``_pack`` for ``count`` numbers."""
    width = np.dtype(dtype).itemsize
    if not data:
        raise PageError("a page section is empty")
    mask, at, planes = data[0], 1, []
    try:
        for b in range(width):
            if mask >> b & 1:
                size = int.from_bytes(data[at:at + 4], "little")
                planes.append(zlib.decompress(data[at + 4:at + 4 + size]))
                at += 4 + size
            else:
                planes.append(data[at:at + count])
                at += count
    except zlib.error as exc:
        raise PageError(f"a page does not decompress ({exc})") from None
    packed = b"".join(planes)
    if len(packed) != width * count or at != len(data):
        raise PageError(f"a page section holds {len(packed)} bytes, not {width * count}")
    shuffled = np.frombuffer(packed, np.uint8).reshape(width, count)
    return np.ascontiguousarray(shuffled.T).view(dtype).reshape(-1)


def pack_ints(values: Ints) -> bytes:
    """Return int64s as zlib-compressed little-endian bytes (``page_layers``' lists)."""
    return zlib.compress(np.ascontiguousarray(values, dtype="<i8").tobytes(), 6)


def unpack_ints(data: bytes) -> Ints:
    """Inverse of ``pack_ints``."""
    try:
        ints: Ints = np.frombuffer(zlib.decompress(data), "<i8").astype(np.int64)
    except (zlib.error, ValueError, TypeError) as exc:
        raise PageError(f"a key list does not decode ({exc})") from None
    return ints


@dataclass(frozen=True, slots=True, eq=False)
class KeyMap:
    """The keys of a page layer: every ``head | tail``, in increasing order."""

    heads: Ints
    tails: Ints
    tail_bits: int

    def __post_init__(self) -> None:
        heads, tails = self.heads, self.tails
        if not (len(heads) and len(tails)) or (np.diff(heads) <= 0).any() \
                or (np.diff(tails) <= 0).any() or (heads & ((1 << self.tail_bits) - 1)).any() \
                or tails[0] < 0 or tails[-1] >> self.tail_bits:
            raise PageError("a page layer's key lists are not sorted, disjoint factors")

    @property
    def size(self) -> int:
        """Positions of the layer."""
        return len(self.heads) * len(self.tails)

    def page_size(self, target: int = PAGE_TARGET) -> int:
        """Return the values per page: whole runs of ``tails``, about ``target``."""
        return max(1, target // len(self.tails)) * len(self.tails)

    def keys(self, start: int, stop: int) -> Ints:
        """Return the keys of positions start..stop-1 (key order)."""
        return self.at(np.arange(start, stop, dtype=np.int64))

    def at(self, where: Ints) -> Ints:
        """Return the keys of the positions ``where``."""
        keys: Ints = self.heads[where // len(self.tails)] | self.tails[where % len(self.tails)]
        return keys

    def rank(self, keys: Ints) -> Ints:
        """Return the position of each key in the layer, -1 for a key it lacks."""
        keys = np.asarray(keys, np.int64)
        head, tail = keys & ~((1 << self.tail_bits) - 1), keys & ((1 << self.tail_bits) - 1)
        i = np.minimum(np.searchsorted(self.heads, head), len(self.heads) - 1)
        j = np.minimum(np.searchsorted(self.tails, tail), len(self.tails) - 1)
        found = (self.heads[i] == head) & (self.tails[j] == tail)
        rank: Ints = np.where(found, i * len(self.tails) + j, -1)
        return rank


@dataclass(frozen=True, slots=True, eq=False)
class PageLayer:
    """One page layer's description (a ``page_layers`` row)."""

    layer: int
    codec: str
    page_size: int
    keymap: KeyMap | None
    """The layer's keys as a product (codecs of values only); None for ``ROWS``, whose
    pages hold their keys."""

    @property
    def keyed(self) -> bool:
        """True when each page holds its keys (codec ``ROWS``)."""
        return self.keymap is None


class PageReader:
    """Read the page layers of an open file (none in a file without them).

    Args:
        raw: a DB-API connection to the file.
        frozen: the file no longer changes (a finished build), so the first keys of
            each layer's pages are read once; otherwise at each look-up.
    """

    def __init__(self, raw: sqlite3.Connection, frozen: bool = False):
        self._raw = raw
        self._frozen = frozen
        self.layers: dict[int, PageLayer] = {}
        self._cache: OrderedDict[tuple[int, int], PageRows] = OrderedDict()
        self._firsts: dict[int, Ints] = {}
        if raw.execute("SELECT 1 FROM sqlite_master WHERE name = 'page_layers'").fetchone():
            for layer, codec, size, bits, heads, tails in raw.execute(
                    "SELECT layer, codec, page_size, tail_bits, heads, tails FROM page_layers"):
                keymap = None if codec == ROWS else \
                    KeyMap(unpack_ints(heads), unpack_ints(tails), int(bits))
                self.layers[int(layer)] = PageLayer(int(layer), str(codec), int(size), keymap)

    def page(self, layer: int, page: int) -> PageRows | None:
        """Return the contents of one stored page (None if it is not stored)."""
        cached = self._cache.get((layer, page))
        if cached is not None:
            self._cache.move_to_end((layer, page))
            return cached
        row = self._raw.execute("SELECT first_key, count, data FROM pages WHERE layer = ? "
                                "AND page = ?", (layer, page)).fetchone()
        if row is None:
            return None
        rows = self._decoded(layer, page, *row)
        self._cache[(layer, page)] = rows
        if len(self._cache) > CACHED_PAGES:
            self._cache.popitem(last=False)
        return rows

    def _decoded(self, layer: int, page: int, first_key: int, count: int,
                 data: bytes) -> PageRows:
        about = self.layers[layer]
        if about.keymap is None:
            if about.codec != ROWS:
                raise PageError(f"unknown page codec {about.codec!r}")
            return decode_rows(data, int(count), int(first_key))
        start = page * about.page_size
        return PageRows(about.keymap.keys(start, start + int(count)),
                        decode_page(data, int(count), about.codec))

    def _first_keys(self, layer: int) -> tuple[Ints, Ints]:
        """The numbers and first keys of the stored pages of a keyed layer, in page order
        (a cluster build in progress stores them in any order: some may be missing)."""
        firsts = self._firsts.get(layer)
        if firsts is None:
            firsts = np.array(self._raw.execute(
                "SELECT page, first_key FROM pages WHERE layer = ? ORDER BY page",
                (layer,)).fetchall(), np.int64).reshape(-1, 2)
            if (np.diff(firsts[:, 1]) <= 0).any():
                raise PageError(f"layer {layer}: the pages' first keys are not increasing")
            if self._frozen:
                self._firsts[layer] = firsts
        return firsts[:, 0], firsts[:, 1]

    def locate(self, layer: int, keys: Ints) -> tuple[Ints, Ints]:
        """Return the page and the place in it of each of the sorted, distinct ``keys``
        of ``layer`` (page -1 for a key before the first page; a place is only right if
        the key is stored: check the page's key)."""
        about = self.layers[layer]
        if about.keymap is not None:
            rank = about.keymap.rank(keys)
            return (np.where(rank >= 0, rank // about.page_size, -1),
                    np.where(rank >= 0, rank % about.page_size, 0))
        numbers, firsts = self._first_keys(layer)
        if not len(numbers):  # an unfinished build: none of the layer's pages yet
            return np.full(len(keys), -1, np.int64), np.zeros(len(keys), np.int64)
        at = np.searchsorted(firsts, keys, side="right") - 1
        return np.where(at >= 0, numbers[np.maximum(at, 0)], -1), np.zeros(len(keys), np.int64)

    def found(self, layer: int, keys: Ints) -> Iterator[tuple[Ints, PageRows, Ints]]:
        """Yield, for each stored page holding some of ``keys`` (any order, repeats
        allowed), those keys (sorted, distinct), the page and their places in it."""
        keys = np.unique(np.asarray(keys, np.int64))
        pages, places = self.locate(layer, keys)
        for page in np.unique(pages[pages >= 0]).tolist():
            rows = self.page(layer, page)
            if rows is None or not len(rows.keys):
                continue
            mine = np.flatnonzero(pages == page)
            if self.layers[layer].keyed:
                at = np.minimum(np.searchsorted(rows.keys, keys[mine]), len(rows.keys) - 1)
            else:
                at = places[mine]
            ok = (at < len(rows.keys))
            ok[ok] &= rows.keys[at[ok]] == keys[mine[ok]]
            yield keys[mine[ok]], rows, at[ok]

    def values_of(self, layer: int, keys: Ints) -> tuple[Ints, Floats]:
        """Return the stored keys among ``keys`` of ``layer`` (in key order) and their
        values, decoding each page they fall in once."""
        found: list[Ints] = []
        values: list[Floats] = []
        for mine, rows, at in self.found(layer, keys):
            found.append(mine)
            values.append(rows.values[at])
        if not found:
            return np.zeros(0, np.int64), np.zeros(0)
        return np.concatenate(found), np.concatenate(values)

    def page_strategies(self, layer: int) -> Iterator[tuple[int, int, bool]]:
        """Yield each stored page of ``layer`` in order as its first key, its count and
        whether it stores strategies, from the page's flags byte alone (a page of a
        values-only codec, ``CODEC`` or ``FLOAT32``, never does: its data is not read)."""
        head = "substr(data, 1, 1)" if self.layers[layer].keyed else "x''"
        for first_key, count, flags in self._raw.execute(
                f"SELECT first_key, count, {head} FROM pages WHERE layer = ? ORDER BY page",
                (layer,)):
            if not isinstance(first_key, int) or not isinstance(count, int) or count < 0:
                raise PageError(f"layer {layer}: a page's first key or count is no integer")
            yield first_key, count, bool(flags) and bool(flags[0] & _STRATEGIES)

    def layer_pages(self, layer: int, start_page: int = 0) -> Iterator[PageRows]:
        """Yield the stored pages of ``layer`` in order, from ``start_page``, stopping at
        the first page not stored."""
        cursor = self._raw.execute("SELECT page, first_key, count, data FROM pages WHERE "
                                   "layer = ? AND page >= ? ORDER BY page", (layer, start_page))
        expected = start_page
        for page, first_key, count, data in cursor:
            if page != expected:
                raise PageError(f"layer {layer}: page {expected} is missing")
            yield self._decoded(layer, page, first_key, count, data)
            expected += 1


__all__ = ["CODEC", "CODECS", "FLOAT32", "KeyMap", "PAGE_MIN", "PAGE_TARGET", "PageError", "PageLayer",
           "PageRows", "ROWS", "Sparse", "decode_numbers", "decode_rows", "encode_rows",
           "PageReader", "damage_said", "decode_page", "encode_page", "pack_ints", "unpack_ints"]
