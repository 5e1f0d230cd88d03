"""``Game.unreachable`` of the card games against every position play reaches.

Every position that the rules' moves reach from the start is reachable, and every other
position ``parse_position``'s bounds let through is named unreachable: the check is
exact, not a bound. Goofspiel's was missing (a newcomer typed ``diff=1`` after losing
the only prize played, 3, and was served that position's value); Jujitsu's is checked
the same way.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gamedb.bits import mask_of
from gamedb.games import load_game
from gamedb.games.goofspiel.game import GoofspielState
from gamedb.games.jujitsu import JujitsuState


def reached(game: Any) -> set[Any]:
    """Every position play reaches from the start, chance nodes included."""
    seen: set[Any] = set()
    todo = [s for _, s in game.initial()]
    while todo:
        s = todo.pop()
        if s in seen:
            continue
        seen.add(s)
        if game.value(s) is not None:
            continue
        draws = game.chance(s)
        if draws is not None:
            todo.extend(t for _, t in draws)
            continue
        mine, theirs = game.actions(s)
        todo.extend(t for a in mine for b in theirs for _, t in game.next(s, a, b))
    return seen


def subsets(n: int, size: int) -> Iterator[int]:
    return (mask_of(list(c)) for c in itertools.combinations(range(1, n + 1), size))


def goofspiel_positions(game: Any) -> Iterator[GoofspielState]:
    """Every position within ``parse_position``'s bounds (hands, prizes, pot, diff)."""
    n = game.num_cards
    rounds = getattr(game, "rounds", 0) or n
    low = n - rounds  # cards nobody holds (``rounds``)
    for k in range(rounds + 1):
        played = n * (n + 1) // 2
        hands = [h << low for h in subsets(rounds, k)]
        for h1, h2 in itertools.product(hands, repeat=2):
            for left in subsets(n, low + k):
                on_table = [0] if game.points_order == "random" or not k else []
                for prize in [*on_table, *(c for c in range(1, n + 1) if left >> (c - 1) & 1)]:
                    prizes = left & ~(1 << (prize - 1)) if prize else left
                    if game.points_order != "random" and prize and not _next_in_order(
                            game, left, prize):
                        continue
                    gone = played - sum(c for c in range(1, n + 1) if left >> (c - 1) & 1)
                    for pot in range(gone + 1) if game.ties == "carry" else [0]:
                        for diff in range(-(gone - pot), gone - pot + 1):
                            yield GoofspielState(h1, h2, prizes, prize, pot, diff)


def _next_in_order(game: Any, left: int, prize: int) -> bool:
    cards_left = [c for c in range(1, game.num_cards + 1) if left >> (c - 1) & 1]
    first = max if game.points_order == "descending" else min
    ordered = {"descending": list(range(1, len(cards_left) + 1)),
               "ascending": list(range(game.num_cards - len(cards_left) + 1,
                                       game.num_cards + 1))}[game.points_order]
    return cards_left == ordered and prize == first(cards_left)


@pytest.mark.parametrize("spec", [
    "goofspiel(num_cards=4)",
    "goofspiel(num_cards=5,returns_type=point_difference)",
    "goofspiel(num_cards=5,ties=carry)",
    "goofspiel(num_cards=4,ties=carry,returns_type=point_difference,points_order=descending)",
    "goofspiel(num_cards=4,ties=carry,points_order=ascending)",
    "goofspiel(num_cards=4,points_order=descending)",
    "goofspiel(num_cards=5,rounds=3,returns_type=point_difference)",
    "goofspiel(num_cards=5,rounds=3,ties=carry,returns_type=point_difference)",
])
def test_goofspiel_names_exactly_the_positions_play_does_not_reach(spec: str) -> None:
    game = load_game(spec)
    # win/loss stops at a decided score while the cards are played on: the positions
    # come from the point-difference twin (the same positions, another payoff)
    reachable = reached(game if game.returns_type == "point_difference" else
                        load_game(spec.replace(")", ",returns_type=point_difference)")))
    checked = wrong = 0
    for s in goofspiel_positions(game):
        if s.prize == 0 and s.prizes and game.points_order != "random":
            continue  # a fixed order's draw is made at once: no such position
        is_reached = s in reachable or _drawn_reached(s, reachable)
        wrong += (game.unreachable(s) is None) != is_reached
        checked += 1
    assert checked > 2 * len(reachable) and wrong == 0


def _drawn_reached(s: GoofspielState, reachable: set[GoofspielState]) -> bool:
    """A position before a draw is reached when the draw's positions are."""
    if s.prize or not s.prizes:
        return False
    low = s.prizes & -s.prizes
    return GoofspielState(s.hand1, s.hand2, s.prizes & ~low, low.bit_length(), s.pot,
                          s.diff) in reachable


@pytest.mark.parametrize("spec", ["jujitsu(num_cards=5)", "jujitsu(num_cards=5,ties=discard)"])
def test_jujitsu_names_exactly_the_positions_play_does_not_reach(spec: str) -> None:
    game = load_game(spec)
    reachable = reached(game)
    n = game.num_cards
    checked = wrong = 0
    for k in range(n + 1):
        for h1, h2 in itertools.product(list(subsets(n, k)), repeat=2):
            for pot in range(n - k + 1) if game.ties == "carry" else [0]:
                for diff in range(-(n - k - pot), n - k - pot + 1):
                    s = JujitsuState(h1, h2, pot, diff)
                    wrong += (game.unreachable(s) is None) != (s in reachable)
                    checked += 1
    assert checked > 2 * len(reachable) and wrong == 0


def test_show_notes_a_stored_goofspiel_position_no_play_reaches(tmp_path: Path) -> None:
    """The score is not in a point-difference key, so the file answers any score; a
    newcomer typed diff=1 after losing the only prize played, 3, and was served its value
    without a word. ``show`` (and ``solve``, the API) now say why no play reaches it."""
    from gamedb.builder import build
    from gamedb.explore import show_json
    from gamedb.store import open_db

    path = tmp_path / "g5.sqlite"
    build("goofspiel(num_cards=5,returns_type=point_difference)", path)
    with open_db(path) as db:
        odd = show_json(db, "hand1=2,3,4,5 hand2=1,3,4,5 prizes=1,2,4,5 diff=1")
        fine = show_json(db, "hand1=2,3,4,5 hand2=1,3,4,5 prizes=1,2,4,5 diff=-3")
    assert odd["unreachable"] == ("diff=1 cannot happen when player 1 played 1 and player 2 "
                                  "2 for the prizes 3")
    assert fine["unreachable"] is None and odd["value"] == fine["value"] + 4
