"""Agents: the level-k patterns, the heuristics' legality, and agent names."""

from __future__ import annotations

import pytest

from gamedb.games import GameError, load_game
from gamedb.play.agents import BidRange, Highest, LevelK, Lowest, Matching, TwoElseOne, Uniform
from gamedb.play.names import make_agent


def _pattern(k: int, n: int = 13) -> tuple[int, ...]:
    return tuple(LevelK(k).bid(p, n) for p in range(1, n + 1))


def test_level_two_bids_one_above_the_prize_and_its_ace_on_the_king() -> None:
    assert _pattern(2) == (*range(2, 14), 1)
    assert _pattern(1) == tuple(range(1, 14))


def test_thirteen_cards_give_fourteen_patterns_with_random_level_zero() -> None:
    patterns = {_pattern(k) for k in range(1, 14)}
    assert len(patterns) == 13 and all(sorted(p) == list(range(1, 14)) for p in patterns)
    assert all(_pattern(k) == _pattern(k + 13) for k in range(1, 14))  # level 14 = level 1


def test_matching_is_level_one_and_plays_the_prize() -> None:
    game = load_game("goofspiel(num_cards=6)")
    for _, state in game.initial():
        assert Matching().policy(game, state, 2) == {state.prize: 1.0}


def test_oshi_zumo_heuristics_bid_legally_in_range() -> None:
    game = load_game("oshi_zumo(coins=8,size=2)")
    state = game.parse_position("coins1=8 coins2=1 pos=0")
    assert BidRange(1, 6).policy(game, state, 1) == {b: 1 / 6 for b in range(1, 7)}
    assert BidRange(1, 6).policy(game, state, 2) == {1: 1.0}
    assert TwoElseOne().policy(game, state, 1) == {2: 1.0}
    assert TwoElseOne().policy(game, state, 2) == {1: 1.0}
    assert Highest().policy(game, state, 1) == {8: 1.0} and Lowest().policy(game, state, 1) == {1: 1.0}
    assert sum(Uniform().policy(game, state, 1).values()) == pytest.approx(1.0)


@pytest.mark.parametrize("name", ["equilibrium", "random", "highest", "lowest",
                                  "support-random", "best-response:highest", "nash-range",
                                  "equilibrium-vs:random"])
def test_generic_agent_names_work_in_jujitsu(name: str) -> None:
    assert make_agent(name, load_game("jujitsu(num_cards=3)")).name == name


@pytest.mark.parametrize("name,message", [("level-2", "revealed prize"),
                                          ("bid-range-5-2", "empty range"),
                                          ("alphago", "unknown agent"),
                                          ("equilibrium-vs:", "needs the agent it answers"),
                                          ("best-response: ", "e.g. best-response:highest")])
def test_bad_agent_names_are_user_errors(name: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        make_agent(name, load_game("jujitsu(num_cards=3)"))
