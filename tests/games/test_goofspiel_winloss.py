"""The index of win/loss Goofspiel: its positions are the builder's, in key order."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from gamedb.builder import build
from gamedb.games import load_game
from gamedb.games.goofspiel.winloss import MAX_CARDS, WinLossIndex, radius
from gamedb.solver.backward import enumerate_layers
from gamedb.verify import verify
from tests.sources import solve_source

# Positions per layer of 9-card win/loss (`SELECT layer, count(*) FROM states GROUP BY
# layer` of a generic `gamedb build "goofspiel(num_cards=9)"`, this session).
NINE = {1: 153, 2: 9_864, 3: 240_588, 4: 2_544_852, 5: 7_107_305, 6: 3_082_842,
        7: 225_512, 8: 2_664, 9: 9}


def _face(n: int) -> WinLossIndex:
    face = load_game(f"goofspiel(num_cards={n})").indexed_face()
    assert isinstance(face, WinLossIndex)
    return face


@pytest.mark.parametrize("n", range(1, 8))
def test_the_face_holds_exactly_the_keys_the_builder_enumerates_in_key_order(n: int) -> None:
    face = _face(n)
    for k, keys in enumerate_layers(load_game(f"goofspiel(num_cards={n})")).items():
        assert face.size(k) == len(keys), k
        got = face.keys(k, 0, face.size(k))
        assert np.array_equal(got, np.sort(keys)), k
        start, stop = len(keys) // 3, len(keys) // 3 + len(keys) // 2 + 1  # any range
        assert np.array_equal(face.keys(k, start, stop), got[start:stop]), k


def test_nine_card_counts_per_layer() -> None:
    face = _face(9)
    assert {k: face.size(k) for k in face.layers()} == NINE


def test_chunks_cut_at_blocks_and_cover_the_layer_once() -> None:
    face = _face(6)
    for k in face.layers():
        chunks = face.chunks(k, 500)
        assert chunks[0][0] == 0 and chunks[-1][1] == face.size(k)
        assert all(a[1] == b[0] for a, b in zip(chunks, chunks[1:]))
        assert set(c[0] for c in chunks) <= set(face.blocks(k)[3].tolist())


def test_accumulating_in_any_ranges_gives_the_same_summary() -> None:
    face = _face(6)
    values = {k: layer.values for k, layer in solve_source(face).items()}
    for k in (3, 5):
        whole = np.zeros(face.summary_size(k))
        face.accumulate(k, 0, face.size(k), values[k], whole)
        parts = np.zeros(face.summary_size(k))
        cuts = [0, 7, 100, face.size(k) // 2, face.size(k)]
        for start, stop in zip(cuts, cuts[1:]):
            face.accumulate(k, start, stop, values[k][start:stop], parts)
        assert np.array_equal(parts, whole)


def test_the_root_is_a_fair_game_and_values_are_win_loss_payoffs() -> None:
    face = _face(5)
    solved = solve_source(face)
    assert all(np.abs(layer.values).max() <= 1 + 1e-12 for layer in solved.values())
    root = solved[5].summary
    assert abs(root[radius(5, 5)]) < 1e-12  # the root chance node: score 0


def test_only_random_order_discarded_ties_and_at_most_ten_cards_have_the_face() -> None:
    assert MAX_CARDS == 10
    assert load_game("goofspiel(num_cards=11)").indexed_face() is None  # generic builder
    assert load_game("goofspiel(num_cards=5,ties=carry)").indexed_face() is None
    assert load_game("goofspiel(num_cards=5,points_order=descending)").indexed_face() is None
    assert isinstance(load_game("goofspiel(num_cards=10)").indexed_face(), WinLossIndex)


def test_verify_samples_a_win_loss_file_through_the_face_and_catches_damage(tmp_path: Path) -> None:
    path = tmp_path / "w5.sqlite"
    build("goofspiel(num_cards=5)", path)
    report = verify(path, sample=500, seed=2)
    assert report.ok and report.checked == 500
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE states SET value = value + 0.25 WHERE layer = 3")
    assert verify(path, sample=500, seed=2).failures > 0
