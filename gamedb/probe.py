"""Read a gamedb file with nothing but the standard library (``sqlite3`` and ``json``).

Copy this one file into another program to read shipped databases without installing
gamedb, numpy or SQLAlchemy. It reads the file-format contract of docs/format.md: the
``meta`` and ``states`` tables and the ``strategies`` relation (a table up to schema
0002, a view over ``states`` using SQLite's built-in JSON functions since 0003), which
every schema revision keeps. Opening a file checks its schema revision and its key
layout, and refuses what this reader does not know (``UnreadableFile``).
Files are opened read-only (``mode=ro``): probing never changes a byte.

Page layers (schema 0006, docs/format.md) are read too. In a values-only layer of a big
point-difference Goofspiel, a key's place is two ``bisect`` searches in the layer's
``heads`` and ``tails`` and its value is 8 bytes of its page, un-shuffled; a *keyed*
page (``rows-shuffle-zlib``) holds its own keys, values, gaps and strategies: the page
is the last one whose first key is at most the key, found by SQL.

Every family reads the same way. Positions are looked up by canonical key
(``gamedb key SPEC POSITION`` prints the key of any position), and
``GameFile.position`` decodes a key with the file's own ``positions`` view, which
gamedb generates from the game's declared key layout when it writes the file (schema
0002 and later). For Jujitsu ``jujitsu_key`` also computes keys here, in pure Python,
and ``GameFile.probe_jujitsu`` answers in real cards.

>>> from pathlib import Path
>>> path = Path(__file__).parents[1] / "data" / "jujitsu_num_cards=8_ties=carry.shipped.sqlite"
>>> with GameFile(path) as book:
...     start = book.probe(book.root_keys[0])
...     mine = book.probe_jujitsu([1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8])
...     where = book.position(book.root_keys[0])
>>> book.spec, round(start.value, 9)
('jujitsu(num_cards=8,ties=carry)', 0.0)
>>> where["position"]
'hand1=1,2,3,4,5,6,7,8 hand2=1,2,3,4,5,6,7,8 pot=0 diff=0'
>>> 8 in mine.strategies[1]          # Sanwal & Drechsler: never lead the highest card
False
>>> jujitsu_key([2, 9], [4, 7], num_cards=8)     # a card outside 1..8
Traceback (most recent call last):
...
ValueError: cards must lie in 1..8, got [2, 9] and [4, 7]
"""

from __future__ import annotations

import bisect
import json
import sqlite3
import struct
import zlib
from array import array
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any

#: Every key holds its layer in bits 48 and up (``gamedb.games.base.LAYER_SHIFT``).
LAYER_SHIFT = 48

#: Schema revisions (``alembic_version``) whose file format this reader knows.
SCHEMA_REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006", "0007")

#: The codec of keyed pages: keys, values, gaps and strategies (``GameFile._keyed``).
_KEYED = "rows-shuffle-zlib"
#: Page codecs of values only (docs/format.md) -> (struct format of one value, bytes).
_PAGE_CODECS = {"f64-shuffle-zlib": ("<d", 8), "f32-shuffle-zlib": ("<f", 4)}

_JUJITSU_POT_BITS = 5
_JUJITSU_DIFF_OFFSET = 32


#: What the ``positions`` view decodes (``gamedb/store/views.py``): the row layers.
_VIEW_SOURCE = "SELECT key, layer, value, gap FROM states"


class NotStored(KeyError):
    """The key is not in the file (not a canonical key, or an unfinished build)."""


class UnreadableFile(ValueError):
    """Not a gamedb file this reader knows: its schema revision or key layout."""


@dataclass(frozen=True)
class Stored:
    """One position's value and strategies, as probed."""

    key: int | None
    """The canonical key (None for a finished game, which is not stored)."""
    value: float
    """Player 1's expected payoff under optimal play."""
    gap: float | None
    """Equilibrium gap of the stored solution (None in a values-only row, schema 0004)."""
    strategies: dict[int, dict[int, float]] = field(default_factory=dict)
    """Player (1, 2) -> action -> probability (non-zero only). ``probe`` gives stored
    players and labels (ranks for Jujitsu); ``probe_jujitsu`` real players and cards."""


