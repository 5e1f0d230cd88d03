"""Agreement with the C++ GOPSsolver, entry by entry (bench/gopssolver_values.py).

GOPSsolver is built outside the repository; the side-by-side test runs only where
``GOPSSOLVER`` names its ``cpp_solver`` binary (CI has none: it skips). The cache reader
and the mapping of its states to our positions are tested without it, on cache files
written here whose entries are solved by hand.
"""

from __future__ import annotations

import os
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from gopssolver_values import (  # bench/, via conftest
    HEADER, MAGIC, THRESHOLDS, compare_files, read_cache, resolve,
)

from gamedb.builder import build
from gamedb.store import open_db

BINARY = os.environ.get("GOPSSOLVER", "")


def write_cache(path: Path, entries: list[tuple[int, int, int, int, int, float]]) -> None:
    """Write entries (A, B, P, diff, curP, value) as ``cpp_solver --cache-out`` does."""
    records = np.array([(a | b << 16 | p << 32 | (d & 0xFF) << 48 | c << 56, v)
                        for a, b, p, d, c, v in entries], [("key", "<u8"), ("value", "<f8")])
    path.write_bytes(HEADER.pack(MAGIC, 1, 0, len(records)) + records.tobytes())


# (A, B, P, diff, curP, value) in a 4-card game: card c is bit c - 1, hands relabelled by
# rank as GOPSsolver stores them (diff >= 0), each reachable and solved by hand.
BY_HAND = [
    (0b10, 0b01, 0, 0, 2, 1.0),        # last round: A's 2 takes prize 2, wins 2-0
    (0b01, 0b10, 0, 1, 2, -1.0),       # A leads by 1 and loses prize 2 (our twin: diff -1)
    (0b01, 0b10, 0, 5, 1, 1.0),        # 5 ahead with 1 point left: decided, not stored
    # A {1,2} against B {2,3}, prize 2 then 4, A 4 ahead: A's 1 or 2 against B's 2 or 3
    # ends -1, +1 / 0, -1: A plays 1 with 1/3
    (0b011, 0b110, 0b1000, 4, 2, -1 / 3),
    (0b011, 0b110, 0b1000, 5, 1, 0.5),  # the same hands 5 ahead, prize 1: 0, +1 / +1, 0
]


@pytest.mark.parametrize("paged", [False, True])
def test_hand_solved_entries_map_to_the_same_values(built, tmp_path: Path, paged: bool) -> None:
    cache_path = tmp_path / "hand.evc"
    write_cache(cache_path, BY_HAND)
    cache = read_cache(cache_path)
    path = built("goofspiel(num_cards=4)")
    if paged:  # every layer of 10 positions or more as pages (9 cards' big layers are)
        build("goofspiel(num_cards=4)", path := tmp_path / "paged.sqlite", page_min=10)
    with open_db(path) as db:
        assert bool(db.pages.layers) == paged
        mapped, keys, _, result = compare_files(cache, db)
    assert np.abs(result.ours - [v for *_, v in BY_HAND]).max() <= 1e-12  # no NaN either
    assert mapped.keys[2] == -1 and mapped.signs[1] == -1.0  # decided; the stored twin
    assert result.symmetric <= result.unreached == len(keys) - len(set(mapped.keys) - {-1})


@pytest.mark.parametrize("content, message", [
    (b"GOPS", "shorter than a GOPSsolver cache header"),
    (b"NOTGOPS\0" + bytes(16), "not a GOPSsolver EV cache of format 1"),
    (HEADER.pack(MAGIC, 1, 0, 3) + bytes(16), "but its header counts 3 records"),
])
def test_a_file_that_is_no_cache_is_one_error_line(tmp_path: Path, content: bytes,
                                                   message: str) -> None:
    path = tmp_path / "bad.evc"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message) as error:
        read_cache(path)
    assert "\n" not in str(error.value)


@pytest.mark.skipif(not Path(BINARY).is_file(), reason="GOPSSOLVER does not name GOPSsolver's "
                    "cpp_solver (built outside the repository: bench/gopssolver.py)")
@pytest.mark.parametrize("objective, spec", [
    ("win", "goofspiel(num_cards=5)"),
    ("points", "goofspiel(num_cards=5,returns_type=point_difference)")])
def test_every_gopssolver_entry_has_our_value(built, tmp_path: Path, objective: str,
                                              spec: str) -> None:
    cache_path = tmp_path / "g5.evc"
    subprocess.run([BINARY, "--n", "5", "--objective", objective, "--cache-out",
                    str(cache_path)], check=True, capture_output=True, timeout=60)
    cache = read_cache(cache_path)
    with open_db(built(spec)) as db:
        mapped, keys, values, result = compare_files(cache, db)
    assert not np.isnan(result.ours).any()  # every entry mapped
    assert np.abs(result.difference).max() <= 1e-9
    # GLPK's floating simplex is off by up to ~1e-12 points here (5-card points: one entry,
    # 1.1e-12): where the values differ by more than 1e-12, ours is the exact value of
    # the stage game (rational simplex) and GOPSsolver's is further from its own
    with open_db(built(spec)) as db:
        for i in np.flatnonzero(np.abs(result.difference) > THRESHOLDS[0]).tolist():
            r = resolve(cache, mapped, result, db, keys, values, i)
            assert abs(Fraction(r.ours) - r.exact_ours) <= 1e-13
            assert abs(Fraction(r.gops) - r.exact_gops) > abs(Fraction(r.ours) - r.exact_ours)
    # ours beyond its entries: only equal hands at diff 0, which GOPSsolver never caches
    assert result.unreached == result.symmetric > 0 and result.symmetric_max <= 1e-12
    assert len(cache) > len(keys) // 2
