"""A newcomer's findings (issue 10): no command writes over the file it reads, Ctrl-C is
exit 130 everywhere, and near-miss inputs get a hint instead of a misleading message."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from gamedb.cli import cli


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.output + result.stderr
    return result.exit_code, result.stdout, result.stderr


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def j4(built, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    path = tmp_path / "j4.sqlite"
    shutil.copy(built("jujitsu(num_cards=4)"), path)
    return path


def _aliases(j4: Path, kind: str, suffix: str) -> Path:
    if kind == "same":
        return j4
    alias = j4.with_name(f"alias{suffix}")
    if kind == "symlink":
        alias.symlink_to(j4)
    elif kind == "hard link":
        os.link(j4, alias)
    else:  # the same path written differently
        alias = j4.parent / "." / j4.name
    return alias


@pytest.mark.parametrize("kind", ["same", "dotted", "symlink", "hard link"])
def test_export_over_the_database_it_reads_is_refused_and_the_file_is_unchanged(
        j4: Path, kind: str) -> None:
    target = _aliases(j4, kind, ".sqlite")
    before = digest(j4)
    code, out, err = run("export", str(j4), "--output", str(target), "--quiet")
    assert code == 1 and out == ""
    assert "the database this command reads; choose another file" in one_line(err)
    assert digest(j4) == before
    assert not [p for p in j4.parent.iterdir() if p.name.endswith(".part")]


@pytest.mark.parametrize("command", ["strategy", "heatmap"])
def test_plot_over_the_database_it_reads_is_refused(j4: Path, command: str) -> None:
    target = _aliases(j4, "symlink", ".png")
    before = digest(j4)
    args = (["plot", "strategy", str(target), "start"] if command == "strategy" else
            ["plot", "heatmap", str(target), "--x", "pot", "--y", "diff",
             "--fixed", "hand1=1,2", "--fixed", "hand2=3,4"])
    code, _, err = run(*args, "-o", str(target))
    assert code == 1 and "the database this command reads" in one_line(err)
    assert digest(j4) == before


def _interrupt(*args: object, **kwargs: object) -> None:
    raise KeyboardInterrupt


@pytest.mark.parametrize("command, module, name", [
    (["export", "{db}", "-o", "{dir}/out.jsonl", "--quiet"], "gamedb.store.export", "exported_positions"),
    (["export", "{db}"], "gamedb.store.export", "exported_positions"),
    (["match", "{db}", "equilibrium", "random", "--quiet"], "gamedb.play.tournament", "play_match"),
    (["tournament", "{db}", "--agents", "equilibrium,random", "--quiet"],
     "gamedb.play.tournament", "round_robin"),
    (["play", "{db}"], "gamedb.play.session", "play_session"),
    (["verify", "{db}", "--quiet"], "gamedb.verify", "verify"),
    (["plot", "strategy", "{db}", "start", "-o", "{dir}/s.png"], "gamedb.play.plot", "plot_strategy"),
    (["info", "{db}"], "gamedb.store.database.GameDB", "info"),
])
def test_ctrl_c_in_any_command_exits_130_in_one_line_and_leaves_no_file(
        j4: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], module: str,
        name: str) -> None:
    import importlib

    owner_name, _, attr = module.rpartition(".") if module.endswith("GameDB") else (module, "", "")
    owner = importlib.import_module(owner_name)
    monkeypatch.setattr(getattr(owner, attr) if attr else owner, name, _interrupt)
    before = digest(j4)
    code, _, err = run(*(part.format(db=j4, dir=j4.parent) for part in command))
    assert code == 130 and one_line(err) == "interrupted"
    assert "Aborted" not in err
    assert sorted(p.name for p in j4.parent.iterdir()) == ["j4.sqlite"]
    assert digest(j4) == before


def test_show_of_an_unfinished_build_says_so(j4: Path) -> None:
    with sqlite3.connect(j4) as conn:
        conn.execute("DELETE FROM states WHERE layer = 4")
        conn.execute("UPDATE layers SET done = 0, max_gap = 0 WHERE layer = 4")
        conn.execute("""UPDATE meta SET value = '"building"' WHERE name = 'status'""")
    code, _, err = run("show", str(j4), "start")
    assert code == 1
    assert one_line(err).endswith("(the build is not finished: 31 of 32 positions; run the "
                                  'same build command to resume); try: gamedb solve '
                                  '"jujitsu(num_cards=4,ties=carry)" '
                                  '"hand1=1,2,3,4 hand2=1,2,3,4 pot=0 diff=0"')
    code, out, _ = run("info", str(j4))
    layer4 = next(line.split() for line in out.splitlines() if line.split()[:1] == ["4"])
    assert code == 0 and layer4[2] == "0" and layer4[-2:] == ["-", "rows"]  # max gap, stored


def test_show_of_a_finished_file_says_why_a_position_is_missing(j4: Path) -> None:
    code, _, err = run("show", str(j4), "hand1=2,3 hand2=1,4 pot=2 diff=0")
    assert code == 1 and one_line(err) == (
        "Error: position not in j4.sqlite: hand1=2,3 hand2=1,4 pot=2 diff=0 (pot=2 diff=0 "
        "cannot happen when player 1 played 1,4 and player 2 2,3: no play reaches it); "
        'try: gamedb solve "jujitsu(num_cards=4,ties=carry)" "hand1=2,3 hand2=1,4 pot=2 diff=0"')


def test_defaults_named_in_an_error_are_called_defaults(j4: Path) -> None:
    code, _, err = run("show", str(j4), "hand1=1 hand2=2")
    assert code == 1
    assert "pot=0 diff=0 (defaults) cannot happen after 3 tricks" in one_line(err)
    code, _, err = run("show", str(j4), "hand1=1 hand2=2 pot=0 diff=0")
    assert "Error: pot=0 diff=0 cannot happen after 3 tricks" == one_line(err)


def test_build_into_a_missing_folder_is_refused_and_creates_nothing(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "x.sqlite"
    code, _, err = run("build", "jujitsu(num_cards=3)", "--db", str(target), "--quiet")
    assert code == 1
    assert one_line(err) == f"Error: cannot write {target}: folder '{target.parent}' does not exist"
    assert list(tmp_path.iterdir()) == []


def test_a_tournament_of_one_agent_is_a_usage_error(j4: Path) -> None:
    code, _, err = run("tournament", str(j4), "--agents", "equilibrium", "--quiet")
    assert code == 2 and "--agents needs two or more agents, got 1: equilibrium" in err


def test_match_text_omits_fields_that_do_not_apply_and_json_keeps_them(built) -> None:
    oz = str(built("oshi_zumo(coins=4,size=1)"))
    code, out, _ = run("match", oz, "bid-range-1-3", "two-else-one", "--quiet")
    assert code == 0 and "None" not in out and "points_for" not in out
    code, out, _ = run("match", oz, "bid-range-1-3", "two-else-one", "--quiet", "--json")
    assert code == 0 and '"points_for": null' in out


@pytest.mark.parametrize("spec, message", [
    ("Jujitsu(num_cards=4)", "unknown game 'Jujitsu'; did you mean jujitsu?"),
    ("NIM(heaps=1-2)", "unknown game 'NIM'; did you mean nim?"),
    ("nim(heaps=1,3,5)", "heaps are written with '-' between them, e.g. heaps=1-3-5"),
    ("j6.sqlite", "to resume or inspect a file, give it with --db"),
])
def test_near_miss_specs_get_a_hint(tmp_path: Path, spec: str, message: str) -> None:
    code, _, err = run("build", spec, "--db", str(tmp_path / "x.sqlite"), "--quiet")
    assert code == 1 and message in one_line(err)
    assert list(tmp_path.iterdir()) == []


def test_commas_between_position_fields_get_a_hint(j4: Path) -> None:
    code, _, err = run("show", str(j4), "hand1=1,3,hand2=2,4,pot=0,diff=0")
    assert code == 1
    assert "fields are separated by spaces" in one_line(err)


@pytest.mark.parametrize("args", [["show", "J4", "hand1=1,3", "hand2=2,4", "pot=0", "diff=0"],
                                  ["solve", "jujitsu(num_cards=4)", "hand1=1,3", "hand2=2,4"],
                                  ["key", "jujitsu(num_cards=4)", "hand1=1,3", "hand2=2,4"]])
def test_an_unquoted_position_gets_a_hint_to_quote_it(j4: Path, args: list[str]) -> None:
    code, _, err = run(*[str(j4) if a == "J4" else a for a in args])
    assert code == 2 and "unexpected extra argument" in err
    assert 'quote the position: "hand1=1,3 hand2=2,4' in err.splitlines()[-1]


@pytest.mark.parametrize("spec, position, message", [
    ("jujitsu(num_cards=6)", "hand1=1,3,5 hand2=2,4,6 pot=1 diff=0",
     "pot=1 diff=0 cannot happen when player 1 played 2,4,6 and player 2 1,3,5: no play "
     "reaches this position; nothing is stored"),
    ("jujitsu(num_cards=6)", "hand1=2,3 hand2=4,5 pot=2 diff=0",
     "pot=2 diff=0 cannot happen when player 1 played 1,4,5,6 and player 2 1,2,3,6"),
    ("jujitsu(num_cards=5,ties=discard)", "hand1=1,2 hand2=4,5 pot=0 diff=-1",
     "pot=0 diff=-1 cannot happen when player 1 played 3,4,5 and player 2 1,2,3"),
    ("goofspiel(num_cards=5)",
     "hand1=2,3,4,5 hand2=1,3,4,5 prizes=2,4,5 prize=1 diff=1",
     "diff=1 cannot happen when player 1 played 1 and player 2 2 for the prizes 3: no play "
     "reaches this position; nothing is stored"),
    ("goofspiel(num_cards=4,ties=carry,points_order=descending)",
     "hand1=1 hand2=1 prizes=- prize=1 pot=3 diff=2",
     "pot=3 diff=2 cannot happen when player 1 played 2,3,4 and player 2 2,3,4 for the "
     "prizes 2,3,4"),
])
def test_key_refuses_a_position_no_play_reaches(spec: str, position: str, message: str) -> None:
    code, out, err = run("key", spec, position)
    assert code == 1 and out == "" and message in one_line(err)


def test_ctrl_c_at_plays_prompt_ends_the_prompts_line(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """In a terminal, ``play`` showed ``your card (...)> ^Cinterrupted``."""
    import sys

    from gamedb.cli.play import _read_line

    def pressed() -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(sys.stdin, "readline", pressed)
    with pytest.raises(KeyboardInterrupt):
        _read_line("your card> ")
    assert capsys.readouterr().out == "your card> \n"


def test_values_only_with_strategies_from_is_a_usage_error(tmp_path: Path) -> None:
    """Both were accepted: the file stored no strategy and recorded strategies_from=3."""
    code, _, err = run("build", "jujitsu(num_cards=6)", "--db", str(tmp_path / "j.sqlite"),
                       "--values-only", "--strategies-from", "3")
    assert code == 2 and "give one of the two" in err and not (tmp_path / "j.sqlite").exists()


@pytest.mark.parametrize("spec, top", [("jujitsu(num_cards=6)", 6),
                                       ("goofspiel(num_cards=5)", 5)])
def test_strategies_from_above_the_top_layer_is_a_usage_error(tmp_path: Path, spec: str,
                                                              top: int) -> None:
    """``--strategies-from 99`` was accepted: no layer stored a strategy, yet the file
    recorded strategies_from=99 and was no values-only file. The top layer is the
    start's (cards in a hand), for a game with its own index and for one without."""
    path = tmp_path / "g.sqlite"
    code, _, err = run("build", spec, "--db", str(path), "--strategies-from", str(top + 1))
    assert code == 2 and f"top layer is {top}" in err and "--values-only" in err, err
    assert not path.exists()
    code, _, err = run("build", spec, "--db", str(path), "--strategies-from", str(top),
                       "--quiet")
    assert code == 0, err


