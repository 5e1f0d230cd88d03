"""The command line starts fast: help and version never load the solver's libraries.

``gamedb --help`` took 1.2 s when numba, numpy and SQLAlchemy were imported eagerly.
Timing tests are flaky on a shared machine, so these tests check the cause instead:
which modules a help request leaves in ``sys.modules``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from gamedb.cli import cli

#: Libraries that cost hundreds of milliseconds to import.
HEAVY = ("numba", "numpy", "scipy", "sqlalchemy", "alembic", "tqdm", "matplotlib",
         "starlette", "uvicorn",  # the optional web extra (gamedb serve)
         "distributed", "dask")  # the optional cluster extra (build --cluster)

_PROBE = """
import json, sys
import click
from gamedb.cli import cli
loaded = {"import": [m for m in HEAVY if m in sys.modules]}
def commands(group, path):
    for name in group.list_commands(None):
        command = group.get_command(None, name)
        yield (*path, name)
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
for args in [(), *commands(cli, ())]:
    for flag in ("--help", "-h"):
        try:
            cli.main([*args, flag], standalone_mode=False)
        except SystemExit:
            pass
    loaded[" ".join(args) or "gamedb"] = [m for m in HEAVY if m in sys.modules]
print(json.dumps(loaded))
"""


def _loaded_after_help() -> dict[str, list[str]]:
    script = f"HEAVY = {HEAVY!r}\n{_PROBE}"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.splitlines()[-1])  # help texts are printed before the result


def test_importing_the_cli_and_asking_every_command_for_help_loads_no_heavy_library() -> None:
    loaded = _loaded_after_help()
    assert len(loaded) > 10, loaded  # the group itself and every command were asked
    assert all(not modules for modules in loaded.values()), loaded


def test_version_loads_no_heavy_library() -> None:
    script = ("import sys\nfrom gamedb.cli import cli\n"
              "try:\n    cli.main(['--version'], standalone_mode=False)\nexcept SystemExit:\n    pass\n"
              f"print([m for m in {HEAVY!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    assert "version" in out and out.splitlines()[-1] == "[]"


def test_build_chunk_size_default_is_the_builders() -> None:
    from gamedb.builder import CHUNK_SIZE
    out = CliRunner().invoke(cli, ["build", "--help"]).stdout
    assert f"default: {CHUNK_SIZE}" in out


@pytest.mark.parametrize("args", [("-h",), ("show", "-h"), ("plot", "heatmap", "-h")])
def test_dash_h_is_help_everywhere(args: tuple[str, ...]) -> None:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0 and result.stdout.startswith("Usage: ")
    assert result.stdout == CliRunner().invoke(cli, [*args[:-1], "--help"]).stdout
