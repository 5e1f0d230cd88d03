"""``gamedb build --estimate`` and the refusal of builds that cannot fit in memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gamedb.builder import build
from gamedb.cli import cli
from gamedb.builder.estimate import (WontFit, available_memory, count_positions, estimate,
                                     positions_of)
from gamedb.games import load_game
from gamedb.solver.backward import enumerate_layers


def _real(spec: str) -> int:
    return sum(map(len, enumerate_layers(load_game(spec)).values()))


@pytest.mark.parametrize("spec", [
    "goofspiel(num_cards=6)", "goofspiel(num_cards=7)",
    "goofspiel(num_cards=7,returns_type=point_difference)",
    "goofspiel(num_cards=8,returns_type=point_difference)",
    "jujitsu(num_cards=10)", "jujitsu(num_cards=12)", "oshi_zumo(coins=50)",
    "oshi_zumo(coins=80,size=2)", "goofspiel(dummy=true,num_cards=5)",
    "goofspiel(num_cards=9,rounds=4)"])  # sizes below rounds=4 are skipped
def test_extrapolated_positions_are_within_a_factor_of_two_of_the_real_count(spec: str) -> None:
    real = _real(spec)
    guess, exact = count_positions(load_game(spec), budget=real // 5)  # forced to extrapolate
    assert not exact and 0.5 <= guess / real <= 2.0, (guess, real)


def test_small_games_are_counted_exactly() -> None:
    for spec in ("jujitsu(num_cards=8)", "nim", "tictoe", "goofspiel(num_cards=5)"):
        assert count_positions(load_game(spec)) == (_real(spec), True)


def test_thirteen_card_goofspiel_is_tens_of_billions_of_positions_and_estimated_fast() -> None:
    """Counted by the win/loss face's forward pass (recorded: 334 s of CPU); two layers'
    summaries (7 and 8: 3.95e9 chance values) do not fit this machine."""
    import time
    start = time.perf_counter()
    guess = estimate(load_game("goofspiel(num_cards=13)"))
    assert time.perf_counter() - start < 30
    assert guess.exact and guess.positions == 37_216_350_858
    assert 30 * 2**30 < guess.memory_bytes < 40 * 2**30


def test_a_game_with_an_index_is_counted_by_it_exactly_at_any_size() -> None:
    """``match`` and ``solve`` size their refusals with this (once an extrapolation: 1.1e9
    for 11-card win/loss, 7.7e10 for 13)."""
    assert positions_of(load_game("goofspiel(num_cards=6)")) == (_real("goofspiel(num_cards=6)"), True)
    assert positions_of(load_game("goofspiel(num_cards=11)")) == (729_406_347, True)
    assert positions_of(load_game("jujitsu(num_cards=8)")) == (2686, True)  # counted, no index


def test_estimate_prints_a_table_or_json_and_builds_nothing(tmp_path: Path) -> None:
    db = tmp_path / "g13.sqlite"
    result = CliRunner().invoke(cli, ["build", "goofspiel(num_cards=13)", "--estimate",
                                      "--db", str(db)])
    assert result.exit_code == 0, result.output
    for row in ("positions", "peak memory", "disk", "time", "memory available"):
        assert row in result.output
    result = CliRunner().invoke(cli, ["build", "jujitsu(num_cards=8)", "--estimate", "--json"])
    data = json.loads(result.output)
    assert data["positions"] == 2686 and data["exact"] is True and data["memory_bytes"] > 0
    assert not db.exists()


def test_a_build_that_cannot_fit_is_refused_up_front_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gamedb.builder.estimate as estimate_module
    db = tmp_path / "j8.sqlite"
    monkeypatch.setattr(estimate_module, "available_memory", lambda: 2**20)  # a 1 MiB machine
    result = CliRunner().invoke(cli, ["build", "jujitsu(num_cards=8)", "--db", str(db),
                                      "--quiet"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs about" in lines[0] and "1.0 MiB available" in lines[0]
    assert "2,686 positions" in lines[0] and "--force" in lines[0]
    assert not db.exists()
    forced = CliRunner().invoke(cli, ["build", "jujitsu(num_cards=8)", "--db", str(db),
                                      "--quiet", "--force"])
    assert forced.exit_code == 0 and "complete" in forced.output


def test_the_library_refuses_too_big_a_resume_and_never_a_finished_file(tmp_path: Path) -> None:
    db = tmp_path / "j6.sqlite"
    with pytest.raises(WontFit):
        build("jujitsu(num_cards=6)", db, max_memory=2**20)
    assert not db.exists()
    build("jujitsu(num_cards=6)", db)
    assert build("jujitsu(num_cards=6)", db, max_memory=2**20).status == "complete"


def test_available_memory_reads_meminfo(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24000000 kB\nMemAvailable:   1000 kB\n")
    assert available_memory(meminfo) == 1000 * 1024
    assert available_memory(tmp_path / "missing") is None


def test_point_difference_goofspiel_is_estimated_for_the_indexed_builder() -> None:
    """A build through an index holds two layers' chance values, not the
    game: 11 cards in rows measured 1.3 GiB for the tree (summed RSS), 1.38 GB of file,
    190 s (loaded machine); with its layers 1-10 as pages (the default) the file is the
    7 B a value of docs/format.md; 13 cards is counted exactly (the design's
    1,338,932,608)."""
    game = load_game("goofspiel(num_cards=11,returns_type=point_difference)")
    rows, eleven = estimate(game, pages_below=0, page_min=0), estimate(game)
    assert eleven.exact and eleven.positions == rows.positions == 39_982_899
    assert rows.memory_bytes < 2 * 2**30 and 1.0e9 < rows.disk_bytes < 2.0e9
    assert 60 < rows.seconds < 600
    assert 0.2e9 < eleven.disk_bytes < rows.disk_bytes / 3 and eleven.seconds < rows.seconds
    game = load_game("goofspiel(num_cards=13,returns_type=point_difference)")
    split, every = estimate(game, workers=2), estimate(game, workers=2, strategies_from=1)
    rows = estimate(game, workers=2, strategies_from=1, page_min=0)
    assert split.exact and split.positions == 1_338_932_608
    assert split.memory_bytes < 4 * 2**30  # fits this machine: not refused
    assert split.disk_bytes < 10e9  # layers 1-10 as pages
    assert rows.disk_bytes > 20 * split.disk_bytes  # strategies in rows would not fit
    assert 3 * split.disk_bytes < every.disk_bytes < rows.disk_bytes / 4  # keyed pages

def test_win_loss_goofspiel_up_to_ten_cards_is_estimated_for_the_indexed_builder() -> None:
    """Exact counts from the face's forward pass (9 cards: the 13,213,789 positions of a
    generic build); the strategy texts are shorter than point difference's (8 cards:
    182 MB of file with strategies, 46 MB values only); 13 cards stays extrapolated."""
    eight = estimate(load_game("goofspiel(num_cards=8)"), page_min=0)
    assert eight.exact and eight.positions == 1_711_712
    assert 120e6 < eight.disk_bytes < 260e6 and eight.memory_bytes < 2**30
    lean = estimate(load_game("goofspiel(num_cards=8)"), values_only=True, page_min=0)
    assert lean.positions == eight.positions and 30e6 < lean.disk_bytes < 90e6
    paged = estimate(load_game("goofspiel(num_cards=8)"))  # keyed pages: 29.2 MB measured
    assert 20e6 < paged.disk_bytes < 60e6
    ten = estimate(load_game("goofspiel(num_cards=10)"))  # 2.54 GB measured
    assert 2.0e9 < ten.disk_bytes < 3.5e9


def test_win_loss_goofspiel_of_eleven_and_twelve_cards_is_counted_exactly_at_once() -> None:
    """The face's recorded counts (``winloss.COUNTED``, the forward pass's: 10 s and 53 s
    of CPU): no pass runs for ``--estimate``. Memory: two layers' summaries (8 B per
    reachable chance node: layers 6 and 7, 0.75 GB and 4.7 GB) and the face's tables."""
    import time
    start = time.perf_counter()
    eleven = estimate(load_game("goofspiel(num_cards=11)"), workers=2)
    twelve = estimate(load_game("goofspiel(num_cards=12)"), workers=2)
    assert time.perf_counter() - start < 10
    assert eleven.exact and eleven.positions == 729_406_347
    assert twelve.exact and twelve.positions == 5_233_360_966
    assert 1.0 * 2**30 < eleven.memory_bytes < 2.5 * 2**30
    assert 5 * 2**30 < twelve.memory_bytes < 8 * 2**30  # fits this machine's 24 GiB


