"""The layered solver over an indexed face agrees with the generic builder."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from gamedb.games import load_game
from gamedb.games.indexed import IndexedFace
from gamedb.solver.backward import SolvedStates, ValueTable, enumerate_layers, solve_states
from gamedb.solver.indexed import indexed_values, solve_indexed


def _spec(n: int) -> str:
    return f"goofspiel(num_cards={n},returns_type=point_difference)"


def _face(n: int) -> IndexedFace:
    face = load_game(_spec(n)).indexed_face()
    assert face is not None
    return face


def _generic(n: int) -> dict[int, SolvedStates]:
    """Every layer, solved the generic builder's way."""
    game = load_game(_spec(n))
    table, out = ValueTable(), {}
    for layer, keys in sorted(enumerate_layers(game).items()):
        out[layer] = solve_states(game, keys, table)
        table.add(layer, keys, out[layer].values)
    return out


def _generic_values(n: int) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Keys and values of every layer, solved the generic builder's way."""
    return {layer: (s.expansion.keys, s.values) for layer, s in _generic(n).items()}


@pytest.mark.parametrize("n", range(1, 9))
def test_values_equal_the_generic_builders_on_every_position(n: int) -> None:
    face = _face(n)
    indexed = indexed_values(face, chunk_size=2_000)  # several chunks per big layer
    for layer, (keys, values) in _generic_values(n).items():
        mine = indexed[layer][face.rank(layer, keys)]
        # The issue asks <= 1e-12; the stage games are the same doubles, so in fact 0.
        assert np.abs(mine - values).max() <= 1e-12, layer
        assert np.array_equal(mine, values), layer


def test_values_equal_the_stored_values_of_a_built_file(built) -> None:  # type: ignore[no-untyped-def]
    face = _face(7)
    indexed = indexed_values(face)
    with sqlite3.connect(built(_spec(7))) as con:
        for layer in face.layers():
            rows = con.execute("SELECT key, value FROM states WHERE layer = ?", (layer,))
            keys, values = (np.array(c) for c in zip(*rows))
            assert np.abs(indexed[layer][face.rank(layer, keys)] - values).max() <= 1e-12
        meta = dict(con.execute("SELECT name, value FROM meta"))
    root = list(solve_indexed(face))[-1].summary
    assert root.tolist() == [pytest.approx(json.loads(meta["root_value"]), abs=1e-12)]


def test_chunks_come_in_index_order_and_their_size_changes_nothing() -> None:
    face = _face(6)
    chunks = list(solve_indexed(face, chunk_size=1))  # one hand class per chunk
    for layer in face.layers():
        mine = [c for c in chunks if c.layer == layer]
        assert [c.start for c in mine] == [0, *(c.stop for c in mine[:-1])]
        assert mine[-1].stop == face.size(layer)
    assert [c.layer for c in chunks] == sorted(c.layer for c in chunks)
    one = np.concatenate([c.solution.values for c in chunks])
    whole = np.concatenate(list(indexed_values(face, chunk_size=10**9).values()))
    assert np.array_equal(one, whole)


@pytest.mark.parametrize("n", [5, 7])
def test_strategies_and_their_labels_equal_the_generic_builders(n: int) -> None:
    face = _face(n)
    chunks = list(solve_indexed(face, chunk_size=500))
    for layer, generic in _generic(n).items():
        mine = [c for c in chunks if c.layer == layer]
        at = face.rank(layer, generic.expansion.keys)
        rows, cols = (np.concatenate(parts) for parts in zip(
            *(face.actions(layer, c.start, c.stop) for c in mine)))
        assert np.array_equal(rows[at], generic.expansion.row_actions), layer
        assert np.array_equal(cols[at], generic.expansion.col_actions), layer
        row_strategies = np.concatenate([c.solution.row_strategies for c in mine])
        col_strategies = np.concatenate([c.solution.col_strategies for c in mine])
        assert np.array_equal(row_strategies[at], generic.row_strategies), layer
        assert np.array_equal(col_strategies[at], generic.col_strategies), layer


@pytest.mark.parametrize("n", range(1, 8))
def test_key_order_solves_the_same_positions_to_the_same_values_and_summaries(n: int) -> None:
    """``sorted_*``: the layer's keys in increasing order, the same values and (by
    ``accumulate``) the same chance values as index order, bit for bit."""
    from gamedb.solver.indexed import solve_sorted

    face = _face(n)
    indexed = indexed_values(face)
    below = None
    for layer in face.layers():
        summary, keys, values = np.zeros(face.summary_size(layer)), [], []
        for start, stop in face.sorted_chunks(layer, 300):
            solution = solve_sorted(face, layer, start, stop, below)
            face.accumulate(layer, start, stop, solution.values, summary)
            keys.append(face.sorted_keys(layer, start, stop))
            values.append(solution.values)
            rows, cols = face.sorted_actions(layer, start, stop)
            assert rows.shape == cols.shape == (stop - start, layer)
        ordered = np.concatenate(keys)
        assert np.array_equal(ordered, np.sort(face.keys(layer, 0, face.size(layer))))
        assert np.array_equal(np.concatenate(values), indexed[layer][face.rank(layer, ordered)])
        whole = face.summarize(layer, 0, face.size(layer), indexed[layer])
        assert np.array_equal(summary, whole), layer
        below = summary
