"""Hostile inputs, damaged files and impossible requests (issue 21): one line on stderr
naming the file or input, exit 1, no traceback, nothing changed on disk."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from gamedb.cli import cli


def run(*args: str, input: str | bytes | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input)


def fails(*args: str, message: str, input: str | bytes | None = None) -> str:
    """Run ``gamedb ARGS``; demand exit 1 and one line on stderr containing ``message``."""
    result = run(*args, input=input)
    assert result.exit_code == 1, (result.output, result.exception)
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    return lines[0]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def listing(folder: Path) -> dict[str, str]:
    """Every file of ``folder`` with its digest: what a command must leave as it was."""
    return {p.name: digest(p) for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture
def j6(built, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    path = tmp_path / "j6.sqlite"
    shutil.copy(built("jujitsu(num_cards=6)"), path)
    return path


# --- File names are file names, never SQLite URIs -------------------------------------

#: A hostile name, and the file SQLite opened instead when it read the name as a URI.
_URI_NAMES = [("j#1.sqlite", "j"), ("p%41.sqlite", "pA.sqlite"), ("a?b.sqlite", "a"),
              ("t.sqlite?mode=rwc", "t.sqlite")]


@pytest.mark.parametrize("name, decoy", _URI_NAMES)
def test_read_commands_open_the_file_named_not_a_uri(built, tmp_path: Path, name: str,
                                                    decoy: str) -> None:  # type: ignore[no-untyped-def]
    """``info 'j#1.sqlite'`` showed the file ``j``; ``'a?b.sqlite'`` created ``a``."""
    target = tmp_path / name
    shutil.copy(built("jujitsu(num_cards=6)"), target)
    shutil.copy(built("jujitsu(num_cards=4)"), tmp_path / decoy)  # what a URI would open
    before = listing(tmp_path)
    info = run("info", str(target), "--json")
    assert info.exit_code == 0, info.output
    assert json.loads(info.stdout)["spec"] == "jujitsu(num_cards=6,ties=carry)"
    for args in (["show", str(target), "start", "--json"], ["verify", str(target)],
                 ["sql", str(target), "SELECT value FROM meta WHERE name = 'spec'"],
                 ["export", str(target), "--format", "jsonl"]):
        result = run(*args)
        assert result.exit_code == 0, (args, result.output)
        assert "num_cards=4" not in result.stdout, args
    assert "num_cards=6" in run("sql", str(target), "SELECT value FROM meta").stdout
    from gamedb.probe import GameFile
    with GameFile(target) as standalone:
        assert standalone.meta["spec"] == "jujitsu(num_cards=6,ties=carry)"
    assert listing(tmp_path) == before


@pytest.mark.parametrize("name, decoy", _URI_NAMES)
def test_build_writes_the_file_named_not_another_database(built, tmp_path: Path, name: str,
                                                          decoy: str) -> None:  # type: ignore[no-untyped-def]
    """``build SPEC --db 'target.sqlite?x=1'`` wrote into ``target.sqlite``, past its lock."""
    shutil.copy(built("jujitsu(num_cards=4)"), tmp_path / decoy)
    before = digest(tmp_path / decoy)
    result = run("build", "jujitsu(num_cards=3)", "--db", str(tmp_path / name), "--quiet")
    assert result.exit_code == 0, result.output
    assert digest(tmp_path / decoy) == before
    info = run("info", str(tmp_path / name), "--json")
    assert json.loads(info.stdout)["spec"] == "jujitsu(num_cards=3,ties=carry)"


@pytest.mark.parametrize("name, decoy", _URI_NAMES)
def test_book_and_export_write_the_file_named(j6: Path, tmp_path: Path, name: str,
                                              decoy: str) -> None:
    """``book SRC 'bk#1.sqlite'`` wrote the book, called it foreign and left a stray ``bk``."""
    out = tmp_path / "out"
    out.mkdir()
    result = run("book", str(j6), str(out / name), "--from-layer", "5", "--quiet")
    assert result.exit_code == 0, result.output
    assert json.loads(run("info", str(out / name), "--json").stdout)["states"] > 0
    result = run("export", str(j6), "-o", str(out / ("e" + name)), "--quiet")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == sorted([name, "e" + name])


# --- verify checks meta against the rows ------------------------------------------------

def _tampered(built, tmp_path: Path, *statements: str) -> Path:  # type: ignore[no-untyped-def]
    path = tmp_path / "o.sqlite"
    shutil.copy(built("oshi_zumo(coins=8,size=2)"), path)
    with sqlite3.connect(path) as conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()
    return path


_OSHI_9 = "oshi_zumo(alesia=false,coins=9,min_bid=1,size=2)"


@pytest.mark.parametrize("statements, message", [
    ([f"""UPDATE meta SET value = '"{_OSHI_9}"' WHERE name = 'spec'""",
      """UPDATE meta SET value = '{"coins": 9, "size": 2, "min_bid": 1, "alesia": false}'
         WHERE name = 'params'"""], "root_keys"),
    ([f"""UPDATE meta SET value = '"{_OSHI_9}"' WHERE name = 'spec'"""], "params"),
    (["UPDATE meta SET value = '0.5' WHERE name = 'root_value'"], "root_value 0.5"),
    (["UPDATE states SET gap = -5 WHERE key = (SELECT max(key) FROM states)"], "negative"),
    (["UPDATE meta SET value = 'true' WHERE name = 'values_only'"], "values_only"),
    (["INSERT INTO meta VALUES ('strategies_from', '3')"], "strategies_from 3"),
])
def test_verify_never_calls_a_tampered_file_sound(built, tmp_path: Path, statements: list[str],
                                                  message: str) -> None:  # type: ignore[no-untyped-def]
    """Each of these passed ``verify`` ("sound"); a tampered spec made ``match`` answer
    0.9279 instead of 0.9160."""
    path = _tampered(built, tmp_path, *statements)
    before = digest(path)
    result = run("verify", str(path))
    assert result.exit_code == 1, result.output
    assert "NOT sound" in result.output and "Traceback" not in result.output
    assert message in result.output, result.output
    assert digest(path) == before


def test_the_untampered_file_is_sound(built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = run("verify", str(_tampered(built, tmp_path)))
    assert result.exit_code == 0 and "sound" in result.stdout, result.output


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity"])
def test_a_root_value_that_is_no_finite_number_is_damage(built, tmp_path: Path,
                                                         number: str) -> None:  # type: ignore[no-untyped-def]
    """``info --json`` printed ``"root_value": NaN`` (not JSON)."""
    path = _tampered(built, tmp_path, f"UPDATE meta SET value = '{number}' "
                                      "WHERE name = 'root_value'")
    fails("info", str(path), "--json", message="o.sqlite")
    fails("verify", str(path), message="root_value")
