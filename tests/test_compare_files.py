"""``bench/compare_files.py``: two files compared position by position, streaming."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import compare_files  # noqa: E402  (bench/, not a package)

from gamedb.builder import build  # noqa: E402

SPEC = "goofspiel(num_cards=6,returns_type=point_difference)"


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same game built as rows and with its bigger layers as small keyed pages."""
    where = tmp_path_factory.mktemp("cmp")
    rows, pages = where / "rows.sqlite", where / "pages.sqlite"
    build(SPEC, rows, page_min=0, strategies_from=0)
    build(SPEC, pages, page_min=100, page_size=64, strategies_from=0)
    return rows, pages


def test_rows_and_pages_of_one_game_are_identical_window_by_window(
        two_builds: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(compare_files, "WINDOW", 100)  # many windows, pages cut across them
    assert compare_files.main(*map(str, two_builds)) == 0
    out = capsys.readouterr().out
    assert "(rows / pages)" in out and "every value, gap and strategy identical" in out


def test_one_changed_value_is_found(two_builds: tuple[Path, Path], tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    rows, pages = two_builds
    changed = tmp_path / "changed.sqlite"
    changed.write_bytes(rows.read_bytes())
    with sqlite3.connect(changed) as conn:
        key = conn.execute("SELECT max(key) FROM states WHERE layer = 5").fetchone()[0]
        conn.execute("UPDATE states SET value = value + 0.25 WHERE key = ?", (key,))
    monkeypatch.setattr(compare_files, "WINDOW", 100)
    assert compare_files.main(str(changed), str(pages)) == 1
    out = capsys.readouterr().out
    assert "max |diff| 2.5e-01" in out and "DIFFERENT" in out