@dataclass(frozen=True)
class JujitsuKey:
    """Where a real Jujitsu position is stored."""

    key: int
    """Canonical key."""
    swapped: bool
    """True when the stored position has the players swapped (value negated)."""
    ranks: dict[int, int]
    """Real card -> stored label (its rank in the union of both hands)."""


class GameFile:
    """A gamedb file opened read-only; use as a context manager."""

    def __init__(self, path: str | Path):
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such database file")
        self.path = path
        self._pages: dict[int, tuple[str, int, int, "array[int]", "array[int]"]] | None = None
        # as_uri percent-encodes: a "?", "#" or "%" in the name stays in the name
        self._conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            self.revision = _revision(self._conn, path)
            """The schema revision (one of ``SCHEMA_REVISIONS``)."""
            rows = self._conn.execute("SELECT name, value FROM meta").fetchall()
            self.meta: dict[str, Any] = {name: json.loads(value) for name, value in rows}
            """The ``meta`` table, JSON-decoded: spec, family, params, key_layout, ..."""
            _check_layout(self.meta, path)
        except BaseException:
            self._conn.close()
            raise

    def __enter__(self) -> GameFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the file."""
        self._conn.close()

    @property
    def spec(self) -> str:
        """The game spec, e.g. ``jujitsu(num_cards=8,ties=carry)``."""
        return str(self.meta["spec"])

    @property
    def key_layout(self) -> str:
        """The key encoding, e.g. ``jujitsu-v1`` (``-raw``: positions not reduced)."""
        return str(self.meta["key_layout"])

    @property
    def root_keys(self) -> list[int]:
        """Canonical keys of the initial position(s) (one per chance draw)."""
        return [int(k) for k in self.meta.get("root_keys", [])]

    def probe(self, key: int) -> Stored:
        """Return the stored value and strategies of a canonical key.

        Raises:
            NotStored: no such key in the file.
        """
        row = self._conn.execute("SELECT value, gap FROM states WHERE key = ?", (key,)).fetchone()
        if row is None and (key >> LAYER_SHIFT) in self._page_layers:
            if self._page_layers[key >> LAYER_SHIFT][0] == _KEYED:
                return self._keyed(key)
            return Stored(key, self._page_value(key), None, {1: {}, 2: {}})
        if row is None:
            raise NotStored(f"key {key} is not in {self.path.name}")
        strategies: dict[int, dict[int, float]] = {1: {}, 2: {}}
        for player, action, prob in self._conn.execute(
                "SELECT player, action, prob FROM strategies WHERE key = ?", (key,)):
            strategies[player][action] = prob
        return Stored(key, row[0], row[1], strategies)

    @property
    def _page_layers(self) -> dict[int, tuple[str, int, int, "array[int]", "array[int]"]]:
        """Layer -> (codec, page size, tail bits, heads, tails) of the page layers."""
        if self._pages is None:
            self._pages = {}
            if self._conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'page_layers'"
                                  ).fetchone():
                for layer, codec, size, bits, heads, tails in self._conn.execute(
                        "SELECT layer, codec, page_size, tail_bits, heads, tails FROM page_layers"):
                    try:
                        self._pages[layer] = (codec, size, bits, array("q"), array("q")) \
                            if codec == _KEYED else (codec, size, bits, _ints(heads), _ints(tails))
                    except (TypeError, ValueError, zlib.error) as exc:
                        raise UnreadableFile(f"{self.path.name}: the key lists of page layer "
                                             f"{layer} are damaged ({exc})") from None
        return self._pages

    def _page_value(self, key: int) -> float:
        """Return a key's value from its page (``f64-shuffle-zlib``: value i's bytes are
        bytes i, i + n, ..., i + 7n of the page's n values, byte-shuffled; ``f32-...``:
        four bytes, a float)."""
        codec, size, bits, heads, tails = self._page_layers[key >> LAYER_SHIFT]
        if codec not in _PAGE_CODECS:
            raise UnreadableFile(f"{self.path.name}: page codec {codec!r} is not known here")
        form, width = _PAGE_CODECS[codec]
        head, tail = key >> bits << bits, key & ((1 << bits) - 1)
        i, j = bisect.bisect_left(heads, head), bisect.bisect_left(tails, tail)
        if i == len(heads) or heads[i] != head or j == len(tails) or tails[j] != tail:
            raise NotStored(f"key {key} is not in {self.path.name}")
        where = i * len(tails) + j
        row = self._conn.execute("SELECT count, data FROM pages WHERE layer = ? AND page = ?",
                                 (key >> LAYER_SHIFT, where // size)).fetchone()
        if row is None:
            raise NotStored(f"key {key} is not in {self.path.name} (an unfinished build)")
        count, data = row
        try:
            raw, at = data[0], where % size  # r low byte planes as they are, then zlib
            planes = data[1:1 + raw * count] + zlib.decompress(data[1 + raw * count:])
            if len(planes) != width * count:
                raise ValueError(f"{len(planes)} bytes for {count} values")
        except (IndexError, TypeError, ValueError, zlib.error) as exc:
            raise UnreadableFile(f"{self.path.name}: page {where // size} of layer "
                                 f"{key >> LAYER_SHIFT} is damaged ({exc})") from None
        value: float = struct.unpack(form, bytes(planes[at + b * count] for b in range(width)))[0]
        return value

    def _keyed(self, key: int) -> Stored:
        """Return a key's row from its keyed page (codec ``rows-shuffle-zlib``)."""
        layer = key >> LAYER_SHIFT
        row = self._conn.execute("SELECT page, first_key, count, data FROM pages WHERE layer = ? "
                                 "AND first_key <= ? ORDER BY page DESC LIMIT 1",
                                 (layer, key)).fetchone()
        if row is None:
            raise NotStored(f"key {key} is not in {self.path.name}")
        page, first_key, count, data = row
        try:
            found = _keyed_row(data, count, first_key, key)
        except (IndexError, TypeError, ValueError, OverflowError, struct.error,
                zlib.error) as exc:
            raise UnreadableFile(f"{self.path.name}: page {page} of layer {layer} is "
                                 f"damaged ({exc})") from None
        if found is None:
            raise NotStored(f"key {key} is not in {self.path.name}")
        return Stored(key, *found)

    def position(self, key: int) -> dict[str, Any]:
        """Return the position of a stored key, decoded: its text and fields by name.

        Reads the file's ``positions`` view (generated from the game's declared key
        layout; a key of a page layer through the view's own expressions), so it
        decodes every family; canonical keys decode to their class's
        representative (ranks as cards, players maybe swapped).

        Raises:
            NotStored: no such key in the file.
            UnreadableFile: a schema-0001 file, which has no views.
        """
        if self.revision == "0001":
            raise UnreadableFile(f"{self.path.name} has schema revision 0001, without the "
                                 f"positions view: run gamedb upgrade {self.path}")
        cursor = self._conn.execute("SELECT * FROM positions WHERE key = ?", (key,))
        row = cursor.fetchone()
        if row is None and (key >> LAYER_SHIFT) in self._page_layers:
            self.probe(key)  # NotStored if its page lacks it too
            cursor = self._conn.execute(self._decoding(), (key, key >> LAYER_SHIFT))
            row = cursor.fetchone()
        if row is None:
            raise NotStored(f"key {key} is not in {self.path.name}")
        names = [d[0] for d in cursor.description]
        return {n: v for n, v in zip(names, row) if n not in ("key", "value", "gap")}

    def _decoding(self) -> str:
        """The ``positions`` view's query, over one key given as (key, layer): the view
        decodes the keys of the row layers (``states``); a page layer's are decoded by
        the same expressions."""
        found = self._conn.execute("SELECT sql FROM sqlite_master WHERE type = 'view' AND "
                                   "name = 'positions'").fetchone()
        query = str(found[0]).partition(" AS")[2] if found else ""
        if _VIEW_SOURCE not in query:
            raise UnreadableFile(f"{self.path.name}: its positions view is not gamedb's")
        return query.replace(_VIEW_SOURCE, "SELECT ? AS key, ? AS layer, NULL AS value, "
                                           "NULL AS gap")

    def get(self, key: int, default: Stored | None = None) -> Stored | None:
        """Like ``probe`` but return ``default`` for a key that is not stored."""
        try:
            return self.probe(key)
        except NotStored:
            return default

    def probe_jujitsu(self, hand1: list[int], hand2: list[int], pot: int = 0,
                      diff: int = 0) -> Stored:
        """Return a real Jujitsu position's value (player 1's) and strategies in cards.

        Raises:
            ValueError: the file is not a Jujitsu file with the key layout read here.
            NotStored: the position is not in the file (not reachable).
        """
        if self.meta.get("key_layout") != "jujitsu-v1":
            raise ValueError(f"{self.path.name} holds {self.spec} with key layout "
                             f"{self.meta.get('key_layout')!r}, not 'jujitsu-v1'")
        if not hand1 and not hand2:  # the game is over: nothing is stored
            return Stored(None, float((diff > 0) - (diff < 0)), 0.0, {1: {}, 2: {}})
        where = jujitsu_key(hand1, hand2, pot, diff, num_cards=self.meta["params"]["num_cards"])
        stored = self.probe(where.key)
        card_of = {rank: card for card, rank in where.ranks.items()}
        real = {player: {card_of[a]: p for a, p in stored.strategies[
            3 - player if where.swapped else player].items()} for player in (1, 2)}
        return Stored(where.key, -stored.value if where.swapped else stored.value,
                      stored.gap, real)


