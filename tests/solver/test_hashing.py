"""The compiled hash tables agree with numpy's sort-based unique and searchsorted."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gamedb.solver.hashing import KeyIndex, unique_keys

keys = arrays(np.int64, st.integers(0, 300), elements=st.integers(0, 2**62))
small_keys = arrays(np.int64, st.integers(0, 300), elements=st.integers(0, 40))


@settings(deadline=None)  # the first call loads the compiled kernel
@given(st.one_of(keys, small_keys))
def test_unique_keys_equals_numpy_unique(values: np.ndarray) -> None:
    assert np.array_equal(unique_keys(values), np.unique(values))


@settings(deadline=None)
@given(st.one_of(keys, small_keys), st.one_of(keys, small_keys))
def test_key_index_finds_exactly_the_present_keys(stored: np.ndarray, queries: np.ndarray) -> None:
    stored = np.unique(stored)
    found = KeyIndex(stored).find(queries)
    present = np.isin(queries, stored)
    assert ((found >= 0) == present).all()
    assert np.array_equal(stored[found[present]], queries[present])


def test_large_batches_with_layer_bits_behave_like_numpy() -> None:
    rng = np.random.default_rng(5)
    values = (rng.integers(1, 14, 2_000_000) << 48) | rng.integers(0, 50_000, 2_000_000)
    distinct = unique_keys(values)
    assert np.array_equal(distinct, np.unique(values))
    positions = KeyIndex(distinct).find(values)
    assert np.array_equal(distinct[positions], values)
