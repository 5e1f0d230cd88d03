"""Hostile inputs, damaged files and impossible requests (issue 21): one line on stderr
naming the file or input, exit 1, no traceback, nothing changed on disk."""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import signal
import socketserver
import sqlite3
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
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


@pytest.mark.parametrize("command", [["ship", "file:j.sqlite"],
                                     ["ship", "file:p.sqlite", "--precision", "float32",
                                      "-o", "file:f.sqlite"],
                                     ["book", "file:j.sqlite", "file:bk.sqlite",
                                      "--from-layer", "5", "--quiet"],
                                     ["upgrade", "file:j.sqlite"]],
                         ids=["ship", "ship-float32", "book", "upgrade"])
def test_a_relative_name_starting_with_file_colon_is_a_file_name(
        built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
        command: list[str]) -> None:
    """Found re-checking issue 21: this SQLite reads a plain ``file:`` name as a URI even
    unasked, so ``ship file:j.sqlite`` VACUUMed ``j.sqlite`` (another database) and
    ``book SRC file:bk.sqlite`` left a stray ``bk.sqlite``."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(built("jujitsu(num_cards=6)"), tmp_path / "file:j.sqlite")
    if "file:p.sqlite" in command:  # float32 rounds page layers: a file that has them
        assert run("build", "goofspiel(num_cards=4,returns_type=point_difference)", "--db",
                   "file:p.sqlite", "--strategies-from", "4", "--pages-below", "4",
                   "--quiet").exit_code == 0
    for decoy in ("j.sqlite", "bk.sqlite", "f.sqlite"):
        shutil.copy(built("jujitsu(num_cards=4)"), tmp_path / decoy)
    decoys = {name: digest(tmp_path / name) for name in ("j.sqlite", "bk.sqlite", "f.sqlite")}
    result = run(*command)
    assert result.exit_code == 0, result.output
    assert {name: digest(tmp_path / name) for name in decoys} == decoys
    assert {p.name for p in tmp_path.iterdir()} <= {*decoys, "file:j.sqlite", "file:bk.sqlite",
                                                   "file:f.sqlite", "file:p.sqlite"}


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


_SPEC_CHANGED = [f"""UPDATE meta SET value = '"{_OSHI_9}"' WHERE name = 'spec'""",
                 """UPDATE meta SET value = '{"coins": 9, "size": 2, "min_bid": 1,
                    "alesia": false}' WHERE name = 'params'"""]


