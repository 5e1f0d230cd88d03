"""``gamedb solve``: any position solved from itself down, no file, the answer of ``show``.

The oracle is a file of the whole game: on every position it stores, ``solve`` must give
``show``'s value, and strategies that are ``show``'s or (where the stage game has several
optima) an equilibrium of the same stage game, checked against the file's own values.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

import pytest
from click.testing import CliRunner

from gamedb.cli import cli
from gamedb.games import GameError, load_game
from gamedb.store import open_db
from gamedb.subgame import SubgameTooBig, solve_position
from tests.walk import decision_states

#: Small files whose every position ``solve`` must answer like ``show``.
#: A solve costs a temporary file (20-50 ms); 5-card Goofspiel has 3,100 + 1,035 positions.
EVERY_POSITION = [
    "jujitsu(num_cards=5)", "jujitsu(num_cards=6)", "jujitsu(num_cards=5,ties=discard)",
    pytest.param("goofspiel(num_cards=5)", marks=pytest.mark.slow),
    pytest.param("goofspiel(num_cards=5,returns_type=point_difference)", marks=pytest.mark.slow),
    "goofspiel(num_cards=4)", "goofspiel(num_cards=4,returns_type=point_difference)",
    "goofspiel(num_cards=4,ties=carry)", "goofspiel(num_cards=4,points_order=descending)",
    "oshi_zumo(coins=6,size=2,min_bid=1)", "oshi_zumo(coins=5,size=1,min_bid=0)",
    "nim(heaps=1-2-3)", "tictoe",
]


def _stage_matrix(db: Any, state: Any) -> tuple[list[list[float]], tuple[int, ...], tuple[int, ...]]:
    """The stage game of ``state`` in real actions, from the file's values (reference face)."""
    game = db.game
    acts1, acts2 = game.actions(state)
    matrix = [[sum(p * db.value(child) for p, child in game.next(state, a, b)) for b in acts2]
              for a in acts1]
    return matrix, acts1, acts2


def _equilibrium_gap(db: Any, state: Any, value: float, strategies: dict[int, dict[int, float]]) -> float:
    """How far ``strategies`` are from guaranteeing ``value`` in the stage game of
    ``state`` built from the file's values (0 for an exact equilibrium)."""
    matrix, acts1, acts2 = _stage_matrix(db, state)
    x = [strategies[1].get(a, 0.0) for a in acts1]
    y = [strategies[2].get(b, 0.0) for b in acts2]
    assert abs(sum(x) - 1) < 1e-9 and abs(sum(y) - 1) < 1e-9 and min(x + y) >= 0
    worst_for_1 = min(sum(x[i] * matrix[i][j] for i in range(len(x))) for j in range(len(y)))
    worst_for_2 = max(sum(matrix[i][j] * y[j] for j in range(len(y))) for i in range(len(x)))
    return max(value - worst_for_1, worst_for_2 - value, 0.0)


def _same_strategies(a: dict[int, dict[int, float]], b: dict[int, dict[int, float]]) -> bool:
    return all(set(a[p]) == set(b[p]) and all(abs(a[p][k] - b[p][k]) <= 1e-9 for k in a[p])
               for p in (1, 2))


def _agrees_with_show(db: Any, spec: str, state: Any) -> bool:
    """Assert ``solve`` answers ``state`` like the file; return True if the strategies
    are the file's own (False: another equilibrium of the same stage game)."""
    shown = db.probe(state)
    game, solved = solve_position(spec, db.game.format_position(state))
    assert game.spec == db.game.spec and solved.position == shown.position
    scale = max(1.0, abs(shown.value))
    assert abs(solved.value - shown.value) <= 1e-9 * scale, (shown, solved)
    if not shown.strategies or _same_strategies(solved.strategies, shown.strategies):
        return True
    assert _equilibrium_gap(db, state, shown.value, solved.strategies) <= 1e-9 * scale, (shown, solved)
    return False


