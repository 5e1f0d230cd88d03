"""The index of win/loss Goofspiel: its positions are the builder's, in key order."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from gamedb.builder import build
from gamedb.games import load_game
from gamedb.games.goofspiel.scores import WORD_BITS
from gamedb.games.goofspiel.winloss import COUNTED, MAX_CARDS, Dense, WinLossIndex
from gamedb.solver.backward import enumerate_layers
from gamedb.solver.matrix_game import solve_games
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
@pytest.mark.parametrize("word_bits", [WORD_BITS, 5, 1])  # 5, 1: score sets of many words
def test_the_face_holds_exactly_the_keys_the_builder_enumerates_in_key_order(
        n: int, word_bits: int) -> None:
    face = _face(n).with_word_bits(word_bits)
    assert word_bits == WORD_BITS or n < 4 or max(face.words.values()) > 1
    for k, keys in enumerate_layers(load_game(f"goofspiel(num_cards={n})")).items():
        assert face.size(k) == len(keys), k
        got = face.keys(k, 0, face.size(k))
        assert np.array_equal(got, np.sort(keys)), k
        start, stop = len(keys) // 3, len(keys) // 3 + len(keys) // 2 + 1  # any range
        assert np.array_equal(face.keys(k, start, stop), got[start:stop]), k


# Positions per layer of 10-card win/loss (`gamedb info --json` of the file a build with
# one-word score sets wrote: the 2.54 GB file of BENCHMARKS.md "Keyed pages").
TEN = {1: 185, 2: 13_500, 3: 384_435, 4: 5_504_148, 5: 33_917_295, 6: 46_883_340,
       7: 11_303_859, 8: 517_680, 9: 4_140, 10: 10}


def test_nine_card_counts_per_layer() -> None:
    face = _face(9)
    assert {k: face.size(k) for k in face.layers()} == NINE
    assert {k: face.with_word_bits(7).size(k) for k in face.layers()} == NINE  # 2-3 words


@pytest.mark.slow
def test_ten_card_counts_per_layer_are_the_built_files() -> None:
    face = _face(10)
    assert {k: face.size(k) for k in face.layers()} == TEN


@pytest.mark.slow
def test_the_recorded_eleven_card_counts_are_the_forward_passs() -> None:
    face = _face(11)
    assert face.size(6) == 337_437_822  # recorded: no forward pass yet
    face.reach()  # counts again and checks the record (RuntimeError if it differs)
    assert tuple(face.size(k) for k in face.layers()) == COUNTED[11][0]
    assert tuple(face.summary_size(k) for k in face.layers()) == COUNTED[11][1]


def test_a_wrong_record_is_caught_by_the_forward_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    counted = tuple(_face(5).size(k) for k in range(1, 6))
    summaries = tuple(_face(5).summary_size(k) for k in range(1, 6))
    monkeypatch.setitem(COUNTED, 5, (counted, summaries))
    _face(5).reach()  # the right record passes
    monkeypatch.setitem(COUNTED, 5, (counted[:-1] + (counted[-1] + 1,), summaries))
    face = _face(5)
    assert face.size(5) == counted[-1] + 1  # believed until the pass runs
    with pytest.raises(RuntimeError, match="5-card win/loss"):
        face.reach()


def test_counting_and_cutting_into_blocks_agree_at_any_word_size() -> None:
    face = _face(7)
    for bits in (WORD_BITS, 7, 3):
        counted, cut = face.with_word_bits(bits), face.with_word_bits(bits)
        for k in face.layers():
            offsets = cut.blocks(k)[3]  # cut first: then size reads the blocks
            assert np.array_equal(offsets, face.blocks(k)[3]), (bits, k)
            assert counted.size(k) == cut.size(k) == offsets[-1], (bits, k)


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
    assert face.summary_size(5) == 1 and abs(root[0]) < 1e-12  # the root: score 0


def test_only_random_order_and_discarded_ties_have_the_face_at_every_size() -> None:
    assert MAX_CARDS == 13
    for n in (11, 13):  # score sets of -R..0: 34 and 46 bits, one word (tables not built)
        face = load_game(f"goofspiel(num_cards={n})").indexed_face()
        assert isinstance(face, WinLossIndex) and set(face.words.values()) == {1}
    assert _face(4).with_word_bits(5).words == {1: 1, 2: 2, 3: 2, 4: 2}  # R_k + 1 = 5, 6, 6, 6
    with pytest.raises(ValueError, match="1..63 bits"):
        _face(3).with_word_bits(64)
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


@pytest.mark.parametrize("n,word_bits", [(7, WORD_BITS), (6, 5)])
def test_a_range_reads_only_its_slice_of_the_layer_below(n: int, word_bits: int) -> None:
    """The stage games of any range from ``slice_below`` (the prize sets its blocks draw
    from) are the same doubles as from the whole summary, and the slice of a range of
    one block is a small part of the summary."""
    face = _face(n).with_word_bits(word_bits)
    summaries = {k: layer.summary for k, layer in solve_source(face, 250).items()}
    for k in face.layers():
        below = summaries.get(k - 1)
        ranges = face.chunks(k, 97) + [(0, face.size(k))]
        for start, stop in ranges:
            part = face.slice_below(k, start, stop, below)
            whole = face.games(k, start, stop, below)
            sliced = face.games(k, start, stop, part)
            assert all(np.array_equal(a, b) for a, b in zip(whole, sliced)), (k, start, stop)
        if k > 2:
            offsets = face.blocks(k)[3]
            j = int(np.flatnonzero(np.diff(offsets))[0])  # the first block with positions
            one = face.slice_below(k, int(offsets[j]), int(offsets[j + 1]), below)
            assert 0 < one.chance.nbytes < below.nbytes / 4, k


@pytest.mark.parametrize("n,word_bits,target", [(7, WORD_BITS, 3_000), (7, WORD_BITS, 1),
                                                (6, 5, 400)])
def test_map_by_prize_set_and_reduce_by_prize_set_give_the_same_doubles(
        n: int, word_bits: int, target: int) -> None:
    """A layer cut in prize-set groups (``goofspiel.groups``): each group's map, from the
    layer's shared tables and its own cells only (``for_layer``, ``group_cells``), reads
    only its part of the summary below and builds the same stage games and keys; the
    reduce of its contributions as whole segments, from every group in any order, is the
    same part of the summary that ``accumulate`` builds in key order, bit for bit; the
    chunks never cross a run."""
    face = _face(n).with_word_bits(word_bits).with_group_target(target)
    summaries = {k: layer.summary for k, layer in solve_source(face, 250).items()}
    several = 0
    for k in face.layers():
        below = summaries.get(k - 1)
        chunks = face.chunks(k, 50)
        assert [a for a, _ in chunks[1:]] == [b for _, b in chunks[:-1]]
        assert chunks[0][0] == 0 and chunks[-1][1] == face.size(k)
        groups = face.map_groups(k, 50)
        assert sorted(i for numbers in groups.values() for i in numbers) == list(range(len(chunks)))
        several += len(groups) > 1
        tables = face.for_layer(k)
        pieces: dict[int, list[Dense]] = {}
        for g in reversed(sorted(groups)):  # any order of the map tasks
            part = None if k == 1 else face.partition(k - 1, g, below)
            cells = face.group_cells(k, g)
            held = [cells.numbering, cells.reach, cells.first]
            if cells.below is not None:
                held += [cells.below.local, cells.below.reach, cells.below.first]
            assert sum(a.nbytes for a in held) == face.cells_bytes(k)[g], (k, g)
            if len(groups) > 3 and k < n:  # a few prize sets' score sets, not all
                assert cells.reach.nbytes < face.reach()[k].nbytes, (k, g)
            mine = tables.with_cells(cells)
            sliced = mine.group_slice(k, g, part)
            raw: dict[int, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
            for i in groups[g]:
                start, stop = chunks[i]
                whole = face.games(k, start, stop, below)
                games = mine.games(k, start, stop, sliced)
                assert all(np.array_equal(a, b) for a, b in zip(whole, games)), (k, g, i)
                assert np.array_equal(mine.keys(k, start, stop), face.keys(k, start, stop))
                values = solve_games(*whole).values
                for h, piece in mine.contributions(k, start, stop, values).items():
                    raw.setdefault(h, []).append(piece)
            for h, got in raw.items():
                joined = tuple(np.concatenate(a) for a in zip(*got))
                pieces.setdefault(h, []).append(mine.dense(k, h, joined))
        bounds = face.set_bounds(k)
        assert sorted(pieces) == list(range(len(bounds) - 1)), k
        for h, got in pieces.items():
            want = face.partition(k, h, summaries[k])
            reduced = face.reduce(len(want), got[::-1])
            assert reduced.tobytes() == want.tobytes(), (k, h)
    assert several >= (3 if target < 1_000 else 1)



def test_terms_that_are_not_one_a_chance_value_and_draw_are_refused() -> None:
    """``dense`` makes whole segments only: a missing or a doubled term (a map task's
    chunk lost or counted twice) is an error, not a summary with a hole."""
    face = _face(6).with_group_target(400)
    summaries = {k: layer.summary for k, layer in solve_source(face, 250).items()}
    k = 4
    g = max(face.map_groups(k, 50))
    chunks = face.chunks(k, 50)
    sliced = face.group_slice(k, g, face.partition(k - 1, g, summaries[k - 1]))
    raw: dict[int, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
    for i in face.map_groups(k, 50)[g]:
        start, stop = chunks[i]
        values = solve_games(*face.games(k, start, stop, sliced)).values
        for h, piece in face.contributions(k, start, stop, values).items():
            raw.setdefault(h, []).append(piece)
    h, pieces = next(iter(raw.items()))
    entry, term, draw = (np.concatenate(a) for a in zip(*pieces))
    spans, _, whole = face.dense(k, h, (entry, term, draw))
    assert len(whole) == int((spans[:, 1] - spans[:, 0]).sum()) == len(entry)
    for bad in [(entry[1:], term[1:], draw[1:]),  # one term missing
                (np.append(entry[1:], entry[2]), np.append(term[1:], term[2]),
                 np.append(draw[1:], draw[2]))]:  # one missing, another twice
        with pytest.raises(RuntimeError, match="not one a chance value and draw"):
            face.dense(k, h, bad)
