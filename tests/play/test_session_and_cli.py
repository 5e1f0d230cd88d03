"""The play commands end to end: match, tournament, scripted play, pictures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gamedb.cli import cli
from gamedb.play.equilibrium import Equilibrium
from gamedb.play.session import play_session
from gamedb.store import open_db


def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("command", [["match"], ["tournament"], ["play"], ["plot", "strategy"],
                                     ["plot", "heatmap"]])
def test_every_play_command_has_help_with_an_example(command: list[str]) -> None:
    code, out, _ = run(*command, "--help")
    assert code == 0 and "Example:" in out


def test_match_help_lists_the_agent_names() -> None:
    out = run("match", "--help")[1]
    names = ("level-K", "bid-range-L-H", "best-response:AGENT", "nash-range",
             "equilibrium-vs:AGENT")
    assert all(name in out for name in names)


def test_equilibrium_from_the_database_equals_the_one_solved_on_the_fly(built) -> None:  # type: ignore[no-untyped-def]
    with open_db(built("jujitsu(num_cards=5)")) as db:
        stored, fresh = Equilibrium(db.game, db), Equilibrium.solve(db.game)
        for _, state in db.game.initial():
            assert stored.value(state) == pytest.approx(fresh.value(state), abs=1e-12)


def test_match_exact_and_simulated_json(built) -> None:  # type: ignore[no-untyped-def]
    db = str(built("jujitsu(num_cards=5)"))
    code, out, err = run("match", db, "equilibrium", "random", "--json")
    exact = json.loads(out)
    assert code == 0, err
    assert exact["payoff"] == pytest.approx(0.16804167, abs=1e-8)
    assert exact["win"] + exact["draw"] + exact["loss"] == pytest.approx(1.0)
    code, out, _ = run("match", db, "equilibrium", "random", "--games", "300", "--seed", "4", "--json")
    sim = json.loads(out)
    assert code == 0 and sim["games"] == 300 and sim["seed"] == 4
    assert abs(sim["payoff"] - exact["payoff"]) <= sim["payoff_ci"] * 1.5
    code, out, _ = run("match", db, "best-response:equilibrium", "equilibrium")
    assert code == 0 and "payoff" in out


def test_match_rejects_an_agent_that_makes_no_sense_here(built) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run("match", str(built("jujitsu(num_cards=3)")), "level-2", "random")
    assert code == 1 and "revealed prize" in err and len(err.strip().splitlines()) == 1


def test_tournament_prints_the_published_level_one_versus_level_two_gap() -> None:
    code, out, err = run("tournament", "goofspiel(num_cards=13,returns_type=point_difference)",
                         "--agents", "level-1,level-2", "--games", "10,50")
    assert code == 0, err
    assert "10 games per pairing" in out and "-650.0" in out and "-3250.0" in out
    level2 = next(line for line in out.splitlines() if line.strip().startswith("level-2"))
    assert level2.split()[2:4] == ["780.0", "130.0"] and level2.rstrip().endswith("level-1")


def test_scripted_play_reveals_cards_keeps_score_and_explains(built) -> None:  # type: ignore[no-untyped-def]
    db = str(built("jujitsu(num_cards=3)"))
    code, out, err = run("play", db, "--seed", "3", stdin="9\n?\n3\n2\n1\n")
    assert code == 0, err
    assert "is not legal here; choose one of" in out and "equilibrium at now" in out
    assert out.count("you played") == 3 and "score you" in out and "Game over" in out


def test_session_stops_cleanly_when_input_runs_out(built) -> None:  # type: ignore[no-untyped-def]
    lines = iter(["1"])
    written: list[str] = []
    with open_db(built("goofspiel(num_cards=3)")) as db:
        result = play_session(db, lambda prompt: next(lines, None), written.append, seat=2, seed=1)
    assert not result.finished and result.rounds == 1
    assert any("previous" not in w and "you played 1" in w for w in written)


def test_plots_are_written_as_png_and_svg(built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = str(built("oshi_zumo(coins=6,size=2)"))
    png, svg = tmp_path / "s.png", tmp_path / "h.svg"
    assert run("plot", "strategy", db, "start", "-o", str(png))[0] == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = run("plot", "heatmap", db, "--x", "coins1", "--y", "coins2", "--fixed", "pos=0",
                       "--what", "prob:1", "-o", str(svg))
    assert code == 0, err
    assert svg.read_text().lstrip().startswith(("<?xml", "<svg"))
    code, _, err = run("plot", "heatmap", db, "--x", "coins1", "--y", "coins2", "--what", "odd",
                       "-o", str(svg))
    assert code == 1 and "--what" in err


def test_tournament_beat_follows_a_payoff_column_shown_beside_the_points() -> None:
    # win/loss Goofspiel: the equilibrium wins more games against level-1 than it loses
    # while scoring fewer points; "beat" must follow a column the table shows
    code, out, err = run("tournament", "goofspiel(num_cards=5)", "--agents",
                         "equilibrium,level-1", "--games", "50", "--quiet")
    assert code == 0, err
    lines = out.splitlines()
    header = next(line.split() for line in lines if line.strip().startswith("agent"))
    standings = lines[lines.index(next(x for x in lines if x.strip().startswith("agent"))) + 1:]
    rows = {line.split()[0]: line.split() for line in standings[:2]}
    payoff = header.index("payoff")
    diff = header.index("diff")
    eq = rows["equilibrium"]
    assert float(eq[payoff]) > 0 > float(eq[diff]) and eq[-1] == "level-1"
    assert "payoff, row vs column" in out and "beat: " in out


def test_play_on_the_thirteen_card_book_stops_where_the_book_ends() -> None:
    book = Path(__file__).resolve().parents[2] / "data" / (
        "goofspiel_num_cards=13_points_order=random_returns_type=point_difference_ties=discard"
        ".book.shipped.sqlite")
    code, out, err = run("play", str(book), "--seed", "1", stdin="1\n2\n3\n")
    assert code == 0 and "Error" not in out + err, out + err
    assert out.count("you played") == 2 and out.count("your card (") == 2
    assert "The opening book ends here" in out


def test_an_exact_match_too_big_to_walk_is_refused_up_front_with_the_games_hint() -> None:
    import time

    g7 = Path(__file__).resolve().parents[2] / "data" / (
        "goofspiel_num_cards=7_points_order=random_returns_type=win_loss_ties=discard.shipped.sqlite")
    start = time.perf_counter()
    code, out, err = run("match", str(g7), "equilibrium", "random", "--quiet")
    assert code == 1 and "218,584 positions" in err and "--games 2000" in err, err
    assert len(err.strip().splitlines()) == 1 and time.perf_counter() - start < 30
    code, out, err = run("tournament", str(g7), "--agents", "equilibrium,random", "--quiet")
    assert code == 1 and "--simulate" in err, err
    code, out, err = run("match", str(g7), "equilibrium", "random", "--games", "50", "--seed", "1",
                         "--quiet")
    assert code == 0, err


def test_a_draw_in_the_second_seat_is_payoff_plus_zero(built) -> None:  # type: ignore[no-untyped-def]
    """Player 2's side of a draw is -(0.0): it printed "a draw (payoff -0)"."""
    db = str(built("jujitsu(num_cards=3)"))
    code, out, err = run("play", db, "--seat", "2", "--seed", "2", stdin="1\n2\n3\n")
    assert code == 0, err
    assert "Game over after 3 rounds: a draw (payoff +0)." in out