def test_a_book_from_below_the_lowest_layer_names_the_layers_it_holds(tmp_path: Path) -> None:
    """``book --from-layer 0`` of a file whose lowest layer is 1 said "layers 0 and up",
    and the book recorded layer 0; it now names the file's lowest layer, as a book
    ``--from-layer 1`` does (the two books are the same)."""
    from gamedb.builder import build

    source = tmp_path / "j5.sqlite"
    build("jujitsu(num_cards=5)", source)
    code, out, err = run("book", str(source), str(tmp_path / "b0.sqlite"), "--from-layer", "0",
                         "--quiet")
    assert code == 0, err
    assert "of layers 1 and up" in err, err  # the summary goes to stderr, the checksum out
    code, out, err = run("info", str(tmp_path / "b0.sqlite"))
    assert code == 0 and "layer 1 and up" in out, out


def test_building_into_an_opening_book_is_refused_with_what_it_is(tmp_path: Path) -> None:
    """``build SPEC --db BOOK`` said "already complete (1,632 states), nothing to do" of
    a book holding a sliver of the game."""
    from gamedb.builder import build

    full, book = tmp_path / "j6.sqlite", tmp_path / "j6.book.sqlite"
    build("jujitsu(num_cards=6)", full)
    assert run("book", str(full), str(book), "--from-layer", "4")[0] == 0
    before = book.read_bytes()
    code, _, err = run("build", "jujitsu(num_cards=6)", "--db", str(book))
    assert code == 1 and "is an opening book (layers 4 and up of a finished file)" in err
    assert book.read_bytes() == before


