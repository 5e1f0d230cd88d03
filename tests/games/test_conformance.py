"""Conformance of every registered game (OpenSpiel's games_sim_test, for our protocol).

A family added to ``GAMES`` must add a small spec here; then it is checked like all
others: keys round-trip through ``decode``/``canonical`` and hold their layer, every key
the layer face makes is exactly its declared fields (``KeyLayout``), the SQL views of
a small build (canonical and raw) decode every key like Python, the capability
record names real position fields, every distribution sums to 1, layers strictly
decrease along random playouts, and playouts end in a finite payoff.
"""

from __future__ import annotations

import math
import random
import sqlite3

import pytest

from gamedb.games import GAMES, load_game
from gamedb.games.base import layers_of, reference_expand, successor_table
from gamedb.games.layout import Constant, Field, Ternary
from gamedb.solver.backward import enumerate_layers
from gamedb.store.views import decoded_select, decoding_of

SMALL_SPECS = {
    "jujitsu": ["jujitsu(num_cards=5)", "jujitsu(num_cards=5,ties=discard)"],
    "goofspiel": ["goofspiel(num_cards=4)", "goofspiel(num_cards=4,returns_type=point_difference)",
                  "goofspiel(num_cards=4,points_order=descending,ties=carry)",
                  "goofspiel(num_cards=3,dummy=true)",
                  "goofspiel(dummy=true,num_cards=4,returns_type=point_difference,rounds=2)",
                  "goofspiel(num_cards=5,rounds=3)",
                  "goofspiel(num_cards=4,returns_type=point_difference,rounds=2,ties=carry)",
                  "goofspiel(committed=true,num_cards=3)",
                  "goofspiel(committed=true,num_cards=3,points_order=descending,ties=carry)"],
    "oshi_zumo": ["oshi_zumo(coins=6,size=2,min_bid=1)", "oshi_zumo(coins=6,size=2,min_bid=0)"],
    "nim": ["nim(heaps=1-2-3)"],
    "tictoe": ["tictoe"],
    "hackenbush": ["hackenbush(edges=0-1,1-2,1-3,0-4,4-5,5-0,0-0)", "hackenbush(edges=0-0,0-1,0-1,1-1)"],
}
ALL_SPECS = [spec for specs in SMALL_SPECS.values() for spec in specs]


def test_every_registered_family_has_a_conformance_spec() -> None:
    assert set(SMALL_SPECS) == set(GAMES)


@pytest.mark.parametrize("spec", ALL_SPECS)
def test_canonical_keys_round_trip_and_carry_their_layer(spec: str) -> None:
    game = load_game(spec)
    for layer, keys in enumerate_layers(game).items():
        assert (layers_of(keys) == layer).all() and (game.layer_of(keys) == layer).all()
        for key in keys.tolist():
            state = game.decode(key)
            assert game.canonical(state).key == key
            assert game.layer(state) == layer and game.value(state) is None


@pytest.mark.parametrize("spec", ALL_SPECS)
def test_the_layer_face_and_the_reference_face_agree_on_every_state(spec: str) -> None:
    game = load_game(spec)
    for keys in enumerate_layers(game).values():
        fast, slow = game.expand(keys), reference_expand(game, keys)
        assert (fast.n_rows == slow.n_rows).all() and (fast.n_cols == slow.n_cols).all()
        assert all(successor_table(fast, i) == successor_table(slow, i) for i in range(len(keys)))


@pytest.mark.parametrize("canonical", [True, False], ids=["canonical", "raw"])
@pytest.mark.parametrize("spec", ALL_SPECS)
def test_every_kernel_key_is_its_declared_fields_and_decodes_to_its_state(
        spec: str, canonical: bool) -> None:
    game = load_game(spec, canonical_keys=canonical)
    for layer, keys in enumerate_layers(game).items():  # the layer face's keys
        for key in keys.tolist():
            fields = game.layout.decode(key)
            assert game.layout.encode(fields, layer) == key, fields
            state = game.decode(key)
            assert game.canonical(state).key == key
            if not canonical:
                assert game.key(state) == key


