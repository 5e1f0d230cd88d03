"""The plot commands: every bad slice or output is one line, exit 1, and no file is touched;
the strategy plot lists every legal action, probability 0 included."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from gamedb.builder import build
from gamedb.cli import cli
from gamedb.play.plot import strategy_bars
from gamedb.store import open_db

OZ = "oshi_zumo(coins=12,size=2,min_bid=1)"
OLD = b"an existing picture, not to be touched"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def _refused(code: int, err: str, *words: str) -> bool:
    lines = err.strip().splitlines()
    return (code == 1 and len(lines) == 1 and lines[0].startswith("Error: ")
            and "Traceback" not in err and all(w in err for w in words))


@pytest.fixture
def old_picture(tmp_path: Path) -> Path:
    path = tmp_path / "old.png"
    path.write_bytes(OLD)
    return path


@pytest.mark.parametrize(("axes", "words"), [
    (["--x", "coinz", "--y", "coins2", "--fixed", "pos=0"], ["coinz", "unknown field"]),
    (["--x", "coins1", "--y", "coins2", "--fixed", "pso=0"], ["pso", "unknown field"]),
    (["--x", "coins1", "--y", "coins2"], ["missing pos"]),
    (["--x", "coins1", "--y", "coins2", "--fixed", "pos"], ["malformed field 'pos'"]),
    (["--x", "coins1", "--y", "coins1", "--fixed", "pos=0"], ["coins1", "given twice"]),
    (["--x", "coins1", "--y", "coins2", "--fixed", "pos=0", "--what", "prob:99"],
     ["99 is not a legal bid"]),
    (["--x", "coins1", "--y", "coins2", "--fixed", "pos=9"], ["pos=9 is outside"]),
    (["--x", "coins1=5:3", "--y", "coins2", "--fixed", "pos=0"], ["coins1=5:3", "LOW <= HIGH"]),
    (["--x", "coins1=a:b", "--y", "coins2", "--fixed", "pos=0"], ["coins1=a:b"]),
    (["--x", "coins1=0:" + "9" * 40, "--y", "coins2", "--fixed", "pos=0"], ["at most 1000"]),
])
def test_a_heatmap_slice_that_draws_nothing_is_an_error_and_leaves_the_file_alone(
        built, old_picture: Path, axes: list[str], words: list[str]) -> None:  # type: ignore[no-untyped-def]
    fresh = old_picture.with_name("new.png")
    for output in (old_picture, fresh):
        code, _, err = run("plot", "heatmap", str(built(OZ)), *axes, "-o", str(output))
        assert _refused(code, err, *words), err
    assert old_picture.read_bytes() == OLD and not fresh.exists()
    assert sorted(p.name for p in old_picture.parent.iterdir()) == ["old.png"]


def test_a_jujitsu_heatmap_missing_a_hand_names_it(built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run("plot", "heatmap", str(built("jujitsu(num_cards=6)")), "--x", "pot=0:2",
                       "--y", "diff=-2:2", "--fixed", "hand1=1,2", "-o", str(tmp_path / "j.png"))
    assert _refused(code, err, "missing hand2") and not (tmp_path / "j.png").exists()


@pytest.mark.parametrize(("axes", "want_x", "want_y"), [
    (["--x", "coins1", "--y", "coins2", "--fixed", "pos=0"], range(0, 13), range(0, 13)),
    (["--x", "coins1", "--y", "pos", "--fixed", "coins2=6"], range(0, 13), range(-3, 4)),
])
def test_a_heatmap_axis_without_a_range_runs_over_the_games_declared_range(
        built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, axes: list[str],
        want_x: range, want_y: range) -> None:  # type: ignore[no-untyped-def]
    import gamedb.play.plot as plot

    seen, real = [], plot.slice_grid
    monkeypatch.setattr(plot, "slice_grid", lambda db, x, y, *rest: seen.append((x, y))
                        or real(db, x, y, *rest))
    code, _, err = run("plot", "heatmap", str(built(OZ)), *axes, "-o", str(tmp_path / "h.png"))
    assert code == 0, err
    with open_db(built(OZ)) as db:
        ranges = db.game.capabilities.axes
    (x, y), = seen
    assert x.values == tuple(want_x) == tuple(range(ranges["coins1"][0], ranges["coins1"][1] + 1))
    assert y.values == tuple(want_y) == tuple(range(ranges[y.field][0], ranges[y.field][1] + 1))


def test_a_heatmap_axis_without_a_range_or_a_declared_one_is_refused(built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run("plot", "heatmap", str(built("jujitsu(num_cards=6)")), "--x", "hand1",
                       "--y", "pot", "-o", str(tmp_path / "j.png"))
    assert _refused(code, err, "hand1", "no default range", "pot, diff", "FIELD=LOW:HIGH")


@pytest.mark.parametrize("command", [
    ["strategy", "start"],
    ["heatmap", "--x", "coins1", "--y", "coins2", "--fixed", "pos=0"],
])
@pytest.mark.parametrize(("output", "words"), [
    ("pic.jpg", ["must end in .png or .svg", "pic.jpg"]),
    ("pic", ["must end in .png or .svg"]),
    ("missing/pic.png", ["does not exist"]),
    ("folder.png", ["is a folder"]),
    ("/proc/pic.png", ["cannot write /proc/pic.png"]),
])
def test_a_bad_output_path_is_one_line_and_writes_nothing(
        built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str],
        output: str, words: list[str]) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder.png").mkdir()
    code, _, err = run("plot", command[0], str(built(OZ)), *command[1:], "-o", output)
    assert _refused(code, err, *words), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder.png"]


@pytest.mark.parametrize(("position", "words"), [
    ("coins1=12 coins2=12 pos=2", ["position not in"]),
    ("coins1=0 coins2=0 pos=0", ["no moves at", "the game is over"]),
    ("coins1=3 coins2=4", ["missing pos"]),
])
def test_a_strategy_plot_of_a_position_without_moves_is_an_error(
        built, old_picture: Path, position: str, words: list[str]) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run("plot", "strategy", str(built(OZ)), position, "-o", str(old_picture))
    assert _refused(code, err, *words), err
    assert old_picture.read_bytes() == OLD


def test_a_picture_replaces_an_existing_file_whole_and_leaves_no_temporary(
        built, old_picture: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run("plot", "strategy", str(built(OZ)), "start", "-o", str(old_picture))
    assert code == 0 and out.strip() == f"wrote {old_picture}", err
    assert old_picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in old_picture.parent.iterdir()] == ["old.png"]


def test_the_strategy_plot_lists_every_legal_card_even_one_never_played(built) -> None:  # type: ignore[no-untyped-def]
    with open_db(built("jujitsu(num_cards=6)")) as db:
        bars = strategy_bars(db, "start")
    assert bars.actions == (1, 2, 3, 4, 5, 6)
    assert bars.probs[1][5] == 0.0 == bars.probs[2][5]  # never lead the highest card
    assert sum(bars.probs[1]) == pytest.approx(1.0)


def test_an_action_one_player_cannot_make_is_marked_not_legal(built) -> None:  # type: ignore[no-untyped-def]
    with open_db(built(OZ)) as db:
        bars = strategy_bars(db, "coins1=7 coins2=3 pos=0")
    assert bars.actions == tuple(range(1, 8))
    assert [math.isnan(p) for p in bars.probs[2]] == [False] * 3 + [True] * 4
    assert not any(math.isnan(p) for p in bars.probs[1])


def test_strategy_bars_name_the_pass_of_a_turn_based_game(tmp_path: Path) -> None:
    """Tic-Toe: X's cell 0 (top left) and O's pass share the action number 0; the tick
    says both."""
    path = tmp_path / "t.sqlite"
    build("tictoe", path)
    with open_db(path) as db:
        bars = strategy_bars(db, "start")
    assert bars.labels[bars.actions.index(0)] == "top left / pass"
    assert bars.labels[1:] == ("top right", "bottom left", "bottom right")


@pytest.mark.parametrize("spec", ["nim(heaps=3-4-5)", "hackenbush", "goofspiel(num_cards=13)",
                                  "jujitsu(num_cards=8)"])
def test_no_two_tick_labels_of_a_strategy_plot_overlap(tmp_path: Path, spec: str) -> None:
    """Nim's 13 labels ("take 1 from heap 1", ...) and Hackenbush's ("edge 1 (0-1)")
    were printed level, on top of one another."""
    from gamedb.games import load_game
    from gamedb.play.plot import _pyplot, strategy_figure

    game = load_game(spec)
    if spec.startswith(("goofspiel(num_cards=13", "jujitsu")):  # no file: the bars alone
        from gamedb.play.plot import Bars

        count = 13 if spec.startswith("goofspiel") else 8
        bars = Bars(spec, "start", 0.0, "card", tuple(range(1, count + 1)),
                    {p: (1 / count,) * count for p in (1, 2)})
    else:
        path = tmp_path / "g.sqlite"
        build(game.spec, path)
        with open_db(path) as db:
            bars = strategy_bars(db, "start")
    fig = strategy_figure(bars)
    try:
        fig.canvas.draw()
        boxes = [label.get_window_extent() for label in fig.axes[0].get_xticklabels()
                 if label.get_text()]
    finally:
        _pyplot().close(fig)
    assert len(boxes) == len(bars.actions) >= 8
    overlaps = [(a, b) for a, b in zip(boxes, boxes[1:]) if a.x1 > b.x0 + 0.5]
    assert overlaps == []


def test_a_strategy_plot_of_a_value_of_rounding_noise_says_plus_zero() -> None:
    """6-card win/loss Goofspiel's first stage drew "value for player 1: -0.0000"."""
    from gamedb.play.plot import Bars, _pyplot, strategy_figure

    fig = strategy_figure(Bars("goofspiel(num_cards=2)", "start", -1e-17, "card", (1, 2),
                               {p: (0.5, 0.5) for p in (1, 2)}))
    try:
        title = fig.get_suptitle()
    finally:
        _pyplot().close(fig)
    assert title.endswith("value for player 1: +0.0000")