def test_a_float32_copy_shipped_as_float32_again_is_said_to_be_one(tmp_path: Path) -> None:
    """It was refused as having "no values-only page layers", which it has, rounded."""
    from gamedb.builder import build

    exact, small = tmp_path / "g5.sqlite", tmp_path / "g5.f32.sqlite"
    build("goofspiel(num_cards=5,returns_type=point_difference)", exact, pages_below=4,
          strategies_from=4)
    assert run("ship", str(exact), "--precision", "float32", "-o", str(small))[0] == 0
    code, _, err = run("ship", str(small), "--precision", "float32", "-o",
                       str(tmp_path / "again.sqlite"))
    assert code == 1 and "is a float32 copy already" in err
    assert not (tmp_path / "again.sqlite").exists()
    # verify --help promises 1e-9; a float32 copy passes with more, and now says so
    code, out, _ = run("verify", str(small), "--quiet")
    assert code == 0 and "values rounded to float32 (largest error " in out
    assert "plus twice that error" in out


def test_match_and_evaluate_print_no_negative_zero(tmp_path: Path) -> None:
    """``match ... highest random`` printed ``payoff          -0`` and ``evaluate
    --json`` ``"vs_equilibrium": [0.0, -0.0]``."""
    from gamedb.builder import build

    path = tmp_path / "j6.sqlite"
    build("jujitsu(num_cards=6)", path)
    code, out, _ = run("match", str(path), "highest", "random")
    assert code == 0 and "payoff" in out and " -0\n" not in out + "\n"
    code, out, _ = run("evaluate", str(path), "equilibrium", "--json", "--quiet")
    assert code == 0 and "-0.0," not in out and "-0.0]" not in out


