"""OpenSpiel's names for gamedb's games, without OpenSpiel: state strings as OpenSpiel
writes them (goofspiel.cc, oshi_zumo.cc ``ToString``), specs and histories."""

from __future__ import annotations

import pytest

from gamedb.bits import cards
from gamedb.games import load_game
from gamedb.games.base import GameError
from gamedb.games.goofspiel import GoofspielState
from gamedb.games.openspiel import translation
from gamedb.games.oshi_zumo import OshiZumoState

G4 = load_game("goofspiel(num_cards=4)")
OZ = load_game("oshi_zumo(coins=10,size=2,min_bid=1)")


def goofspiel_text(hand0: str, hand1: str, sequence: str, points: str) -> str:
    return f"P0 hand: {hand0}\nP1 hand: {hand1}\nPoint card sequence: {sequence}\nPoints: {points}\n"


@pytest.mark.parametrize("text, position", [
    (goofspiel_text("1 2 3 4 ", "1 2 3 4 ", "", "0 0 "), "hand1=1,2,3,4 hand2=1,2,3,4 prizes=1,2,3,4 diff=0"),
    (goofspiel_text("1 2 3 4 ", "1 2 3 4 ", "3 ", "0 0 "), "hand1=1,2,3,4 hand2=1,2,3,4 prizes=1,2,4 prize=3 diff=0"),
    (goofspiel_text("1 2 3 ", "1 3 4 ", "3 ", "3 0 "), "hand1=1,2,3 hand2=1,3,4 prizes=1,2,4 diff=3"),
    (goofspiel_text("1 2 ", "1 3 ", "3 4 ", "3 4 "), "hand1=1,2 hand2=1,3 prizes=1,2 diff=-1"),
    (goofspiel_text("", "", "3 4 1 2 ", "4 6 "), "hand1=- hand2=- prizes=- diff=-2"),
])
def test_goofspiel_state_strings_are_read_as_positions(text: str, position: str) -> None:
    state = translation("goofspiel").position(G4, text)
    assert G4.format_position(state) == position


def test_a_goofspiel_chance_node_and_a_decision_differ_by_the_prize_on_the_table() -> None:
    chance = translation("goofspiel").position(G4, goofspiel_text("1 2 3 ", "1 3 4 ", "3 ", "3 0 "))
    decision = translation("goofspiel").position(G4, goofspiel_text("1 2 3 ", "1 3 4 ", "3 2 ", "3 0 "))
    assert G4.chance(chance) is not None and chance.prize == 0
    assert decision == GoofspielState(0b111, 0b1101, 0b1001, 2, 0, 3)


@pytest.mark.parametrize("text, state", [
    ("Coins: 10 10, Field: #..W..#\n", OshiZumoState(10, 10, 0)),
    ("Coins: 5 9, Field: #...W.#\n", OshiZumoState(5, 9, 1)),
    ("Coins: 2 0, Field: W.....#\n", OshiZumoState(2, 0, -3)),  # pushed off: on the wall
    ("Coins: 0 1, Field: #.....W\n", OshiZumoState(0, 1, 3)),
])
def test_oshi_zumo_state_strings_are_read_as_positions(text: str, state: OshiZumoState) -> None:
    assert translation("oshi_zumo").position(OZ, text) == state


@pytest.mark.parametrize("family, text", [
    ("goofspiel", "P0 hand: 1 2\nPoints: 0 0\n"),
    ("goofspiel", goofspiel_text("1 ", "2 ", "", "0 0 1 ")),  # three players
    ("oshi_zumo", "Coins: 10 10, Field: #.W..#\n"),  # size 1.5
    ("oshi_zumo", "Coins: 10 10, Field: #.WW..#\n"),
])
def test_strings_of_other_games_are_refused_in_one_line(family: str, text: str) -> None:
    with pytest.raises(GameError, match="not a state string") as info:
        translation(family).position(G4 if family == "goofspiel" else OZ, text)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("spec, position", [
    ("goofspiel(num_cards=4)", "hand1=1,2 hand2=1,3 prizes=1,2 diff=-1"),
    ("goofspiel(num_cards=4)", "hand1=- hand2=- prizes=- diff=-2"),
    ("goofspiel(num_cards=5,points_order=descending)", "hand1=2,4,5 hand2=1,2,3 prizes=1,2 prize=3 diff=-9"),
    ("goofspiel(num_cards=5,points_order=ascending,returns_type=point_difference)",
     "hand1=1,2 hand2=3,5 prizes=5 prize=4 diff=4"),
])
def test_a_goofspiel_history_replays_to_its_position(spec: str, position: str) -> None:
    game = load_game(spec)
    target = game.parse_position(position)
    n, steps = game.num_cards, translation("goofspiel").history(game, target)
    hands, drawn, diff = [set(range(1, n + 1)), set(range(1, n + 1))], [], 0
    fixed = sorted(range(1, n + 1), reverse=game.points_order == "descending")
    for step in steps:  # OpenSpiel's rules by hand; its ids are card - 1
        if len(step) == 1:
            drawn.append(step[0] + 1)
            continue
        if game.points_order != "random":
            drawn.append(fixed[len(drawn)])
        x, y = step[0] + 1, step[1] + 1
        hands[0].remove(x), hands[1].remove(y)
        diff += drawn[-1] * ((x > y) - (x < y))
    if game.points_order != "random" and hands[0]:
        drawn.append(fixed[len(drawn)])  # the next prize is on the table at once
    if len(hands[0]) == 1 and n > 1:  # OpenSpiel plays the last round itself
        drawn.append(next(iter(set(range(1, n + 1)) - set(drawn))))
        (x,), (y,) = hands
        diff += drawn[-1] * ((x > y) - (x < y))
        hands = [set(), set()]
    on_table = drawn[-1] if len(drawn) > n - len(hands[0]) else 0
    replayed = GoofspielState(sum(1 << c >> 1 for c in hands[0]), sum(1 << c >> 1 for c in hands[1]),
                              0 if not hands[0] else ((1 << n) - 1) & ~sum(1 << c >> 1 for c in drawn),
                              on_table, 0, diff)
    assert game.format_position(replayed) == game.format_position(target)


