"""gamedb sql, key, export and ship: read-only SQL, keys for other tools, exports, shipping."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from gamedb.cli import cli


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("command", ["sql", "key", "export", "ship"])
def test_every_new_command_has_help_with_an_example(command: str) -> None:
    code, out, _ = run(command, "--help")
    assert code == 0 and "Example:" in out


def test_sql_prints_a_table_json_or_csv(built) -> None:
    db = str(built("jujitsu(num_cards=4)"))
    query = "SELECT position, round(value, 6) AS value FROM positions WHERE layer = 4"
    code, out, _ = run("sql", db, query)
    assert code == 0 and out.split("\n")[0].split() == ["position", "value"]
    assert "hand1=1,2,3,4 hand2=1,2,3,4 pot=0 diff=0" in out
    code, out, _ = run("sql", db, query, "--json")
    assert code == 0 and json.loads(out) == [
        {"position": "hand1=1,2,3,4 hand2=1,2,3,4 pot=0 diff=0", "value": 0.0}]
    code, out, _ = run("sql", db, "SELECT key, player, action, prob FROM strategies", "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    with sqlite3.connect(db) as conn:
        assert code == 0 and len(rows) == conn.execute("SELECT count(*) FROM strategies").fetchone()[0]


@pytest.mark.parametrize("query, message", [
    ("DELETE FROM states", "attempt to write a readonly database"),
    ("SELEKT 1", "syntax error"),
    ("SELECT * FROM nowhere", "no such table: nowhere"),
    ("ATTACH DATABASE 'other.sqlite' AS other", "not authorized"),
])
def test_sql_refuses_writes_and_bad_sql_in_one_line(built, tmp_path: Path, query: str,
                                                     message: str) -> None:
    db = tmp_path / "j.sqlite"
    shutil.copy(built("jujitsu(num_cards=4)"), db)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    code, _, err = run("sql", str(db), query)
    assert code == 1 and message in err and len(err.strip().splitlines()) == 1
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not (tmp_path / "other.sqlite").exists()


def test_sql_on_a_missing_file_is_a_user_error() -> None:
    code, _, err = run("sql", "missing.sqlite", "SELECT 1")
    assert code == 1 and "no such database file" in err


def test_key_prints_the_canonical_key_and_the_card_ranks() -> None:
    position = "hand1=2,7 hand2=4,8 pot=0 diff=-2"
    code, out, _ = run("key", "jujitsu(num_cards=8)", position, "--json")
    info = json.loads(out)
    assert code == 0 and info["key"] == 562950016338437 and info["layer"] == 2
    assert info["swapped"] is False and info["stored_position"] == "hand1=1,3 hand2=2,4 pot=0 diff=-2"
    assert info["players"]["1"] == {"stored_player": 1, "actions": {"2": 1, "7": 3}}
    code, out, _ = run("key", "jujitsu(num_cards=8)", "hand1=4,8 hand2=2,7 pot=0 diff=2")
    assert code == 0 and "swapped          yes" in out and "562950016338437" in out


def test_key_of_an_oshi_zumo_position_keeps_bids() -> None:
    code, out, _ = run("key", "oshi_zumo(coins=50)", "coins1=17 coins2=34 pos=3", "--json")
    info = json.loads(out)
    assert code == 0 and info["swapped"] is True and info["players"]["1"]["stored_player"] == 2
    assert info["players"]["1"]["actions"]["17"] == 17


@pytest.mark.parametrize("spec, position, message", [
    ("jujitsu(num_cards=3)", "hand1=- hand2=- pot=0 diff=1", "the game is over"),
    ("goofspiel(num_cards=3)", "start", "a chance draw comes next"),
    ("jujitsu(num_cards=3)", "hand1=1,2 hand2=1", "same size"),
])
def test_key_refuses_positions_that_are_never_stored(spec: str, position: str, message: str) -> None:
    code, _, err = run("key", spec, position)
    assert code == 1 and message in err


def test_export_jsonl_has_every_position_with_real_and_stored_strategies(built) -> None:
    db = str(built("jujitsu(num_cards=5)"))
    code, out, _ = run("export", db, "--quiet")
    records = [json.loads(line) for line in out.splitlines()]
    with sqlite3.connect(db) as conn:
        assert len(records) == conn.execute("SELECT count(*) FROM states").fetchone()[0]
        start = conn.execute("SELECT position, value FROM positions WHERE layer = 5").fetchone()
    top = records[-1]
    assert code == 0 and (top["position"], top["value"]) == start
    assert top["strategy"] == top["stored_strategy"] and "5" not in top["strategy"]["1"]


def test_export_csv_to_a_file_has_one_row_per_strategy_entry(built, tmp_path: Path) -> None:
    db = built("oshi_zumo(coins=6,size=2)")
    target = tmp_path / "o.csv"
    code, out, _ = run("export", str(db), "--format", "csv", "--output", str(target), "--quiet")
    rows = list(csv.DictReader(target.open()))
    with sqlite3.connect(db) as conn:
        count = conn.execute("SELECT count(*) FROM strategies").fetchone()[0]
    assert code == 0 and len(rows) == count and "positions" in out
    assert set(rows[0]) == {"key", "layer", "position", "value", "gap", "player", "action",
                            "bid", "prob"}
    assert all(row["bid"] == row["action"] for row in rows)


def test_export_csv_keeps_positions_without_strategies_on_a_row_of_their_own(
        tmp_path: Path) -> None:
    """A values-only file (or layers below --strategies-from) exported as CSV said
    "298 positions" and wrote the header alone: a position's rows were its strategy
    entries, and it had none. It now has one row, its action columns empty."""
    from gamedb.builder import build

    db = tmp_path / "v.sqlite"
    build("jujitsu(num_cards=6)", db, values_only=True)
    target = tmp_path / "v.csv"
    code, out, _ = run("export", str(db), "--format", "csv", "--output", str(target), "--quiet")
    rows = list(csv.DictReader(target.open()))
    with sqlite3.connect(db) as conn:
        count = conn.execute("SELECT count(*) FROM states").fetchone()[0]
    assert code == 0 and f"{count:,} positions" in out and len(rows) == count
    assert {(row["player"], row["action"], row["card"], row["prob"]) for row in rows} == {
        ("", "", "", "")}
    assert len({row["key"] for row in rows}) == count


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_export_refuses_to_replace_a_file_that_exists(built, tmp_path: Path, fmt: str) -> None:
    """``export -o`` replaced any file, another database too (``book`` and ``ship``
    refuse an output that exists)."""
    db = built("jujitsu(num_cards=4)")
    victim = tmp_path / "victim.sqlite"
    shutil.copy(db, victim)
    before = victim.read_bytes()
    code, out, err = run("export", str(db), "--format", fmt, "--output", str(victim), "--quiet")
    assert code == 1 and out == "" and "victim.sqlite exists" in err
    assert victim.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == [
        "victim.sqlite"]


@pytest.mark.parametrize("query", ["   ", "-- just a comment", "/* nothing */"])
def test_sql_without_a_statement_says_so(built, query: str) -> None:
    """Blanks printed a blank line (exit 0); a comment was taken for an option ("No such
    option '-- just a comment'")."""
    code, out, err = run("sql", str(built("jujitsu(num_cards=4)")), query)
    assert code == 1 and out == "" and "no SQL statement to run" in err


def test_sql_attach_is_refused_in_words(built, tmp_path: Path) -> None:
    """SQLite's "not authorized" alone, where the docs call ATTACH a refused write."""
    code, out, err = run("sql", str(built("jujitsu(num_cards=4)")),
                         f"ATTACH '{tmp_path / 'x.sqlite'}' AS x")
    assert code == 1 and "not authorized: a file is read here only" in err
    assert not (tmp_path / "x.sqlite").exists()


def test_sql_may_start_with_a_comment(built) -> None:
    code, out, _ = run("sql", str(built("jujitsu(num_cards=4)")),
                       "-- how many\nSELECT count(*) AS n FROM states", "--json")
    assert code == 0 and json.loads(out) == [{"n": 32}]


def test_an_export_stopped_by_sigterm_leaves_no_partial_file(tmp_path: Path) -> None:
    """Ctrl-C removed the hidden ``.NAME.part`` an export writes; ``kill`` (SIGTERM) left
    it (458 MB of an 8-card export). SIGTERM now stops it as a Ctrl-C does."""
    import signal
    import subprocess
    import sys
    import time

    from gamedb.builder import build

    db = tmp_path / "g7.sqlite"
    build("goofspiel(num_cards=7)", db)
    export = subprocess.Popen([sys.executable, "-m", "gamedb", "export", str(db), "-o",
                               str(tmp_path / "g7.jsonl"), "--quiet"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]:
        assert export.poll() is None and time.monotonic() < deadline, "export ended first"
        time.sleep(0.01)
    time.sleep(0.2)  # rows being written
    export.send_signal(signal.SIGTERM)
    _, err = export.communicate(timeout=60)
    assert export.returncode == 130 and err.strip() == "interrupted"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g7.sqlite"]


def test_ship_finalises_a_file_and_prints_its_checksum(built, tmp_path: Path) -> None:
    db = tmp_path / "j4.shipped.sqlite"
    shutil.copy(built("jujitsu(num_cards=4)"), db)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.close()
    code, out, err = run("ship", str(db))
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    assert code == 0 and out.strip() == f"{digest}  j4.shipped.sqlite", err
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert run("verify", str(db))[0] == 0


def test_shipping_a_shipped_file_again_changes_no_byte(built, tmp_path: Path) -> None:
    """Each ``ship`` gave another checksum: SQLite's header counts the writes (its change
    counter, the schema cookie and the version-valid-for number), and VACUUM is a
    write. A shipped file's counters are set to 1, so shipping is repeatable."""
    db = tmp_path / "j4.sqlite"
    shutil.copy(built("jujitsu(num_cards=4)"), db)
    first = run("ship", str(db))[1]
    second = run("ship", str(db))[1]
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:  # as SQLite reads them
        assert conn.execute("PRAGMA schema_version").fetchone() == (1,)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()
    assert first == second and first.split()[0] == hashlib.sha256(db.read_bytes()).hexdigest()
    header = db.read_bytes()[:100]
    assert header[24:28] == header[92:96] == (1).to_bytes(4, "big")
    assert run("verify", str(db))[0] == 0


def test_ship_refuses_an_unfinished_build(built, tmp_path: Path) -> None:
    db = tmp_path / "j4.sqlite"
    shutil.copy(built("jujitsu(num_cards=4)"), db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = '\"building\"' WHERE name = 'status'")
    code, _, err = run("ship", str(db))
    assert code == 1 and "the build is not finished: 32 of 32 positions; run the same build " \
        "command to resume, then ship it" in err


@pytest.mark.parametrize("damage", ["not a database", "damaged content"])
def test_a_failed_export_leaves_the_existing_output_byte_identical(built, tmp_path: Path,
                                                                  damage: str) -> None:
    db = tmp_path / "bad.sqlite"
    if damage == "not a database":
        db.write_bytes(b"junk" * 100)
    else:
        shutil.copy(built("jujitsu(num_cards=4)"), db)
        conn = sqlite3.connect(db, isolation_level=None)
        conn.execute("UPDATE states SET strategy1 = '{\"1\":' WHERE layer = 4")
        conn.execute("PRAGMA journal_mode=DELETE")  # readers then leave no -wal beside it
        conn.close()
    target = tmp_path / "keep.csv"
    target.write_bytes(b"precious,data\n1,2\n")
    code, _, err = run("export", str(db), "--output", str(target), "--quiet", "--force")
    assert code == 1 and len(err.strip().splitlines()) == 1 and "exists" not in err
    assert target.read_bytes() == b"precious,data\n1,2\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.sqlite", "keep.csv"]


def test_export_replaces_the_output_only_when_done(built, tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("old\n")
    code, _, _ = run("export", str(built("jujitsu(num_cards=4)")), "-o", str(target), "--quiet",
                     "--force")
    assert code == 0 and target.read_text().count("\n") == 32
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_export_of_an_impartial_file_carries_its_grundy_values(built, tmp_path: Path) -> None:
    db = built("nim(heaps=1-2-3)")
    with sqlite3.connect(db) as conn:
        stored = dict(conn.execute("SELECT key, grundy FROM grundy"))
    code, out, _ = run("export", str(db), "--quiet")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and {r["key"]: r["grundy"] for r in records} == stored
    assert {0, 1} < set(stored.values())
    target = tmp_path / "nim.csv"
    code, _, _ = run("export", str(db), "--format", "csv", "--output", str(target), "--quiet")
    rows = list(csv.DictReader(target.open()))
    assert code == 0 and {int(r["key"]): int(r["grundy"]) for r in rows} == stored
    code, out, _ = run("export", str(built("jujitsu(num_cards=4)")), "--quiet")
    assert code == 0 and "grundy" not in json.loads(out.splitlines()[0])  # partisan: none


def test_export_of_a_damaged_grundy_row_is_one_line(built, tmp_path: Path) -> None:
    db = tmp_path / "nim.sqlite"
    shutil.copy(built("nim(heaps=1-2-3)"), db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE grundy SET grundy = 'x' WHERE key = (SELECT max(key) FROM grundy)")
    code, out, err = run("export", str(db), "--quiet")
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "the Grundy value 'x' is not a non-negative integer" in err


#: Rows without end: a command that reads all before printing never prints one.
_ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"


@pytest.mark.parametrize("form", [[], ["--csv"], ["--json"]])
def test_sql_streams_rows_and_stops_quietly_when_the_reader_does(form: list[str]) -> None:
    import os
    import subprocess
    import sys

    shipped = Path(__file__).resolve().parents[1] / "data" / "jujitsu_num_cards=8_ties=carry.shipped.sqlite"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    process = subprocess.Popen([sys.executable, "-m", "gamedb", "sql", str(shipped), _ENDLESS,
                                *form], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env)
    assert process.stdout is not None
    import threading

    guard = threading.Timer(60, process.kill)  # a command that never prints: fail, not hang
    guard.start()
    try:
        lines = [process.stdout.readline() for _ in range(3)]  # what `| head -3` reads
        assert all(lines) and b"1" in b"".join(lines)
        process.stdout.close()  # head exits: the next write meets a broken pipe
        _, err = process.communicate(timeout=60)
    finally:
        guard.cancel()
        process.kill()
    assert b"Traceback" not in err and b"Broken pipe" not in err, err.decode()
    assert process.returncode in (0, 1, -13, 141), err.decode()


def test_two_statements_are_refused_in_gamedbs_words(built) -> None:  # type: ignore[no-untyped-def]
    """It said Python's "You can only execute one statement at a time." """
    code, _, err = run("sql", str(built("jujitsu(num_cards=4)")), "SELECT 1; SELECT 2")
    assert code == 1 and err.strip().endswith(": one statement at a time: run each on its own")