def test_key_gives_a_point_difference_key_whatever_the_score_with_a_note() -> None:
    """``key`` refused a score no play gives as "nothing is stored" while ``show``
    answered it: a point-difference key leaves the score out, so the file holds it."""
    position = "hand1=2,3,4,5 hand2=1,3,4,5 prizes=2,4,5 prize=1"
    spec = "goofspiel(num_cards=5,returns_type=point_difference)"
    code, odd, _ = run("key", spec, f"{position} diff=1")
    assert code == 0 and ("note             diff=1 cannot happen when player 1 played 1 and "
                          "player 2 2 for the prizes 3: no play reaches this position") in odd
    code, fine, _ = run("key", spec, f"{position} diff=-3")
    assert code == 0 and "note" not in fine
    assert odd.splitlines()[2] == fine.splitlines()[2]  # the same key
    code, out, _ = run("key", spec, f"{position} diff=1", "--json")
    assert code == 0 and json.loads(out)["unreachable"].startswith("diff=1 cannot happen")


@pytest.mark.parametrize("num_cards, ties", [(4, "carry"), (5, "discard")])
def test_jujitsu_reachability_agrees_with_the_build_on_every_parseable_position(
        built, num_cards: int, ties: str) -> None:
    import itertools

    from gamedb.games import GameError, load_game
    from gamedb.store import NotSolved, open_db

    game = load_game(f"jujitsu(num_cards={num_cards},ties={ties})")
    hands = [",".join(map(str, h)) or "-" for k in range(num_cards)
             for h in itertools.combinations(range(1, num_cards + 1), k + 1)]
    counted = {True: 0, False: 0}
    with open_db(built(game.spec, canonical_keys=False)) as db:  # real positions
        for h1, h2, pot, diff in itertools.product(hands, hands, range(3), range(-4, 5)):
            try:
                state = game.parse_position(f"hand1={h1} hand2={h2} pot={pot} diff={diff}")
                db.probe(state)
                stored = True
            except GameError:
                continue
            except NotSolved:
                stored = False
            assert (game.unreachable(state) is None) == stored, (h1, h2, pot, diff)
            counted[stored] += 1
    assert counted[True] > 20 and counted[False] > 20


