"""The perfect index of point-difference Goofspiel: counts, keys, the index's scope."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from gamedb.bits import mask_of
from gamedb.games import load_game
from gamedb.games.goofspiel import GoofspielState
from gamedb.games.goofspiel.index import GoofspielIndex, colex_table, layer_size, masks_of
from gamedb.solver.backward import enumerate_layers


def _face(n: int) -> GoofspielIndex:
    face = load_game(f"goofspiel(num_cards={n},returns_type=point_difference)").indexed_face()
    assert isinstance(face, GoofspielIndex)
    return face


def _layers(n: int) -> dict[int, np.ndarray]:
    return enumerate_layers(load_game(f"goofspiel(num_cards={n},returns_type=point_difference)"))


# N_k of 13 cards, design-thirteen-cards.md section 1 (computed there by exact counting).
THIRTEEN = {13: 13, 12: 12_324, 11: 1_897_896, 10: 53_484_860, 9: 355_990_635,
            8: 603_839_808, 7: 271_519_248, 6: 46_280_520, 5: 5_418_270, 4: 460_460,
            3: 27_456, 2: 1_092, 1: 26}


@pytest.mark.parametrize("n", range(1, 8))
def test_layer_counts_equal_the_positions_the_builder_enumerates(n: int) -> None:
    face = _face(n)
    for k, keys in _layers(n).items():
        assert layer_size(n, k) == face.size(k) == len(keys), k


def test_thirteen_card_counts_per_layer_and_total() -> None:
    assert {k: layer_size(13, k) for k in range(1, 14)} == THIRTEEN
    assert sum(THIRTEEN.values()) == 1_338_932_608
    face = _face(13)  # the tables agree with the formula (no solving)
    assert {k: face.size(k) for k in (1, 7, 8, 13)} == {k: THIRTEEN[k] for k in (1, 7, 8, 13)}


@pytest.mark.parametrize("n", range(1, 8))
def test_the_index_holds_exactly_the_keys_the_builder_enumerates_in_key_order(n: int) -> None:
    face = _face(n)
    for k, keys in _layers(n).items():
        got = face.keys(k, 0, face.size(k))
        assert np.array_equal(got, np.sort(keys)), k
        for start, stop in face.chunks(k, 50):  # any whole blocks
            assert np.array_equal(face.keys(k, start, stop), got[start:stop]), k


def test_every_key_the_builder_stores_is_the_indexs(built) -> None:  # type: ignore[no-untyped-def]
    face = _face(7)
    with sqlite3.connect(built("goofspiel(num_cards=7,returns_type=point_difference)")) as con:
        for k in face.layers():
            keys = np.array([key for (key,) in con.execute(
                "SELECT key FROM states WHERE layer = ? ORDER BY key", (k,))], np.int64)
            assert np.array_equal(face.keys(k, 0, face.size(k)), keys), k


def test_only_canonical_positions_are_indexed() -> None:
    game = load_game("goofspiel(num_cards=4,returns_type=point_difference)")
    face = game.indexed_face()
    assert face is not None
    one, two = mask_of((1, 2)), mask_of((2, 3))
    keys = [game.key(GoofspielState(a, b, mask_of((4,)), 1, 0, 0)) for a, b in ((one, two), (two, one))]
    stored = game.canonical(GoofspielState(one, two, mask_of((4,)), 1, 0, 0)).key
    layer = set(face.keys(2, 0, face.size(2)).tolist())
    assert stored in layer
    assert [key for key in keys if key not in layer] == [k for k in keys if k != stored]  # its twin


def test_chunks_are_whole_blocks_covering_the_layer() -> None:
    face = _face(6)
    for k in face.layers():
        chunks = face.chunks(k, 1000)
        block = len(face.layer(k).codes)  # a block (p, Q) holds every hand class
        assert chunks[0][0] == 0 and chunks[-1][1] == face.size(k)
        assert all(a[1] == b[0] for a, b in zip(chunks, chunks[1:]))
        assert all(start % block == 0 for start, _ in chunks)
    with pytest.raises(ValueError, match="whole blocks"):
        face.games(3, 1, 5, np.zeros(10_000))


def test_colex_rank_is_the_order_of_the_masks() -> None:
    rank = colex_table(6)
    for size in range(7):
        assert np.array_equal(rank[masks_of(6, size)], np.arange(len(masks_of(6, size))))


@pytest.mark.parametrize("spec", [
    "goofspiel(num_cards=4,ties=carry)",  # win/loss: test_goofspiel_winloss
    "goofspiel(num_cards=4,returns_type=point_difference,points_order=descending)",
    "goofspiel(num_cards=4,returns_type=point_difference,ties=carry)",
    "jujitsu(num_cards=3)",
])
def test_only_random_prizes_with_discarded_ties_are_indexed(spec: str) -> None:
    assert load_game(spec).indexed_face() is None


def test_raw_keys_are_never_indexed() -> None:
    spec = "goofspiel(num_cards=4,returns_type=point_difference)"
    assert load_game(spec, canonical_keys=False).indexed_face() is None
