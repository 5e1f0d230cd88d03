"""Page layers' codec and key map (``gamedb.store.pages``)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gamedb.store.pages import KeyMap, PageError, decode_page, encode_page, pack_ints, unpack_ints


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
