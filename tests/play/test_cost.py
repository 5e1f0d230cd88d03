"""The cost of a match before it starts (``gamedb.play.cost``), for nested
``equilibrium-vs:`` agents: each level solves an LP at every real decision position of
the game (8-card Jujitsu: ~100,000, where the file stores 2,686), which the estimate
counted as canonical positions at 500 a second: a 165 s match was estimated at 14 s, and
nesting ran for minutes without a word."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from gamedb.cli import cli
from gamedb.games import load_game
from gamedb.play.agents import Uniform
from gamedb.play.cost import decision_positions, match_cost
from gamedb.play.names import make_agent
from gamedb.play.tournament import play_match
from gamedb.store import open_db
from tests.walk import decision_states

J8 = Path(__file__).resolve().parents[2] / "data" / "jujitsu_num_cards=8_ties=carry.shipped.sqlite"


def test_the_estimate_of_a_nested_equilibrium_vs_is_within_a_factor_of_three_of_its_cpu(
        built) -> None:  # type: ignore[no-untyped-def]
    name = "equilibrium-vs:equilibrium-vs:random"
    small = load_game("jujitsu(num_cards=3)")  # SciPy and the compiled code loaded first
    play_match(small, make_agent(name, small), Uniform(), games=1, seed=1)
    with open_db(built("jujitsu(num_cards=5)")) as db:
        cost = match_cost(db.game, [(name, "random")], has_file=True, games=10,
                          stored=db.meta["states"])
        start = time.process_time()  # CPU: the machine may be busy with other work
        play_match(db.game, make_agent(name, db.game, db), Uniform(), games=10, seed=1)
        seconds = time.process_time() - start
    assert 1 / 3 <= cost.seconds / seconds <= 3, (cost.seconds, seconds)  # was 0.4 s for 1.7


@pytest.mark.parametrize("spec", ["jujitsu(num_cards=5)", "jujitsu(num_cards=7)",
                                  "goofspiel(num_cards=4)", "oshi_zumo(coins=12,size=2)"])
def test_real_decision_positions_are_walked_or_extrapolated_within_a_factor_of_two(
        spec: str) -> None:
    game = load_game(spec)
    real = sum(1 for s in decision_states(game) if game.chance(s) is None)
    start = time.process_time()
    count, exact = decision_positions(game)
    assert time.process_time() - start < 0.5
    assert count == real if exact else 0.5 <= count / real <= 2, (count, real)


def test_a_nested_equilibrium_vs_past_the_bound_is_refused_at_once_naming_force() -> None:
    import gamedb.play.exploiting  # noqa: F401  (SciPy: its import is not the refusal's)

    agent = "equilibrium-vs:equilibrium-vs:equilibrium-vs:random"
    start = time.process_time()  # CPU: the machine may be busy with other work
    result = CliRunner().invoke(cli, ["match", str(J8), agent, "random", "--games", "10",
                                      "--quiet"])
    assert time.process_time() - start < 1
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.output
    line = result.stderr
    assert "this match of jujitsu(num_cards=8,ties=carry) would take about" in line, line
    assert "optimal-face LPs of equilibrium-vs:" in line and "add --force" in line, line
    assert "nest fewer equilibrium-vs:" in line and "--games" not in line, line


def test_an_equilibrium_vs_match_shows_its_solving_with_a_total(built) -> None:  # type: ignore[no-untyped-def]
    path = str(built("jujitsu(num_cards=5)"))
    shown = CliRunner().invoke(cli, ["match", path, "equilibrium-vs:random", "random",
                                     "--games", "3", "--seed", "1"])
    assert shown.exit_code == 0, shown.output
    assert "equilibrium-vs: solving: " in shown.stderr and "/963 " in shown.stderr, shown.stderr
    quiet = CliRunner().invoke(cli, ["match", path, "equilibrium-vs:random", "random",
                                     "--games", "3", "--seed", "1", "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr == "", quiet.stderr
    assert quiet.stdout == shown.stdout


# --- best-response: a pass over the real positions its opponent lets it reach ----------

def _cpu_of_match(game, db, first: str, second: str, games: int) -> float:  # type: ignore[no-untyped-def]
    start = time.process_time()  # CPU: the machine may be busy with other work
    play_match(game, make_agent(first, game, db), make_agent(second, game, db), games=games,
               seed=1)
    return time.process_time() - start


@pytest.mark.parametrize("agent", ["best-response:random", "best-response:equilibrium"])
def test_the_estimate_of_a_best_response_is_within_a_factor_of_two_of_its_cpu(
        built, agent: str) -> None:  # type: ignore[no-untyped-def]
    """A best response walks every real position its opponent lets it reach (7-card
    Jujitsu: ~26,000, where the file stores 887), which the estimate counted as stored
    positions at 30,000 a second: 0.03 s for 0.75 s of CPU; 6-card Goofspiel, 0.9 s for
    20 s (against random) and 34 s (against the equilibrium)."""
    small = load_game("jujitsu(num_cards=3)")  # the compiled code loaded first
    play_match(small, make_agent(agent, small), Uniform(), games=1, seed=1)
    with open_db(built("jujitsu(num_cards=7)")) as db:
        cost = match_cost(db.game, [(agent, "random")], has_file=True, games=3,
                          stored=db.meta["states"])
        seconds = _cpu_of_match(db.game, db, agent, "random", 3)
    assert 1 / 2 <= cost.seconds / seconds <= 2, (cost.seconds, seconds)


def _weighed_by(game, responder) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """The decision positions a solved ``BestResponse`` holds, and the moves it weighed
    there (its actions against the support of the agent it answers, each outcome)."""
    decisions = moves = 0
    for state, player in responder._memo:
        if game.value(state) is not None or game.chance(state) is not None:
            continue
        decisions += 1
        theirs = responder.opponent.policy(game, state, 3 - player)
        for a in game.actions(state)[player - 1]:
            for b in (b for b, q in theirs.items() if q > 0):
                pair = (a, b) if player == 1 else (b, a)
                moves += len(game.next(state, *pair))
    return decisions, moves


@pytest.mark.parametrize("spec, opponent", [("jujitsu(num_cards=6)", "highest"),
                                            ("goofspiel(num_cards=4)", "level-2"),
                                            ("oshi_zumo(coins=12,size=2)", "bid-range-1-3"),
                                            ("goofspiel(num_cards=3)", "random"),
                                            ("goofspiel(num_cards=6)", "highest")])
def test_a_best_response_is_estimated_over_the_moves_its_opponent_lets_it_weigh(
        spec: str, opponent: str) -> None:
    """Against an agent that plays one move (highest) a best response walks a sliver of
    the game: the count follows the opponent's policy, as the best response does, and
    equals what a solved best response holds (or is within 1.5x, extrapolated)."""
    from gamedb.play.evaluate import BestResponse
    from gamedb.play.reach import best_response_reach

    game = load_game(spec)
    against = make_agent(opponent, game)
    for seat in (1, 2):
        reach = best_response_reach(game, against, seat)
        responder = BestResponse(game, against)
        for _, start in game.initial():
            responder.value(start, 3 - seat)
        decisions, moves = _weighed_by(game, responder)
        if reach.exact:
            assert (reach.decisions, reach.moves) == (decisions, moves)
        else:  # 6-card Goofspiel: past the walk's budget
            assert 1 / 1.5 <= reach.decisions / decisions <= 1.5, (reach, decisions)
            assert 1 / 1.5 <= reach.moves / moves <= 1.5, (reach, moves)
            assert reach.decisions < decision_positions(game)[0] / 10


def test_a_best_response_on_a_big_game_is_refused_at_once_naming_force() -> None:
    """``match "goofspiel(num_cards=8)" best-response:random random --games 3`` was
    estimated at 57 s; its best response walks ~7e7 real positions (an hour, and more
    memory than the machine has)."""
    start = time.process_time()
    result = CliRunner().invoke(cli, ["match", "goofspiel(num_cards=8)", "best-response:random",
                                      "random", "--games", "3", "--quiet"])
    assert time.process_time() - start < 2
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.output
    line = result.stderr
    assert "this match of goofspiel(num_cards=8," in line and "best-response:" in line, line
    assert "add --force" in line and "fewer --games" not in line, line
    assert "gamedb evaluate" in line, line