def test_progress_counts_are_whole_numbers_and_no_report_draws_no_bar(j4: Path) -> None:
    import re

    code, _, err = run("export", str(j4), "-o", str(j4.parent / "out.jsonl"))
    assert code == 0 and "positions/s" in err
    assert re.search(r" \d+/32 ", err) and not re.search(r"\d\.\d+[ /]", err), err
    code, _, err = run("tournament", "goofspiel(num_cards=5,returns_type=point_difference)",
                       "--agents", "level-1,level-2", "--games", "10")
    assert code == 0 and "0 pairings" not in err  # the bar starts at the first report
    junk = j4.with_name("junk.sqlite")
    junk.write_bytes(b"x" * 4096)
    code, _, err = run("build", "jujitsu(num_cards=3)", "--db", str(junk))
    assert code == 1 and err.startswith("Error: ") and "states" not in err


def test_play_prompt_mentions_quit_and_explain_shows_no_negative_zero(j4: Path) -> None:
    result = CliRunner().invoke(cli, ["play", str(j4)], input="?\nquit\n")
    assert result.exit_code == 0
    assert "your card (1, 2, 3, 4; ? explains, quit ends)> " in result.stdout
    assert "value for player 1: +0.0000" in result.stdout and "-0.0000" not in result.stdout


def test_export_into_a_missing_folder_names_the_users_path(j4: Path) -> None:
    target = j4.parent / "missing" / "x.jsonl"
    code, _, err = run("export", str(j4), "--output", str(target), "--quiet")
    assert code == 1
    assert one_line(err) == f"Error: cannot write {target}: folder '{target.parent}' does not exist"


@pytest.mark.parametrize("content", [b"\xff" * 4096, b"hello\n"])
def test_a_file_that_is_not_sqlite_is_not_a_gamedb_database(tmp_path: Path, content: bytes) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(content)
    for args in (["info", str(junk)], ["show", str(junk), "start"], ["verify", str(junk)],
                 ["build", "jujitsu(num_cards=3)", "--db", str(junk), "--quiet"],
                 ["sql", str(junk), "SELECT 1"], ["sql", str(junk), "SELECT * FROM states"]):
        code, _, err = run(*args)
        assert code == 1
        assert one_line(err) == f"Error: {junk}: not a gamedb database (not an SQLite file)"
    assert junk.read_bytes() == content


