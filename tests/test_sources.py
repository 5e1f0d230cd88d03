"""Every layer source agrees with the enumerating one: the indexed sources of
Goofspiel (``Game.indexed_face``) give the same keys, action labels, values and
strategies, bit for bit, and no source's chunking changes a double."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from tests.sources import enumerating, indexed, solve_source


def _pd(n: int) -> str:
    return f"goofspiel(num_cards={n},returns_type=point_difference)"


def _wl(n: int) -> str:
    return f"goofspiel(num_cards={n})"


def _same_solutions(spec: str, target: int = 300) -> None:
    mine, reference = solve_source(indexed(spec), target), solve_source(enumerating(spec), 10**9)
    assert sorted(mine) == sorted(reference)
    for layer, ref in reference.items():
        got = mine[layer]
        assert np.array_equal(got.keys, ref.keys), layer
        # The issue asks <= 1e-12; the stage games are the same doubles, so in fact 0.
        assert np.array_equal(got.values, ref.values), layer
        r, c = ref.row_actions.shape[1], ref.col_actions.shape[1]
        assert np.array_equal(got.row_actions[:, :r], ref.row_actions), layer
        assert np.array_equal(got.col_actions[:, :c], ref.col_actions), layer
        assert np.array_equal(got.row_strategies[:, :r], ref.row_strategies), layer
        assert np.array_equal(got.col_strategies[:, :c], ref.col_strategies), layer


@pytest.mark.parametrize("n", range(1, 8))
def test_point_difference_index_equals_the_enumeration_on_every_position(n: int) -> None:
    _same_solutions(_pd(n), target=2_000 if n > 5 else 300)  # several chunks per layer


@pytest.mark.parametrize("n", range(1, 8))
def test_win_loss_index_equals_the_enumeration_on_every_position(n: int) -> None:
    _same_solutions(_wl(n))


@pytest.mark.parametrize("spec", [_pd(6), _wl(6), "jujitsu(num_cards=6)", "nim(heaps=2-3-4)"])
def test_the_chunk_size_changes_no_value_and_no_summary(spec: str) -> None:
    source = indexed(spec) if spec.startswith("goof") else enumerating(spec)
    small, whole = solve_source(source, 1), solve_source(source, 10**9)
    for layer in source.layers():
        assert np.array_equal(small[layer].values, whole[layer].values), layer
        assert np.array_equal(small[layer].summary, whole[layer].summary), layer


def test_values_equal_the_stored_values_of_a_built_file(built) -> None:  # type: ignore[no-untyped-def]
    solved = solve_source(indexed(_pd(7)), 5_000)
    with sqlite3.connect(built(_pd(7))) as con:
        for layer, got in solved.items():
            rows = con.execute("SELECT key, value FROM states WHERE layer = ? ORDER BY key",
                               (layer,))
            keys, values = (np.array(c) for c in zip(*rows))
            assert np.array_equal(got.keys, keys) and np.array_equal(got.values, values)
        root = float(con.execute("SELECT value FROM meta WHERE name = 'root_value'").fetchone()[0])
    assert solved[7].summary.tolist() == [pytest.approx(root, abs=1e-12)]  # the root chance node


def test_a_chunk_of_an_index_must_hold_whole_blocks() -> None:
    source = indexed(_pd(6))
    block = source.chunks(3, 1)[0][1]
    assert all(start % block == 0 for start, _ in source.chunks(3, 1000))
    with pytest.raises(ValueError, match="whole blocks"):
        source.games(3, 1, block, np.zeros(source.summary_size(2)))


def test_an_enumerated_layer_reads_the_layers_its_moves_reach() -> None:
    nim = enumerating("nim(heaps=2-3)")  # a move takes 1-3 counters: any lower layer
    assert nim.needs(5) == [1, 2, 3, 4]
    juj = enumerating("jujitsu(num_cards=5)")  # one card a trick
    assert [juj.needs(layer) for layer in juj.layers()] == [[], [1], [2], [3], [4]]