def test_estimate_says_whether_the_build_would_be_refused_here(monkeypatch: pytest.MonkeyPatch) -> None:
    import gamedb.builder.estimate as module
    monkeypatch.setattr(module, "available_memory", lambda: 2 * 2**30)
    result = CliRunner().invoke(cli, ["build", "goofspiel(num_cards=13)", "--estimate"])
    assert result.exit_code == 0 and "refused here" in result.output and "--force" in result.output
    monkeypatch.setattr(module, "available_memory", lambda: 64 * 2**40)
    result = CliRunner().invoke(cli, ["build", "jujitsu(num_cards=8)", "--estimate"])
    assert result.exit_code == 0 and "fits" in result.output and "refused" not in result.output


def test_the_estimates_in_the_readme_and_docs_are_what_the_tool_prints() -> None:
    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text()
    line = next(x for x in readme.splitlines() if "--estimate" in x and x.startswith("gamedb build"))
    assert "point_difference" in line  # the headline's game, not win/loss (50 TiB, refused)
    doc = (root / "docs" / "estimate.md").read_text()
    block = doc.split("$ gamedb build ", 1)[1].split("```", 1)[0]
    spec = block.split('"')[1]
    result = CliRunner().invoke(cli, ["build", spec, "--estimate"])
    printed = {x.split(None, 1)[0]: x for x in result.output.splitlines()[:5]}
    for shown in block.splitlines()[1:6]:  # spec, positions, memory, disk, time
        assert shown.strip() == printed[shown.split(None, 1)[0]].strip(), (shown, result.output)