@pytest.mark.parametrize("canonical", [True, False], ids=["canonical", "raw"])
@pytest.mark.parametrize("spec", ALL_SPECS)
def test_the_sql_views_decode_every_declared_field_like_the_python_decoder(
        built, spec: str, canonical: bool) -> None:  # type: ignore[no-untyped-def]
    game = load_game(spec, canonical_keys=canonical)
    stages, _ = decoding_of(game)
    with sqlite3.connect(built(spec, canonical_keys=canonical)) as conn:
        cursor = conn.execute(decoded_select(stages))
        names = [d[0] for d in cursor.description]
        rows = [dict(zip(names, row)) for row in cursor]
    columns = {f.name: f.column for f in game.layout.fields if isinstance(f, (Field, Constant))}
    columns |= {name: f"{name}_mask" for f in game.layout.fields if isinstance(f, Ternary)
                for name in f.names}
    assert rows
    for row in rows:
        assert {name: row[column] for name, column in columns.items()} == \
            game.layout.decode(row["key"])
        assert row["position"] == game.format_position(game.decode(row["key"]))


@pytest.mark.parametrize("spec", ALL_SPECS)
def test_the_raw_wrapper_answers_like_the_game_but_for_keys(spec: str) -> None:
    game, raw = load_game(spec), load_game(spec, canonical_keys=False)
    assert (raw.spec, raw.rules, raw.capabilities, raw.params) == (
        game.spec, game.rules, game.capabilities, game.params)
    assert raw.key_layout == game.key_layout + "-raw" and not raw.canonical_keys
    state = game.initial()[0][1]
    assert [[raw.action_name(state, p, a) for a in acts]
            for p, acts in zip((1, 2), raw.actions(state))] == [
        [game.action_name(state, p, a) for a in acts] for p, acts in zip((1, 2), game.actions(state))]


@pytest.mark.parametrize("spec", ALL_SPECS)
def test_the_capability_record_names_real_position_fields(spec: str) -> None:
    game = load_game(spec)
    caps = game.capabilities
    top = max(enumerate_layers(game).items())[1]
    state = game.decode(int(top[0]))
    text = game.format_position(state)
    assert caps.action_noun and all(f" {name}=" in f" {text}" for name in caps.axes), text
    assert all(low < high for low, high in caps.axes.values())
    if caps.prize_field is not None:
        assert getattr(state, caps.prize_field) >= 1
    if caps.round_points is not None:
        assert caps.round_points(state) >= 1
    assert caps.impartial == (game.actions(state)[0] == () or game.name in ("nim", "hackenbush"))


def _check_distribution(dist) -> None:  # type: ignore[no-untyped-def]
    assert dist and math.isclose(sum(p for p, _ in dist), 1.0, abs_tol=1e-12)
    assert all(p > 0 for p, _ in dist)


@pytest.mark.parametrize("spec", ALL_SPECS)
def test_random_playouts_decrease_layers_and_end_with_a_finite_payoff(spec: str) -> None:
    game, rnd = load_game(spec), random.Random(spec)
    _check_distribution(game.initial())
    for _ in range(200):
        state = rnd.choice(game.initial())[1]
        while True:
            draws = game.chance(state)
            if draws is not None:
                _check_distribution(draws)
                state = rnd.choice(draws)[1]
            payoff = game.value(state)
            if payoff is not None:
                assert math.isfinite(payoff)
                break
            acts1, acts2 = game.actions(state)
            assert acts1 and acts2
            dist = game.next(state, rnd.choice(acts1), rnd.choice(acts2))
            _check_distribution(dist)
            nxt = rnd.choice(dist)[1]
            assert game.value(nxt) is not None or game.layer(nxt) < game.layer(state)
            state = nxt
