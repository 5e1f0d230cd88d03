"""Green Hackenbush: hand-worked Grundy values, the fusion principle, and the matrix
game's value agreeing with the Sprague-Grundy theory (the mover wins iff grundy != 0)."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamedb.games import GameError, load_game
from gamedb.solver.backward import enumerate_layers
from gamedb.solver.grundy import grundy_values
from gamedb.store import open_db


def _grundy(edges: list[tuple[int, int]]) -> int:
    """The Grundy value of the whole picture ``edges``, computed from the game."""
    game = load_game("hackenbush(edges=" + ",".join(f"{u}-{v}" for u, v in edges) + ")")
    values = grundy_values(game, enumerate_layers(game))
    return values[game.canonical(game.initial()[0][1]).key]


def test_a_single_edge_is_worth_one() -> None:
    """One edge 0-1: the mover erases it and wins; mex{0} = 1."""
    assert _grundy([(0, 1)]) == 1


@pytest.mark.parametrize("n", range(1, 8))
def test_a_stalk_of_n_edges_is_worth_n(n: int) -> None:
    """A path 0-1-...-n: erasing edge k leaves a stalk of k - 1 edges, so the moves reach
    0..n-1 and the value is mex{0, ..., n-1} = n (a stalk is a Nim heap of n)."""
    assert _grundy([(i, i + 1) for i in range(n)]) == n


def test_a_loop_at_the_ground_is_worth_one() -> None:
    """0-0: its only move erases it (nothing left, value 0), so mex{0} = 1."""
    assert _grundy([(0, 0)]) == 1


def test_a_triangle_standing_on_the_ground_is_worth_one() -> None:
    """Edges 0-1, 1-2, 2-0. Erasing 0-1 leaves the stalk 0-2-1 (2), erasing 2-0 the
    stalk 0-1-2 (2), erasing 1-2 two single edges at the ground (1 xor 1 = 0):
    mex{2, 2, 0} = 1 (as fusing the triangle's vertices into the ground gives three
    loops: 1 xor 1 xor 1 = 1)."""
    assert _grundy([(0, 1), (1, 2), (2, 0)]) == 1


def test_a_triangle_on_a_stalk_is_worth_two() -> None:
    """Edges 0-1 (the stalk), 1-2, 2-3, 3-1 (a triangle at vertex 1).
    Erasing the stalk drops everything: 0. Erasing 1-2 or 3-1 leaves 0-1 with a stalk of
    2 above it: a stalk of 3 edges, 3. Erasing 2-3 leaves 0-1 with two single edges above
    it, worth 1 + (1 xor 1) = 1 by the colon principle. mex{0, 3, 3, 1} = 2."""
    assert _grundy([(0, 1), (1, 2), (2, 3), (3, 1)]) == 2


def test_a_doubled_edge_is_worth_zero() -> None:
    """0-1 twice: either move leaves a single edge (1), so mex{1} = 0 (a 2-cycle through
    the ground fuses to two loops: 1 xor 1)."""
    assert _grundy([(0, 1), (0, 1)]) == 0


def test_separate_pictures_add_as_nim_heaps() -> None:
    """Stalks of 3 and 5 on the ground and a loop: 3 xor 5 xor 1 = 7."""
    picture = [(0, 1), (1, 2), (2, 3), (0, 4), (4, 5), (5, 6), (6, 7), (7, 8), (0, 0)]
    assert _grundy(picture) == 7


def _bridges(edges: list[tuple[int, int]]) -> list[bool]:
    """Whether each edge is a bridge: its ends fall apart without it (a loop never)."""
    def joined(skip: int, u: int, v: int) -> bool:
        reached, todo = {u}, [u]
        while todo:
            x = todo.pop()
            for i, (a, b) in enumerate(edges):
                for s, t in ((a, b), (b, a)):
                    if i != skip and s == x and t not in reached:
                        reached.add(t)
                        todo.append(t)
        return v in reached
    return [u != v and not joined(i, u, v) for i, (u, v) in enumerate(edges)]


def _fused(edges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Fuse the vertices of every circuit: each 2-edge-connected part becomes one vertex
    (the ground's part: vertex 0), its edges loops there; the bridges stay edges."""
    parent = {v: v for e in edges for v in e}

    def root(v: int) -> int:
        while parent[v] != v:
            v = parent[v]
        return v
    for (u, v), bridge in zip(edges, _bridges(edges)):
        if not bridge:
            parent[root(u)] = root(v)
    ground = root(0)
    name = {r: (0 if r == ground else r + 100) for r in set(map(root, parent))}
    return [(name[root(u)], name[root(v)]) for u, v in edges]


@st.composite
def _pictures(draw: st.DrawFn) -> list[tuple[int, int]]:
    """A random picture of up to 9 edges over 5 vertices, every edge on the ground's side."""
    pairs = draw(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=9))
    reached, grew = {0}, True
    while grew:
        grew = False
        for u, v in pairs:
            if (u in reached) != (v in reached):
                reached |= {u, v}
                grew = True
    return [(u, v) for u, v in pairs if u in reached] or [(0, 1)]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(_pictures())
def test_fusing_every_circuit_into_a_point_keeps_the_value(edges: list[tuple[int, int]]) -> None:
    """The fusion principle (Winning Ways ch. 7): the vertices of a circuit may be fused
    into one, its edges becoming loops there, without changing the Grundy value."""
    assert _grundy(edges) == _grundy(_fused(edges)), (edges, _fused(edges))