def test_a_tournament_table_prints_no_negative_zero_and_refuses_an_agent_named_twice(
        built) -> None:  # type: ignore[no-untyped-def]
    """random against highest printed 0.0 one way and -0.0 the other; an agent named
    twice ran, with two identical rows and a diagonal of -0.0."""
    db = str(built("jujitsu(num_cards=6)"))
    code, out, err = run("tournament", db, "--agents", "equilibrium,random,highest",
                         "--quiet")
    assert code == 0, err
    cells = out.split()
    assert "0.0" in cells and "-0.0" not in cells
    code, _, err = run("tournament", db, "--agents", "equilibrium,random,equilibrium")
    assert code == 2 and "--agents names equilibrium twice" in err


@pytest.mark.parametrize("games, said", [("0", "every series length must be at least 1"),
                                         ("10,abc", "must be comma-separated integers")])
def test_a_bad_games_list_of_a_tournament_is_a_usage_error_as_matchs_is(
        built, games: str, said: str) -> None:  # type: ignore[no-untyped-def]
    """``tournament --games 0`` exited 1 without the usage; ``match --games 0`` exits 2."""
    db = str(built("jujitsu(num_cards=4)"))
    code, _, err = run("tournament", db, "--agents", "random,highest", "--games", games)
    assert code == 2 and "Invalid value for '--games'" in err and said in err
    assert run("match", db, "random", "highest", "--games", "0")[0] == 2
