"""The installed wheel, not only this checkout, creates and migrates database files."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OLD_FILE = ROOT / "tests" / "assets" / "jujitsu_num_cards=4_ties=carry.schema-0001.sqlite"


def _run(*args: str | Path, cwd: Path) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.slow
def test_the_installed_wheel_builds_and_upgrades_files_with_its_own_migrations(tmp_path: Path) -> None:
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp_path / "dist", ROOT,
         cwd=tmp_path)
    [wheel] = (tmp_path / "dist").glob("gamedb-*.whl")
    # System site-packages give numpy, numba, SQLAlchemy...: nothing heavy is downloaded.
    venv.create(tmp_path / "venv", system_site_packages=True, with_pip=True)
    python, gamedb = tmp_path / "venv" / "bin" / "python", tmp_path / "venv" / "bin" / "gamedb"
    _run(python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel, cwd=tmp_path)

    where = _run(python, "-c", "import gamedb, gamedb.store.migrate as m; "
                 "print(gamedb.__file__); print(m.migrations_dir())", cwd=tmp_path).split()
    site = tmp_path / "venv" / "lib"
    assert all(Path(p).is_relative_to(site) for p in where), where
    assert (Path(where[1]) / "versions" / "0003_strategy_columns.py").is_file()

    _run(gamedb, "build", "jujitsu(num_cards=4)", "--db", "x.sqlite", "--quiet", cwd=tmp_path)
    out = _run(gamedb, "sql", "x.sqlite", "SELECT count(*) AS n FROM positions", "--json",
               cwd=tmp_path)
    assert '"n": 32' in out
    shutil.copy(OLD_FILE, tmp_path / "old.sqlite")
    out = _run(gamedb, "upgrade", "old.sqlite", cwd=tmp_path)
    assert "schema 0001 -> 0003" in out and (tmp_path / "old.sqlite.bak-0001").is_file()
    assert "0.000000" in _run(gamedb, "show", "old.sqlite", "start", cwd=tmp_path)
