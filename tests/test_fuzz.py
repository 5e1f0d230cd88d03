"""A bounded fuzz suite (Hypothesis) over specs, positions, options and file bytes.

Every input either works or fails in one line (exit 1; 2 for click's usage errors),
never with a traceback, and a read-only command never changes the file. The budget is
small (``_BUDGET`` = 40 examples a test, ~10 s in all; no deadline: the machine is
shared) so CI finds the next class of input, not a user; ``HYPOTHESIS_EXAMPLES=400``
searches longer (~2.5 min) with new examples each run.

What it found while it was written (each now a test in ``tests/test_hostile.py``): a
byte 0x80 in a table's declaration (``UnicodeDecodeError`` from sqlite3) and a control
character of a damaged schema in a message (a "one line" that ``splitlines`` cut in two).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import string
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamedb.cli import cli
from gamedb.games import GAMES, GameError, load_game

_BUDGET = int(os.environ.get("HYPOTHESIS_EXAMPLES", "40"))
# CI replays the same examples (derandomized: a failure is one a rerun reproduces); a
# longer search (HYPOTHESIS_EXAMPLES set) draws new ones each run.
_SETTINGS = settings(max_examples=_BUDGET, deadline=None,
                     derandomize="HYPOTHESIS_EXAMPLES" not in os.environ,
                     suppress_health_check=[HealthCheck.function_scoped_fixture,
                                            HealthCheck.too_slow])


def _one_line_or_success(result: Result, *allowed: int) -> None:
    """Exit 0, or 1 (or an allowed code) with one line on stderr; never a traceback."""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a traceback: the fuzz found something
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1, *allowed), result.output
    if result.exit_code == 1:
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


# --- Specs --------------------------------------------------------------------------------

_VALUES = st.one_of(st.integers(-10, 40).map(str), st.integers().map(str),
                    st.sampled_from(["true", "false", "carry", "discard", "random",
                                     "descending", "win_loss", "point_difference", "",
                                     "0-1,1-2", "1-2-3", "1.5", "-0", "x" * 300]),
                    st.text(string.printable, max_size=12))
_NAMES = st.sampled_from(["num_cards", "ties", "coins", "size", "min_bid", "heaps", "edges",
                          "points_order", "returns_type", "dummy", "rounds", "alesia",
                          "committed", "horizon", "cards", ""])


@st.composite
def _specs(draw: st.DrawFn) -> str:
    family = draw(st.sampled_from(sorted(GAMES) + ["chess", "Jujitsu", ""]))
    params = draw(st.lists(st.tuples(_NAMES, _VALUES), max_size=4))
    body = ",".join(f"{name}={value}" for name, value in params)
    return draw(st.sampled_from([f"{family}({body})", family, f"{family}({body}",
                                 f"{family}({body}))"]))


@_SETTINGS
@given(spec=_specs())
def test_any_spec_loads_or_is_a_game_error(spec: str) -> None:
    try:
        load_game(spec)
    except GameError:
        pass


# --- Positions ----------------------------------------------------------------------------

_FIELDS = st.sampled_from(["hand1", "hand2", "pot", "diff", "prizes", "prize", "coins1",
                           "coins2", "pos", "heaps", "mover", "board", "edges", "dummy", "x"])
_FIELD_VALUES = st.one_of(
    st.lists(st.integers(-3, 20), max_size=9).map(lambda xs: ",".join(map(str, xs))),
    st.integers().map(str), st.sampled_from(["-", "", "X.O.", "start", "1,,2", "０"]),
    st.text(string.printable, max_size=8))


@st.composite
def _positions(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        return draw(st.text(max_size=40))
    fields = draw(st.lists(st.tuples(_FIELDS, _FIELD_VALUES), max_size=5))
    return " ".join(f"{name}={value}" for name, value in fields) or "start"


@pytest.fixture(scope="module")
def small_files(built) -> list[Path]:  # type: ignore[no-untyped-def]
    return [built(spec) for spec in ("jujitsu(num_cards=4)", "oshi_zumo(coins=4,size=1)",
                                     "goofspiel(num_cards=3)", "nim(heaps=1-2)", "tictoe")]


@_SETTINGS
@given(position=_positions(), which=st.integers(0, 4))
def test_any_position_is_shown_or_refused_in_one_line(small_files: list[Path], position: str,
                                                      which: int) -> None:
    path = small_files[which]
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    _one_line_or_success(CliRunner().invoke(cli, ["show", str(path), position, "--json"]))
    _one_line_or_success(CliRunner().invoke(cli, ["key", load_game_spec(path), position]))
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def load_game_spec(path: Path) -> str:
    import sqlite3
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        (spec,) = conn.execute("SELECT json_extract(value, '$') FROM meta "
                               "WHERE name = 'spec'").fetchone()
    conn.close()
    return str(spec)


# --- Options ------------------------------------------------------------------------------

_AGENTS = st.sampled_from(["equilibrium", "random", "highest", "lowest", "level-1",
                           "best-response:random", "equilibrium-vs:highest", "nash-range",
                           "support-random", "bid-range-1-2", "level-x", "", ":"])


@_SETTINGS
@given(agents=st.tuples(_AGENTS, _AGENTS),
       games=st.one_of(st.none(), st.integers(-2, 40), st.integers()),
       seed=st.one_of(st.none(), st.integers(-5, 2**70)))
def test_any_match_options_play_or_fail_in_one_line(small_files: list[Path],
                                                    agents: tuple[str, str], games: int | None,
                                                    seed: int | None) -> None:
    args = ["match", str(small_files[0]), *agents, "--quiet"]
    args += [] if games is None else ["--games", str(games)]
    args += [] if seed is None else ["--seed", str(seed)]
    _one_line_or_success(CliRunner().invoke(cli, args), 2)


# --- File bytes ---------------------------------------------------------------------------

@_SETTINGS
@given(data=st.data())
def test_any_damaged_file_is_read_or_refused_in_one_line(small_files: list[Path],
                                                         tmp_path_factory: pytest.TempPathFactory,
                                                         data: st.DataObject) -> None:
    source = small_files[data.draw(st.integers(0, 4), label="file")]
    original = source.read_bytes()
    damaged = bytearray(original)
    for _ in range(data.draw(st.integers(1, 8), label="changes")):
        at = data.draw(st.integers(0, len(damaged) - 1), label="offset")
        damaged[at] = data.draw(st.integers(0, 255), label="byte")
    if data.draw(st.booleans(), label="truncate"):
        del damaged[data.draw(st.integers(0, len(damaged)), label="length"):]
    path = tmp_path_factory.mktemp("fuzz") / "damaged.sqlite"
    path.write_bytes(bytes(damaged))
    for args in (["info", str(path), "--json"], ["show", str(path), "start"],
                 ["verify", str(path)], ["export", str(path)]):
        _one_line_or_success(CliRunner().invoke(cli, args))
        assert path.read_bytes() == bytes(damaged), args
    shutil.rmtree(path.parent)