def _keyed_row(data: bytes, count: int, first_key: int, key: int
               ) -> tuple[float, float | None, dict[int, dict[int, float]]] | None:
    """Return (value, gap, strategies) of ``key`` in one keyed page, None if absent.

    The page: a flags byte (1: gaps and strategies follow; 2: every probability is
    stored), then sections, each a little-endian uint32 length and its bytes: key deltas
    (uint64), values (float64), then gaps and, for each player, support sizes (uint16),
    labels (int64) and probabilities (float64). Each section is byte planes: a mask
    byte (bit b: plane b is a uint32 length and a zlib stream, else ``n`` bytes as they
    are). Without flag 2 a support of one has no stored probability (it is 1.0) and
    a support of k stores k - 1 (the last is 1 minus their sum, exact)."""
    flags, parts, at = data[0], [], 1
    while at < len(data):
        size = int.from_bytes(data[at:at + 4], "little")
        parts.append(data[at + 4:at + 4 + size])
        at += 4 + size
    keys = list(accumulate(_numbers(parts[0], "Q", count), initial=first_key))[1:]
    i = bisect.bisect_left(keys, key)
    if i == len(keys) or keys[i] != key:
        return None
    value = _numbers(parts[1], "d", count)[i]
    if not flags & 1:
        return value, None, {1: {}, 2: {}}
    gap = _numbers(parts[2], "d", count)[i]
    strategies: dict[int, dict[int, float]] = {}
    for player, first in ((1, 3), (2, 6)):
        sizes = _numbers(parts[first], "H", count)
        labels = _numbers(parts[first + 1], "q", sum(sizes))
        start, size = sum(sizes[:i]), sizes[i]
        if flags & 2:
            probs = list(_numbers(parts[first + 2], "d", sum(sizes))[start:start + size])
        else:
            kept = sum(sizes) - sum(1 for s in sizes if s)
            before = start - sum(1 for s in sizes[:i] if s)
            probs = list(_numbers(parts[first + 2], "d", kept)[before:before + size - 1])
            probs.append(1.0 - sum(probs))
        strategies[player] = dict(zip(labels[start:start + size], probs))
    return value, gap, strategies