def _a_real_position_per_key(spec: str) -> dict[int, Any]:
    """Map every canonical key reachable from the start to the first real position found
    there (a stored key decodes to ranks, which need not be a real position)."""
    game = load_game(spec)
    found: dict[int, Any] = {}
    for state in decision_states(game):
        found.setdefault(game.canonical(state).key, state)
    return found


@pytest.mark.parametrize("spec", EVERY_POSITION)
def test_solve_agrees_with_show_on_every_position_of_a_built_file(built, spec: str) -> None:
    path = built(spec)
    with sqlite3.connect(path) as conn:
        keys = {key for (key,) in conn.execute("SELECT key FROM states")}
    positions = _a_real_position_per_key(spec)
    assert set(positions) == keys
    with open_db(path) as db:
        same = [_agrees_with_show(db, spec, state) for state in positions.values()]
    assert len(same) == len(keys) > 0
    assert sum(same) >= len(same) // 2  # mostly the very same LP solution


@pytest.mark.parametrize("spec", ["jujitsu(num_cards=4)", "goofspiel(num_cards=3)",
                                  "goofspiel(num_cards=3,ties=carry)", "nim(heaps=1-2-3)"])
def test_solve_answers_every_real_position_in_real_cards_and_players(built, spec: str) -> None:
    """Every real position (the raw build's keys: hands as dealt, players not swapped)
    through rank compression and player swap, as ``show`` answers it."""
    with sqlite3.connect(built(spec, canonical_keys=False)) as conn:
        keys = [key for (key,) in conn.execute("SELECT key FROM states")]
    raw = load_game(spec, canonical_keys=False)
    with open_db(built(spec)) as db:
        for key in keys:
            _agrees_with_show(db, spec, raw.decode(key))


@pytest.mark.parametrize("spec, position", [
    ("goofspiel(num_cards=5)", "start"),                                   # before a draw
    ("goofspiel(num_cards=5)", "hand1=1,3,4 hand2=2,3,5 prizes=1,4,5 diff=5"),
    ("goofspiel(num_cards=5,returns_type=point_difference)", "start"),
    ("jujitsu(num_cards=6)", "start"),
    ("oshi_zumo(coins=6,size=2,min_bid=1)", "start"),
])
def test_solve_answers_the_start_and_chance_positions_like_show(built, spec: str, position: str) -> None:
    with open_db(built(spec)) as db:
        shown = db.probe(position)
        _, solved = solve_position(spec, position)
        assert solved.position == shown.position
        assert solved.value == pytest.approx(shown.value, abs=1e-9)
        if shown.strategies:
            assert _equilibrium_gap(db, db.game.parse_position(position), shown.value,
                                    solved.strategies) <= 1e-9


@pytest.mark.parametrize("spec, position, value", [
    ("jujitsu(num_cards=5)", "hand1=- hand2=- pot=0 diff=1", 1.0),          # over: no search
    ("goofspiel(num_cards=5)", "hand1=1 hand2=2 prizes=- prize=3 diff=5", 1.0),  # decided
    ("goofspiel(num_cards=5,returns_type=point_difference)", "hand1=- hand2=- prizes=- diff=-3", -3.0),
    ("nim(heaps=1-2-3)", "heaps=0,0,0 mover=2", 1.0),
])
def test_solve_of_a_finished_position_is_its_payoff(spec: str, position: str, value: float) -> None:
    _, entry = solve_position(spec, position)
    assert entry.value == value and entry.strategies == {} and entry.key is None


def test_solve_answers_a_valid_position_no_play_reaches(built) -> None:
    """A tie pot no card pair could make: not in the file, yet a position of the game."""
    position = "hand1=2,3 hand2=4,5 pot=2 diff=0"
    with open_db(built("jujitsu(num_cards=6)")) as db:
        assert db.get(position) is None
    _, entry = solve_position("jujitsu(num_cards=6)", position)
    assert entry.value == -1.0 and entry.strategies[1] and entry.strategies[2]


