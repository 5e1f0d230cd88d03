"""One probe for every reader: a values-only file answers like a full one, on every path.

A values-only file stores no strategies; ``GameDB.probe`` solves them on demand from the
stored successor values (the build's own kernel). ``show``, the equilibrium agent and the
plots all read through it, so each must give the full file's strategies (within 1e-9).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gamedb.builder import build
from gamedb.cli import cli
from gamedb.play.equilibrium import Equilibrium
from gamedb.play.plot import Axis, slice_grid, strategy_bars
from gamedb.store import open_db

POSITIONS = {
    "oshi_zumo(coins=12,size=2,min_bid=1)": [
        "start", "coins1=7 coins2=5 pos=1", "coins1=3 coins2=4 pos=0", "coins1=10 coins2=6 pos=-1",
        "coins1=4 coins2=9 pos=2"],
    "jujitsu(num_cards=6)": [
        "start", "hand1=1,3,5 hand2=2,4,6 pot=0 diff=1", "hand1=2,6 hand2=1,5 pot=1 diff=1",
        "hand1=1,2,3,6 hand2=1,2,3,5 pot=1 diff=-1"],
}


@pytest.fixture(scope="module", params=sorted(POSITIONS))
def pair(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
         ) -> tuple[str, Path, Path]:
    spec, folder = request.param, tmp_path_factory.mktemp("values_only")
    full, lean = folder / "full.sqlite", folder / "lean.sqlite"
    build(spec, full, workers=1)
    build(spec, lean, workers=1, values_only=True)
    return spec, full, lean


def _close(got: dict[int, float], want: dict[int, float]) -> bool:
    actions = set(got) | set(want)
    return all(abs(got.get(a, 0.0) - want.get(a, 0.0)) <= 1e-9 for a in actions)


def test_the_store_probe_solves_a_values_only_position_like_the_full_file(pair) -> None:  # type: ignore[no-untyped-def]
    spec, full, lean = pair
    with open_db(full) as ref, open_db(lean) as db:
        for position in POSITIONS[spec]:
            want, got = ref.probe(position), db.probe(position)
            assert got.value == pytest.approx(want.value, abs=1e-12)
            assert got.strategies[1] and got.strategies[2], position
            assert all(_close(got.strategies[p], want.strategies[p]) for p in (1, 2)), position


def test_every_stored_position_gets_the_full_files_strategies_to_the_bit(pair) -> None:  # type: ignore[no-untyped-def]
    import sqlite3

    _, full, lean = pair
    with sqlite3.connect(full) as conn:
        keys = [key for (key,) in conn.execute("SELECT key FROM states")]
    with open_db(full) as ref, open_db(lean) as db:
        for key in keys:
            state = db.game.decode(key)
            got, want = db.probe(state), ref.probe(state)
            assert got.gap is None  # a values-only row keeps no gap (schema 0004)
            assert replace(got, gap=want.gap) == want, db.game.format_position(state)


def test_show_answers_a_values_only_file_like_the_full_file(pair) -> None:  # type: ignore[no-untyped-def]
    spec, full, lean = pair
    for position in POSITIONS[spec]:
        want, got = (json.loads(CliRunner().invoke(cli, ["show", str(path), position, "--json"])
                                .stdout)["strategy"] for path in (full, lean))
        for player in ("1", "2"):
            assert _close({int(a): p for a, p in got[player].items()},
                          {int(a): p for a, p in want[player].items()}), position


def test_the_equilibrium_agent_plays_the_full_files_strategies(pair) -> None:  # type: ignore[no-untyped-def]
    spec, full, lean = pair
    with open_db(full) as ref, open_db(lean) as db:
        agent = Equilibrium(db.game, db)
        for position in POSITIONS[spec]:
            state, want = db.game.parse_position(position), ref.probe(position)
            for player in (1, 2):
                assert _close(agent.policy(db.game, state, player), want.strategies[player])


def test_the_strategy_plot_reads_the_full_files_strategies(pair) -> None:  # type: ignore[no-untyped-def]
    spec, full, lean = pair
    with open_db(full) as ref, open_db(lean) as db:
        for position in POSITIONS[spec]:
            want, got = strategy_bars(ref, position), strategy_bars(db, position)
            assert got.actions == want.actions and got.value == pytest.approx(want.value)
            for player in (1, 2):
                a, b = np.array(got.probs[player], float), np.array(want.probs[player], float)
                assert np.allclose(a, b, atol=1e-9, equal_nan=True), position


def test_a_heatmap_of_a_values_only_file_shows_the_full_files_probabilities(tmp_path: Path) -> None:
    spec = "oshi_zumo(coins=12,size=2,min_bid=1)"
    full, lean = tmp_path / "full.sqlite", tmp_path / "lean.sqlite"
    build(spec, full, workers=1)
    build(spec, lean, workers=1, values_only=True)
    x, y = Axis.parse("coins1=0:12", {}), Axis.parse("coins2=0:12", {})
    with open_db(full) as ref, open_db(lean) as db:
        want, got = (slice_grid(d, x, y, "pos=0", "prob:1").cells for d in (ref, db))
    assert np.nanmax(want) == 1.0  # a probability of 1 somewhere: the old bug showed 0 there
    assert np.allclose(got, want, atol=1e-9, equal_nan=True)


def test_both_plot_commands_draw_a_values_only_file(pair, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    spec, _, lean = pair
    axes = (["--x", "coins1", "--y", "coins2", "--fixed", "pos=0"] if spec.startswith("oshi")
            else ["--x", "pot=0:2", "--y", "diff=-3:3", "--fixed", "hand1=1,3,5 hand2=2,4,6"])
    for command in (["strategy", str(lean), "start"], ["heatmap", str(lean), *axes,
                                                        "--what", "prob:1"]):
        result = CliRunner().invoke(cli, ["plot", *command, "-o", str(tmp_path / "p.png")])
        assert result.exit_code == 0, result.stderr


def test_an_exact_match_against_a_values_only_file_scores_like_the_full_file(pair) -> None:  # type: ignore[no-untyped-def]
    from gamedb.play.names import make_agent
    from gamedb.play.tournament import play_match

    _, full, lean = pair
    payoffs = []
    for path in (full, lean):  # a different optimum of a degenerate stage game shows here
        with open_db(path) as db:
            agents = (make_agent("equilibrium", db.game, db), make_agent("random", db.game, db))
            payoffs.append(play_match(db.game, *agents).payoff)
    assert payoffs[1] == pytest.approx(payoffs[0], abs=1e-12)


def test_a_prefetched_round_gives_the_full_files_strategies_to_the_bit(pair) -> None:  # type: ignore[no-untyped-def]
    """``GameDB.prefetch`` solves a round of positions in one batch (a simulation's);
    each must come out as the full file stores it, and as one solved alone."""
    import sqlite3

    _, full, lean = pair
    with sqlite3.connect(full) as conn:
        keys = [key for (key,) in conn.execute("SELECT key FROM states")]
    with open_db(full) as ref, open_db(lean) as db, open_db(lean) as alone:
        states = [db.game.decode(key) for key in keys]
        db.prefetch(states)
        sizes = np.unique(db.game.layer_of(np.array(keys, np.int64)), return_counts=True)[1]
        # every position in one pass, but those alone in their layer (nothing to share)
        assert len(db.on_demand._prefetched) == sum(n for n in sizes.tolist() if n > 1) > 200
        for state in states:
            got, want = db.probe(state), ref.probe(state)
            assert got.strategies == want.strategies == alone.probe(state).strategies
