"""The perfect index of point-difference Goofspiel: counts, bijection, the face's scope."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from gamedb.bits import mask_of
from gamedb.games import GameError, load_game
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
def test_rank_is_a_bijection_onto_0_to_N_and_unrank_inverts_it(n: int) -> None:
    face = _face(n)
    for k, keys in _layers(n).items():
        index = face.rank(k, keys)
        assert np.array_equal(np.sort(index), np.arange(len(keys))), k
        assert np.array_equal(face.keys(k, 0, face.size(k))[index], keys), k


def test_every_key_the_builder_stores_has_its_index(built) -> None:  # type: ignore[no-untyped-def]
    face = _face(7)
    with sqlite3.connect(built("goofspiel(num_cards=7,returns_type=point_difference)")) as con:
        for k in face.layers():
            keys = np.array([key for (key,) in con.execute(
                "SELECT key FROM states WHERE layer = ? ORDER BY key", (k,))], np.int64)
            assert np.array_equal(np.sort(face.rank(k, keys)), np.arange(face.size(k))), k


def test_rank_refuses_keys_of_no_position_of_the_layer() -> None:
    game = load_game("goofspiel(num_cards=4,returns_type=point_difference)")
    face = game.indexed_face()
    assert face is not None
    with pytest.raises(GameError, match="not a canonical position of layer 3"):
        face.rank(3, face.keys(2, 0, 1))  # a key of layer 2
    one, two = mask_of((1, 2)), mask_of((2, 3))
    keys = [game.key(GoofspielState(a, b, mask_of((4,)), 1, 0, 0)) for a, b in ((one, two), (two, one))]
    stored = [game.canonical(GoofspielState(one, two, mask_of((4,)), 1, 0, 0)).key]
    unstored = [key for key in keys if key not in stored]  # the player-swapped twin
    assert len(unstored) == 1 and len(face.rank(2, np.array(stored))) == 1
    with pytest.raises(GameError, match="not a canonical position of layer 2"):
        face.rank(2, np.array(unstored))


def test_chunks_are_whole_hand_classes_covering_the_layer() -> None:
    face = _face(6)
    for k in face.layers():
        chunks = face.chunks(k, 1000)
        block = face.layer(k).block
        assert chunks[0][0] == 0 and chunks[-1][1] == face.size(k)
        assert all(a[1] == b[0] for a, b in zip(chunks, chunks[1:]))
        assert all(start % block == 0 for start, _ in chunks)
    with pytest.raises(ValueError, match="whole hand classes"):
        face.stage_games(3, 1, 5, np.zeros(10_000))


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
