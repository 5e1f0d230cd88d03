"""Pictures of strategies: a position's two strategies as bars, and heatmaps of value or
of one action's probability across a two-dimensional slice of positions.

Every number comes from ``GameDB.probe`` (so a values-only file draws the strategies a
full file stores). Nothing is written unless the picture is complete: a slice in which
no position can be drawn (a misspelled or missing field, an action legal nowhere) is an
error, and the file is written whole, through a temporary file, or not at all.
Matplotlib is imported lazily (Agg backend). The format follows the file name.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np

from gamedb.games.base import INTEGER, GameError, named_actions, shown
from gamedb.store import GameDB, NotSolved

#: The picture formats, by file-name suffix.
FORMATS = (".png", ".svg")
#: The most values one heatmap axis may run over (a cell is one probe).
MAX_AXIS = 1000


class PlotError(GameError):
    """A slice, an action or an output file that cannot be drawn or written."""


@dataclass(frozen=True, slots=True)
class Axis:
    """One axis of a heatmap: a position field and the values it runs over."""

    field: str
    values: tuple[int, ...]

    @classmethod
    def parse(cls, text: str, ranges: Mapping[str, tuple[int, int]]) -> Axis:
        """Read ``coins1=LOW:HIGH``, or ``coins1`` over its range in ``ranges`` (a game's
        ``capabilities.axes``).

        >>> Axis.parse("pos", {"pos": (-2, 2)}).values
        (-2, -1, 0, 1, 2)
        """
        name, _, span = text.partition("=")
        if not span and name not in ranges:
            known = (f"fields with one: {', '.join(ranges)}" if ranges
                     else "no field of this game has one")
            raise PlotError(f"axis {shown(text)}: unknown field or no default range "
                            f"({known}); give FIELD=LOW:HIGH")
        low, colon, high = (span or "{}:{}".format(*ranges[name])).partition(":")
        try:  # numbers as in positions, ASCII digits (int() also reads 1_0), of any length
            first, last = (_integer(low), _integer(high)) if colon else (0, -1)
        except ValueError:  # not a number, or past the digits int() reads
            first, last = 0, -1
        if not name or first > last:
            raise PlotError(f"axis {shown(text)}: expected FIELD or FIELD=LOW:HIGH with LOW <= HIGH")
        if last - first >= MAX_AXIS:
            raise PlotError(f"axis {shown(text)} spans {last - first + 1} values; at most {MAX_AXIS}")
        return cls(name, tuple(range(first, last + 1)))


def _integer(text: str) -> int:
    """``text`` as an integer written as a position's are (``INTEGER``), else ValueError."""
    if INTEGER.fullmatch(text) is None:
        raise ValueError(text)
    return int(text)


@dataclass(frozen=True, slots=True)
class Grid:
    """Values of a slice: ``cells[i, j]`` at y = ``y.values[i]``, x = ``x.values[j]``."""

    x: Axis
    y: Axis
    cells: np.ndarray
    """NaN where no position can be drawn (impossible, not stored, no such decision)."""
    title: str
    label: str
    """What a cell holds, for the colour bar."""
    probability: bool
    """Cells are probabilities (0..1), not values."""


@dataclass(frozen=True, slots=True)
class Bars:
    """Both players' strategies at one position, over every legal action."""

    spec: str
    position: str
    value: float
    noun: str
    actions: tuple[int, ...]
    """Every action legal for either player, ascending."""
    probs: dict[int, tuple[float, ...]]
    """Player -> probability of each action (0 if never played, NaN if not legal)."""
    labels: tuple[str, ...] = ()
    """Tick label of each action: its name for people (``pass``; ``0 / pass`` where the
    players' names of one action differ). Empty: the numbers."""


def check_output(output: str | Path) -> Path:
    """Return the picture's path, refusing an unknown format or a missing folder."""
    path = Path(output)
    if path.suffix.lower() not in FORMATS:
        raise PlotError(f"output must end in {' or '.join(FORMATS)}, got {path.name!r}")
    if path.is_dir() or not path.parent.is_dir():
        what = "is a folder" if path.is_dir() else f"folder {str(path.parent)!r} does not exist"
        raise PlotError(f"cannot write {path}: {what}")
    return path


