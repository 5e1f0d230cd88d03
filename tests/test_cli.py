"""The command line: every command, its help, its JSON contract and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gamedb.cli import cli


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("command", ["games", "build", "info", "show", "solve", "verify", "upgrade"])
def test_every_command_has_help_with_an_example(command: str) -> None:
    code, out, _ = run(command, "--help")
    assert code == 0 and "Example:" in out


def test_the_tools_a_help_text_names_exist(built) -> None:
    """``build --help`` said "`gamedb show`, `probe` and `verify` read both", and gamedb
    has no ``probe`` command (it is the standalone ``gamedb/probe.py``): every word a
    help text quotes as code is a command, a table or view of a gamedb file, a program
    on this machine, or an SQL statement."""
    import re
    import shutil
    import sqlite3

    with sqlite3.connect(built("jujitsu(num_cards=4)")) as conn:
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    quoted = set()
    for command in cli.commands:
        code, out, _ = run(command, "--help")
        assert code == 0
        quoted |= set(re.findall(r"`+([^`]+)`+", " ".join(out.split())))
    unknown = []
    for text in sorted(quoted):
        words = text.split()
        if words[0] == "gamedb":
            known = words[1] in cli.commands
        elif words[0].isupper() or "/" in text:  # SQL, or a file of the package
            known = words[0].isupper() or Path(__file__).parents[1].joinpath(text).is_file()
        else:
            known = text in names or shutil.which(text) is not None
        if not known:
            unknown.append(text)
    assert len(quoted) > 5 and unknown == []


def test_solve_does_what_its_help_says_with_positions_no_play_reaches() -> None:
    """``solve --help`` said "any position of the game will do, reachable or not", and
    ``solve`` refused one outside the rules; then it said that a position no play
    reaches is refused, and ``solve`` answered one. It now says both, and does both."""
    code, out, _ = run("solve", "--help")
    out = " ".join(out.split())
    assert code == 0 and "no play reaches (a score the cards played cannot give) is solved " \
        "as written, with a note that says why; one outside the rules" in out
    code, _, err = run("solve", "jujitsu(num_cards=6)", "hand1=- hand2=- pot=0 diff=1")
    assert code == 1 and "cannot happen after 6 tricks" in err
    code, out, _ = run("solve", "jujitsu(num_cards=6)", "hand1=1,2,3 hand2=4,5,6 pot=0 diff=-3")
    assert code == 0 and out.splitlines()[2:4] == [
        "value     -1.000000",
        "note      pot=0 diff=-3 cannot happen when player 1 played 4,5,6 and player 2 1,2,3: "
        "no play reaches this position; this is the value of the position as written"]


def test_games_lists_jujitsu_and_its_parameters() -> None:
    code, out, _ = run("games")
    assert code == 0 and "jujitsu" in out and "num_cards" in out and "carry|discard" in out


def test_build_info_show_end_to_end(tmp_path: Path) -> None:
    db = str(tmp_path / "j6.sqlite")
    code, out, err = run("build", "jujitsu(num_cards=6)", "--db", db, "--quiet")
    assert code == 0, err
    assert "complete" in out and "root value +0.000000" in out
    code, out, _ = run("build", "jujitsu(num_cards=6)", "--db", db, "--quiet")
    assert code == 0 and "nothing to do" in out

    code, out, _ = run("info", db, "--json")
    info = json.loads(out)
    assert code == 0 and info["spec"] == "jujitsu(num_cards=6,ties=carry)"
    assert info["status"] == "complete" and info["states"] == 298
    assert info["root_value"] == pytest.approx(0.0, abs=1e-12)
    assert [layer["layer"] for layer in info["layers"]] == [6, 5, 4, 3, 2, 1]
    code, out, _ = run("info", db)
    assert code == 0 and "max gap" in out and "298" in out

    code, out, _ = run("show", db, "start", "--json")
    shown = json.loads(out)
    assert code == 0 and abs(shown["value"]) < 1e-12 and shown["position"].startswith("hand1=1,2,3,4,5,6")
    assert "6" not in shown["strategy"]["1"] and abs(sum(shown["strategy"]["2"].values()) - 1) < 1e-12


def test_show_reports_strategies_in_real_cards(tmp_path: Path) -> None:
    db = str(tmp_path / "j5.sqlite")
    assert run("build", "jujitsu(num_cards=5)", "--db", db, "--quiet")[0] == 0
    # Player 1 holds only high cards: every card wins, player 2's cards are real cards too.
    code, out, _ = run("show", db, "hand1=4,5 hand2=1,2 pot=0 diff=-1", "--json")
    shown = json.loads(out)
    assert code == 0 and shown["value"] == 1.0
    assert set(shown["strategy"]["1"]) <= {"4", "5"} and set(shown["strategy"]["2"]) <= {"1", "2"}
    code, out, _ = run("show", db, "hand1=1,3,5 hand2=2,3,4 pot=0 diff=0")
    assert code == 0 and "p1 prob" in out and "card" in out


@pytest.mark.parametrize("args, message", [
    (("build", "jujitsu(num_cards=0)", "--quiet"), "out of range"),
    (("build", "tetris", "--quiet"), "unknown game"),
    (("show", "missing.sqlite", "start"), "no such database file"),
    (("info", "missing.sqlite"), "no such database file"),
    (("info", "."), "a folder, not a database file; give the .sqlite file(s) in it"),
    (("sql", ".", "SELECT 1"), "a folder, not a database file"),
    (("export", "."), "a folder, not a database file"),
])
def test_bad_input_is_one_line_exit_1(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 1 and message in result.stderr
    assert "Traceback" not in result.output and len(result.stderr.strip().splitlines()) == 1


def test_show_rejects_a_malformed_position(tmp_path: Path) -> None:
    db = str(tmp_path / "j3.sqlite")
    run("build", "jujitsu(num_cards=3)", "--db", db, "--quiet")
    code, _, err = run("show", db, "hand1=1,2 hand2=9,1")
    assert code == 1 and "outside 1..3" in err


def test_not_a_gamedb_file_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    code, _, err = run("info", str(junk))
    assert code == 1 and "junk.sqlite" in err


def test_usage_error_exits_2() -> None:
    assert run("show")[0] == 2


def test_verify_passes_a_sound_file_and_fails_a_corrupted_one(tmp_path: Path) -> None:
    import sqlite3
    db = tmp_path / "j6.sqlite"
    run("build", "jujitsu(num_cards=6)", "--db", str(db), "--quiet")
    code, out, _ = run("verify", str(db), "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] and report["checked"] == 298 and report["max_gap"] <= 1e-9
    with sqlite3.connect(db) as conn:  # corrupt one value and one strategy
        conn.execute("UPDATE states SET value = value + 0.25 WHERE key = (SELECT max(key) FROM states)")
        conn.execute("UPDATE states SET strategy1 = '{\"1\":0.5}' "
                     "WHERE key = (SELECT min(key) FROM strategies)")
    code, out, _ = run("verify", str(db))
    assert code == 1 and "FAIL" in out


def test_upgrade_says_when_a_file_is_current(tmp_path: Path) -> None:
    db = tmp_path / "j3.sqlite"
    run("build", "jujitsu(num_cards=3)", "--db", str(db), "--quiet")
    code, out, _ = run("upgrade", str(db))
    assert code == 0 and "already at schema 0007" in out