def test_fusing_a_square_into_the_ground_gives_four_loops() -> None:
    """The helper itself: a 4-cycle through the ground becomes four loops at 0."""
    assert _fused([(0, 1), (1, 2), (2, 3), (3, 0), (3, 4)]) == [(0, 0)] * 4 + [(0, 104)]


@pytest.mark.parametrize("edges", ["0-1,1-2,1-3,0-4,4-5,5-0,0-0", "0-1,1-2,2-0,2-3,3-3,0-1",
                                   "0-0,0-1,1-1,1-2,2-0,2-2"])
def test_the_matrix_game_is_won_by_the_mover_exactly_when_grundy_is_nonzero(
        built, edges: str) -> None:  # type: ignore[no-untyped-def]
    with sqlite3.connect(built(f"hackenbush(edges={edges})")) as conn:
        rows = conn.execute("SELECT s.key, s.value, g.grundy FROM states AS s "
                            "JOIN grundy AS g ON g.key = s.key").fetchall()
        assert len(rows) == conn.execute("SELECT count(*) FROM states").fetchone()[0] > 10
    game = load_game(f"hackenbush(edges={edges})")
    expected = grundy_values(game, enumerate_layers(game))
    for key, value, grundy in rows:  # stored positions have player 1 to move
        assert grundy == expected[key]
        assert value == pytest.approx(1.0 if grundy else -1.0, abs=1e-9), key


def test_show_reads_the_grundy_value_of_either_mover(built) -> None:  # type: ignore[no-untyped-def]
    with open_db(built("hackenbush(edges=0-1,1-2,1-3,0-4,4-5,5-0,0-0)")) as db:
        start = db.probe("start")
        after = db.probe("edges=1,2,3,4,5,6 mover=2")
        over = db.probe("edges=- mover=1")
    assert (start.grundy, start.value) == (1, 1.0)
    assert start.strategies[1] == {1: 1.0}  # erasing the stalk leaves 1 xor 1 = 0
    assert (after.grundy, after.value) == (0, 1.0)  # triangle 1 xor tree 1: player 2 loses
    assert (over.grundy, over.value) == (0, -1.0)


def test_a_move_drops_what_no_longer_touches_the_ground() -> None:
    game = load_game("hackenbush(edges=0-1,1-2,2-2,1-3,3-0)")
    start = game.initial()[0][1]
    (_, after), = game.next(start, 1, 0)  # 0-1 erased: 1-3-0 still holds the rest
    assert game.format_position(after) == "edges=2,3,4,5 mover=2"
    (_, after), = game.next(start, 5, 0)  # then 3-0 too: everything falls
    (_, fallen), = game.next(after, 0, 1)
    assert game.format_position(fallen) == "edges=- mover=1" and game.value(fallen) == -1.0


def test_the_spec_keeps_the_edges_in_order_with_commas() -> None:
    assert load_game("hackenbush(edges= 0-1 , 1-1,0-0)").spec == "hackenbush(edges=0-1,1-1,0-0)"
    assert load_game("hackenbush").spec == "hackenbush(edges=0-1,1-2,1-3,0-4,4-5,5-0,0-0)"


@pytest.mark.parametrize("spec, message", [
    ("hackenbush(edges=0-1,2-3)", r"edge 2 \(2-3\) is not connected to the ground"),
    ("hackenbush(edges=1-1)", r"edge 1 \(1-1\) is not connected to the ground"),
    ("hackenbush(edges=0-1,1-x)", "edges u-v separated by ','"),
    ("hackenbush(edges=0-1-2)", "edges u-v separated by ','"),
    ("hackenbush(edges=0-1000)", "vertex numbers are 0..999"),
    ("hackenbush(edges=" + ",".join(["0-0"] * 41) + ")", "1..40 edges, got 41"),
])
def test_bad_pictures_are_refused_in_one_line(spec: str, message: str) -> None:
    with pytest.raises(GameError, match=message) as error:
        load_game(spec)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("text, message", [
    ("edges=2 mover=1", r"edge 2 \(1-2\) does not hang from the ground"),
    ("edges=1,9", "edge number outside 1..3"),
    ("edges=1,x", "comma-separated edge numbers"),
    ("edges=1,1", "repeats"),
    ("edges=1 mover=3", "mover must be 1 or 2"),
    ("heaps=1", "unknown field"),
])
def test_bad_positions_are_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        load_game("hackenbush(edges=0-1,1-2,1-3)").parse_position(text)


def test_moves_are_named_by_their_edge_in_show_the_api_names_and_play(built) -> None:  # type: ignore[no-untyped-def]
    """Moves were bare edge numbers ("3") in show, play, the API and the explorer."""
    import json

    from click.testing import CliRunner

    from gamedb.cli import cli
    from gamedb.games.base import named_actions

    spec = "hackenbush(edges=0-1,1-2,0-0)"
    game = load_game(spec)
    names = named_actions(game, game.parse_position("edges=1,2,3 mover=1"))
    assert names == {1: {1: "edge 1 (0-1)", 2: "edge 2 (1-2)", 3: "edge 3 (0-0)"},
                     2: {0: "pass"}}
    db = str(built(spec))
    shown = CliRunner().invoke(cli, ["show", db, "start"]).stdout
    assert "edge 2 (1-2)" in shown
    api = json.loads(CliRunner().invoke(cli, ["show", db, "start", "--json"]).stdout)
    assert api["names"]["1"]["3"] == "edge 3 (0-0)"
    played = CliRunner().invoke(cli, ["play", db, "--seed", "1"],
                                input="3\nedge 1 (0-1)\n")  # the number, or the whole name
    assert "you played edge 3 (0-0)" in played.stdout, played.stdout
