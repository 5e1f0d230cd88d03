"""The build's ETA: work left over the run's rate of work, each layer's positions
weighted by their cost, the clock started after the first chunk (it compiles)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import gamedb.builder.progress as progress_module
from gamedb.builder import build
from gamedb.builder.progress import (
    ENTRIES_PER_ROW, STRATEGY_ROW_COST, Committer, Quiet, layer_weights,
)
from gamedb.games import load_game
from gamedb.store.writer import ChunkRows, Writer
from tests.sources import enumerating


class _Etas(Quiet):
    """An observer that keeps the ETAs."""

    def __init__(self) -> None:
        self.etas: list[float] = []

    def eta(self, seconds: float) -> None:
        self.etas.append(seconds)


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    fake = _Clock()
    monkeypatch.setattr(progress_module.time, "perf_counter", fake)
    return fake


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[Writer]:
    opened = Writer(tmp_path / "x.sqlite", load_game("goofspiel(num_cards=4)"), {})
    try:
        yield opened
    finally:
        opened.close()


def _rows(layer: int, n: int) -> ChunkRows:
    keys = np.arange(n, dtype=np.int64) + (layer << 40)
    return ChunkRows(layer, keys, np.zeros(n), np.zeros(n), None, None, 0.0)


def test_the_eta_weights_each_layer_by_its_cost(clock: _Clock, writer: Writer) -> None:
    observer = _Etas()
    etas = observer.etas
    # layer 1: 1,000 cheap positions (weight 1); layer 2: 1,000 costing 4 each
    committer = Committer(writer, {1: 1000, 2: 1000}, 10**9, observer, weights={1: 1.0, 2: 4.0})
    clock.now += 30.0  # the first chunk compiles: not counted in the rate
    committer.commit(_rows(1, 100), 0, 100)
    clock.now += 10.0  # then 100 cheap positions in 10 s: 10 units of work per second
    committer.commit(_rows(1, 100), 0, 200)
    # left: 800 cheap + 4 x 1,000 = 4,800 units at 10/s = 480 s; positions alone: 180 s
    assert etas[-1] == pytest.approx(480.0)
    progress = committer._progress
    assert progress is not None and progress.eta_seconds == pytest.approx(480.0)
    assert progress.rate == pytest.approx(10.0)  # positions per second since the clock


def test_without_weights_it_is_positions_left_over_the_rate(clock: _Clock,
                                                            writer: Writer) -> None:
    observer = _Etas()
    etas = observer.etas
    committer = Committer(writer, {1: 1000, 2: 1000}, 10**9, observer)
    clock.now += 5.0
    committer.commit(_rows(1, 500), 0, 500)  # the first: 100/s including start-up
    assert etas[-1] == pytest.approx(1500 / 100)
    clock.now += 10.0
    committer.commit(_rows(1, 500), 0, 1000)
    assert etas[-1] == pytest.approx(1000 / 50)


def test_goofspiel_layers_cost_more_the_more_cards_in_hand() -> None:
    face = load_game("goofspiel(num_cards=8,returns_type=point_difference)").indexed_face()
    assert face is not None
    weights = layer_weights(face, strategies_from=7)
    # n cards in hand: an n x n stage game; layers 7 and 8 also write strategies
    for layer in range(1, 9):
        row = STRATEGY_ROW_COST if layer >= 7 else 1.0
        assert weights[layer] == pytest.approx(row + layer * layer / ENTRIES_PER_ROW)


def test_enumerated_layers_are_weighted_by_their_stage_games_too() -> None:
    source = enumerating("jujitsu(num_cards=6)")
    weights = layer_weights(source, strategies_from=0)
    # n cards in hand: an n x n stage game, strategies stored everywhere
    for layer in source.layers():
        assert weights[layer] == pytest.approx(STRATEGY_ROW_COST + layer * layer / ENTRIES_PER_ROW)


def test_a_build_reports_a_falling_eta(tmp_path: Path) -> None:
    observer = _Etas()
    etas = observer.etas
    build("goofspiel(num_cards=7,returns_type=point_difference)", tmp_path / "g7.sqlite",
          chunk_size=2000, observer=observer)
    assert len(etas) > 5 and all(eta >= 0 for eta in etas)
    assert etas[-1] == 0.0  # nothing left
