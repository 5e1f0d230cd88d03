"""The installed wheel, not only this checkout, creates and migrates database files."""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OLD_FILE = ROOT / "tests" / "assets" / "jujitsu_num_cards=4_ties=carry.schema-0001.sqlite"


def _run(*args: str | Path, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # no checkout on the path
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _dependency_dirs() -> list[str]:
    """The running interpreter's site directories: numpy, numba, SQLAlchemy... live there.

    Works whether pytest runs in a user's venv (whose base interpreter lacks them) or in
    the base interpreter itself (CI). Only the directories are named, so .pth files in
    them (an editable install of this checkout) are not processed in the test venv.
    """
    paths = sysconfig.get_paths()
    dirs = [paths["purelib"], paths["platlib"], *site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    return [d for d in dict.fromkeys(dirs) if Path(d).is_dir()]


def _make_venv(where: Path) -> Path:
    """A venv that sees the running interpreter's packages after its own (a .pth line)."""
    venv.create(where, system_site_packages=False, with_pip=True)
    python = where / "bin" / "python"
    own = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
               cwd=where).strip()
    (Path(own) / "_gamedb_test_deps.pth").write_text("\n".join(_dependency_dirs()) + "\n")
    return python


@pytest.mark.slow
def test_the_installed_wheel_builds_and_upgrades_files_with_its_own_migrations(tmp_path: Path) -> None:
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp_path / "dist", ROOT,
         cwd=tmp_path)
    [wheel] = (tmp_path / "dist").glob("gamedb-*.whl")
    # The running interpreter's packages give numpy, numba, SQLAlchemy...: nothing is
    # downloaded, and gamedb itself can only come from the wheel.
    python, gamedb = _make_venv(tmp_path / "venv"), tmp_path / "venv" / "bin" / "gamedb"
    found = "import importlib.util as u; print(u.find_spec('gamedb'), u.find_spec('sqlalchemy'))"
    assert _run(python, "-c", found, cwd=tmp_path).startswith("None ModuleSpec")  # deps yes, gamedb no
    _run(python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel, cwd=tmp_path)

    where = _run(python, "-c", "import gamedb, gamedb.store.migrate as m; "
                 "print(gamedb.__file__); print(m.migrations_dir())", cwd=tmp_path).split()
    venv_lib = tmp_path / "venv" / "lib"
    assert all(Path(p).is_relative_to(venv_lib) for p in where), where
    assert (Path(where[1]) / "versions" / "0007_keyed_pages.py").is_file()
    page = ("import importlib.resources as r; print(all(r.files('gamedb.web').joinpath("
            "'static', n).is_file() for n in ('index.html', 'explorer.js', 'board.js', 'explorer.css')))")
    assert _run(python, "-c", page, cwd=tmp_path).strip() == "True"  # gamedb serve's page

    _run(gamedb, "build", "jujitsu(num_cards=4)", "--db", "x.sqlite", "--quiet", cwd=tmp_path)
    out = _run(gamedb, "sql", "x.sqlite", "SELECT count(*) AS n FROM positions", "--json",
               cwd=tmp_path)
    assert '"n": 32' in out
    shutil.copy(OLD_FILE, tmp_path / "old.sqlite")
    out = _run(gamedb, "upgrade", "old.sqlite", cwd=tmp_path)
    assert "schema 0001 -> 0007" in out and (tmp_path / "old.sqlite.bak-0001").is_file()
    assert "0.000000" in _run(gamedb, "show", "old.sqlite", "start", cwd=tmp_path)
