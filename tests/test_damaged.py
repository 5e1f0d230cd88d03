"""A file damaged by hand, each way, under every command: one line naming the file, exit 1.

Each damage is made with plain SQL on a copy of a small built file. A command that reads
the damaged part fails with one line on stderr that names the file (exit 1); one that
does not read it (``info`` of a file whose rows are damaged, ``build`` of a complete
file) works as usual. No command prints a traceback or changes the file.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from gamedb.cli import cli
from gamedb.verify import verify

SPEC = "jujitsu(num_cards=4)"
ROOT = "(SELECT max(key) FROM states)"  # the start: the only position of the top layer
CHILD = "(SELECT max(key) FROM states WHERE layer = 3)"  # a successor of the start

EVERY = {"info", "show", "verify", "export", "match", "play", "build"}
READ_ROOT = {"show", "verify", "export", "match", "play"}  # what reads the start's row

DAMAGES = {  # name: (SQL, commands that must fail)
    "meta not JSON": ("UPDATE meta SET value = '{broken' WHERE name = 'params'", EVERY),
    "spec not JSON": ("UPDATE meta SET value = 'jujitsu(' WHERE name = 'spec'", EVERY),
    "meta of the wrong type": ("UPDATE meta SET value = '\"yes\"' WHERE name = 'values_only'",
                               EVERY),
    "strategies_from not a layer": (  # int() of each ended in a traceback
        "INSERT INTO meta VALUES ('strategies_from', '\"x\"')", EVERY),
    "strategies_from infinite": ("INSERT INTO meta VALUES ('strategies_from', '1e400')", EVERY),
    "strategies_from past every layer": (
        "INSERT INTO meta VALUES ('strategies_from', '99999999999999999999')", EVERY),
    "root value in meta not a number": (
        "UPDATE meta SET value = '\"abc\"' WHERE name = 'root_value'", EVERY),
    "root keys not integers": ("UPDATE meta SET value = '[\"x\"]' WHERE name = 'root_keys'",
                               EVERY),
    "progress of the wrong shape": (
        "UPDATE meta SET value = '\"building\"' WHERE name = 'status'; "
        "INSERT INTO meta VALUES ('progress', '{\"layer\": \"x\"}')", EVERY),
    "strategy not JSON": (f"UPDATE states SET strategy1 = '{{\"1\":0.5' WHERE key = {ROOT}",
                          READ_ROOT),
    "strategy a JSON list": (f"UPDATE states SET strategy1 = '[1,2]' WHERE key = {ROOT}",
                             READ_ROOT),
    "probability not a number": (
        f"UPDATE states SET strategy2 = '{{\"1\":\"x\"}}' WHERE key = {ROOT}", READ_ROOT),
    "label not a number": (f"UPDATE states SET strategy1 = '{{\"x\":1.0}}' WHERE key = {ROOT}",
                           READ_ROOT),
    "unknown action label": (
        f"UPDATE states SET strategy1 = '{{\"99\":1.0}}' WHERE key = {ROOT}", READ_ROOT),
    "NULL strategy in a file with strategies": (
        f"UPDATE states SET strategy2 = NULL WHERE key = {ROOT}", READ_ROOT),
    "value not a number": (f"UPDATE states SET value = 'abc' WHERE key = {ROOT}", READ_ROOT),
    "gap not a number": (f"UPDATE states SET gap = 'abc' WHERE key = {ROOT}", READ_ROOT),
    "successor value not a number": (
        f"UPDATE states SET value = 'abc' WHERE key = {CHILD}",
        {"verify", "export", "match", "show"}),  # show reads the start's successors' values
    "layers table missing": ("DROP TABLE layers", EVERY),
    "states table missing": ("DROP TABLE states", EVERY),
    "positions view missing": ("DROP VIEW positions", EVERY),
    "strategies view missing": ("DROP VIEW position_strategies; DROP VIEW strategies", EVERY),
    "layer row disagrees": ("UPDATE layers SET states = 99, done = 99 WHERE layer = 4",
                            {"info", "verify", "export"}),
    "layer row not numbers": ("UPDATE layers SET seconds = 'abc' WHERE layer = 4",
                              {"info", "verify", "export"}),
    "layer column disagrees with the key": (
        f"UPDATE states SET layer = 7 WHERE key = {ROOT}", {"verify", "export"}),
    # match and play answered around a missing row (solving it on the fly), silently
    "start position missing": (f"DELETE FROM states WHERE key = {ROOT}",
                               {"show", "verify", "match", "play"}),
    "successor missing": (f"DELETE FROM states WHERE key = {CHILD}", {"verify", "match"}),
}


def _args(command: str, db: str) -> list[str]:
    return {"info": ["info", db], "show": ["show", db, "start"], "verify": ["verify", db],
            "export": ["export", db], "match": ["match", db, "equilibrium", "random", "--quiet"],
            "play": ["play", db, "--seed", "1"],
            "build": ["build", SPEC, "--db", db, "--quiet"]}[command]


def _damaged(built, tmp_path: Path, sql: str) -> Path:  # type: ignore[no-untyped-def]
    path = tmp_path / "damaged.sqlite"
    shutil.copy(built(SPEC), path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(sql)
    conn.execute("PRAGMA journal_mode=DELETE")  # as shipped: one file, no -wal beside it
    conn.close()
    return path


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_every_command_on_a_damaged_file(built, tmp_path: Path, damage: str) -> None:  # type: ignore[no-untyped-def]
    sql, failing = DAMAGES[damage]
    path = _damaged(built, tmp_path, sql)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    for command in sorted(EVERY):
        result = CliRunner().invoke(cli, _args(command, str(path)), input="4\n3\n2\n1\n")
        lines = result.stderr.strip().splitlines()
        assert "Traceback" not in result.output and not (
            result.exception and not isinstance(result.exception, SystemExit)), (command, result)
        if command in failing:
            assert result.exit_code == 1, (command, result.output)
            assert len(lines) == 1 and path.name in lines[0], (command, lines)
        else:
            assert result.exit_code == 0, (command, result.output)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["damaged.sqlite"]


def test_verify_names_the_altered_position_first_and_its_parents_after(built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = _damaged(built, tmp_path, f"UPDATE states SET value = value + 0.25 WHERE key = {CHILD}")
    with sqlite3.connect(path) as conn:
        (child,) = conn.execute(f"SELECT {CHILD}").fetchone()
        (root,) = conn.execute(f"SELECT {ROOT}").fetchone()
    report = verify(path)
    first, second = report.failed
    assert (first.key, first.after_successor) == (child, False)
    assert first.position == "hand1=1,2,3 hand2=1,2,3 pot=1 diff=0"
    assert (second.key, second.after_successor) == (root, True)
    result = CliRunner().invoke(cli, ["verify", str(path)])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "first hand1=1,2,3 hand2=1,2,3 pot=1 diff=0" in result.stderr
    assert "FAIL hand1=1,2,3,4 hand2=1,2,3,4 pot=0 diff=0" in result.stdout


def test_verify_reports_damaged_rows_as_positions_with_the_reason(built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = _damaged(built, tmp_path, DAMAGES["unknown action label"][0])
    (failure,) = verify(path).failed
    assert failure.position == "hand1=1,2,3,4 hand2=1,2,3,4 pot=0 diff=0"
    assert "names action label 99" in failure.reason


@pytest.mark.parametrize("damage, message", [
    (f"UPDATE states SET value = 'abc' WHERE key = {CHILD}",
     "position hand1=1,2,3 hand2=1,2,3 pot=1 diff=0 (key 844424930394487): the value 'abc' "
     "is not a finite number"),
    (f"DELETE FROM states WHERE key = {CHILD}",
     "layer 3: the layers table says 7 position(s) solved, 6 are stored"),
])
def test_resuming_a_build_on_a_damaged_lower_layer_is_one_line(built, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                damage: str, message: str) -> None:
    path = _damaged(built, tmp_path, damage + "; UPDATE meta SET value = '\"building\"' WHERE "
                    "name = 'status'; DELETE FROM states WHERE layer = 4; "
                    "UPDATE layers SET done = 0 WHERE layer = 4")
    with sqlite3.connect(path) as conn:
        before = conn.execute("SELECT * FROM states ORDER BY key").fetchall()
    result = CliRunner().invoke(cli, _args("build", str(path)))
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1 and message in lines[0], result.output
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT * FROM states ORDER BY key").fetchall() == before