def strategy_bars(db: GameDB, position: str) -> Bars:
    """Return both strategies at ``position``, with every legal action (0 included)."""
    game = db.game
    state = game.parse_position(position)
    entry = db.probe(state)
    legal = game.actions(state) if entry.strategies else ((), ())
    if not any(legal):
        raise PlotError(f"no moves at {entry.position}: the game is over or a chance draw "
                        "is next")
    actions = tuple(sorted(set(legal[0]) | set(legal[1])))
    probs = {p: tuple(entry.strategies[p].get(a, 0.0) if a in legal[p - 1] else math.nan
                      for a in actions) for p in (1, 2)}
    names = named_actions(game, state)
    labels = tuple(" / ".join(dict.fromkeys(names[p][a] for p in (1, 2) if a in names[p]))
                   for a in actions)
    return Bars(game.spec, entry.position, entry.value, game.action_noun, actions, probs, labels)


def slice_grid(db: GameDB, x: Axis, y: Axis, fixed: str, what: str) -> Grid:
    """Probe every position of the slice; ``what`` is ``value`` or ``prob:ACTION``
    (player 1's probability) or ``prob2:ACTION`` (player 2's).

    Raises:
        PlotError: ``what`` is malformed, or no position of the slice can be drawn (the
            message gives the first position's reason, e.g. a missing or unknown field).
    """
    kind, _, action = what.partition(":")
    if kind not in ("value", "prob", "prob2") or (
            kind != "value" and not (action.isdigit() and len(action) <= 9)):
        raise PlotError(f"--what must be value, prob:ACTION or prob2:ACTION, got {shown(what)}")
    player = 2 if kind == "prob2" else 1
    cells, reason = np.full((len(y.values), len(x.values)), np.nan), ""
    for i, yv in enumerate(y.values):
        for j, xv in enumerate(x.values):
            text = f"{x.field}={xv} {y.field}={yv} {fixed}".strip()
            try:
                cells[i, j] = _cell(db, text, None if kind == "value" else (player, int(action)))
            except (GameError, NotSolved) as exc:
                reason = reason or f"{text}: {exc}"
    at = f" at {fixed}" if fixed else ""
    if np.isnan(cells).all():
        raise PlotError(f"nothing to draw: no position of the {x.field} x {y.field} slice{at} "
                        f"can be shown; {reason}")
    label = "value for player 1" if kind == "value" else f"P(player {player} plays {action})"
    return Grid(x, y, cells, f"{db.game.spec}\n{label}{at}", label, kind != "value")


def _cell(db: GameDB, text: str, prob: tuple[int, int] | None) -> float:
    """Return a slice cell: the value, or a player's probability of an action."""
    if prob is None:
        return db.value(text)
    player, action = prob
    state = db.game.parse_position(text)
    if action not in db.game.actions(state)[player - 1]:
        raise PlotError(f"{action} is not a legal {db.game.action_noun} of player {player} here")
    strategies = db.probe(state).strategies
    if not strategies:
        raise PlotError("no moves here: a chance draw is next")
    return strategies[player].get(action, 0.0)


#: The colour of a heatmap's cell without a position: a mid grey, far from RdBu's
#: near-white middle (a value of 0; the light grey 0.85 was hard to tell from it) and
#: from every colour of viridis.
MISSING = "0.5"


def heatmap_colours(probability: bool) -> str:
    """The colour map of a heatmap: viridis for probabilities (0..1), RdBu for values
    (red below 0, blue above, white at 0)."""
    return "viridis" if probability else "RdBu"


def plot_heatmap(grid: Grid, output: str | Path) -> Path:
    """Draw a slice as a heatmap with a labelled colour bar and save it.

    Probabilities use a sequential map on 0..1; values a diverging map centred on 0
    (on -1..1, or symmetric around the largest magnitude). Grey cells hold no position.
    """
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator
    fig, ax = plt.subplots(figsize=(7, 6), layout="constrained")
    extent = (grid.x.values[0] - .5, grid.x.values[-1] + .5,
              grid.y.values[0] - .5, grid.y.values[-1] + .5)
    high = 1.0 if grid.probability else max(1.0, float(np.nanmax(np.abs(grid.cells))))
    cmap = plt.get_cmap(heatmap_colours(grid.probability)).with_extremes(bad=MISSING)
    image = ax.imshow(np.ma.masked_invalid(grid.cells), origin="lower", cmap=cmap, aspect="auto",
                      extent=extent, vmin=0.0 if grid.probability else -high, vmax=high,
                      interpolation="nearest")
    fig.colorbar(image, ax=ax, label=grid.label)
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(grid.x.field)
    ax.set_ylabel(grid.y.field)
    _title(fig, grid.title, 70)
    if np.isnan(grid.cells).any():
        fig.supxlabel("dark grey: no such position (impossible or not stored)"
                      + (", or the action is not legal there" if grid.probability else ""),
                      fontsize=8, color="0.35")
    return _save(fig, output)


