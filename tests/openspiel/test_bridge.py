"""The bridge against the real OpenSpiel: every state of the issue's games, both ways.

Values are OpenSpiel's, from two independent references computed on OpenSpiel's own
tree: ``reference.solve`` (backward induction, SciPy's HiGHS per stage game) for every
state, chance nodes and terminals included, and OpenSpiel's ``value_iteration`` itself
(its LP handed to HiGHS, bench/openspiel_peer.py) on every state it enumerates: at once
for the fixed prize orders, behind ``slow`` for random prizes and Oshi-Zumo (15-20 s
each, about 1 s for the fixed order; the backward induction over random prizes, 4-7 s
each, is ``slow`` too: CI runs both).
"""

from __future__ import annotations

import sys

import pytest

pyspiel = pytest.importorskip("pyspiel")

from conftest import CASES  # noqa: E402
from reference import solve  # noqa: E402
from open_spiel.python.algorithms import get_all_states  # noqa: E402

from gamedb.games.base import GameError  # noqa: E402
from gamedb.openspiel import OpenSpielMissing  # noqa: E402
from gamedb.openspiel.bridge import openspiel_game, spec_of  # noqa: E402


def every_state(game):  # type: ignore[no-untyped-def]
    return get_all_states.get_all_states(game, depth_limit=-1, include_terminals=True,
                                         include_chance_states=True, to_string=str)


@pytest.mark.parametrize("spec", [  # random prizes: 5,469 states, 4-7 s each
    pytest.param(spec, marks=[pytest.mark.slow] if "random" in spec else []) for spec in CASES])
def test_every_openspiel_state_has_the_reference_value_for_both_players(bridge_of, spec: str) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of(spec)
    memo: dict[str, float] = {}
    states = every_state(bridge.openspiel_game)
    for text, state in states.items():
        expected = solve(state, memo)
        assert bridge.value(state) == pytest.approx(expected, abs=1e-9), text
        assert bridge.value(state, 1) == pytest.approx(-expected, abs=1e-9), text
    assert len(states) > 150


@pytest.mark.parametrize("spec", [
    pytest.param(spec, marks=[] if "descending" in spec else [pytest.mark.slow])
    for spec in CASES])
def test_every_state_value_iteration_enumerates_has_its_value(bridge_of, spec: str) -> None:  # type: ignore[no-untyped-def]
    from openspiel_peer import value_iteration

    bridge = bridge_of(spec)
    values = value_iteration("highs")[0](bridge.openspiel_game, depth_limit=-1, threshold=1e-12)
    states = every_state(bridge.openspiel_game)
    for text, value in values.items():
        # value_iteration's own tolerance is 1e-12 per sweep; the stored gaps are <= 1e-9
        assert bridge.value(states[text]) == pytest.approx(value, abs=1e-8), text
    assert len(values) > 150


@pytest.mark.parametrize("spec", CASES)
def test_every_state_maps_to_a_position_and_back_to_an_equivalent_state(bridge_of, spec: str) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of(spec)
    for text, state in every_state(bridge.openspiel_game).items():
        position = bridge.position(state)
        back = bridge.state(position)
        assert bridge.position(back) == position, text
        assert (back.is_terminal(), back.is_chance_node()) == (state.is_terminal(),
                                                              state.is_chance_node()), text
        if state.is_terminal():
            assert back.returns() == state.returns(), text
        elif state.is_chance_node():
            assert back.chance_outcomes() == state.chance_outcomes(), text
        else:
            assert [back.legal_actions(p) for p in (0, 1)] == [state.legal_actions(p) for p in (0, 1)]
        assert bridge.game.format_position(position.state) == position.text


def test_a_stored_position_names_its_canonical_key_and_the_player_swap(bridge_of) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of(CASES[0])
    state = bridge.state("hand1=1,2,3 hand2=2,3,4 prizes=1,2 prize=4 diff=3")
    twin = bridge.state("hand1=2,3,4 hand2=1,2,3 prizes=1,2 prize=4 diff=-3")
    one, two = bridge.position(state), bridge.position(twin)
    assert one.key == two.key is not None and one.swapped != two.swapped
    assert bridge.value(state) == pytest.approx(-bridge.value(twin), abs=1e-12)
    assert bridge.position(bridge.openspiel_game.new_initial_state()).key is None  # a draw is next


