"""What the commands print: games, build --json, key labels, show's legal actions, passes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from gamedb.cli import cli
from gamedb.games import GAMES


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_games_prints_every_parameter_kind_without_none() -> None:
    code, out, _ = run("games")
    assert code == 0 and "None" not in out
    nim = out[out.index("\nnim\n"):].splitlines()[2]
    assert nim.split()[:2] == ["heaps", "text"] and "(default: 1-3-5-7)" in nim
    assert "num_cards      1..16 " in out and "alesia         false|true" in out
    assert "tictoe\n  (no parameters)" in out


def test_games_json_lists_every_family_with_its_parameters() -> None:
    code, out, _ = run("games", "--json")
    families = json.loads(out)
    assert code == 0 and [f["name"] for f in families] == sorted(GAMES)
    jujitsu = next(f for f in families if f["name"] == "jujitsu")
    assert jujitsu["spec"] == "jujitsu(num_cards=8,ties=carry)"
    assert jujitsu["params"][0] == {"name": "num_cards", "type": "int", "default": 8,
                                    "low": 1, "high": 16, "choices": None,
                                    "doc": "cards per player"}
    nim = next(f for f in families if f["name"] == "nim")
    assert nim["params"][0]["type"] == "str" and nim["params"][0]["low"] is None


def test_build_json_prints_the_report(tmp_path: Path) -> None:
    db = tmp_path / "j4.sqlite"
    for solved in (32, 0):  # a fresh build, then a file already complete
        code, out, err = run("build", "jujitsu(num_cards=4)", "--db", str(db), "--quiet", "--json")
        report = json.loads(out)
        assert code == 0, err
        assert report["spec"] == "jujitsu(num_cards=4,ties=carry)" and report["path"] == str(db)
        assert report["status"] == "complete" and report["states"] == 32
        assert report["solved"] == solved and report["root_value"] == pytest.approx(0, abs=1e-12)
        assert report["seconds"] >= 0
    code, out, _ = run("build", "jujitsu(num_cards=4)", "--db", str(db), "--quiet")
    assert code == 0 and "nothing to do" in out  # the text stays as it was


def test_key_lists_each_players_own_cards_only() -> None:
    position = "hand1=2,7 hand2=4,8 pot=0 diff=-2"
    code, out, _ = run("key", "jujitsu(num_cards=8)", position, "--json")
    players = json.loads(out)["players"]
    assert code == 0
    assert players["1"]["actions"] == {"2": 1, "7": 3} and players["2"]["actions"] == {"4": 2, "8": 4}
    code, out, _ = run("key", "jujitsu(num_cards=8)", position)
    rows = [line.split() for line in out.splitlines()[-4:]]
    assert code == 0 and rows == [["1", "1", "2", "1"], ["1", "1", "7", "3"],
                                  ["2", "2", "4", "2"], ["2", "2", "8", "4"]]


def _table(out: str) -> dict[str, dict[str, str]]:
    """The action table of ``show``: first column -> {column header: cell}."""
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if "p1 prob" in line)
    headers = re.split(r"\s{2,}", lines[at].strip())
    rows = [re.split(r"\s{2,}", line.strip()) for line in lines[at + 1:]]
    return {row[0]: dict(zip(headers[1:], row[1:])) for row in rows if len(row) == len(headers)}


def _rows(out: str) -> dict[str, list[str]]:
    """The action table of ``show``: first column -> the players' probabilities."""
    return {name: [cells["p1 prob"], cells["p2 prob"]] for name, cells in _table(out).items()}


def test_show_start_of_goofspiel_says_a_chance_draw_is_next_with_each_draws_value(built) -> None:  # type: ignore[no-untyped-def]
    db = str(built("goofspiel(num_cards=4)"))
    code, out, _ = run("show", db, "start")
    assert code == 0 and "a chance draw is next" in out and "game is over" not in out
    code, js, _ = run("show", db, "start", "--json")
    draws = json.loads(js)["chance"]
    assert [d["label"] for d in draws] == ["prize=1", "prize=2", "prize=3", "prize=4"]
    for draw in draws:
        code, each, _ = run("show", db, draw["position"], "--json")
        assert draw["value"] == pytest.approx(json.loads(each)["value"], abs=1e-9)
        line = next(x for x in out.splitlines() if x.split()[:1] == [draw["label"]])
        assert line.split()[1:] == ["0.2500", f"{round(draw['value'], 6) + 0.0:+.6f}"]


def test_show_gives_each_moves_value_and_loss_so_every_winning_nim_move_shows(built) -> None:  # type: ignore[no-untyped-def]
    db = str(built("nim(heaps=4-5-6)"))  # xor 7: one winning move on each heap
    code, out, _ = run("show", db, "start")
    table = _table(out)
    winning = sorted(name for name, cells in table.items() if cells["p1 loss"] == "0.0000")
    assert code == 0 and len(winning) == 3, out
    assert all(table[name]["p1 value"] == "+1.0000" for name in winning)
    assert all(cells["p1 value"] == "-1.0000" and cells["p1 loss"] == "2.0000"
               for name, cells in table.items() if name not in winning and name != "pass")
    assert table["pass"]["p2 value"] == "-1.0000"  # player 2's own point of view