def test_a_subgame_over_the_cap_is_refused_with_its_estimate_quickly() -> None:
    start = time.perf_counter()
    with pytest.raises(SubgameTooBig) as refused:
        solve_position("goofspiel(num_cards=13)", "start", max_positions=10_000)
    message = str(refused.value)
    assert "at least" in message and "10,000" in message and "--max-positions" in message
    assert "\n" not in message and isinstance(refused.value, GameError)
    assert time.perf_counter() - start < 30


def test_a_refusal_before_an_expensive_layer_bounds_what_it_did_not_count() -> None:
    """855 positions with 9 cards left are under the cap, but their 554,040 successor
    entries are more than a subgame of 5,000 positions has: the count stops there."""
    position = ("hand1=1,2,3,4,6,8,9,11,12,13 hand2=2,3,4,5,6,7,9,10,12,13 "
                "prizes=1,2,4,5,6,8,9,10,12 prize=13 diff=3")
    with pytest.raises(SubgameTooBig) as refused:
        solve_position("goofspiel(num_cards=13)", position, max_positions=5_000)
    assert ("856 by layer from 10 down (1 + 855), and layer 9's moves lead to up to 554,040 "
            "more, past --max-positions 5,000") in str(refused.value)  # not "856 over 5,000"


def test_the_cap_counts_positions_below_the_position() -> None:
    spec, position = "jujitsu(num_cards=6)", "start"
    with pytest.raises(SubgameTooBig):
        solve_position(spec, position, max_positions=297)
    assert solve_position(spec, position, max_positions=298)[1].key is not None


#: Games far past the cap from their start, each refused by ``solve`` in a second:
#: Nim's 490,314 positions by its formula, the others by a count that stops as soon as
#: it has found more positions than the cap (it finished whole layers first: Nim took
#: 26 s to refuse, Oshi-Zumo with 1,000 coins 7 s, 40-edge Hackenbush 2.5 s).
_HUGE = ["nim(heaps=15-15-15-15-15-15-15-15)", "jujitsu(num_cards=13)",
         "goofspiel(num_cards=13)", "goofspiel(num_cards=13,returns_type=point_difference)",
         "oshi_zumo(coins=1000,size=100)", "oshi_zumo(coins=1000,size=1,min_bid=0)",
         "hackenbush(edges=" + ",".join(f"0-{i}" for i in range(1, 41)) + ")"]


@pytest.mark.parametrize("spec", _HUGE)
def test_solve_refuses_a_huge_game_within_a_second(spec: str) -> None:
    solve_position("nim(heaps=1-2)", "start")  # the compiled code loaded: not the game's cost
    start = time.process_time()  # CPU: the machine may be busy with other work
    with pytest.raises(SubgameTooBig) as refused:
        solve_position(spec, "start")
    assert time.process_time() - start < 1.0
    message = str(refused.value)
    assert "\n" not in message and "--max-positions 200,000; raise it" in message, message


@pytest.mark.parametrize("spec, position", [
    ("nim(heaps=1-2-3)", "start"), ("nim(heaps=3-3-5-7)", "start"),
    ("nim(heaps=3-3-5-7)", "heaps=0,2,3,4 mover=2"), ("nim(heaps=2-2-2)", "heaps=1,2,2 mover=1"),
    ("nim(heaps=1-15)", "heaps=0,0 mover=1"), ("nim(heaps=4-9-9-12-13)", "start")])
def test_nims_formula_counts_what_the_enumeration_finds(spec: str, position: str) -> None:
    from gamedb.subgame import count_subgame

    game = load_game(spec)
    state = game.parse_position(position)
    count = count_subgame(game.subgame(state), 10**6)
    assert count.complete
    assert game.capabilities.positions_below is not None
    assert game.capabilities.positions_below(state) == count.positions