def test_ctrl_c_while_upgrade_copies_the_backup_leaves_no_backup_to_block_the_next_try(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    from gamedb.store import migrate

    old = Path(__file__).resolve().parent / "assets" / "jujitsu_num_cards=4_ties=carry.schema-0001.sqlite"
    path = tmp_path / "old.sqlite"
    shutil.copy(old, path)
    before = digest(path)
    real_connect = sqlite3.connect

    class HalfCopy:  # copies one table, then the user presses Ctrl-C
        def __init__(self, conn: sqlite3.Connection):
            self.conn = conn

        def backup(self, target: sqlite3.Connection) -> None:
            target.execute("CREATE TABLE half(x)")
            target.commit()
            raise KeyboardInterrupt

        def close(self) -> None:
            self.conn.close()

    def connect(target: str, *args: object, **kwargs: object) -> object:
        conn = real_connect(target, *args, **kwargs)  # type: ignore[arg-type]
        return HalfCopy(conn) if "mode=ro" in str(target) else conn

    monkeypatch.setattr(migrate, "sqlite3", types.SimpleNamespace(connect=connect))
    code, _, err = run("upgrade", str(path))
    assert code == 130 and one_line(err) == "interrupted"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.sqlite"]
    assert digest(path) == before
    monkeypatch.undo()
    code, out, _ = run("upgrade", str(path))
    assert code == 0 and "schema 0001 -> 0007" in out


@pytest.fixture
def unfinished_pages(tmp_path: Path) -> Path:
    """5-card win/loss Goofspiel with keyed page layers, its last page layer and every
    layer above it not stored yet: a build stopped mid-way (Ctrl-C)."""
    from gamedb.builder import build

    path = tmp_path / "g5.sqlite"
    build("goofspiel(num_cards=5)", path, page_min=100, page_size=64)
    with sqlite3.connect(path) as conn:
        layer = conn.execute("SELECT max(layer) FROM pages").fetchone()[0]
        conn.execute("DELETE FROM pages WHERE layer >= ?", (layer,))
        conn.execute("DELETE FROM states WHERE layer >= ?", (layer,))
        conn.execute("UPDATE layers SET done = 0, max_gap = 0 WHERE layer >= ?", (layer,))
        conn.execute("""UPDATE meta SET value = '"building"' WHERE name = 'status'""")
        conn.execute("DELETE FROM meta WHERE name IN ('root_value', 'states', 'root_keys')")
    return path


@pytest.mark.parametrize("command", [
    ["match", "{db}", "equilibrium", "random", "--games", "3"],
    ["tournament", "{db}", "--agents", "equilibrium,random", "--simulate", "--games", "2"],
    ["play", "{db}", "--seed", "1"],
])
def test_play_on_a_big_unfinished_file_is_refused_up_front_not_a_silent_hang(
        tmp_path: Path, command: list[str]) -> None:
    """A 7-card build stopped after its first layers: ``match``, ``tournament
    --simulate`` and ``play`` went silent for minutes, solving every position the file
    lacked on the fly (the start first); the cost check took the file for a finished
    one. The positions to solve now count, and past 5 minutes it refuses."""
    from gamedb.builder import build

    path = tmp_path / "g7.sqlite"
    build("goofspiel(num_cards=7)", path)
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM states WHERE layer >= 4")
        conn.execute("DELETE FROM pages WHERE layer >= 4")
        conn.execute("UPDATE layers SET done = 0, max_gap = 0 WHERE layer >= 4")
        conn.execute("""UPDATE meta SET value = '"building"' WHERE name = 'status'""")
        conn.execute("DELETE FROM meta WHERE name IN ('root_value', 'states', 'root_keys')")
    start = time.perf_counter()
    code, _, err = run(*[part.format(db=path) for part in command])
    line = one_line(err)
    assert code == 1 and "refused beyond 5.0 min" in line, line
    assert "the build is not finished" in line and "run the same build command" in line
    assert time.perf_counter() - start < 30


def test_match_and_play_on_an_unfinished_page_file_solve_what_it_lacks(
        unfinished_pages: Path) -> None:
    """A layer of keyed pages with none stored yet made the equilibrium agent's look-up
    fail with an IndexError traceback (``match``, ``play``, ``tournament --simulate``);
    a position the file lacks is solved here, as in an unfinished file of rows."""
    code, out, _ = run("match", str(unfinished_pages), "equilibrium", "random",
                       "--games", "4", "--seed", "1")
    assert code == 0 and "equilibrium" in out


def test_evaluate_of_an_unfinished_file_says_the_build_is_not_finished(
        unfinished_pages: Path) -> None:
    """``evaluate`` reads every position of the file: an unfinished one was a ValueError
    traceback ("96 positions are not stored")."""
    code, _, err = run("evaluate", str(unfinished_pages), "random", "--quiet")
    assert code == 1
    line = one_line(err)
    assert "the build is not finished" in line and "run the same build command" in line


def test_build_with_an_empty_db_path_is_a_usage_error(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``--db ""`` was a ValueError traceback (PosixPath('.') has an empty name)."""
    monkeypatch.chdir(tmp_path)
    code, _, err = run("build", "jujitsu(num_cards=4)", "--db", "")
    assert code == 2 and "--db" in err
    assert list(tmp_path.iterdir()) == []


def test_evaluate_of_an_opening_book_says_it_is_a_book(j4: Path, tmp_path: Path) -> None:
    """An opening book lacks the layers below its lowest: ``evaluate`` of one was the same
    ValueError traceback as of an unfinished file."""
    book = tmp_path / "b4.sqlite"
    code, _, err = run("book", str(j4), str(book), "--from-layer", "2", "--quiet")
    assert code == 0, err
    code, _, err = run("evaluate", str(book), "random", "--quiet")
    assert code == 1
    assert "positions are not stored in b4.sqlite (an opening book: it holds layer 2 " \
        "and up)" in one_line(err)


def test_sql_of_an_sqlite_file_gamedb_did_not_make_says_so_as_every_command_does(
        tmp_path: Path) -> None:
    """``sql`` said "no such table: states" of another program's SQLite file, where every
    other command says "not a gamedb database"."""
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    before = digest(other)
    for args in (["info", str(other)], ["sql", str(other), "SELECT * FROM states"],
                 ["sql", str(other), "SELECT * FROM t"]):
        code, _, err = run(*args)
        assert code == 1 and one_line(err) == f"Error: {other}: not a gamedb database"
    assert digest(other) == before


@pytest.mark.parametrize("from_layer", [2, 4])
def test_book_of_an_unfinished_file_says_the_build_is_not_finished(
        unfinished_pages: Path, from_layer: int) -> None:
    """From layer 4 (the first layer not stored yet) ``book`` said "0 position(s) of
    layers 4 and up fail to verify"; from layer 2, "not complete (status building)"."""
    book = unfinished_pages.with_name("b5.sqlite")
    code, _, err = run("book", str(unfinished_pages), str(book), "--from-layer",
                       str(from_layer), "--quiet")
    assert code == 1 and not book.exists()
    assert one_line(err) == (f"Error: {unfinished_pages}: the build is not finished: 2,875 "
                             "of 3,100 positions; run the same build command to resume, "
                             "then make the book")


def test_ship_of_an_unfinished_file_says_the_build_is_not_finished(
        unfinished_pages: Path) -> None:
    before = digest(unfinished_pages)
    for args in (["ship", str(unfinished_pages)],
                 ["ship", str(unfinished_pages), "--precision", "float32", "-o",
                  str(unfinished_pages.with_name("f.sqlite"))]):
        code, _, err = run(*args)
        assert code == 1 and one_line(err).endswith(
            "the build is not finished: 2,875 of 3,100 positions; run the same build "
            "command to resume, then ship it")
    assert digest(unfinished_pages) == before
    assert not unfinished_pages.with_name("f.sqlite").exists()


def test_export_and_verify_of_an_unfinished_file_say_the_build_is_not_finished(
        unfinished_pages: Path) -> None:
    """``export`` wrote the positions stored so far, and ``verify`` called them sound,
    without a word that the file lacks the rest."""
    target = unfinished_pages.with_name("g5.csv")
    code, out, err = run("export", str(unfinished_pages), "-o", str(target), "--quiet")
    assert code == 0 and len(target.read_text().splitlines()) == 2_875
    assert "g5.csv: 2,875 positions" in out
    assert one_line(err) == (f"warning: {unfinished_pages}: the build is not finished: "
                             "2,875 of 3,100 positions; the export holds those stored so far")
    code, out, _ = run("verify", str(unfinished_pages))
    assert code == 0
    assert out.strip().splitlines()[-2:] == [
        "2,875 of 3,100 positions checked, max gap 8.9e-16: sound",
        "  (the build is not finished: 2,875 of 3,100 positions; run the same build "
        "command to resume)"]


def test_a_missing_chance_position_is_named_as_typed_not_as_one_of_its_draws(
        unfinished_pages: Path) -> None:
    """Before a prize is drawn, ``show`` said "position not in FILE:" of the first draw
    (``prizes=2,3,4,5 prize=1``), a position the user never typed."""
    typed = "hand1=1,2,3,4,5 hand2=1,2,3,4,5 prizes=1,2,3,4,5 diff=0"
    code, _, err = run("show", str(unfinished_pages), typed)
    assert code == 1
    assert one_line(err).startswith(f"Error: position not in g5.sqlite: {typed} (the build "
                                    "is not finished: 2,875 of 3,100 positions; run the same "
                                    "build command to resume); try: gamedb solve")
