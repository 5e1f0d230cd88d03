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

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]

#: The codec of the pages a build writes (``page_layers.codec``): lossless doubles.
CODEC = "f64-shuffle-zlib"
#: The codec of ``gamedb ship --precision float32``: each value rounded to a float.
FLOAT32 = "f32-shuffle-zlib"
#: Codec -> (numpy dtype, low byte planes stored as they are when they look like noise).
CODECS = {CODEC: ("<f8", 6), FLOAT32: ("<f4", 2)}
#: zlib level: 1 is 30% faster than 6 and 1.5% larger on Goofspiel values.
LEVEL = 1
#: Values per page, at most (a page holds whole ``tails`` runs: see ``page_size``).
PAGE_TARGET = 65_536
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
    keymap: KeyMap


class PageReader:
    """Read the page layers of an open file (none in a file without them).

    Args:
        raw: a DB-API connection to the file.
    """

    def __init__(self, raw: sqlite3.Connection):
        self._raw = raw
        self.layers: dict[int, PageLayer] = {}
        self._cache: OrderedDict[tuple[int, int], Floats] = OrderedDict()
        if raw.execute("SELECT 1 FROM sqlite_master WHERE name = 'page_layers'").fetchone():
            for layer, codec, size, bits, heads, tails in raw.execute(
                    "SELECT layer, codec, page_size, tail_bits, heads, tails FROM page_layers"):
                keymap = KeyMap(unpack_ints(heads), unpack_ints(tails), int(bits))
                self.layers[int(layer)] = PageLayer(int(layer), str(codec), int(size), keymap)

    def page(self, layer: int, page: int) -> Floats | None:
        """Return the values of one stored page (None if it is not stored)."""
        cached = self._cache.get((layer, page))
        if cached is not None:
            self._cache.move_to_end((layer, page))
            return cached
        row = self._raw.execute("SELECT count, data FROM pages WHERE layer = ? AND page = ?",
                                (layer, page)).fetchone()
        if row is None:
            return None
        values = decode_page(row[1], int(row[0]), self.layers[layer].codec)
        self._cache[(layer, page)] = values
        if len(self._cache) > CACHED_PAGES:
            self._cache.popitem(last=False)
        return values

    def values_of(self, layer: int, keys: Ints) -> tuple[Ints, Floats]:
        """Return the stored keys among ``keys`` of ``layer`` (in key order) and their
        values, decoding each page they fall in once."""
        about = self.layers[layer]
        keys = np.unique(np.asarray(keys, np.int64))
        rank = about.keymap.rank(keys)
        keys, rank = keys[rank >= 0], rank[rank >= 0]
        page_of, offset = rank // about.page_size, rank % about.page_size
        found: list[Ints] = []
        values: list[Floats] = []
        for page in np.unique(page_of).tolist():
            stored = self.page(layer, page)
            mine = np.flatnonzero(page_of == page)
            if stored is not None:
                mine = mine[offset[mine] < len(stored)]
                found.append(keys[mine])
                values.append(stored[offset[mine]])
        if not found:
            return np.zeros(0, np.int64), np.zeros(0)
        return np.concatenate(found), np.concatenate(values)

    def layer_pages(self, layer: int, start_page: int = 0) -> Iterator[tuple[Ints, Floats]]:
        """Yield (keys, values) of the stored pages of ``layer`` in order, from
        ``start_page``, stopping at the first page not stored."""
        about = self.layers[layer]
        cursor = self._raw.execute("SELECT page, count, data FROM pages WHERE layer = ? "
                                   "AND page >= ? ORDER BY page", (layer, start_page))
        expected = start_page
        for page, count, data in cursor:
            if page != expected:
                raise PageError(f"layer {layer}: page {expected} is missing")
            start = page * about.page_size
            yield (about.keymap.keys(start, start + int(count)),
                   decode_page(data, int(count), about.codec))
            expected += 1


__all__ = ["CODEC", "CODECS", "FLOAT32", "KeyMap", "PAGE_TARGET", "PageError", "PageLayer",
           "PageReader", "damage_said", "decode_page", "encode_page", "pack_ints", "unpack_ints"]