def test_an_axis_of_a_game_without_default_ranges_says_so_in_words() -> None:
    """Nim has no field with a default range: it said "(fields with one: none)"."""
    from gamedb.play.plot import Axis, PlotError

    with pytest.raises(PlotError) as refused:
        Axis.parse("heaps", {})
    assert str(refused.value) == ("axis 'heaps': unknown field or no default range (no field "
                                  "of this game has one); give FIELD=LOW:HIGH")


@pytest.mark.parametrize("probability", [False, True])
def test_a_cell_without_a_position_stands_out_from_every_colour_of_the_map(
        probability: bool) -> None:
    """A value of 0 (RdBu's near-white middle) and "no such position" (light grey 0.85)
    were hard to tell apart."""
    import matplotlib

    from gamedb.play.plot import MISSING, heatmap_colours

    def lightness(rgb: tuple[float, ...]) -> float:
        return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]

    cmap = matplotlib.colormaps[heatmap_colours(probability)]
    missing = matplotlib.colors.to_rgb(MISSING)
    nearest = min(max(abs(a - b) for a, b in zip(cmap(x / 50)[:3], missing))
                  for x in range(51))
    assert nearest > 0.15  # no colour of the map is within 0.15 in any channel
    if not probability:
        assert lightness(cmap(0.5)[:3]) - lightness(missing) > 0.3  # 0 is white, missing is not


@pytest.mark.parametrize("text", ["coins1=0:1_0", "coins1=0:\uff11"])
def test_an_axis_range_is_read_as_positions_are(text: str) -> None:
    """``int`` read ``1_0`` as 10 and a full-width digit as 1; a position refuses both."""
    from gamedb.play.plot import Axis, PlotError

    with pytest.raises(PlotError, match="expected FIELD or FIELD=LOW:HIGH"):
        Axis.parse(text, {"coins1": (0, 20)})