def test_point_difference_is_half_of_gamedbs_in_openspiels_units(bridge_of) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of("goofspiel(num_cards=4,points_order=descending,returns_type=point_difference)")
    state = bridge.openspiel_game.new_initial_state()
    # player 0 bids 4, 3, 1 against 1, 2, 3: wins prizes 4 and 3, loses 2; OpenSpiel plays
    # the last round (2 against 4 for prize 1) by itself
    for joint in ([3, 0], [2, 1], [0, 2]):
        state.apply_actions(joint)
    assert state.is_terminal() and state.returns() == [2.0, -2.0]  # (7 - 3) / 2
    position = bridge.position(state)
    assert position.text == "hand1=- hand2=- prizes=- diff=4"
    assert bridge.db.value(position.state) == 4.0 and bridge.value(state) == 2.0


def test_a_position_openspiel_never_shows_is_refused_in_one_line(bridge_of) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of(CASES[0])
    with pytest.raises(GameError, match="OpenSpiel plays the last round by itself"):
        bridge.state("hand1=1 hand2=2 prizes=- prize=3 diff=0")
    with pytest.raises(GameError, match="no play of OpenSpiel's game reaches"):
        bridge.state("hand1=3,4 hand2=3,4 prizes=1 prize=2 diff=7")  # 1,2 against 1,2 for 3,4


def test_a_state_of_another_game_is_refused(bridge_of) -> None:  # type: ignore[no-untyped-def]
    bridge = bridge_of(CASES[0])
    other = pyspiel.load_game("goofspiel", {"num_cards": 3}).new_initial_state()
    with pytest.raises(GameError, match=r"a state of OpenSpiel's goofspiel\(num_cards=3\)"):
        bridge.value(other)


@pytest.mark.parametrize("name, params, why", [
    ("goofspiel", {"num_cards": 4, "imp_info": True}, "imp_info=true hides the bids"),
    ("goofspiel", {"num_cards": 4, "players": 3}, "players=3 is not a two-player"),
    ("goofspiel", {"num_cards": 4, "returns_type": "total_points"}, "not zero-sum"),
    ("goofspiel", {"num_cards": 4, "num_turns": 2}, "num_turns=2 plays fewer rounds"),
    ("goofspiel", {"num_cards": 14}, "num_cards=14 is out of range"),
    ("oshi_zumo", {"coins": 10}, "min_bid=0 repeats the position"),
    ("oshi_zumo", {"coins": 10, "min_bid": 1, "horizon": 19}, "use horizon>=20"),
    # OpenSpiel's game, said both ways round (was "... no OpenSpiel counterpart in gamedb")
    ("tic_tac_toe", {}, "tic_tac_toe has no OpenSpiel counterpart: the bridge knows "
     "goofspiel and oshi_zumo, the games both gamedb and OpenSpiel have"),
])
def test_openspiel_games_gamedb_does_not_solve_are_refused_in_one_line(name: str, params: dict, why: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(GameError, match=why) as info:
        spec_of(pyspiel.load_game(name, params))
    assert "\n" not in str(info.value)


def test_openspiel_defaults_give_gamedbs_spec_and_back() -> None:
    assert spec_of(pyspiel.load_game("goofspiel")) == (
        "goofspiel(num_cards=13,points_order=random,returns_type=win_loss,ties=discard)")
    game = openspiel_game("oshi_zumo(coins=600,min_bid=2)")
    assert str(game) == "oshi_zumo(alesia=False,coins=600,horizon=1200,min_bid=2,size=3)"
    assert spec_of(game) == "oshi_zumo(alesia=false,coins=600,min_bid=2,size=3)"


@pytest.mark.parametrize("spec", ["goofspiel(num_cards=4,ties=carry)", "goofspiel(num_cards=4,rounds=2)",
                                  "oshi_zumo(min_bid=0)", "jujitsu(num_cards=4)"])
def test_gamedb_specs_without_an_openspiel_game_are_refused(spec: str) -> None:
    with pytest.raises(GameError, match="no OpenSpiel counterpart"):
        openspiel_game(spec)


def test_without_openspiel_the_bridge_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel raises ImportError
    with pytest.raises(OpenSpielMissing, match=r'pip install "gamedb\[openspiel\]"') as info:
        openspiel_game("goofspiel(num_cards=4)")
    assert "\n" not in str(info.value)
