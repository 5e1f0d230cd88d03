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


# -- the first build says it compiles, and its rate and ETA start after that ------------

def test_needs_compiling_sees_numbas_disk_cache(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from gamedb.jit import needs_compiling

    (tmp_path / "fresh_jit.py").write_text(
        "from gamedb.jit import njit\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert needs_compiling("fresh_jit")
    assert sys.modules["fresh_jit"].twice(21) == 42  # compiles and writes the cache
    assert not needs_compiling("fresh_jit")


class _Events(list[str]):
    """An observer that lists the stages, and "chunk" for each count (``counts``)."""

    def __init__(self, counts: bool = True):
        super().__init__()
        self._counts = counts

    def __call__(self, done: int, total: int | None) -> None:
        if self._counts:
            self.append("chunk")

    def stage(self, text: str) -> None:
        self.append(text)

    def eta(self, seconds: float) -> None:
        pass


def test_a_build_that_compiles_says_so_until_its_first_chunk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gamedb.builder as build_module

    monkeypatch.setattr(build_module, "needs_compiling", lambda *modules: True)
    events = _Events()
    build_module.build("jujitsu(num_cards=4)", tmp_path / "j4.sqlite", observer=events)
    compiling = build_module.COMPILING
    assert events[:3] == ["enumerating positions" + compiling, "solving" + compiling, "solving"]
    assert events[3] == "chunk" and events[-1] == "finalising"


def test_a_cached_build_does_not_claim_to_compile(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import gamedb.builder as build_module

    monkeypatch.setattr(build_module, "needs_compiling", lambda *modules: False)
    events = _Events(counts=False)
    build_module.build("jujitsu(num_cards=4)", tmp_path / "j4.sqlite", observer=events)
    assert events == ["enumerating positions", "solving", "finalising"]


def test_the_build_bar_starts_its_clock_at_the_first_chunk() -> None:
    import time

    from gamedb.cli._common import progress_bar

    with progress_bar(False, "states", warm_up=True) as bar:
        assert bar is not None
        time.sleep(0.5)  # the first chunk, compiling
        bar(36, 2686)
        shown = bar._bar.format_dict
        assert shown["elapsed"] < 0.25 and shown["n"] == 36 and shown["total"] == 2686
        bar(100, 2686)
        assert bar._bar.n == 100


# -- match and tournament: progress on stderr, --quiet, --json, the database ------------

@pytest.fixture(scope="module")
def j5(tmp_path_factory: pytest.TempPathFactory) -> str:
    from gamedb.builder import build

    path = tmp_path_factory.mktemp("j5") / "j5.sqlite"
    build("jujitsu(num_cards=5)", path)
    return str(path)


def test_evaluate_reports_positions_and_simulate_reports_games(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from gamedb.games import load_game
    from gamedb.play import evaluate as module
    from gamedb.play.agents import Highest, Uniform
    from gamedb.play.simulate import simulate

    monkeypatch.setattr(module, "REPORT_EVERY", 100)
    game, seen = load_game("jujitsu(num_cards=6)"), []
    module.evaluate(game, Highest(), Uniform(), on_progress=lambda d, t: seen.append((d, t)))
    assert seen[:2] == [(100, None), (200, None)] and seen[-1][0] == seen[-1][1] > 200
    played: list[tuple[int, int]] = []
    simulate(game, Highest(), Uniform(), 5, seed=1, on_progress=lambda d, t: played.append((d, t)))
    # games advance in step: the share of the way done (by layer), in games, each once
    done = [d for d, t in played if t == 5]
    assert len(done) == len(played) > 2 and done == sorted(set(done)) and done[-1] == 5


@pytest.mark.parametrize("simulate, expected", [(False, [(1, 3), (2, 3), (3, 3)]),
                                                (True, [(i, 6) for i in range(1, 7)])])
def test_round_robin_reports_pairings(simulate: bool, expected: list[tuple[int, int]]) -> None:
    from gamedb.games import load_game
    from gamedb.play.agents import Highest, Lowest, Uniform
    from gamedb.play.tournament import round_robin

    seen: list[tuple[int, int]] = []
    round_robin(load_game("jujitsu(num_cards=4)"), [Highest(), Lowest(), Uniform()], [2, 4],
                seed=1, simulate_games=simulate, on_progress=lambda d, t: seen.append((d, t)))
    assert seen == expected


@pytest.mark.parametrize("args, unit", [
    (("match", "{db}", "equilibrium", "random"), "positions"),
    (("match", "{db}", "equilibrium", "random", "--games", "20", "--seed", "1"), "games"),
    (("tournament", "{db}", "--agents", "equilibrium,random", "--games", "2"), "pairings")])
def test_match_and_tournament_show_progress_on_stderr_unless_quiet(
        j5: str, args: tuple[str, ...], unit: str) -> None:
    args = tuple(a.format(db=j5) for a in args)
    code, out, err = run(*args)
    assert code == 0 and f"{unit}/s" in err and "/s" not in out
    code, quiet_out, err = run(*args, "--quiet")
    assert code == 0 and err == "" and quiet_out == out


def test_tournament_json_has_every_series_standing_and_pair(j5: str) -> None:
    code, out, err = run("tournament", j5, "--agents", "equilibrium,random,highest",
                         "--games", "10,20", "--json", "--quiet")
    assert code == 0, err
    series = json.loads(out)
    assert [s["games"] for s in series] == [10, 20] and all(s["exact"] for s in series)
    standings = {s["agent"]: s for s in series[0]["standings"]}
    assert set(standings) == {"equilibrium", "random", "highest"}
    assert standings["equilibrium"]["beat"] == ["random", "highest"]
    assert len(series[0]["pairs"]) == 6
    assert series[1]["pairs"][0]["points_for"] == pytest.approx(2 * series[0]["pairs"][0]["points_for"])


def test_match_and_tournament_take_the_database_the_same_ways(j5: str) -> None:
    spec = "jujitsu(num_cards=5)"
    matches = [run("match", j5, "equilibrium", "random", "--json", "--quiet"),  # old form
               run("match", spec, "equilibrium", "random", "--db", j5, "--json", "--quiet"),
               run("match", j5, "equilibrium", "random", "--db", j5, "--json", "--quiet"),
               run("match", spec, "equilibrium", "random", "--json", "--quiet")]  # solved on the fly
    assert all(code == 0 for code, _, _ in matches), matches
    payoffs = [json.loads(out)["payoff"] for _, out, _ in matches]
    assert payoffs == pytest.approx([payoffs[0]] * 4, abs=1e-9)
    tables = [run("tournament", spec, "--agents", "equilibrium,random", "--db", j5, "--quiet"),
              run("tournament", j5, "--agents", "equilibrium,random", "--quiet")]
    assert tables[0][0] == tables[1][0] == 0 and tables[0][1] == tables[1][1]


def test_two_different_databases_are_a_usage_error(j5: str, tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    other.write_bytes(Path(j5).read_bytes())
    for command in (("match", j5, "equilibrium", "random"), ("tournament", j5, "--agents", "random,highest")):
        code, out, err = run(*command, "--db", str(other))
        assert code == 2 and "Error: two databases:" in err and out == ""


def test_a_damaged_database_given_as_the_first_argument_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"SQLite format 3\0" + b"\xff" * 4000)
    for command in (("match", str(bad), "random", "highest"),
                    ("tournament", str(bad), "--agents", "random,highest")):
        code, out, err = run(*command, "--quiet")
        assert code == 1 and err.startswith(f"Error: {bad}: ") and len(err.splitlines()) == 1, err