def plot_strategy(bars: Bars, output: str | Path) -> Path:
    """Draw both players' mixed strategies at one position as side-by-side bars.

    Every legal action gets a slot; one played with probability 0 is marked ``0``, and a
    player for whom an action is not legal has no bar there.
    """
    return _save(strategy_figure(bars), output)


#: Inches a character of a tick label takes (10 pt), and the inches of the figure's
#: width that are not the axes' (the y label and margins).
_CHAR_INCHES, _MARGIN_INCHES = 0.085, 1.3


def strategy_figure(bars: Bars) -> Any:
    """The figure ``plot_strategy`` saves. Tick labels wider than their slot (Nim's
    "take 2 from heap 3", Hackenbush's "edge 4 (2-3)") stand upright."""
    plt = _pyplot()
    width = max(6.0, 0.42 * len(bars.actions) + 2.5)
    fig, ax = plt.subplots(figsize=(width, 4.5), layout="constrained")
    at = np.arange(len(bars.actions))
    for offset, player, colour in ((-0.2, 1, "tab:blue"), (0.2, 2, "tab:orange")):
        probs = np.array(bars.probs[player])
        legal = ~np.isnan(probs)
        ax.bar(at[legal] + offset, probs[legal], 0.4, color=colour, label=f"player {player}")
        for where in at[legal & (probs == 0.0)]:
            ax.text(where + offset, 0.01, "0", ha="center", va="bottom", fontsize=7, color=colour)
    labels = list(bars.labels) or [str(a) for a in bars.actions]
    slot = (width - _MARGIN_INCHES) / len(labels)
    wide = max(map(len, labels)) * _CHAR_INCHES > 0.9 * slot
    ax.set_xticks(at, labels, rotation=90 if wide or len(labels) > 16 else 0)
    ax.set_xlim(-0.6, len(bars.actions) - 0.4)
    ax.set_ylim(0, 1.04)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_xlabel(bars.noun)
    ax.set_ylabel("probability")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2, frameon=False)
    value = round(bars.value, 4) + 0.0  # rounding noise is no "-0.0000"
    _title(fig, f"{bars.spec}\n{bars.position}\nvalue for player 1: {value:+.4f}",
           int(width * 11))
    illegal = any(math.isnan(p) for probs in bars.probs.values() for p in probs)
    fig.supxlabel(f"every legal {bars.noun} has a slot; 0: legal, never played"
                  + ("; no bar, no 0: not legal for that player" if illegal else ""),
                  fontsize=8, color="0.35")
    return fig


def _title(fig: Any, text: str, chars: int) -> None:
    """Set a title whose long lines wrap (at spaces and commas) inside the picture."""
    lines = [part for line in text.splitlines() for part in _wrap(line, chars)]
    fig.suptitle("\n".join(lines), fontsize=9)


def _wrap(line: str, chars: int) -> list[str]:
    """Split ``line`` at spaces into pieces of at most ``chars``; a longer word (a spec)
    is split after its commas.

    >>> _wrap("goofspiel(num_cards=5,ties=discard) hand1=1,2,3", 24)
    ['goofspiel(num_cards=5,', 'ties=discard)', 'hand1=1,2,3']
    """
    tokens = [(" " if i == 0 else "", part) for word in line.split()
              for i, part in enumerate(re.findall(r"[^,]+,?", word) if len(word) > chars else [word])]
    pieces, current = [], ""
    for gap, token in tokens:
        if current and len(current) + len(gap) + len(token) > chars:
            pieces.append(current)
            current = token
        else:
            current += (gap if current else "") + token
    return [*pieces, current]


def _pyplot() -> Any:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _save(fig: Any, output: str | Path) -> Path:
    """Write the picture whole or not at all: rendered in memory, then a temporary file
    beside the target is renamed over it (an existing file is never left half written)."""
    path = check_output(output)
    buffer = BytesIO()
    try:
        fig.savefig(buffer, format=path.suffix[1:].lower(), dpi=120)
    finally:
        _pyplot().close(fig)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(buffer.getvalue())
        os.replace(temporary, path)
    except OSError as exc:
        with suppress(OSError):
            temporary.unlink()
        raise PlotError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


__all__ = ["Axis", "Bars", "FORMATS", "MAX_AXIS", "Grid", "PlotError", "check_output", "plot_heatmap",
           "plot_strategy", "slice_grid", "strategy_bars"]