def test_a_count_stopped_inside_a_layer_says_what_it_found_below() -> None:
    """Past the cap inside a layer, the refusal counts the positions already found below
    the whole layers counted (a lower bound), not only those layers."""
    with pytest.raises(SubgameTooBig) as refused:
        solve_position("jujitsu(num_cards=13)", "start")
    message = str(refused.value)
    assert "too many positions below hand1=1,2,3,4,5,6,7,8,9,10,11,12,13" in message, message
    assert "at least" in message and "found in the layers below" in message, message


# -- the command -----------------------------------------------------------------------

def _run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


@pytest.mark.parametrize("spec, position", [
    ("jujitsu(num_cards=6)", "hand1=1,3,5 hand2=2,4,6 pot=0 diff=-1"),
    ("goofspiel(num_cards=5)", "hand1=1,3,4 hand2=2,3,5 prizes=1,4 prize=5 diff=5"),
    ("goofspiel(num_cards=5)", "hand1=1,3,4 hand2=2,3,5 prizes=1,4,5 diff=5"),
    ("oshi_zumo(coins=6,size=2,min_bid=1)", "coins1=4 coins2=3 pos=-1"),
    ("nim(heaps=1-2-3)", "heaps=1,2,2 mover=2"),
    ("tictoe", "start"),
    ("jujitsu(num_cards=6)", "hand1=- hand2=- pot=0 diff=-2"),
])
def test_solve_prints_what_show_prints_text_and_json(built, spec: str, position: str) -> None:
    db = str(built(spec))
    for extra in ([], ["--json"]):
        shown, solved = _run("show", db, position, *extra), _run("solve", spec, position, *extra)
        assert shown.exit_code == solved.exit_code == 0, solved.output
        assert solved.stdout == shown.stdout
    assert json.loads(solved.stdout)["spec"] == load_game(spec).spec


@pytest.mark.parametrize("args, message", [
    (("chess", "start"), "unknown game 'chess'"),
    (("jujitsu(num_cards=6)", "hand1=1,2 hand2=3"), "hands must have the same size"),
    (("goofspiel(num_cards=5)", "hand1=1,2 hand2=3,4 prizes=5"), "need 2 prizes left"),
    (("goofspiel(num_cards=13)", "start"), "--max-positions"),
    (("jujitsu(num_cards=6)", "start", "--max-positions", "10"), "over --max-positions 10;"),
])
def test_bad_input_to_solve_is_one_line_exit_1(args: tuple[str, ...], message: str) -> None:
    result = _run("solve", *args)
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


@pytest.mark.parametrize("position, refusal", [
    ("hand1=2,3 hand2=4,5 pot=2 diff=0", None),  # no card pair makes that pot: solved
    ("hand1=2,3 hand2=4,5 pot=1 diff=0", "pot=1 diff=0 cannot happen after 4 tricks"),
])
def test_solve_text_and_json_agree_on_a_position_no_play_reaches(position: str,
                                                                 refusal: str | None) -> None:
    """Both answer it, with the same value, or both refuse it in the same one line."""
    spec = "jujitsu(num_cards=6)"
    text, as_json = _run("solve", spec, position), _run("solve", spec, position, "--json")
    assert text.exit_code == as_json.exit_code == (0 if refusal is None else 1), as_json.output
    if refusal is None:
        assert "value     -1.000000" in text.stdout
        assert json.loads(as_json.stdout)["value"] == -1.0
    else:
        assert text.stderr == as_json.stderr == f"Error: {refusal}\n"
        assert text.stdout == as_json.stdout == ""


def test_show_of_a_position_not_in_the_file_suggests_solve(built) -> None:
    db = str(built("jujitsu(num_cards=6)"))
    result = _run("show", db, "hand1=3,2 hand2=4,5 pot=2 diff=0")
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1
    assert lines[0].endswith('try: gamedb solve "jujitsu(num_cards=6,ties=carry)" '
                             '"hand1=2,3 hand2=4,5 pot=2 diff=0"'), lines


def test_the_command_default_cap_is_the_library_default() -> None:
    from gamedb.cli import inspect
    from gamedb.subgame import MAX_POSITIONS

    assert inspect._MAX_POSITIONS == MAX_POSITIONS
