"""The builder's SQLite connection: a small, bounded page cache that changes no row."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from gamedb.builder import build
from gamedb.games import load_game
from gamedb.store import engine
from gamedb.store.writer import Writer


def _rows(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT key, layer, value, gap, strategy1, strategy2 FROM states "
                            "ORDER BY key").fetchall()


def test_the_writer_page_cache_is_at_most_16_mib(tmp_path: Path) -> None:
    """256 MiB filled up on every build over ~250 MB of file: most of the peak memory
    of a 9-card Goofspiel build (BENCHMARKS.md, GOPSsolver side by side)."""
    writer = Writer(tmp_path / "j4.sqlite", load_game("jujitsu(num_cards=4)"), {})
    try:
        (pages,) = writer._raw.execute("PRAGMA cache_size").fetchone()
    finally:
        writer.close()
    assert pages == -engine.WRITER_CACHE_KIB  # negative: KiB, not pages
    assert engine.WRITER_CACHE_KIB <= 16 * 1024


@pytest.mark.parametrize("spec", ["goofspiel(num_cards=5)",
                                  "goofspiel(num_cards=5,returns_type=point_difference)"])
def test_rows_do_not_depend_on_the_page_cache(tmp_path: Path, spec: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    build(spec, tmp_path / "default.sqlite")
    monkeypatch.setattr(engine, "WRITER_CACHE_KIB", 1)  # SQLite's floor: a few pages
    build(spec, tmp_path / "tiny.sqlite", chunk_size=64)
    monkeypatch.setattr(engine, "WRITER_CACHE_KIB", 256 * 1024)  # the old setting
    build(spec, tmp_path / "big.sqlite")
    default = _rows(tmp_path / "default.sqlite")
    assert len(default) > 1000
    assert _rows(tmp_path / "tiny.sqlite") == default == _rows(tmp_path / "big.sqlite")