def _numbers(section: bytes, form: str, count: int) -> "array[Any]":
    """Return the ``count`` numbers of a byte-planes section (type code ``form``)."""
    numbers = array(form)
    width = numbers.itemsize
    mask, at, raw = section[0], 1, bytearray(width * count)
    for b in range(width):
        if mask >> b & 1:
            size = int.from_bytes(section[at:at + 4], "little")
            plane = zlib.decompress(section[at + 4:at + 4 + size])
            at += 4 + size
        else:
            plane, at = section[at:at + count], at + count
        if len(plane) != count:
            raise ValueError(f"a section's plane holds {len(plane)} bytes, not {count}")
        raw[b::width] = plane  # un-shuffle: byte b of every number
    numbers.frombytes(bytes(raw))
    if struct.pack("=q", 1) != struct.pack("<q", 1):  # a big-endian machine
        numbers.byteswap()
    return numbers


def _ints(data: bytes) -> "array[int]":
    """Return a zlib-compressed list of little-endian int64s (``page_layers``)."""
    ints = array("q", zlib.decompress(data))
    if struct.pack("=q", 1) != struct.pack("<q", 1):  # a big-endian machine
        ints.byteswap()
    return ints


def _revision(conn: sqlite3.Connection, path: Path) -> str:
    try:
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.DatabaseError as exc:
        journal = path.with_name(path.name + "-journal")
        if "readonly" in str(exc) and journal.is_file() and journal.stat().st_size:
            raise UnreadableFile(f"{path.name}: a write to it was interrupted ({journal.name} "
                                 "holds the pages it changed) and a read-only reader cannot "
                                 "restore them: run the gamedb build that wrote it again "
                                 "(it restores the file first)") from None
        raise UnreadableFile(f"{path.name} is not a gamedb file ({exc})") from None
    revision = str(row[0]) if row else "none"
    if revision not in SCHEMA_REVISIONS:
        raise UnreadableFile(f"{path.name} has schema revision {revision}; this reader knows "
                             f"{', '.join(SCHEMA_REVISIONS)} (use the probe.py of the gamedb "
                             f"that wrote the file)")
    return revision


