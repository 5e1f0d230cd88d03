"""Oshi-Zumo against an independent solver: OpenSpiel's game and its value iteration.

OpenSpiel's ``oshi_zumo`` has Buro's rules (a player short of ``min_bid`` bids all his
coins; the game ends when the wrestler leaves the field or both purses are empty) except
one: a joint bid of 0-0 (possible only with ``min_bid=0``) does not end its game, it
repeats the position until ``horizon`` moves have been played. Its state strings omit
the move counter, so with ``min_bid=0`` ``value_iteration`` merges positions of
different move counts into one node with a self-loop, and its values are not those of
any well-defined game. So:

* with ``min_bid >= 1`` the value of **every** position OpenSpiel enumerates must equal
  ours. There every move spends at least one coin of the pair (a player with coins bids
  at least one), so a game lasts at most ``2 * coins`` moves: we pass
  ``horizon = 2 * coins + 1``, which therefore never binds;
* with ``min_bid = 0`` only what is well defined is compared: every position's legal
  bids, the successor of every joint bid except 0-0, and the payoff of every terminal
  position.

The stage games of OpenSpiel's ``value_iteration`` are solved by SciPy's HiGHS instead
of OpenSpiel's cvxpy-based ``lp_solver`` (bench/openspiel_peer.py; still independent of gamedb's
kernel).
"""

from __future__ import annotations

import re

import pytest

from gamedb.games import load_game
from gamedb.games.oshi_zumo import OshiZumoState
from gamedb.store import open_db

pyspiel = pytest.importorskip("pyspiel")

from openspiel_peer import value_iteration  # noqa: E402  (bench/, via conftest)

_STATE = re.compile(r"Coins: (\d+) (\d+), Field: ([#.W]+)\n?")


def _position(text: str) -> OshiZumoState:
    """Map OpenSpiel's ``"Coins: 3 4, Field: #...W.#"`` to our position.

    The field has 2 * size + 1 squares between the '#' walls; a wrestler pushed off
    the field is drawn on a wall, so pos = index of W - (size + 1) covers both.
    """
    match = _STATE.fullmatch(text)
    assert match, text
    field = match.group(3)
    return OshiZumoState(int(match.group(1)), int(match.group(2)), field.index("W") - (len(field) - 1) // 2)


def _openspiel_game(coins: int, size: int, min_bid: int, alesia: bool):  # type: ignore[no-untyped-def]
    return pyspiel.load_game("oshi_zumo", {"coins": coins, "size": size, "min_bid": min_bid,
                                           "alesia": alesia, "horizon": 2 * coins + 1})


@pytest.mark.parametrize("coins, size, min_bid, alesia", [
    (5, 2, 1, False), (6, 1, 1, False), (8, 2, 1, False), (7, 3, 2, False), (6, 2, 3, False),
    (5, 2, 1, True), (7, 1, 2, True),
])
def test_every_openspiel_position_has_our_value(built, coins: int, size: int, min_bid: int,  # type: ignore[no-untyped-def]
                                                alesia: bool) -> None:
    values = value_iteration("highs")[0](_openspiel_game(coins, size, min_bid, alesia), depth_limit=-1,
                                threshold=1e-10)
    spec = f"oshi_zumo(coins={coins},size={size},min_bid={min_bid},alesia={str(alesia).lower()})"
    with open_db(built(spec)) as db:
        stored = set()
        for text, value in values.items():
            state = _position(text)
            entry = db.probe(state)
            assert entry.value == pytest.approx(value, abs=1e-8), text
            if entry.key is not None:
                stored.add(entry.key)
        # Both enumerate the same positions: OpenSpiel's, folded by the player swap, are ours.
        assert len(stored) == db.info().states


@pytest.mark.parametrize("coins, size, alesia", [(4, 2, False), (5, 1, True)])
def test_min_bid_zero_rules_agree_where_openspiel_is_well_defined(coins: int, size: int, alesia: bool) -> None:
    from open_spiel.python.algorithms import get_all_states
    os_game = _openspiel_game(coins, size, 0, alesia)
    ours = load_game(f"oshi_zumo(coins={coins},size={size},min_bid=0,alesia={str(alesia).lower()})")
    states = get_all_states.get_all_states(os_game, depth_limit=-1, include_terminals=True,
                                           include_chance_states=False, to_string=str,
                                           stop_if_encountered=True)
    assert len(states) > 20
    for text, os_state in states.items():
        state = _position(text)
        if os_state.is_terminal():
            assert ours.value(state) == pytest.approx(os_state.returns()[0]), text
            continue
        assert ours.value(state) is None
        bids = ours.actions(state)
        assert bids == (tuple(os_state.legal_actions(0)), tuple(os_state.legal_actions(1))), text
        for a in bids[0]:
            for b in bids[1]:
                child = os_state.clone()
                child.apply_actions([a, b])
                (_, nxt), = ours.next(state, a, b)
                if a == b == 0:
                    # The one difference: Buro's game ends here; OpenSpiel's repeats the
                    # position (same string, one more move on its hidden counter).
                    assert nxt.ended and str(child) == text and not child.is_terminal()
                    continue
                assert _position(str(child)) == nxt, (text, a, b)
                assert child.is_terminal() == (ours.value(nxt) is not None)