@pytest.mark.parametrize("statements, message", [
    (_SPEC_CHANGED, "root_keys"),
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


@pytest.mark.parametrize("command", [["match", "{db}", "equilibrium", "random", "--quiet"],
                                     ["match", "{db}", "equilibrium", "random", "--games", "5",
                                      "--quiet"],
                                     ["evaluate", "{db}", "highest", "--quiet"]])
def test_play_on_a_file_whose_spec_was_changed_is_damage_not_another_answer(
        built, tmp_path: Path, command: list[str]) -> None:  # type: ignore[no-untyped-def]
    """Found re-checking issue 21: with the spec in meta changed (coins=9, root_keys
    too), ``verify`` said NOT sound but ``match`` still answered (win 0.938 where the
    file's game gives 0.916): the complete file lacks the changed game's positions, and
    the equilibrium solved each one it missed on the fly, silently."""
    path = _tampered(built, tmp_path, *_SPEC_CHANGED)
    before = digest(path)
    line = fails(*[part.format(db=path) for part in command],
                 message=f"{path}: position coins1=9 coins2=9 pos=0 is not stored in this "
                         "complete file of oshi_zumo(alesia=false,coins=9")
    assert "damaged" in line and "gamedb verify" in line
    assert digest(path) == before


def test_show_start_on_a_file_whose_spec_was_changed_is_damage(
        built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """``show DB start`` said "not in DB; try gamedb solve": the start of a complete file
    is always stored, so a missing one is damage (its spec changed), said as such."""
    path = _tampered(built, tmp_path, *_SPEC_CHANGED)
    before = digest(path)
    line = fails("show", str(path), "start",
                 message=f"{path}: its start position coins1=9 coins2=9 pos=0 is not stored")
    assert "damaged" in line and "gamedb verify" in line and "gamedb solve" not in line
    assert digest(path) == before


def test_show_of_any_position_on_a_file_whose_spec_was_changed_is_damage(
        built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Only ``start`` was said to be damage: another position said "not in DB; try
    gamedb solve", as if the file were fine. A complete file without its start is
    damaged whatever position is asked."""
    path = _tampered(built, tmp_path, *_SPEC_CHANGED)
    line = fails("show", str(path), "coins1=8 coins2=8 pos=1",
                 message=f"{path}: its start position coins1=9 coins2=9 pos=0 is not stored")
    assert "damaged" in line and "gamedb solve" not in line


def test_the_untampered_file_is_sound(built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = run("verify", str(_tampered(built, tmp_path)))
    assert result.exit_code == 0 and "sound" in result.stdout, result.output


def test_a_layers_row_that_is_no_finite_number_is_damage(j6: Path) -> None:
    """``info --json`` printed ``"max_gap": Infinity`` (not JSON)."""
    with sqlite3.connect(j6) as conn:
        conn.execute("UPDATE layers SET max_gap = 1e999 WHERE layer = 6")
    conn.close()
    fails("info", str(j6), "--json", message="the layers table holds a row that is not finite")


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity"])
def test_a_root_value_that_is_no_finite_number_is_damage(built, tmp_path: Path,
                                                         number: str) -> None:  # type: ignore[no-untyped-def]
    """``info --json`` printed ``"root_value": NaN`` (not JSON)."""
    path = _tampered(built, tmp_path, f"UPDATE meta SET value = '{number}' "
                                      "WHERE name = 'root_value'")
    fails("info", str(path), "--json", message="o.sqlite")
    fails("verify", str(path), message="root_value")


# --- Bad input: one line, never a traceback ---------------------------------------------

def test_play_with_bytes_that_are_not_utf8(j6: Path) -> None:
    """``play`` with non-UTF-8 bytes on stdin ended in a UnicodeDecodeError."""
    fails("play", str(j6), input=b"\xff\xfe\x80\n", message="standard input")


@pytest.mark.parametrize("command", [["match", "{db}", "equilibrium", "random", "--games", "3"],
                                     ["tournament", "{db}", "--agents", "random,highest",
                                      "--simulate"],
                                     ["play", "{db}"]])
def test_a_negative_seed_is_refused(j6: Path, command: list[str]) -> None:
    """``match --seed -1`` ended in numpy's ValueError."""
    result = run(*[part.format(db=j6) for part in command], "--seed", "-1")
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "'--seed': -1 is not in the range x>=0" in result.stderr


def test_export_to_no_file_name(j6: Path, tmp_path: Path) -> None:
    """``export -o ''`` ended in ``PosixPath('.') has an empty name`` (click refuses
    ``-o .`` and ``-o FOLDER`` itself)."""
    before = listing(tmp_path)
    fails("export", str(j6), "-o", "", "--quiet", message="a folder, not a file")
    assert listing(tmp_path) == before


@pytest.mark.parametrize("suffix", ["-journal", "-wal", "-shm"])
def test_export_over_the_database_s_own_journal_is_refused(j6: Path, suffix: str) -> None:
    """``export DB -o DB-journal`` succeeded, and then ``info DB`` refused the file."""
    before = digest(j6)
    fails("export", str(j6), "-o", f"{j6}{suffix}", "--quiet", message="j6.sqlite's own")
    assert not Path(f"{j6}{suffix}").exists() and digest(j6) == before
    assert run("info", str(j6)).exit_code == 0


def test_export_over_the_journal_of_another_name_of_the_database_is_refused(
        j6: Path) -> None:
    """``export LINK -o DB-journal``, LINK a hard link of DB, succeeded, and then
    ``info DB`` refused the file (found re-checking issue 21)."""
    link = j6.with_name("link.sqlite")
    os.link(j6, link)
    before = digest(j6)
    for database, output in ((link, f"{j6}-journal"), (j6, f"{link}-wal")):
        fails("export", str(database), "-o", output, "--quiet", message="own journal" if
              output.endswith("journal") else "own wal")
        assert not Path(output).exists() and digest(j6) == before
    assert run("info", str(j6)).exit_code == 0


def test_a_book_over_the_database_s_own_journal_is_refused(j6: Path) -> None:
    """``book DB DB-journal`` called the healthy DB damaged (``attempt to write a readonly
    database``); ``book LINK DB-journal`` wrote the book there, and then ``info DB``
    refused the file (found re-checking issue 21)."""
    link = j6.with_name("link.sqlite")
    os.link(j6, link)
    before = digest(j6)
    for database in (j6, link):
        line = fails("book", str(database), f"{j6}-journal", "--from-layer", "5", "--quiet",
                     message="j6.sqlite's own journal file")
        assert "damaged" not in line
        assert not Path(f"{j6}-journal").exists() and digest(j6) == before
    assert run("info", str(j6)).exit_code == 0


def test_sql_refuses_a_gigabyte_cell(j6: Path) -> None:
    """``sql FILE "SELECT randomblob(1000000000)"`` ended in a MemoryError."""
    fails("sql", str(j6), "SELECT randomblob(1000000000)", message="too big")


def test_sql_json_prints_blobs_and_infinities_as_json(j6: Path) -> None:
    """A BLOB ended in ``bytes is not JSON serializable``; infinity printed ``Infinity``."""
    result = run("sql", str(j6), "SELECT x'00ff' AS b, 1e999 AS i, -1e999 AS n, 0.0/0 AS z",
                 "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout, parse_constant=pytest.fail) == [
        {"b": {"$base64": True, "encoded": "AP8="}, "i": "Infinity", "n": "-Infinity",
         "z": None}]


@pytest.mark.parametrize("agents", [["random", "random"], ["equilibrium", "random"],
                                    ["equilibrium", "random", "--games", "2"]])
def test_a_game_too_long_to_recurse_is_refused_in_one_line(agents: list[str]) -> None:
    """``match "oshi_zumo(coins=1000,size=100)"`` ended in a RecursionError."""
    fails("match", "oshi_zumo(coins=1000,size=100)", *agents, "--quiet",
          message="oshi_zumo(alesia=false,coins=1000,min_bid=1,size=100)")
    fails("tournament", "oshi_zumo(coins=1000,size=100)", "--agents", "equilibrium,random",
          "--games", "2", "--simulate", "--quiet", message="coins=1000")


# --- Ctrl-C while the program starts ------------------------------------------------------

_STARTS = {
    "imports": """
import importlib.abc, sys
class Interrupted(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "gamedb.cli.query":
            raise KeyboardInterrupt  # Ctrl-C as Python imports the commands
sys.meta_path.insert(0, Interrupted())
""",
    "arguments": """
import signal, sys
from gamedb.cli import cli
read = cli.parse_args
def parse_args(ctx, args):
    signal.raise_signal(signal.SIGINT)  # Ctrl-C as click reads the arguments
    return read(ctx, args)
cli.parse_args = parse_args
"""}


@pytest.mark.parametrize("moment", sorted(_STARTS))
def test_ctrl_c_while_the_program_starts_is_one_line(moment: str) -> None:
    """A Ctrl-C in the first moments of any command printed a KeyboardInterrupt traceback
    from the imports (2 of 51 runs), or click's ``Aborted!`` with exit status 1."""
    code = (f"import sys\nsys.argv = ['gamedb', 'games']\n{_STARTS[moment]}\n"
            "from gamedb.cli import cli\ncli()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stderr, done.stdout) == (130, "interrupted\n", "")


# --- Damaged content is reported as damage ------------------------------------------------

_DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("statement", [
    "UPDATE meta SET value = :deep WHERE name = 'solver'",
    "INSERT INTO meta VALUES ('extra', :deep)",
    "UPDATE states SET strategy1 = :deep WHERE key = (SELECT max(key) FROM states)",
    "UPDATE states SET strategy2 = '{\"1\":' || :deep || '}' WHERE key = "
    "(SELECT min(key) FROM states WHERE strategy2 IS NOT NULL)",
])
def test_deeply_nested_json_is_damage_not_a_recursion_error(j6: Path, statement: str) -> None:
    """Deeply nested JSON in meta or a strategy: RecursionError in info and verify."""
    with sqlite3.connect(j6) as conn:
        conn.execute(statement, {"deep": _DEEP})
    conn.close()
    before = digest(j6)
    for args in (["info", str(j6), "--json"], ["verify", str(j6)],
                 ["show", str(j6), "start"], ["export", str(j6)]):
        result = run(*args)
        assert "Traceback" not in result.output and result.exception is None or \
            isinstance(result.exception, SystemExit), (args, result.exception)
        if result.exit_code:
            assert result.exit_code == 1 and "j6.sqlite" in result.stderr, (args, result.output)
    assert run("verify", str(j6)).exit_code == 1
    assert digest(j6) == before


@pytest.mark.parametrize("table", ["meta", "states"])
def test_text_that_is_not_utf8_is_damage(j6: Path, table: str) -> None:
    """Found by tests/test_fuzz.py: a byte 0x80 in the text of a table's declaration (a
    column name, as sqlite3 decodes it) was a UnicodeDecodeError."""
    data = bytearray(j6.read_bytes())
    declared = data.index(f"CREATE TABLE {table} (".encode())
    column = data.index(b"value", declared)
    data[column] = 0x80
    j6.write_bytes(bytes(data))
    before = digest(j6)
    said = {}
    for args in (["info", str(j6)], ["show", str(j6), "start"], ["verify", str(j6)],
                 ["sql", str(j6), "SELECT * FROM meta, states"], ["export", str(j6)]):
        result = run(*args)
        assert "Traceback" not in result.output, args
        assert result.exception is None or isinstance(result.exception, SystemExit), \
            (args, result.exception)
        if result.exit_code:
            assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1
            said[args[0]] = result.stderr
    # sql refuses a file that every command refuses (meta unreadable) as they do
    assert "UTF-8" in said["sql"] or said["sql"] == said["info"], said
    assert digest(j6) == before


@pytest.mark.parametrize("key", [2**63 - 1, -5, 7 << 48])
def test_a_key_no_position_has_is_damage(j6: Path, key: int) -> None:
    """A key at the top of the integer range made ``verify`` ask for 22 GB (killed by the
    kernel); a negative one said ``negative dimensions not allowed``. The commands run
    under a 3 GiB address-space limit, so a regression fails instead of swapping."""
    import resource

    with sqlite3.connect(j6) as conn:
        conn.execute("INSERT INTO states SELECT ?, layer, value, gap, strategy1, strategy2 "
                     "FROM states WHERE key = (SELECT max(key) FROM states)", (key,))
    conn.close()
    before = digest(j6)

    def capped() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    for args in (["verify", str(j6)], ["export", str(j6)]):
        done = subprocess.run([sys.executable, "-m", "gamedb", *args], capture_output=True,
                              text=True, timeout=300, preexec_fn=capped)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert f"key {key}" in done.stderr, done.stderr
    assert digest(j6) == before


@pytest.mark.parametrize("strategy", ['{"1":0.0}', '{}', '{"1":0.5,"2":0.25}'])
def test_a_strategy_that_does_not_sum_to_one_is_damage(j6: Path, strategy: str) -> None:
    """A strategy whose mass was removed made ``match`` answer 0 points, silently."""
    with sqlite3.connect(j6) as conn:
        conn.execute("UPDATE states SET strategy1 = ? WHERE key = (SELECT max(key) FROM states)",
                     (strategy,))
    conn.close()
    for args in (["show", str(j6), "start"], ["match", str(j6), "equilibrium", "random"],
                 ["match", str(j6), "equilibrium", "random", "--games", "3"]):
        fails(*args, "--quiet" if args[0] == "match" else "--json",
              message="the strategy of stored player 1 sums to")
    assert run("verify", str(j6)).exit_code == 1


@pytest.mark.parametrize("strategy, message", [
    ('{"1":0.0}', "sums to 0, not 1"), ('{"1":0.5}', "sums to 0.5, not 1"),
    ('{"9":1.0}', "names action label 9"), (_DEEP, "is not a JSON object")],
    ids=["emptied", "halved", "illegal", "nested"])
def test_evaluate_of_a_damaged_strategy_is_damage(j6: Path, strategy: str,
                                                  message: str) -> None:
    """Found re-checking issue 21: ``evaluate`` of a file whose start's strategy was
    emptied or halved answered ``vs equilibrium +0.000000`` (the true -0.174178), silently;
    one naming an illegal action or nested 100,000 deep ended in a ValueError traceback."""
    with sqlite3.connect(j6) as conn:
        conn.execute("UPDATE states SET strategy1 = ? WHERE key = (SELECT max(key) FROM states)",
                     (strategy,))
    conn.close()
    before = digest(j6)
    line = fails("evaluate", str(j6), "random", "--quiet", message=message)
    assert "j6.sqlite" in line and "hand1=1,2,3,4,5,6" in line and "damaged" in line
    assert digest(j6) == before


def test_a_control_character_in_a_message_is_escaped() -> None:
    """Found by tests/test_fuzz.py: a damaged schema's "\x1c" (a line separator to
    ``splitlines``) made the one-line message two lines."""
    fails("info", "x\x1cy\u2028.sqlite", message="x\\x1cy\\u2028.sqlite: no such database file")


# --- Healthy files are not called damaged -------------------------------------------------

def _fill(folder: Path) -> None:
    filler = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        with pytest.raises(OSError, match="No space left"):
            while True:
                os.write(filler, b"\0" * 4096)
    finally:
        os.close(filler)


def test_upgrade_on_a_full_disk_says_full_not_damaged(small_disk: Path) -> None:
    """``upgrade --no-backup`` on a full disk called the unchanged file damaged."""
    old = small_disk / "old.sqlite"
    shutil.copy(Path(__file__).parent / "assets" /
                "jujitsu_num_cards=4_ties=carry.schema-0001.sqlite", old)
    _fill(small_disk)
    before = listing(small_disk)
    line = fails("upgrade", str(old), "--no-backup", message="the disk is full")
    assert "damaged" not in line and "unchanged" in line
    assert listing(small_disk) == before


def test_book_on_a_full_disk_says_full_not_damaged(j6: Path, small_disk: Path) -> None:
    """``book`` onto a full disk called its (unchanged) source damaged."""
    _fill(small_disk)
    before, source = listing(small_disk), digest(j6)
    line = fails("book", str(j6), str(small_disk / "bk.sqlite"), "--from-layer", "5",
                 "--quiet", message="the disk is full")
    assert "damaged" not in line and "bk.sqlite" in line
    assert listing(small_disk) == before and digest(j6) == source


# --- Cost before work -------------------------------------------------------------------

def test_solving_a_big_game_without_a_file_is_refused_up_front_with_the_estimate() -> None:
    """``match "goofspiel(num_cards=13)" equilibrium random`` (a spec, no file) solved with
    no cap, +12 MB/s."""
    line = fails("match", "goofspiel(num_cards=13)", "equilibrium", "random", "--quiet",
                 message="this match of goofspiel(num_cards=13,")
    assert "positions" in line and "days" in line and "--db" in line and "--force" in line
    fails("tournament", "oshi_zumo(coins=1000,size=100)", "--agents", "equilibrium,random",
          "--quiet", message="would take about")


def test_a_hundred_million_games_are_refused_up_front(j6: Path) -> None:
    """``match A B --games 100000000`` ran for hours, silent with --quiet."""
    line = fails("match", str(j6), "equilibrium", "random", "--games", "100000000",
                 "--quiet", message="600,000,000 moves simulated")
    assert "fewer --games" in line and "--force" in line


def test_a_tournament_of_many_agents_with_a_file_is_refused_up_front_with_the_estimate() -> None:
    """With a file, a tournament's exact matches were not counted: 24 agents on the
    shipped 8-card Jujitsu (552 matches, most walking the game behind an equilibrium)
    started without a word about hours; on 7-card Goofspiel the refusal named neither the
    tournament's cost nor --force."""
    data = Path(__file__).resolve().parents[1] / "data"
    j8 = data / "jujitsu_num_cards=8_ties=carry.shipped.sqlite"
    agents = ",".join(["equilibrium", "random", "highest", "lowest", "support-random",
                       "nash-range", "two-else-one",  # 24 agents, each named once
                       *(f"bid-range-{low}-{high}" for low, high in
                         itertools.combinations_with_replacement(range(1, 9), 2))][:24])
    line = fails("tournament", str(j8), "--agents", agents, "--games", "10", "--quiet",
                 message="this tournament of jujitsu(num_cards=8,ties=carry) would take")
    assert "2,686 positions" in line and "--simulate" in line and "--force" in line
    assert "--db" not in line  # the file is given: nothing is solved on the fly
    g7 = data / "goofspiel_num_cards=7_points_order=random_returns_type=win_loss_ties=discard.shipped.sqlite"
    line = fails("match", str(g7), "equilibrium", "random", "--quiet",
                 message="this match of goofspiel(num_cards=7,")
    assert "218,584 positions" in line and "--games" in line and "--force" in line
    line = fails("tournament", str(g7), "--agents", "equilibrium-vs:random,random", "--quiet",
                 message="would take about")
    assert "--db" not in line and "--force" in line


def test_cheap_matches_are_not_refused(j6: Path) -> None:
    for args in (["goofspiel(num_cards=13)", "level-1", "random"],  # a closed form
                 ["nim(heaps=15-15-15-15-15-15-15-15)", "random", "highest"],
                 [str(j6), "equilibrium", "random", "--games", "1000"]):
        result = run("match", *args, "--quiet")
        assert result.exit_code == 0, (args, result.output)


def test_force_runs_what_the_estimate_refuses(j6: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gamedb.play.cost
    monkeypatch.setattr(gamedb.play.cost, "LIMIT_SECONDS", 1e-9)
    fails("match", str(j6), "equilibrium", "random", "--games", "3", "--quiet",
          message="refused beyond")
    assert run("match", str(j6), "equilibrium", "random", "--games", "3", "--quiet",
               "--force").exit_code == 0


def test_export_shows_its_progress_against_the_whole_total_from_the_start(j6: Path) -> None:
    """Cost before work: ``export`` (like ``verify``) reports positions done of the
    file's total, known from the first report, so the bar has an ETA."""
    import io

    from gamedb.store.export import export

    calls: list[tuple[int, int | None]] = []
    count = export(j6, io.StringIO(), "jsonl", on_progress=lambda d, t: calls.append((d, t)))
    assert count == 298 and calls[-1] == (298, 298)
    assert {total for _, total in calls} == {298} and calls == sorted(calls)


def test_ctrl_c_stops_a_long_sql_query(j6: Path) -> None:
    """``sql`` ignored Ctrl-C during a long query (Python waits for the SQLite call)."""

    endless = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
               "SELECT count(*) FROM c")
    query = subprocess.Popen([sys.executable, "-m", "gamedb", "sql", str(j6), endless],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(3)  # well into the query
        query.send_signal(signal.SIGINT)
        out, err = query.communicate(timeout=20)
    finally:
        query.kill()
    assert (query.returncode, err, out) == (130, "interrupted\n", "")


# --- Cluster addresses --------------------------------------------------------------------

def test_a_port_out_of_range_is_refused_at_once(tmp_path: Path) -> None:
    """``--cluster tcp://127.0.0.1:99999`` waited 30 s to say it could not connect."""
    result = run("build", "jujitsu(num_cards=3)", "--db", str(tmp_path / "c.sqlite"),
                 "--cluster", "tcp://127.0.0.1:99999", "--quiet")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "port 99999 is out of range 1..65535" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_tls_without_tls_settings_is_one_line(tmp_path: Path) -> None:
    """``--cluster tls://...`` ended in Dask's TypeError (no SSL context)."""
    pytest.importorskip("distributed", reason="the cluster extra is not installed")
    done = subprocess.run([sys.executable, "-m", "gamedb", "build", "jujitsu(num_cards=3)",
                           "--db", str(tmp_path / "c.sqlite"), "--cluster",
                           "tls://127.0.0.1:1", "--quiet"],
                          capture_output=True, text=True, timeout=50)  # was 60 s at exit
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "tls:// needs Dask's TLS settings" in done.stderr
    assert list(tmp_path.iterdir()) == []


class _NotDask(socketserver.BaseRequestHandler):
    """A TCP server that is not a Dask scheduler: it answers with ``reply`` (junk, or an
    HTTP error), or accepts and never says a word (``reply`` None)."""

    reply: bytes | None = None
    accepted: list[float]  # when each connection came (a list per server)

    def handle(self) -> None:
        self.accepted.append(time.monotonic())
        if self.reply is None:
            time.sleep(60)  # accepted, silent
            return
        with contextlib.suppress(OSError):
            self.request.recv(65536)
            self.request.sendall(self.reply)


@contextlib.contextmanager
def _not_dask(reply: bytes | None, accepted: list[float] | None = None) -> Iterator[str]:
    """Serve ``_NotDask`` on a free port of localhost; yield its tcp:// address."""
    handler = type("Handler", (_NotDask,), {"reply": reply, "accepted": [] if accepted is None else accepted})
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _build_on(address: str, db: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "gamedb", "build", "nim(heaps=2-3)",
                             "--db", str(db), "--cluster", address, "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("reply", [b"\x00garbage\xff" * 100,
                                   b"HTTP/1.0 400 Bad Request\r\nContent-Length: 0\r\n\r\n"],
                         ids=["junk", "http"])
def test_a_server_that_is_not_a_dask_scheduler_is_one_line(tmp_path: Path, reply: bytes) -> None:
    """``--cluster`` at a TCP server that is not Dask's said "out of memory" after ~62 s,
    and a ``Client.__del__`` traceback followed on stderr."""
    pytest.importorskip("distributed", reason="the cluster extra is not installed")
    with _not_dask(reply) as address:
        start = time.monotonic()
        out, err = _build_on(address, tmp_path / "x.sqlite").communicate(timeout=60)
        seconds = time.monotonic() - start
    assert err.count("\n") == 1 and "Traceback" not in err and out == "", err
    assert f"{address} did not answer as a Dask scheduler" in err, err
    assert seconds < 15, seconds
    assert list(tmp_path.iterdir()) == []


def test_a_server_that_never_answers_is_one_line_after_the_handshake_timeout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--cluster`` at a server that accepts and stays silent waited forever."""
    pytest.importorskip("distributed", reason="the cluster extra is not installed")
    import gamedb.builder.cluster

    monkeypatch.setattr(gamedb.builder.cluster, "CONNECT_SECONDS", 1.0)
    assert "x.sqlite" in _refused_by_a_silent_server(tmp_path, "1", 5)


def _refused_by_a_silent_server(tmp_path: Path, seconds: str, within: float) -> str:
    """The line ``build --cluster`` at a server that never answers says, within
    ``within`` s, having written nothing."""
    with _not_dask(None) as address:
        start = time.monotonic()
        line = fails("build", "nim(heaps=2-3)", "--db", str(tmp_path / "x.sqlite"),
                     "--cluster", address, "--quiet",
                     message=f"{address} did not answer as a Dask scheduler within {seconds} s")
        assert time.monotonic() - start < within
    assert list(tmp_path.iterdir()) == []
    return line


def test_the_handshake_timeout_is_set_by_gamedb_cluster_timeout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The 10 s to connect and 10 s to answer could not be changed (a scheduler behind a
    slow link was refused): ``GAMEDB_CLUSTER_TIMEOUT=SECONDS`` sets both."""
    pytest.importorskip("distributed", reason="the cluster extra is not installed")
    monkeypatch.setenv("GAMEDB_CLUSTER_TIMEOUT", "1.5")
    line = _refused_by_a_silent_server(tmp_path, "1.5", 6)
    assert "GAMEDB_CLUSTER_TIMEOUT" in line  # how to allow it longer
    assert "GAMEDB_CLUSTER_TIMEOUT=SECONDS" in " ".join(run("build", "--help").stdout.split())


@pytest.mark.parametrize("value", ["ten", "0", "-3", "nan", "inf", "1e400"])
def test_a_handshake_timeout_that_is_no_number_of_seconds_is_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    pytest.importorskip("distributed", reason="the cluster extra is not installed")
    monkeypatch.setenv("GAMEDB_CLUSTER_TIMEOUT", value)
    with _not_dask(None) as address:
        start = time.monotonic()
        fails("build", "nim(heaps=2-3)", "--db", str(tmp_path / "x.sqlite"), "--cluster",
              address, "--quiet", message=f"GAMEDB_CLUSTER_TIMEOUT={value!r} is not a "
                                          "number of seconds above 0")
        assert time.monotonic() - start < 3  # said before any wait
    assert list(tmp_path.iterdir()) == []


def test_a_dask_workers_address_is_one_line_naming_its_scheduler(tmp_path: Path) -> None:
    """``--cluster`` at a Dask worker (it speaks Dask, but is no scheduler) had no test."""
    distributed = pytest.importorskip("distributed",
                                      reason="the cluster extra is not installed")
    import logging

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp://", host="127.0.0.1", dashboard_address=":0",
                                  silence_logs=logging.CRITICAL) as dask:
        worker = next(iter(dask.scheduler_info["workers"]))
        start = time.monotonic()
        line = fails("build", "nim(heaps=2-3)", "--db", str(tmp_path / "x.sqlite"),
                     "--cluster", worker, "--quiet",
                     message=f"{worker} did not answer as a Dask scheduler: it is a Dask "
                             f"Worker (of the scheduler {dask.scheduler_address}); give "
                             "the scheduler's address")
        assert time.monotonic() - start < 10
    assert line.startswith(f"Error: {tmp_path / 'x.sqlite'}: ")
    assert list(tmp_path.iterdir()) == []


def test_kill_int_ends_a_build_waiting_for_a_silent_server(tmp_path: Path) -> None:
    """``kill -INT PID`` did not end a build waiting on a server that never answers."""
    pytest.importorskip("distributed", reason="the cluster extra is not installed")
    accepted: list[float] = []
    with _not_dask(None, accepted) as address:
        build = _build_on(address, tmp_path / "x.sqlite")
        try:
            while len(accepted) < 2 and build.poll() is None:  # Dask's handshake: the 2nd
                time.sleep(0.1)
            time.sleep(1)  # waiting for the answer
            build.send_signal(signal.SIGINT)
            start = time.monotonic()
            out, err = build.communicate(timeout=10)
            seconds = time.monotonic() - start
        finally:
            build.kill()
    assert (build.returncode, out) == (130, "") and err.count("\n") == 1, err
    assert err.startswith("interrupted before") and "nothing to resume" in err, err
    assert seconds < 3, seconds
    assert list(tmp_path.iterdir()) == []


def test_a_build_whose_size_cannot_be_estimated_names_force(tmp_path: Path) -> None:
    """A refused Hackenbush said nothing of ``--force``."""
    edges = ",".join(f"0-{i}" for i in range(1, 41))
    fails("build", f"hackenbush(edges={edges})", "--db", str(tmp_path / "h.sqlite"), "--quiet",
          message="add --force to build it anyway")
    assert list(tmp_path.iterdir()) == []
