"""Page layers' codec and key map (``gamedb.store.pages``)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gamedb.store.pages import (KeyMap, PageError, PageRows, Sparse, decode_page, decode_rows,
                                encode_page, encode_rows, pack_ints, unpack_ints)


@given(arrays(np.float64, st.integers(0, 300)))
def test_a_page_decodes_to_the_same_bits(values: np.ndarray) -> None:
    decoded = decode_page(encode_page(values), len(values))
    assert decoded.tobytes() == values.tobytes()  # NaN, -0.0 and infinities too


def _shuffled(values: np.ndarray) -> bytes:
    raw = values.astype("<f8").tobytes()  # all first bytes, then all second bytes, ...
    return bytes(raw[i + 8 * j] for i in range(8) for j in range(len(values)))


def test_the_codec_is_byte_shuffled_zlib_as_docs_format_says() -> None:
    noise = np.random.default_rng(0).random(64)  # low bytes: noise, kept as they are
    data = encode_page(noise)
    assert data[0] == 6 and data[1:1 + 6 * 64] + zlib.decompress(data[1 + 6 * 64:]) \
        == _shuffled(noise)
    short = np.array([1.0, 2.0, -0.5])  # zero low bytes: every plane compressed
    data = encode_page(short)
    assert data[0] == 0 and zlib.decompress(data[1:]) == _shuffled(short)


@pytest.mark.parametrize("data,count,why", [
    (b"\0not zlib", 2, "does not decompress"),
    (b"\0" + zlib.compress(b"\0" * 15), 2, "holds 15 bytes, not 16"),
    (b"\x09" + zlib.compress(b"\0" * 16), 2, "header is damaged"),
    (b"\x06" + b"\0" * 5, 2, "header is damaged"),
    (b"", 2, "header is damaged"),
])
def test_a_damaged_page_is_a_page_error(data: bytes, count: int, why: str) -> None:
    with pytest.raises(PageError, match=why):
        decode_page(data, count)


def test_an_unknown_codec_is_named() -> None:
    with pytest.raises(PageError, match="unknown page codec 'f32-zstd'"):
        decode_page(encode_page(np.zeros(2)), 2, "f32-zstd")


@given(st.lists(st.integers(0, 2**10), min_size=1, max_size=30, unique=True),
       st.lists(st.integers(0, 255), min_size=1, max_size=30, unique=True))
def test_rank_inverts_keys_over_the_whole_layer(heads: list[int], tails: list[int]) -> None:
    keymap = KeyMap(np.array(sorted(heads), np.int64) << 8, np.array(sorted(tails), np.int64), 8)
    keys = keymap.keys(0, keymap.size)
    assert (np.diff(keys) > 0).all()  # key order
    assert keymap.rank(keys).tolist() == list(range(keymap.size))
    others = np.setdiff1d(np.arange(keys[-1] + 2), keys)  # at most 2**18 + 1 keys
    assert (keymap.rank(others) == -1).all()


@pytest.mark.parametrize("heads,tails", [([2 << 8, 1 << 8], [1]), ([1 << 8], [3, 3]),
                                         ([1 << 8 | 1], [1]), ([1 << 8], [256]), ([], [1])])
def test_a_key_map_that_is_no_sorted_product_is_refused(heads: list[int], tails: list[int]) -> None:
    with pytest.raises(PageError, match="not sorted, disjoint factors"):
        KeyMap(np.array(heads, np.int64), np.array(tails, np.int64), 8)


def test_page_size_is_whole_runs_of_tails() -> None:
    keymap = KeyMap(np.array([0, 1 << 8]), np.arange(7), 8)
    assert keymap.page_size(20) == 14 and keymap.page_size(3) == 7


def test_int_lists_round_trip_and_damage_is_named() -> None:
    ints = np.array([-5, 0, 2**62], np.int64)
    assert unpack_ints(pack_ints(ints)).tolist() == ints.tolist()
    with pytest.raises(PageError, match="does not decode"):
        unpack_ints(b"junk")


def _strategies(rng: np.random.Generator, count: int, grid: bool) -> Sparse:
    """Random supports of 1-4 labels, probabilities summing to 1 (on the kernel's grid
    of multiples of 2**-52, as the kernel leaves them, or not)."""
    sizes = rng.integers(1, 5, count)
    labels = np.concatenate([np.sort(rng.choice(13, k, replace=False)) + 1 for k in sizes])
    probs = []
    for k in sizes.tolist():
        p = rng.random(k) + 0.01
        p /= p.sum()
        if grid:
            p = np.round(p * 2.0**52) / 2.0**52
            p[-1] = 1.0 - p[:-1].sum()
        probs.append(p)
    return Sparse(sizes.astype(np.int64), labels.astype(np.int64), np.concatenate(probs))


@pytest.mark.parametrize("grid,flags", [(True, 1), (False, 3)])
def test_a_keyed_page_decodes_keys_values_gaps_and_strategies_to_the_bit(grid: bool,
                                                                         flags: int) -> None:
    rng = np.random.default_rng(5)
    keys = np.cumsum(rng.integers(1, 1 << 20, 3000)) + (7 << 48)
    rows = PageRows(keys, rng.normal(size=3000), np.abs(rng.normal(size=3000)) * 1e-12,
                    _strategies(rng, 3000, grid), _strategies(rng, 3000, grid))
    data = encode_rows(rows)
    back = decode_rows(data, 3000, int(keys[0]))
    assert data[0] == flags  # off the grid: every probability is stored
    assert back.keys.tolist() == keys.tolist()
    for got, want in ((back.values, rows.values), (back.gaps, rows.gaps)):
        assert got is not None and want is not None and got.tobytes() == want.tobytes()
    for got_player, want_player in ((back.first, rows.first), (back.second, rows.second)):
        assert got_player is not None and want_player is not None
        assert got_player.sizes.tolist() == want_player.sizes.tolist()
        assert got_player.labels.tolist() == want_player.labels.tolist()
        assert got_player.probs.tobytes() == want_player.probs.tobytes()


def test_a_values_only_keyed_page_stores_no_strategies() -> None:
    keys = np.arange(10, 1010, 3, dtype=np.int64)
    back = decode_rows(encode_rows(PageRows(keys, keys / 7.0)), len(keys), 10)
    assert back.gaps is None and back.first is None and back.values.tolist() == (keys / 7.0).tolist()


def test_noise_is_stored_and_structure_compressed() -> None:
    rng = np.random.default_rng(2)
    noise = len(encode_rows(PageRows(np.arange(4096, dtype=np.int64), rng.normal(size=4096))))
    steps = len(encode_rows(PageRows(np.arange(4096, dtype=np.int64), np.arange(4096.0) % 3)))
    assert 8 * 4096 * 0.8 < noise < 8 * 4096 * 1.01 and steps < 4096


@pytest.mark.parametrize("data,why", [
    (b"", "flags"), (b"\x09", "flags"), (b"\x00\x05\x00\x00\x00ab", "sections"),
    (b"\x00\x01\x00\x00\x00\x01\x01\x00\x00\x00\x01", "page section|empty|decompress"),
])
def test_a_damaged_keyed_page_is_a_page_error(data: bytes, why: str) -> None:
    with pytest.raises(PageError, match=why):
        decode_rows(data, 4, 0)