def test_a_local_cluster_is_estimated_with_its_worker_processes_on_this_machine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--estimate --cluster local:64`` said 200 MiB (as for two workers) where 64 Dask
    worker processes need over 3 GiB; the build's own check counted 64."""
    import json

    from click.testing import CliRunner

    from gamedb.cli import cli

    def guess(*options: str) -> dict[str, int]:
        result = CliRunner().invoke(cli, ["build", "jujitsu(num_cards=8)", "--estimate",
                                          "--json", *options])
        assert result.exit_code == 0, result.output
        return dict(json.loads(result.stdout))

    two, many = guess("--cluster", "local:2"), guess("--cluster", "local:64")
    assert (two["processes"], many["processes"]) == (2, 64)
    assert many["memory_bytes"] > two["memory_bytes"] + 62 * 100 * 2**20
    assert guess("--workers", "64")["memory_bytes"] == many["memory_bytes"]
    table = CliRunner().invoke(cli, ["build", "jujitsu(num_cards=8)", "--estimate",
                                     "--cluster", "local:64"]).stdout
    assert "64 on this machine" in table
    monkeypatch.setattr("gamedb.builder.estimate.available_memory", lambda *a: 8 * 2**30)
    path = tmp_path / "j8.sqlite"
    refused = CliRunner().invoke(cli, ["build", "jujitsu(num_cards=8)", "--db", str(path),
                                       "--cluster", "local:64", "--quiet"])
    assert refused.exit_code == 1 and "this machine has 8.0 GiB" in refused.stderr
    assert "64 workers" in refused.stderr and "fewer" in refused.stderr
    assert not path.exists()
