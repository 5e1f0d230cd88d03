"""Issue 10 re-checked on the commands and games added since: a newcomer's first hour.

Each test reproduces one stumble found in a fresh clone and a fresh venv, or one bad
input to ``solve``, ``book``, ``serve``, ``rules`` and the newer agents and variants.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _without_the_web_extra(tmp_path: Path) -> dict[str, str]:
    """An environment in which ``import starlette`` and ``import uvicorn`` fail."""
    for name in ("starlette", "uvicorn"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(
            f'raise ModuleNotFoundError("No module named {name!r}", name={name!r})\n')
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}


def test_readme_command_2_collects_without_the_web_extra(tmp_path: Path) -> None:
    """README command 2 installs ``.[test]``, not ``.[web]``: the doctest run of gamedb/
    must not fail on collecting gamedb/web/app.py (it did: 2 errors, exit 2)."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                           "-p", "no:cacheprovider", "gamedb"],
                          cwd=ROOT, env=_without_the_web_extra(tmp_path),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "ModuleNotFoundError" not in done.stdout


# -- gamedb book --------------------------------------------------------------------------

import pytest  # noqa: E402
from click.testing import CliRunner  # noqa: E402

from gamedb.builder import build  # noqa: E402
from gamedb.cli import cli  # noqa: E402


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def j4(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("j4") / "j4.sqlite"
    build("jujitsu(num_cards=4)", path, workers=1)
    return path


@pytest.mark.parametrize("output", ["missing/b.sqlite", "/proc/b.sqlite"])
def test_book_into_a_folder_it_cannot_write_names_the_output_not_the_source(
        j4: Path, tmp_path: Path, output: str) -> None:
    """It said ``j4.sqlite: unable to open database file (the file is damaged ...)``,
    after the whole verification: the source blamed for the output's folder."""
    target = output if output.startswith("/") else str(tmp_path / output)
    code, out, err = _run("book", str(j4), target, "--from-layer", "2", "--quiet")
    assert code == 1 and out == ""
    assert err.startswith(f"Error: cannot write {target}: ") and "damaged" not in err
    assert len(err.strip().splitlines()) == 1 and not Path(target).exists()


def test_book_of_a_values_only_file_says_it_was_built_values_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """It said ``(built with --strategies-from None)``. (A book solves the strategies of
    up to ``SOLVE_LIMIT`` positions; past it, the refusal names the build.)"""
    source = tmp_path / "v4.sqlite"
    build("jujitsu(num_cards=4)", source, workers=1, values_only=True)
    monkeypatch.setattr("gamedb.book.SOLVE_LIMIT", 3)
    code, _, err = _run("book", str(source), str(tmp_path / "b.sqlite"), "--from-layer", "2")
    assert code == 1 and "None" not in err
    assert "(built with --values-only)" in err and not (tmp_path / "b.sqlite").exists()


def test_book_of_a_book_from_its_lowest_layer_says_why_it_cannot(j4: Path, tmp_path: Path) -> None:
    """It said ``b.sqlite: 23 position(s) of layers 2 and up fail to verify``, as if the
    book were damaged: its lowest layer's successors are simply not in it."""
    first = tmp_path / "b.sqlite"
    assert _run("book", str(j4), str(first), "--from-layer", "2", "--quiet")[0] == 0
    code, _, err = _run("book", str(first), str(tmp_path / "bb.sqlite"), "--from-layer", "2")
    assert code == 1 and "fail to verify" not in err
    assert "an opening book of layer 2 and up" in err and "layer 3 or above" in err
    assert _run("book", str(first), str(tmp_path / "b3.sqlite"), "--from-layer", "3",
                "--quiet")[0] == 0


# -- huge numbers in integer options ------------------------------------------------------

@pytest.mark.parametrize("args", [
    ("solve", "jujitsu(num_cards=4)", "start", "--max-positions"),
    ("book", "a.sqlite", "b.sqlite", "--from-layer"),
    ("serve", "a.sqlite", "--port"),
    ("build", "jujitsu(num_cards=4)", "--workers"),
])
def test_a_huge_number_in_an_integer_option_is_one_short_line(args: tuple[str, ...]) -> None:
    """Click quoted all 100,000 digits in its usage error."""
    code, _, err = _run(*args, "9" * 100_000)
    assert code == 2 and len(err) < 600
    assert "'99999999999999999999...' (100,000 characters)" in err


# -- near-miss family names ---------------------------------------------------------------

@pytest.mark.parametrize(("typed", "meant"), [
    ("goofpsiel", "goofspiel"), ("hackenbus", "hackenbush"), ("oshi-zumo", "oshi_zumo"),
    ("oshizumo", "oshi_zumo"), ("tic_toe", "tictoe"), ("Jujitsu", "jujitsu")])
def test_a_near_miss_family_name_gets_a_hint(typed: str, meant: str) -> None:
    """``rules goofpsiel`` listed every game; ``rules oshi-zumo`` said 'malformed spec'."""
    for args in (("rules", typed), ("build", f"{typed}(num_cards=4)", "--estimate")):
        code, _, err = _run(*args)
        assert code == 1 and err == f"Error: unknown game {typed!r}; did you mean {meant}?\n"


# -- committed Goofspiel: the end position -------------------------------------------------

def test_the_end_of_committed_goofspiel_is_a_position_that_reads_back() -> None:
    """``/api/next`` of committed Goofspiel answered 500 (``'CommittedEnd' object has no
    attribute 'hand1'``): the end position could not be written."""
    from gamedb.explore import successors
    from gamedb.games import load_game

    game = load_game("goofspiel(num_cards=3,committed=true)")
    [outcome] = successors(game, "start", 1, 4)
    assert outcome.position == "order1=1-3-2 order2=3-1-2"
    end = game.parse_position(outcome.position)
    assert game.value(end) == float(game.matrix[1, 4])
    assert game.format_position(end) == outcome.position


# -- export: the output's permissions ------------------------------------------------------

def test_export_writes_a_file_with_the_usual_permissions(j4: Path, tmp_path: Path) -> None:
    """The output came out ``-rw-------`` (the temporary file's 0600, renamed into place),
    and an existing output lost its permissions when replaced."""
    old = os.umask(0o022)
    try:
        new, kept = tmp_path / "new.jsonl", tmp_path / "kept.jsonl"
        kept.write_text("old\n")
        kept.chmod(0o640)
        for output in (new, kept):
            assert _run("export", str(j4), "--output", str(output), "--quiet",
                        "--force")[0] == 0
    finally:
        os.umask(old)
    assert (new.stat().st_mode & 0o777, kept.stat().st_mode & 0o777) == (0o644, 0o640)
    assert kept.read_text() != "old\n"


# -- play: committed Goofspiel's orders ----------------------------------------------------

def test_play_of_committed_goofspiel_takes_orders_not_their_numbers(tmp_path: Path) -> None:
    """Typing ``5`` played the order ``3-2-1`` (its internal number) though the prompt
    offers only orders."""
    path = tmp_path / "c3.sqlite"
    build("goofspiel(num_cards=3,committed=true)", path, workers=1)
    result = CliRunner().invoke(cli, ["play", str(path), "--seed", "1"], input="5\n2-3-1\n")
    assert result.exit_code == 0
    assert "(1-2-3, 1-3-2, 2-1-3, 2-3-1, 3-1-2, 3-2-1; ? explains, quit ends)" in result.stdout
    assert "'5' is not legal here; choose one of 1-2-3, " in result.stdout  # the file's noun
    assert "you played 2-3-1, " in result.stdout and "after 1 round:" in result.stdout


# -- solve: progress -----------------------------------------------------------------------

def _stderr_on_a_terminal(*args: str) -> tuple[int, str, str]:
    """Run gamedb with stderr on a pseudo-terminal: (exit status, stdout, stderr)."""
    import fcntl
    import pty
    import struct
    import termios

    main, side = pty.openpty()  # 100 columns: with 0 (a new pty's size) tqdm draws nothing
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    done = subprocess.Popen([sys.executable, "-m", "gamedb", *args], stdout=subprocess.PIPE,
                            stderr=side, env={**os.environ, "PYTHONPATH": str(ROOT)})
    os.close(side)
    err = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        err += chunk
    out = done.communicate(timeout=600)[0]
    os.close(main)
    return done.returncode, out.decode(), err.decode(errors="replace")


def test_solve_shows_what_it_does_on_a_terminal_and_quiet_hides_it() -> None:
    """A solve of a few million positions (``--max-positions`` raised) ran a minute or
    more without a word; stdout stays exactly the answer."""
    args = ("solve", "jujitsu(num_cards=5)", "start", "--json")
    (code, out, err), (quiet_code, quiet_out, quiet_err) = (
        _stderr_on_a_terminal(*args), _stderr_on_a_terminal(*args, "--quiet"))
    assert code == quiet_code == 0 and out == quiet_out and out.startswith("{")
    assert "counting the positions below" in err and "solving" in err
    assert quiet_err == ""
