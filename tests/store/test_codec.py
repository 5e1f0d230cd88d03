"""Strategy text: exact 17-digit probabilities, labels as JSON keys, padding left out."""

from __future__ import annotations

import json
import math
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamedb.store.codec import MIN_PROB, decode, encode, format_prob

_PROBS = st.floats(min_value=MIN_PROB, max_value=1.0, allow_nan=False)


@settings(max_examples=3000, deadline=None)
@given(_PROBS)
def test_a_probability_reads_back_as_the_same_double(p: float) -> None:
    text = format_prob(p)
    assert float(text) == p
    assert Decimal(text) == Decimal(format(Decimal(p), ".16e"))  # 17 digits, correctly rounded


def test_hard_cases_read_back_exactly() -> None:
    cases = [1.0, 0.5, 0.1, 1 / 3, 2 / 3, 1e-12, 1e-11, 9.999999999999999e-12, 0.0999999999999999,
             math.nextafter(1.0, 0.0), math.nextafter(0.1, 1.0), math.nextafter(1e-12, 1.0),
             1.0000000000000002, 0.30000000000000004, 0.123456789012345678]
    rng = np.random.default_rng(7)
    cases += rng.random(20_000).tolist() + (10 ** rng.uniform(-12, 0, 20_000)).tolist()
    for p in cases:
        assert float(format_prob(p)) == p, p


def test_short_probabilities_stay_short() -> None:
    assert [format_prob(p) for p in (1.0, 0.5, 0.25, 0.125, 0.01)] == \
        ["1.0", "0.5", "0.25", "0.125", "0.01"]


def test_rows_become_json_objects_without_zeros_or_padding() -> None:
    probs = np.array([[0.0, 0.75, 0.25, 0.0], [1.0, 0.0, 0.0, 0.0], [0.5, 1e-13, 0.5, 0.0]])
    labels = np.array([[1, 2, 13, -1], [7, 8, -1, -1], [0, 3, 4, -1]])
    texts = encode(probs, labels)
    assert texts == ['{"2":0.75,"13":0.25}', '{"7":1.0}', '{"0":0.5,"4":0.5}']
    assert [decode(t) for t in texts] == [{2: 0.75, 13: 0.25}, {7: 1.0}, {0: 0.5, 4: 0.5}]
    assert decode(None) == {}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(_PROBS, min_size=1, max_size=13), min_size=1, max_size=40))
def test_whole_batches_decode_to_exactly_what_was_encoded(rows: list[list[float]]) -> None:
    width = max(map(len, rows))
    probs = np.zeros((len(rows), width))
    labels = np.full((len(rows), width), -1)
    for i, row in enumerate(rows):
        probs[i, :len(row)] = row
        labels[i, :len(row)] = np.arange(len(row)) * 3 - 1  # negative labels too
    for i, text in enumerate(encode(probs, labels)):
        assert json.loads(text) == {str(3 * j - 1): p for j, p in enumerate(rows[i])}


@given(st.lists(st.lists(st.floats(min_value=1e-12, max_value=1.0), max_size=6), max_size=20))
def test_joined_strategies_read_fast_exactly_as_json_reads_them(rows: list[list[float]]) -> None:
    from gamedb.store.codec import _decode_encoded, decode_joined

    width = max(map(len, rows), default=0) or 1
    probs = np.array([row + [0.0] * (width - len(row)) for row in rows]).reshape(len(rows), width)
    labels = np.tile(np.arange(1, width + 1), (len(rows), 1))
    texts = encode(probs, labels) if rows else []
    fast = _decode_encoded(",".join(texts), len(texts))
    assert fast is not None
    expected = [decode(t) for t in texts]
    sizes, got_labels, got_probs = fast
    assert sizes.tolist() == [len(e) for e in expected]
    assert got_labels.tolist() == [a for e in expected for a in e]
    assert got_probs.tolist() == [p for e in expected for p in e.values()]
    assert all((x == y).all() for x, y in zip(fast, decode_joined(",".join(texts), len(texts))))


@pytest.mark.parametrize("body", [
    '{"1":0.5', '{"1":0.5},{"2":1.0', '[1,2]', '{"1":"x"}', '{"x":1.0}', 'null',
    '{"1":0.5,"1":0.5}', '{"2":0.5,"1":0.5}', '}{"1":1.0', '{"1":1.5}', '{"1":NaN}',
    '{"1":0.5}"2":0.5{}',
])
def test_joined_text_that_encode_never_writes_is_left_to_json(body: str) -> None:
    from gamedb.store.codec import _decode_encoded

    count = max(1, body.count("{"))
    assert _decode_encoded(body, count) is None
