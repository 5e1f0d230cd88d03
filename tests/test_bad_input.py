"""Every bad input of docs/errors.md: one line on stderr, exit 1, no traceback, no damage."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from gamedb.cli import cli


def fails(*args: str, message: str) -> None:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def j6(built, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    path = tmp_path / "j6.sqlite"
    shutil.copy(built("jujitsu(num_cards=6)"), path)
    return path


@pytest.mark.parametrize("spec, message", [
    ("chess(num_cards=3)", "unknown game 'chess'"),
    ("jujitsu(num_cards=0)", "num_cards=0 is out of range 1..16"),
    ("jujitsu(num_cards=40)", "num_cards=40 is out of range 1..16"),
    ("jujitsu(cards=4)", "unknown parameter 'cards'"),
    ("jujitsu(ties=maybe)", "ties must be one of carry, discard"),
    ("jujitsu(num_cards=four)", "num_cards must be an integer"),
    ("jujitsu(num_cards=4", "malformed game spec"),
])
def test_bad_specs(tmp_path: Path, spec: str, message: str) -> None:
    fails("build", spec, "--db", str(tmp_path / "x.sqlite"), "--quiet", message=message)
    assert not (tmp_path / "x.sqlite").exists()


@pytest.mark.parametrize("position, message", [
    ("hand1=1,2 hand2=3", "hands must have the same size"),
    ("hand1=1,7 hand2=2,3", "outside 1..6"),
    ("hand1=1,2 hand2=3,4 pot=0 diff=9", "cannot happen after 4 tricks"),
    ("hand1=1,2 hand2=3,4 colour=red", "unknown field(s) colour"),
    ("hand1", "malformed field 'hand1'"),
    ("hand1=2,3 hand2=4,5 pot=2 diff=0", "position not in j6.sqlite"),  # no tie was possible
    # Python's int() reads these as 0 and 2: a number is ASCII digits, a sign at most
    ("hand1=1,2 hand2=3,4 pot=0 diff=0_0", "diff must be an integer, got '0_0'"),
    ("hand1=1,2 hand2=3,4 pot=\uff12 diff=0", "pot must be an integer, got '\uff12'"),
])
def test_bad_positions(j6: Path, position: str, message: str) -> None:
    before = digest(j6)
    fails("show", str(j6), position, message=message)
    assert digest(j6) == before


def test_not_a_gamedb_file(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t(x)")
    before = digest(other)
    fails("info", str(other), message="not a gamedb database")
    fails("build", "jujitsu(num_cards=3)", "--db", str(other), "--quiet",
          message="not a gamedb database")
    assert digest(other) == before


def test_database_of_another_spec_is_left_alone(j6: Path) -> None:
    before = digest(j6)
    fails("build", "jujitsu(num_cards=5)", "--db", str(j6), "--quiet",
          message="holds jujitsu(num_cards=6,ties=carry), not jujitsu(num_cards=5,ties=carry)")
    assert digest(j6) == before


def test_database_of_another_key_layout(j6: Path) -> None:
    with sqlite3.connect(j6) as conn:
        conn.execute("""UPDATE meta SET value = '"jujitsu-v0"' WHERE name = 'key_layout'""")
    fails("show", str(j6), "start", message="key layout 'jujitsu-v0'")


@pytest.mark.parametrize("damage", ["truncate", "garbage"])
def test_truncated_or_corrupted_file(j6: Path, damage: str) -> None:
    data = j6.read_bytes()
    j6.write_bytes(data[: len(data) // 3] if damage == "truncate" else b"\xff" * len(data))
    before = digest(j6)
    # one wording in every command (verify, export and ship added "or not a gamedb
    # database" to a file that is one, cut short)
    said = "j6.sqlite: " + ("database disk image is malformed (the file is damaged; "
                            "rebuild it or restore a copy)"
                            if damage == "truncate" else "not a gamedb database")
    fails("verify", str(j6), message=said)
    fails("export", str(j6), "--quiet", message=said)
    fails("ship", str(j6), message=said)
    fails("show", str(j6), "start", message=said)
    fails("info", str(j6), message=said)
    fails("sql", str(j6), "SELECT count(*) FROM states", message=said)
    fails("build", "jujitsu(num_cards=6)", "--db", str(j6), "--quiet", message=said)
    assert digest(j6) == before


def test_read_only_location(tmp_path: Path) -> None:
    fails("build", "jujitsu(num_cards=3)", "--db", "/proc/gamedb-test.sqlite", "--quiet",
          message="cannot write next to /proc/gamedb-test.sqlite")


def test_ctrl_c_stops_cleanly_with_a_resume_hint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gamedb.builder

    def interrupted(game: object, path: Path, **kwargs: object) -> None:
        path.write_bytes(b"")  # the file a build had begun
        raise KeyboardInterrupt

    def before_the_file(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(gamedb.builder, "build", interrupted)  # the command imports it late
    result = CliRunner().invoke(cli, ["build", "jujitsu(num_cards=3)", "--db",
                                      str(tmp_path / "j.sqlite"), "--quiet"])
    assert result.exit_code == 130 and "run the same command to resume" in result.stderr
    monkeypatch.setattr(gamedb.builder, "build", before_the_file)
    result = CliRunner().invoke(cli, ["build", "jujitsu(num_cards=3)", "--db",
                                      str(tmp_path / "k.sqlite"), "--quiet"])
    assert result.exit_code == 130 and "nothing to resume" in result.stderr
    assert not (tmp_path / "k.sqlite").exists()