def test_an_oshi_zumo_history_is_legal_bids_reaching_the_position() -> None:
    target = OshiZumoState(6, 3, -2)
    state = OshiZumoState(10, 10, 0)
    for a, b in translation("oshi_zumo").history(OZ, target):
        assert a in OZ.actions(state)[0] and b in OZ.actions(state)[1] and OZ.value(state) is None
        (_, state), = OZ.next(state, a, b)
    assert state == target


def test_an_unreachable_oshi_zumo_position_is_refused() -> None:
    with pytest.raises(GameError, match="no play of OpenSpiel's game reaches coins1=9 coins2=10 pos=0"):
        translation("oshi_zumo").history(OZ, OshiZumoState(9, 10, 0))  # player 2 must bid too


@pytest.mark.parametrize("position, reachable", [
    ("hand1=- hand2=- prizes=- diff=89", True),   # 1 against 13 for prize 1, every other won
    ("hand1=- hand2=- prizes=- diff=91", False),  # player 1's 1 never wins
    ("hand1=1,2 hand2=12,13 prizes=1 prize=2 diff=0", True),
])
def test_thirteen_card_histories_are_found_or_refused_at_once(position: str, reachable: bool) -> None:
    game = load_game("goofspiel(num_cards=13)")
    target = game.parse_position(position)
    if reachable:
        steps = translation("goofspiel").history(game, target)
        assert len(steps) == 2 * (13 - len(list(cards(target.hand1))) - (not target.hand1)) + bool(target.prize)
    else:
        with pytest.raises(GameError, match="no play of OpenSpiel's game reaches"):
            translation("goofspiel").history(game, target)


def test_a_long_oshi_zumo_history_is_found_at_once() -> None:
    game = load_game("oshi_zumo(coins=1000,size=3,min_bid=1)")
    steps = translation("oshi_zumo").history(game, OshiZumoState(0, 1, 0))  # 501 moves
    state = OshiZumoState(1000, 1000, 0)
    for a, b in steps:
        (_, state), = game.next(state, a, b)
    assert state == OshiZumoState(0, 1, 0)


@pytest.mark.parametrize("spec, position", [
    # player 1's played 1, 4, 5, 6 against 2, 4, 5, 6 lose one round at most: not 10 points
    ("goofspiel(num_cards=6)", "hand1=2,3 hand2=1,3 prizes=6 prize=4 diff=-10"),
    # the score is not stored with point_difference: a difference of 0 is no play's
    ("goofspiel(num_cards=5,returns_type=point_difference)", "hand1=2,3 hand2=1,2 prizes=1 prize=2"),
])
def test_a_stored_goofspiel_position_no_play_reaches_has_a_representative_that_one_does(
        spec: str, position: str) -> None:
    game = load_game(spec)
    stored = game.parse_position(position)
    goofspiel, key = translation("goofspiel"), game.canonical(stored).key
    with pytest.raises(GameError, match="no play of OpenSpiel's game reaches"):
        goofspiel.history(game, stored)
    found = []
    for real in goofspiel.representatives(game, stored):
        assert (game.canonical(real).key, game.canonical(real).swapped) == (key, False)
        try:
            found.append((real, goofspiel.history(game, real)))
        except GameError:
            continue
    real, steps = found[0]
    assert real != stored and len(steps) == 2 * (game.num_cards - 2) + 1  # deals and bids


@pytest.mark.parametrize("spec", ["goofspiel(num_cards=5)",
                                  "goofspiel(num_cards=5,returns_type=point_difference)"])
def test_every_stored_goofspiel_position_has_a_representative_openspiel_reaches(built, spec: str) -> None:  # type: ignore[no-untyped-def]
    from gamedb.store import open_db

    goofspiel, unreached = translation("goofspiel"), 0
    with open_db(built(spec)) as db:
        keys = [int(k) for layer in db.stored_layers()
                for rows in db.layer_rows(layer, strategies=False) for k in rows.keys]
        for key in keys:
            stored = db.game.decode(key)
            if len(list(cards(stored.hand1))) > 1:
                unreached += not any(_reaches(db.game, real) for real in
                                     goofspiel.representatives(db.game, stored))
    assert len(keys) > 1000 and unreached == 0


def _reaches(game, position) -> bool:  # type: ignore[no-untyped-def]
    try:
        translation("goofspiel").history(game, position)
    except GameError:
        return False
    return True
