"""``gamedb ship``: in place, and the float32 copy of a file with page layers."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gamedb import probe as stdlib_probe
from gamedb.builder import build
from gamedb.cli import cli
from gamedb.store.database import open_db
from gamedb.store.errors import StoreError
from gamedb.store.ship import ship_float32
from gamedb.verify import verify

SPEC = "goofspiel(num_cards=6,returns_type=point_difference)"


@pytest.fixture(scope="module")
def exact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ship") / "g6.sqlite"
    build(SPEC, path, pages_below=6, strategies_from=6, page_size=100)
    return path


def _values(path: Path) -> tuple[np.ndarray, np.ndarray]:
    with open_db(path) as db:
        parts = [(k, v) for layer in db.stored_layers() for k, v in
                 ((rows.keys, rows.numbers()) for rows in db.layer_rows(layer))]
    return np.concatenate([k for k, _ in parts]), np.concatenate([v for _, v in parts])


def test_the_float32_copy_holds_every_value_rounded_and_says_its_error(exact: Path,
                                                                       tmp_path: Path) -> None:
    before = hashlib.sha256(exact.read_bytes()).hexdigest()
    small = ship_float32(exact, tmp_path / "f32.sqlite")
    assert hashlib.sha256(exact.read_bytes()).hexdigest() == before  # only read
    keys, values = _values(exact)
    keys32, values32 = _values(tmp_path / "f32.sqlite")
    assert keys32.tolist() == keys.tolist()
    paged = keys >> 48 < 6
    assert (values32[paged] == values[paged].astype(np.float32)).all()  # rounded, nothing else
    assert (values32[~paged] == values[~paged]).all()  # rows stay float64
    error = float(np.abs(values32 - values).max())
    assert small.max_error == error and 0 < error < 1e-5 and small.values == paged.sum()
    assert small.report.size < exact.stat().st_size
    with open_db(tmp_path / "f32.sqlite") as db:
        assert db.meta["precision"] == {"page_values": "float32", "max_error": error}


def test_verify_allows_the_stated_rounding_error_and_no_more(exact: Path, tmp_path: Path) -> None:
    ship_float32(exact, tmp_path / "f32.sqlite")
    assert verify(tmp_path / "f32.sqlite").ok
    assert not verify(tmp_path / "f32.sqlite", tolerance=-1.0).ok  # the check still bites


def test_the_standard_library_probe_reads_float32_pages(exact: Path, tmp_path: Path) -> None:
    ship_float32(exact, tmp_path / "f32.sqlite")
    keys, values = _values(tmp_path / "f32.sqlite")
    with stdlib_probe.GameFile(tmp_path / "f32.sqlite") as book:
        assert [book.probe(int(k)).value for k in keys[::37]] == values[::37].tolist()


def test_cli_ship_float32_prints_the_error_and_the_checksum(exact: Path, tmp_path: Path) -> None:
    out = tmp_path / "f32.sqlite"
    result = CliRunner().invoke(cli, ["ship", str(exact), "--precision", "float32", "-o",
                                      str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "rounded to float32, largest error" in result.output
    assert hashlib.sha256(out.read_bytes()).hexdigest() + "  f32.sqlite" in result.output
    info = CliRunner().invoke(cli, ["info", str(out)]).output
    assert "precision   page values float32, largest error" in info


@pytest.mark.parametrize("args,message", [
    (["--precision", "float32"], "give --output"),
    (["-o", "x.sqlite"], "--output is for --precision float32"),
])
def test_cli_ship_usage_errors_are_one_line(exact: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, ["ship", str(exact), *args])
    assert result.exit_code == 2 and message in result.output


def test_float32_needs_page_layers_and_a_new_output(exact: Path, tmp_path: Path) -> None:
    rows = tmp_path / "j.sqlite"
    build("jujitsu(num_cards=4)", rows)
    with pytest.raises(StoreError, match="no values-only page layers"):
        ship_float32(rows, tmp_path / "x.sqlite")
    taken = tmp_path / "taken.sqlite"
    taken.write_bytes(b"mine")
    with pytest.raises(StoreError, match="exists"):
        ship_float32(exact, taken)
    assert taken.read_bytes() == b"mine" and not (tmp_path / "x.sqlite").exists()


def test_float32_refuses_to_write_over_the_source_s_own_journal(exact: Path) -> None:
    """``ship DB --precision float32 -o DB-journal`` wrote the copy there, and then
    ``info DB`` refused the file (found re-checking issue 21)."""
    before = exact.read_bytes()
    for suffix in ("-journal", "-wal"):
        result = CliRunner().invoke(cli, ["ship", str(exact), "--precision", "float32",
                                          "-o", f"{exact}{suffix}", "--quiet"])
        assert result.exit_code == 1 and "g6.sqlite's own" in result.output, result.output
        assert len(result.output.splitlines()) == 1
        assert not Path(f"{exact}{suffix}").exists()
    assert exact.read_bytes() == before
    assert CliRunner().invoke(cli, ["info", str(exact)]).exit_code == 0


def test_a_failed_float32_copy_leaves_no_output(exact: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from gamedb.store import ship as module

    def broken(*args: object, **kwargs: object) -> bytes:
        raise sqlite3.OperationalError("database or disk is full")
    monkeypatch.setattr(module, "encode_page", broken)
    with pytest.raises(StoreError, match="the disk filled up .* is unchanged"):
        ship_float32(exact, tmp_path / "f32.sqlite")
    assert not (tmp_path / "f32.sqlite").exists()


def test_the_float32_copy_reads_one_page_at_a_time(exact: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """13 cards: 8.9 GB of pages; reading them all at once peaked at 8.9 GB of RSS."""
    from gamedb.store import ship as module

    calls: list[str] = []
    connect = sqlite3.connect

    def traced(*args: object, **kwargs: object) -> sqlite3.Connection:
        conn = connect(*args, **kwargs)  # type: ignore[arg-type]
        conn.set_trace_callback(calls.append)
        return conn
    monkeypatch.setattr(module.sqlite3, "connect", traced)
    ship_float32(exact, tmp_path / "f32.sqlite")
    reads = [q for q in calls if q.lstrip().upper().startswith("SELECT") and "data" in q]
    with sqlite3.connect(exact) as conn:
        pages = conn.execute("SELECT count(*) FROM pages").fetchone()[0]
    assert len(reads) == pages > 1 and all("WHERE rowid = " in q for q in reads)


def test_float32_into_a_folder_it_cannot_write_names_the_folder_not_the_source(
        exact: Path, tmp_path: Path) -> None:
    """``-o nodir/x.sqlite`` said the good source was "damaged or not a gamedb database;
    rebuild it or restore a copy" (SQLite's "unable to open database file")."""
    before = exact.read_bytes()
    for output, said in ((tmp_path / "nodir" / "x.sqlite", "does not exist"),
                         (Path("/proc/x.sqlite"), "is not writable")):
        result = CliRunner().invoke(cli, ["ship", str(exact), "--precision", "float32",
                                          "-o", str(output), "--quiet"])
        assert result.exit_code == 1 and said in result.output, result.output
        assert "damaged" not in result.output and len(result.output.splitlines()) == 1
    assert exact.read_bytes() == before and not (tmp_path / "nodir").exists()
