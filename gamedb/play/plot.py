"""Pictures of strategies: a position's two strategies as bars, and heatmaps of value or
of one action's probability across a two-dimensional slice of positions.

Matplotlib is imported lazily (Agg backend), so the rest of ``gamedb.play`` works
without it. The output format follows the file name (``.png`` or ``.svg``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gamedb.games.base import GameError, shown
from gamedb.store import Entry, GameDB, NotSolved


@dataclass(frozen=True, slots=True)
class Axis:
    """One axis of a heatmap: a position field and the values it runs over."""

    field: str
    values: tuple[int, ...]

    @classmethod
    def parse(cls, text: str, default_high: int) -> Axis:
        """Read ``coins1`` (0..default_high) or ``coins1=LOW:HIGH``."""
        name, _, span = text.partition("=")
        low, _, high = span.partition(":") if span else ("0", "", str(default_high))
        try:
            return cls(name, tuple(range(int(low), int(high) + 1)))
        except ValueError:
            raise GameError(f"axis {shown(text)}: expected FIELD or FIELD=LOW:HIGH") from None


@dataclass(frozen=True, slots=True)
class Grid:
    """Values of a slice: ``cells[i, j]`` at y = ``y.values[i]``, x = ``x.values[j]``."""

    x: Axis
    y: Axis
    cells: np.ndarray
    """NaN where the position is impossible, terminal-free or not stored."""
    title: str


def slice_grid(db: GameDB, x: Axis, y: Axis, fixed: str, what: str) -> Grid:
    """Probe every position of the slice; ``what`` is ``value`` or ``prob:ACTION``
    (player 1's probability) or ``prob2:ACTION`` (player 2's)."""
    kind, _, action = what.partition(":")
    if kind not in ("value", "prob", "prob2") or (
            kind != "value" and not (action.isdigit() and len(action) <= 9)):
        raise GameError(f"--what must be value, prob:ACTION or prob2:ACTION, got {shown(what)}")
    cells = np.full((len(y.values), len(x.values)), np.nan)
    for i, yv in enumerate(y.values):
        for j, xv in enumerate(x.values):
            entry = _probe(db, f"{x.field}={xv} {y.field}={yv} {fixed}".strip())
            if entry is None:
                continue
            if kind == "value":
                cells[i, j] = entry.value
            elif entry.strategies:
                cells[i, j] = entry.strategies[1 if kind == "prob" else 2].get(int(action), 0.0)
    label = "value for player 1" if kind == "value" else (
        f"P(player {1 if kind == 'prob' else 2} plays {action})")
    return Grid(x, y, cells, f"{db.game.spec}\n{label}" + (f" at {fixed}" if fixed else ""))


def _probe(db: GameDB, text: str) -> Entry | None:
    try:
        return db.probe(text)
    except (GameError, NotSolved):
        return None


def plot_heatmap(grid: Grid, output: str | Path) -> Path:
    """Draw a slice as a heatmap with a colour bar and save it."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 6))
    data = np.ma.masked_invalid(grid.cells)
    image = ax.imshow(data, origin="lower", cmap="coolwarm", aspect="auto",
                      extent=(grid.x.values[0] - .5, grid.x.values[-1] + .5,
                              grid.y.values[0] - .5, grid.y.values[-1] + .5))
    fig.colorbar(image, ax=ax)
    ax.set_xlabel(grid.x.field)
    ax.set_ylabel(grid.y.field)
    ax.set_title(grid.title, fontsize=10)
    return _save(fig, output)


def plot_strategy(spec: str, entry: Entry, noun: str, output: str | Path) -> Path:
    """Draw both players' mixed strategies at one position as side-by-side bars."""
    plt = _pyplot()
    actions = sorted({a for s in entry.strategies.values() for a in s})
    if not actions:
        raise GameError(f"no strategy at {entry.position} (terminal, or a chance draw is next)")
    fig, ax = plt.subplots(figsize=(max(5, 0.5 * len(actions) + 2), 4))
    at = np.arange(len(actions))
    for offset, player in ((-0.2, 1), (0.2, 2)):
        ax.bar(at + offset, [entry.strategies[player].get(a, 0.0) for a in actions], 0.4,
               label=f"player {player}")
    ax.set_xticks(at, [str(a) for a in actions])
    ax.set_xlabel(noun)
    ax.set_ylabel("probability")
    ax.set_ylim(0, 1.05 * max(1e-9, max(max(s.values(), default=0) for s in entry.strategies.values())))
    ax.legend()
    ax.set_title(f"{spec}\n{entry.position}   value {entry.value:+.4f}", fontsize=9)
    return _save(fig, output)


def _pyplot() -> Any:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _save(fig: Any, output: str | Path) -> Path:
    path = Path(output)
    if path.suffix.lower() not in (".png", ".svg"):
        raise GameError(f"output must end in .png or .svg, got {path.name!r}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    _pyplot().close(fig)
    return path


__all__ = ["Axis", "Grid", "plot_heatmap", "plot_strategy", "slice_grid"]