def _check_layout(meta: dict[str, Any], path: Path) -> None:
    """Refuse a file whose key layout is not ``FAMILY[-VARIANT]-vN[-raw]``
    (``goofspiel-v1``, ``goofspiel-dummy-v1-raw``)."""
    layout, family = meta.get("key_layout"), meta.get("family")
    name, dash_v, version = str(layout).removesuffix("-raw").rpartition("-v")
    ours = name == family or name.startswith(f"{family}-")
    if not (isinstance(layout, str) and dash_v and ours and version.isdigit()):
        raise UnreadableFile(f"{path.name} has key layout {layout!r}, not one of family "
                             f"{family!r} (FAMILY[-VARIANT]-vN or FAMILY[-VARIANT]-vN-raw)")


def jujitsu_key(hand1: list[int], hand2: list[int], pot: int = 0, diff: int = 0, *,
                num_cards: int) -> JujitsuKey:
    """Return the canonical key of a real Jujitsu position (``jujitsu-v1`` layout).

    The same reduction as ``gamedb.games.jujitsu``: relabel the union of both hands by
    rank (only comparisons matter), clamp ``diff`` to one past the largest swing left,
    and of the position and its player-swapped twin keep the smaller key.

    >>> where = jujitsu_key([3, 8], [5, 6], pot=0, diff=-2, num_cards=8)
    >>> where.ranks, where.swapped
    ({3: 1, 5: 2, 6: 3, 8: 4}, False)
    >>> where.key == (2 << 48) | 0b1001 | 0b0110 << 8 | (-2 + 32) << 21   # see JujitsuState
    True
    """
    union = set(hand1) | set(hand2)
    if any(not 1 <= c <= num_cards for c in union):
        raise ValueError(f"cards must lie in 1..{num_cards}, got {sorted(hand1)} and "
                         f"{sorted(hand2)}")
    ranks = {card: rank for rank, card in enumerate(sorted(union), start=1)}
    c1 = sum(1 << (ranks[c] - 1) for c in hand1)
    c2 = sum(1 << (ranks[c] - 1) for c in hand2)
    reach = len(hand1) + pot + 1  # beyond it only the sign of diff matters
    diff = min(max(diff, -reach), reach)
    straight = _jujitsu_encode(c1, c2, pot, diff, num_cards)
    twin = _jujitsu_encode(c2, c1, pot, -diff, num_cards)
    return JujitsuKey(min(straight, twin), twin < straight, ranks)


def _jujitsu_encode(h1: int, h2: int, pot: int, diff: int, n: int) -> int:
    return (h1 | h2 << n | pot << 2 * n | (diff + _JUJITSU_DIFF_OFFSET) << 2 * n + _JUJITSU_POT_BITS
            | bin(h1).count("1") << LAYER_SHIFT)


__all__ = ["GameFile", "JujitsuKey", "NotStored", "Stored", "UnreadableFile", "jujitsu_key"]
