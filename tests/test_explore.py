"""The explorer's JSON: per-move values against the equilibrium, and successors by the rules."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from gamedb.cli import cli
from gamedb.explore import move_values, show_json, successors
from gamedb.games import GameError, load_game
from gamedb.play.equilibrium import Equilibrium
from gamedb.store import open_db

SPECS = ["jujitsu(num_cards=4)", "goofspiel(num_cards=4)", "oshi_zumo(coins=5,min_bid=1,size=2)",
         "nim(heaps=1-2-3)", "tictoe"]
CONTRACT = {"spec", "position", "value", "strategy", "actions"}


def _decision_states(db, limit: int = 40):  # type: ignore[no-untyped-def]
    """A sample of stored positions, decoded (the first ``limit`` keys)."""
    keys = [k for (k,) in db.connection.execute(
        "SELECT key FROM states ORDER BY key DESC LIMIT ?", (limit,))]
    return [db.game.decode(k) for k in keys]


@pytest.mark.parametrize("spec", SPECS)
def test_move_values_are_the_stage_game_against_the_opponents_equilibrium(built, spec: str) -> None:
    with open_db(built(spec)) as db:
        eq = Equilibrium(db.game, db)
        for state in _decision_states(db):
            shown = show_json(db, state)
            acts1, acts2 = db.game.actions(state)
            stage = eq.stage_matrix(state)  # an independent reading of the successors
            x = np.array([shown["strategy"]["1"].get(str(a), 0.0) for a in acts1])
            y = np.array([shown["strategy"]["2"].get(str(b), 0.0) for b in acts2])
            rows = [m["value"] for m in shown["moves"]["1"]]
            cols = [m["value"] for m in shown["moves"]["2"]]
            assert rows == pytest.approx(stage @ y, abs=1e-9)
            assert cols == pytest.approx(x @ stage, abs=1e-9)
            # the best action of each player is worth the position's value, and loses nothing
            assert max(rows) == pytest.approx(shown["value"], abs=1e-8)
            assert min(cols) == pytest.approx(shown["value"], abs=1e-8)
            for player, sign in (("1", 1), ("2", -1)):
                best = max(sign * m["value"] for m in shown["moves"][player])
                for move in shown["moves"][player]:
                    assert move["loss"] == pytest.approx(best - sign * move["value"], abs=1e-12)
                    assert move["loss"] >= 0
                    if shown["strategy"][player].get(str(move["action"]), 0) > 1e-6:
                        assert move["loss"] < 1e-8  # what the equilibrium plays loses nothing


def test_show_json_keeps_the_contract_fields_and_adds_the_explorers(built) -> None:  # type: ignore[no-untyped-def]
    db = str(built("tictoe"))
    shown = json.loads(CliRunner().invoke(cli, ["show", db, "start", "--json"]).stdout)
    assert CONTRACT < set(shown) and set(shown) - CONTRACT == {"names", "noun", "payoff",
                                                               "chance", "moves", "unreachable"}
    assert shown["unreachable"] is None  # tictoe cannot tell: every position may be
    assert shown["names"] == {"1": {"0": "top left", "1": "top right", "2": "bottom left",
                                    "3": "bottom right"}, "2": {"0": "pass"}}
    assert shown["noun"] == "cell" and shown["payoff"] is None and shown["chance"] == []
    assert [m["name"] for m in shown["moves"]["2"]] == ["pass"]
    assert shown["moves"]["2"][0]["loss"] == 0.0


def test_a_chance_node_lists_its_draws_labelled_by_the_prize(built) -> None:  # type: ignore[no-untyped-def]
    with open_db(built("goofspiel(num_cards=4)")) as db:
        shown = show_json(db, "start")
        draws = shown["chance"]
        assert [d["label"] for d in draws] == ["prize=1", "prize=2", "prize=3", "prize=4"]
        assert sum(d["prob"] for d in draws) == pytest.approx(1.0)
        assert shown["moves"] == {"1": [], "2": []} and shown["strategy"] == {}
        # the expected value over the draws is the start's value
        assert sum(d["prob"] * db.value(d["position"]) for d in draws) == pytest.approx(shown["value"])


def test_a_finished_game_shows_its_payoff_and_no_moves(built) -> None:  # type: ignore[no-untyped-def]
    with open_db(built("jujitsu(num_cards=4)")) as db:
        shown = show_json(db, "hand1=- hand2=- pot=0 diff=2")
    assert shown["payoff"] == 1.0 and shown["value"] == 1.0 and shown["moves"] == {"1": [], "2": []}


def test_successors_follow_the_rules_with_chance_probabilities() -> None:
    game = load_game("goofspiel(num_cards=4)")
    outcomes = successors(game, "hand1=1,2,3,4 hand2=1,2,3,4 prizes=1,2,4 prize=3 diff=0", 4, 1)
    assert [(o.label, o.prob) for o in outcomes] == [
        ("prize=1", pytest.approx(1 / 3)), ("prize=2", pytest.approx(1 / 3)),
        ("prize=4", pytest.approx(1 / 3))]
    assert outcomes[0].position == "hand1=1,2,3 hand2=2,3,4 prizes=2,4 prize=1 diff=3"
    nim = load_game("nim(heaps=1-2)")
    assert [o.position for o in successors(nim, "heaps=1,2 mover=1", "202", "0")] == [
        "heaps=0,1 mover=2"]  # heap 2 takes 2; heaps are written sorted


@pytest.mark.parametrize("position, a1, a2, message", [
    ("start", "9", "1", "9 is not a legal card of player 1 here; legal: 1, 2, 3, 4"),
    ("start", "1", "x", "the action of player 2 must be an integer, got 'x'"),
    ("start", "1", "9" * 40, "the action of player 2 must be an integer"),
    ("hand1=- hand2=- pot=0 diff=0", "1", "1", "the game is over"),
    ("hand1=1,2 hand2=3,4 pot=0 diff=7", "1", "1", "cannot happen after 2 tricks"),
])
def test_successors_refuse_what_the_rules_do_not_allow(position: str, a1: str, a2: str,
                                                       message: str) -> None:
    with pytest.raises(GameError, match=message.replace("(", r"\(")):
        successors(load_game("jujitsu(num_cards=4)"), position, a1, a2)


def test_successors_of_a_chance_node_ask_for_a_draw_first() -> None:
    with pytest.raises(GameError, match="a chance draw comes first"):
        successors(load_game("goofspiel(num_cards=4)"), "start", 1, 1)


def test_tictoe_names_the_pass_in_the_legal_list() -> None:
    with pytest.raises(GameError, match=r"legal: 0 \(pass\)"):
        successors(load_game("tictoe"), "start", 1, 3)


def test_a_missing_or_damaged_successor_is_named_not_guessed_and_show_leaves_moves_out(built, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import shutil
    import sqlite3

    from gamedb.store import DamagedFile, NotSolved

    path = tmp_path / "j4.sqlite"
    shutil.copy(built("jujitsu(num_cards=4)"), path)
    game = load_game("jujitsu(num_cards=4)")
    position = "hand1=1,2 hand2=3,4 pot=0 diff=2"
    child = game.next(game.parse_position(position), 1, 3)[0][1]
    key = game.canonical(child).key
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE states SET value = 'x' WHERE key = ?", (key,))
    with open_db(path) as db, pytest.raises(DamagedFile, match=f"key {key}: its value is not"):
        show_json(db, position)
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM states WHERE key = ?", (key,))
    with open_db(path) as db:
        with pytest.raises(NotSolved, match="position not in j4.sqlite: hand1="):
            move_values(db, game.parse_position(position), db.probe(position))
        shown = show_json(db, position)  # the position itself is there: shown without moves
    assert "moves" not in shown and shown["strategy"]["1"]
