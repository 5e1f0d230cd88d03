"""``gamedb evaluate`` and ``score_agent``: one agent scored exactly against the file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gamedb.cli import cli
from gamedb.games import load_game
from gamedb.games.base import GameError
from gamedb.play.agents import Uniform
from gamedb.play.evaluate import best_response_value, evaluate, exploitability
from gamedb.play.equilibrium import Equilibrium
from gamedb.play.names import make_agent
from gamedb.play.score import score_agent
from gamedb.play.sweep import SweptBestResponse
from gamedb.store import open_db

FILES = ["jujitsu(num_cards=5)", "goofspiel(num_cards=4)",
         "goofspiel(num_cards=4,returns_type=point_difference,points_order=descending)",
         "oshi_zumo(coins=6,size=2)"]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("spec", FILES)
def test_the_stored_equilibrium_is_unexploitable_and_earns_the_value_in_both_seats(built, spec: str) -> None:  # type: ignore[no-untyped-def]
    with open_db(built(spec)) as db:
        score = score_agent(db.game, db, Equilibrium(db.game, db))
    assert abs(score.exploitability) <= 1e-9
    assert score.vs_equilibrium == pytest.approx((score.value, -score.value), abs=1e-9)
    assert score.vs_best_response == pytest.approx((score.value, -score.value), abs=1e-9)


@pytest.mark.parametrize("spec", FILES)
def test_a_score_agrees_with_match_and_best_response_one_by_one(built, spec: str) -> None:  # type: ignore[no-untyped-def]
    with open_db(built(spec)) as db:
        game, eq = db.game, Equilibrium(db.game, db)
        score = score_agent(game, db, Uniform())
        assert score.vs_equilibrium[0] == pytest.approx(evaluate(game, Uniform(), eq).payoff, abs=1e-12)
        assert score.vs_equilibrium[1] == pytest.approx(-evaluate(game, eq, Uniform()).payoff, abs=1e-12)
        assert score.vs_best_response[1] == pytest.approx(-best_response_value(game, Uniform(), 2), abs=1e-12)
        assert score.exploitability == pytest.approx(exploitability(game, Uniform()), abs=1e-12)
        assert score.exploitability > 0.1


@pytest.mark.parametrize("spec", FILES)
def test_the_best_response_found_by_layers_plays_its_payoffs_in_both_seats(built, spec: str) -> None:  # type: ignore[no-untyped-def]
    # the sweep's best response, played at real positions by the recursion, earns
    # exactly vs_best_response against the agent, in both seats
    with open_db(built(spec)) as db:
        game = db.game
        score = score_agent(game, db, Uniform())
        br = score.best_response
        assert br is not None and br.name == "best-response:random"
        assert score.vs_best_response[0] == pytest.approx(evaluate(game, Uniform(), br).payoff, abs=1e-12)
        assert score.vs_best_response[1] == pytest.approx(-evaluate(game, br, Uniform()).payoff, abs=1e-12)


def test_the_best_response_found_by_layers_refuses_a_position_the_agent_never_reaches_in_one_line() -> None:
    game = load_game("goofspiel(num_cards=4)")
    nothing = SweptBestResponse("random", np.zeros(0, np.int64), np.zeros(0, np.int64))
    with pytest.raises(GameError, match=r"^best-response:random: .* \(player 1\) is not "
                       r"reached by the agent's play$"):
        nothing.policy(game, next(s for _, s in game.initial()), 1)


def test_a_python_callable_is_an_agent_and_scores_like_the_built_in_it_copies(
        built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "my_agents_for_score.py").write_text(
        "def lowest(game, state, player):\n"
        "    return {min(game.actions(state)[player - 1]): 1.0}\n")
    monkeypatch.chdir(tmp_path)
    path = built("goofspiel(num_cards=4)")
    code, out, _ = run("evaluate", str(path), "my_agents_for_score:lowest", "--json", "--quiet")
    assert code == 0
    code, reference, _ = run("evaluate", str(path), "lowest", "--json", "--quiet")
    mine, theirs = json.loads(out), json.loads(reference)
    assert mine["agent"] == "my_agents_for_score:lowest"
    for field in ("value", "vs_equilibrium", "vs_best_response", "exploitability"):
        assert mine[field] == pytest.approx(theirs[field], abs=1e-12)


def test_json_of_an_agent_scored_by_layers_holds_the_numbers_not_the_best_response(built) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run("evaluate", str(built("goofspiel(num_cards=4)")), "random", "--json", "--quiet")
    assert code == 0, err
    fields = json.loads(out)
    assert fields["method"] == "layers" and "best_response" not in fields
    assert fields["exploitability"] > 0.1


def test_the_text_output_names_both_seats_and_the_exploitability(built) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run("evaluate", str(built("jujitsu(num_cards=5)")), "highest", "--quiet")
    assert code == 0 and "vs equilibrium" in out and "vs best response" in out
    assert "exploitability" in out and "seat 2" in out


@pytest.mark.parametrize("agent, message", [
    ("no_such_module_here:f", "cannot import 'no_such_module_here'"),
    ("json:no_such_name", "json has no 'no_such_name'"),
    ("json:dumps", "agent json:dumps failed at"),
    ("math:pi", "neither a function"),
    (":f", "expected module:callable"),
])
def test_bad_external_agents_are_one_line_errors(built, agent: str, message: str) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run("evaluate", str(built("jujitsu(num_cards=5)")), agent)
    assert code == 1 and message in err and err.count("\n") == 1


@pytest.mark.parametrize("answer, message", [
    ({99: 1.0}, "plays 99, not a legal action"),
    ({1: 0.3}, "returned probabilities summing to 0.3"),
    ({1: 1.5, 2: -0.5}, "returned probabilities summing to 1"),
    ([1, 2], "not a mapping"),
])
def test_an_answer_that_is_no_distribution_over_legal_actions_is_named(built, answer: object, message: str) -> None:  # type: ignore[no-untyped-def]
    from gamedb.games import GameError
    from gamedb.play.external import CallableAgent

    with open_db(built("jujitsu(num_cards=5)")) as db:
        agent = CallableAgent("mine", lambda game, state, player: answer)
        with pytest.raises(GameError, match=message):
            score_agent(db.game, db, agent)


@pytest.mark.parametrize("agent", ["matching", "highest"])
def test_scoring_a_game_past_the_exact_limit_is_refused_up_front_even_for_prize_agents(agent: str) -> None:
    # the closed forms of prize-bidding agents (random, level-K) apply to matches between
    # them, not to a match against the equilibrium: 7-card random once ran for minutes
    from gamedb.games import load_game
    from gamedb.play.evaluate import TooBigToEvaluate
    from gamedb.play.score import check_scorable

    game = load_game("goofspiel(num_cards=7)")
    with pytest.raises(TooBigToEvaluate, match="218,584 positions"):
        check_scorable(game, make_agent(agent, game), 218_584, instead="simulate")


def test_an_openspiel_agent_without_openspiel_says_how_to_install_it(
        built, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    import sys

    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel raises ImportError
    code, _, err = run("evaluate", str(built("goofspiel(num_cards=4)")),
                       "openspiel:open_spiel.python.policy:UniformRandomPolicy")
    assert code == 1 and 'pip install "gamedb[openspiel]"' in err and err.count("\n") == 1


def test_an_agent_scored_by_layers_is_not_refused_past_the_exact_limit() -> None:
    from gamedb.games import load_game
    from gamedb.play.score import check_scorable

    game = load_game("goofspiel(num_cards=7)")
    check_scorable(game, make_agent("random", game), 218_584, instead="simulate")


@pytest.mark.parametrize("spec", FILES)
def test_by_layers_the_losses_sum_to_what_the_best_response_gains(built, spec: str) -> None:  # type: ignore[no-untyped-def]
    with open_db(built(spec)) as db:
        score = score_agent(db.game, db, Uniform())
    assert score.method == "layers" and score.layers[0].layer > score.layers[-1].layer
    for seat, sign in ((1, 1), (2, -1)):
        gain = sign * score.value - score.vs_best_response[seat - 1]
        assert sum(layer.loss[seat - 1] for layer in score.layers) == pytest.approx(gain, abs=1e-12)
    worst = score.worst[0]
    assert worst.reach * worst.loss == max(w.reach * w.loss for w in score.worst) > 0.0


def test_the_position_where_random_loses_most_in_jujitsu_4_is_the_start(built) -> None:  # type: ignore[no-untyped-def]
    with open_db(built("jujitsu(num_cards=4)")) as db:
        score = score_agent(db.game, db, Uniform())
    # the best response gains 0.375 in all; 0.161 of it at the first trick, where random
    # bids its 4 (wasted) or its 1 as often as anything else
    assert [(w.position, w.reach) for w in score.worst[:2]] == [
        ("hand1=1,2,3,4 hand2=1,2,3,4 pot=0 diff=0", 1.0)] * 2
    assert score.worst[0].loss == pytest.approx(0.16098484848, abs=1e-10)
    assert score.layers[0].loss == pytest.approx((0.16098484848,) * 2, abs=1e-10)
