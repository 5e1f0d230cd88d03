"""A newcomer's first hour: the README's commands, the default build path, the LICENSE,
shell completion, and the progress and JSON of the long play commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gamedb.cli import cli
from gamedb.cli.solve import default_db_path

ROOT = Path(__file__).resolve().parents[1]
#: What the ``gamedb`` script runs: click names the program after it (``_GAMEDB_COMPLETE``).
GAMEDB = [sys.executable, "-c", "from gamedb.cli import cli; cli(prog_name='gamedb')"]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("spec", ["jujitsu(num_cards=8,ties=carry)",
                                  "oshi_zumo(alesia=false,coins=50,min_bid=1,size=3)"])
def test_the_default_build_path_is_one_file_name_in_the_current_directory(spec: str) -> None:
    path = default_db_path(spec)
    assert path.parent == Path(".") and path.suffix == ".sqlite" and "data" not in path.parts


def test_a_default_build_writes_into_the_current_directory_not_data(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "data").mkdir()
    monkeypatch.chdir(tmp_path)
    code, out, err = run("build", "jujitsu(num_cards=4)", "--quiet")
    assert code == 0, err
    assert (tmp_path / "jujitsu_num_cards=4_ties=carry.sqlite").is_file()
    assert list((tmp_path / "data").iterdir()) == [] and "jujitsu_num_cards=4" in out


def test_build_help_names_the_default_file() -> None:
    code, out, _ = run("build", "--help")
    assert code == 0 and "current directory" in out and "jujitsu_num_cards=8_ties=carry.sqlite" in out


def test_gitignore_ignores_top_level_build_outputs_but_not_shipped_files() -> None:
    lines = (ROOT / ".gitignore").read_text().splitlines()
    assert "/*.sqlite" in lines and "!data/*.shipped.sqlite" in lines


def test_the_license_is_the_mit_license_pyproject_declares() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Copyright (c) 2026 gamedb developers" in text
    assert 'license = { text = "MIT" }' in (ROOT / "pyproject.toml").read_text()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_shell_completion_produces_a_script_and_the_readme_shows_it(shell: str) -> None:
    env = {**os.environ, "_GAMEDB_COMPLETE": f"{shell}_source"}
    done = subprocess.run(GAMEDB, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "_GAMEDB_COMPLETE" in done.stdout, done.stderr
    assert f"_GAMEDB_COMPLETE={shell}_source gamedb" in (ROOT / "README.md").read_text()


def test_bash_completion_completes_command_names() -> None:
    env = {**os.environ, "_GAMEDB_COMPLETE": "bash_complete", "COMP_WORDS": "gamedb tour",
           "COMP_CWORD": "1"}
    done = subprocess.run(GAMEDB, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.stdout.split() == ["plain,tournament"]
