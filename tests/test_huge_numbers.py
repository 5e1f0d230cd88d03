"""Numbers typed by a user with 100,000 digits: refused politely, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from gamedb.cli import cli

HUGE = "9" * 100_000


def test_play_rejects_a_huge_move_and_asks_again(built) -> None:  # type: ignore[no-untyped-def]
    db = str(built("jujitsu(num_cards=3)"))
    result = CliRunner().invoke(cli, ["play", db, "--seed", "1"],
                                input=f"{HUGE}\n3\n2\n1\n")
    assert result.exit_code == 0 and "Traceback" not in result.output
    assert "Game over" in result.stdout
    refusal = [line for line in result.stdout.splitlines() if "is not legal here" in line]
    assert len(refusal) == 1 and len(refusal[0]) < 200, refusal


@pytest.mark.parametrize("args", [
    ["build", f"jujitsu(num_cards={HUGE})", "--quiet"],
    ["build", f"nim(heaps=1-{HUGE})", "--quiet"],
    ["key", "jujitsu(num_cards=4)", f"hand1=1,{HUGE} hand2=1,2 pot=0 diff=0"],
    ["key", "jujitsu(num_cards=4)", f"hand1=1,2 hand2=1,2 pot={HUGE} diff=0"],
    ["key", "nim(heaps=1-2)", f"heaps=1,{HUGE}"],
    ["key", "tictoe", f"board={HUGE}"],
    ["key", "oshi_zumo(coins=4)", f"coins1={HUGE} coins2=1 pos=0"],
    ["key", "goofspiel(num_cards=3)", f"hand1=1,2 hand2=1,2 prizes=1,2 prize={HUGE}"],
    ["tournament", "goofspiel(num_cards=3)", "--agents", f"random,level-{HUGE}"],
    ["tournament", "oshi_zumo(coins=4)", "--agents", f"random,bid-range-1-{HUGE}"],
    ["plot", "heatmap", "{oz}", "--x", f"coins1=0:{HUGE}", "--y", "coins2", "-o", "x.png"],
    ["plot", "heatmap", "{oz}", "--x", "coins1", "--y", "coins2", "--fixed", "pos=0",
     "--what", f"prob:{HUGE}", "-o", "x.png"],
])
def test_a_huge_number_anywhere_is_one_short_line(tmp_path: Path, args: list[str]) -> None:
    if args[0] == "build":
        args += ["--db", str(tmp_path / "x.sqlite")]
    oz = Path(__file__).parents[1] / "data" / "oshi_zumo_alesia=false_coins=50_min_bid=1_size=3.shipped.sqlite"
    args = [a.replace("{oz}", str(oz)).replace("x.png", str(tmp_path / "x.png")) for a in args]
    result = CliRunner().invoke(cli, args)
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output[-300:]
    assert len(lines) == 1 and len(lines[0]) < 300, lines[0][:300]
    assert not (tmp_path / "x.sqlite").exists() and not (tmp_path / "x.png").exists()


def test_a_huge_option_number_is_a_usage_error(built) -> None:  # type: ignore[no-untyped-def]
    result = CliRunner().invoke(cli, ["play", str(built("jujitsu(num_cards=3)")), "--seed", HUGE])
    assert result.exit_code == 2 and "Traceback" not in result.output  # click's usage error
    result = CliRunner().invoke(cli, ["tournament", "jujitsu(num_cards=3)", "--agents",
                                      "random,highest", "--games", HUGE])
    error = result.stderr.strip().splitlines()[-1]
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert error.startswith("Error: Invalid value for '--games'") and len(error) < 300