def test_show_loss_is_never_negative_and_values_are_each_players_own(built) -> None:  # type: ignore[no-untyped-def]
    db = str(built("jujitsu(num_cards=6)"))
    position = "hand1=1,3,5 hand2=2,4,6 pot=0 diff=1"
    code, out, _ = run("show", db, position)
    moves = json.loads(run("show", db, position, "--json")[1])["moves"]
    table = _table(out)
    for player in (1, 2):
        for move in moves[str(player)]:
            cells = table[move["name"]]
            own = move["value"] if player == 1 else -move["value"]
            assert float(cells[f"p{player} value"]) == pytest.approx(own, abs=1e-4)
            assert float(cells[f"p{player} loss"]) == pytest.approx(move["loss"], abs=1e-4)
            assert not cells[f"p{player} loss"].startswith("-")


def test_show_lists_every_legal_card_even_at_probability_zero(built) -> None:  # type: ignore[no-untyped-def]
    db = str(built("jujitsu(num_cards=6)"))
    code, out, _ = run("show", db, "start")
    rows = _rows(out)
    assert code == 0 and list(rows) == ["1", "2", "3", "4", "5", "6"]
    assert rows["6"] == ["0.0000", "0.0000"]  # never lead the highest card (Sanwal & Drechsler)
    code, out, _ = run("show", db, "start", "--json")
    shown = json.loads(out)
    assert code == 0 and shown["actions"] == {"1": [1, 2, 3, 4, 5, 6], "2": [1, 2, 3, 4, 5, 6]}
    assert "6" not in shown["strategy"]["1"] and "6" not in shown["strategy"]["2"]
    assert {"spec", "position", "value", "strategy", "actions"} < set(shown)  # + the explorer's (test_explore)


def test_show_marks_cards_a_player_does_not_hold(built) -> None:  # type: ignore[no-untyped-def]
    db = str(built("jujitsu(num_cards=6)"))
    code, out, _ = run("show", db, "hand1=1,3,5 hand2=2,4,6 pot=0 diff=1")
    rows = _rows(out)
    assert code == 0 and rows["1"][1] == "-" and rows["2"][0] == "-"
    assert float(rows["1"][0]) + float(rows["3"][0]) + float(rows["5"][0]) == pytest.approx(1, abs=1e-3)
    code, out, _ = run("show", db, "hand1=- hand2=- pot=0 diff=2", "--json")
    assert code == 0 and json.loads(out)["actions"] == {"1": [], "2": []}


def test_show_names_the_tictoe_pass_apart_from_cell_0(built) -> None:  # type: ignore[no-untyped-def]
    db = str(built("tictoe"))
    code, out, _ = run("show", db, "start")
    rows = _rows(out)
    assert code == 0 and rows["top left"] == ["1.0000", "-"] and rows["pass"] == ["-", "1.0000"]
    code, out, _ = run("show", db, "start", "--json")
    assert json.loads(out)["actions"] == {"1": [0, 1, 2, 3], "2": [0]}


def test_play_never_asks_the_player_to_type_a_pass(built) -> None:  # type: ignore[no-untyped-def]
    db = str(built("tictoe"))
    result = CliRunner().invoke(cli, ["play", db, "--seat", "2", "--seed", "1"],
                                input="?\n" + "0\n1\n2\n3\n" * 2)
    assert result.exit_code == 0 and "Game over" in result.stdout, result.output
    assert "(pass;" not in result.stdout and "your cell (" in result.stdout
    assert "you pass" in result.stdout and "player 2 plays pass: 1.000" in result.stdout


def test_play_plays_a_forced_last_card_by_itself(built) -> None:  # type: ignore[no-untyped-def]
    db = str(built("jujitsu(num_cards=3)"))
    result = CliRunner().invoke(cli, ["play", db, "--seed", "2"], input="1\n2\n")
    assert result.exit_code == 0 and "Game over after 3 rounds" in result.stdout, result.output
    assert result.stdout.count("your card (") == 2 and "your only card: 3" in result.stdout


def test_nim_names_the_pass_of_the_player_not_on_move(built) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run("show", str(built("nim(heaps=1-2)")), "heaps=1,2 mover=2")
    rows = _rows(out)
    assert code == 0 and rows["pass"][0] == "1.0000" and set(rows) == {"pass", "take 1 from heap 1", "take 1 from heap 2", "take 2 from heap 2"}


def test_show_prints_the_grundy_value_of_impartial_families_only(built) -> None:  # type: ignore[no-untyped-def]
    nim, juj = str(built("nim(heaps=1-2)")), str(built("jujitsu(num_cards=3)"))
    code, out, _ = run("show", nim, "heaps=1,2 mover=2")
    assert code == 0 and "grundy    3 (the mover wins)" in out.splitlines()  # 1 xor 2
    code, out, _ = run("show", nim, "heaps=1,1 mover=1", "--json")
    assert code == 0 and json.loads(out)["grundy"] == 0 and json.loads(out)["value"] == -1.0
    hb = str(built("hackenbush(edges=0-1,1-2,2-0)"))
    assert json.loads(run("show", hb, "start", "--json")[1])["grundy"] == 1  # a triangle
    code, out, _ = run("show", juj, "start", "--json")
    assert code == 0 and "grundy" not in json.loads(out) and "grundy" not in run("show", juj, "start")[1]


def test_progress_into_a_log_is_whole_lines_without_carriage_returns(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    done = subprocess.run([sys.executable, "-m", "gamedb", "build", "jujitsu(num_cards=6)",
                           "--db", str(tmp_path / "j6.sqlite"), "--workers", "1"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr and "states" in done.stderr, repr(done.stderr)
    assert all(line.strip() for line in done.stderr.splitlines())
