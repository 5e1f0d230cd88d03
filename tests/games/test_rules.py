"""Every game explains itself: rules in words, every position field, working examples."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gamedb.cli import cli
from gamedb.games import GAMES, GameError, load_game


def _accepted_fields(game: Any) -> list[str]:
    """Ask parse_position which fields it accepts (its error for an unknown one lists them)."""
    start = game.format_position(game.initial()[0][1])
    with pytest.raises(GameError, match="unknown field") as error:
        game.parse_position(f"{start} unknown_field=1")
    return str(error.value).rpartition("expected ")[2].split(", ")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_rules_explain_every_field_the_position_accepts(name: str) -> None:
    rules, fields = GAMES[name].rules, _accepted_fields(load_game(name))
    assert fields and "unknown_field" not in fields
    for field in fields:  # each field starts a line of the position section
        assert re.search(rf"^ +{field} +\S", rules, re.MULTILINE), (name, field)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_rules_examples_are_commands_that_work(name: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    commands = [shlex.split(line)[1:] for line in GAMES[name].rules.splitlines()
                if line.strip().startswith("gamedb ")]
    assert [c[0] for c in commands][:2] == ["build", "show"], name
    assert load_game(commands[0][1]).name == name
    for args in commands:
        result = CliRunner().invoke(cli, [*args, "--quiet"] if args[0] == "build" else args)
        assert result.exit_code == 0, (args, result.output)
        assert "position not in" not in result.output


@pytest.mark.parametrize("name", sorted(GAMES))
def test_action_names_are_distinct_strings(name: str) -> None:
    game = load_game(name)
    state = game.initial()[0][1]
    for player, actions in zip((1, 2), game.actions(state)):
        names = [game.action_name(state, player, a) for a in actions]
        assert all(names) and len(set(names)) == len(names), (name, names)


def test_rules_command_prints_the_rules_and_the_parameters() -> None:
    result = CliRunner().invoke(cli, ["rules", "jujitsu"])
    assert result.exit_code == 0 and result.stdout.startswith(GAMES["jujitsu"].rules.strip())
    assert "num_cards" in result.stdout and "1..16" in result.stdout
    assert CliRunner().invoke(cli, ["rules", "jujitsu(num_cards=6)"]).stdout == result.stdout


def test_rules_of_an_unknown_family_is_one_line_listing_the_known_ones() -> None:
    result = CliRunner().invoke(cli, ["rules", "chess"])
    assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1
    assert "unknown game 'chess'" in result.stderr and all(n in result.stderr for n in GAMES)


def test_games_points_to_the_rules() -> None:
    out = CliRunner().invoke(cli, ["games"]).stdout
    assert out.rstrip().splitlines()[-1] == "gamedb rules FAMILY explains a game's rules and positions."


def test_rules_help_has_an_example() -> None:
    result = CliRunner().invoke(cli, ["rules", "-h"])
    assert result.exit_code == 0 and "Example:" in result.stdout and "gamedb rules jujitsu" in result.stdout
