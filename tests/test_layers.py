"""The import boundaries of STYLE G5, checked with ``ast`` so they cannot drift."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "gamedb"
PURE = {"numpy", "scipy", "numba", "gamedb", "__future__"}
STDLIB_OK = {"collections", "dataclasses", "fractions", "functools", "itertools", "math",
             "random", "re", "numbers", "typing", "abc", "operator", "enum", "warnings", "importlib"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def _modules(*parts: str) -> list[Path]:
    return [p for part in parts for p in sorted((PACKAGE / part).rglob("*.py"))
            if (PACKAGE / part).is_dir()] + [PACKAGE / p for p in parts if p.endswith(".py")]


@pytest.mark.parametrize("path", _modules("games", "solver", "bits.py"), ids=str)
def test_rules_and_solver_import_only_numeric_libraries(path: Path) -> None:
    for name in _imports(path):
        top = name.split(".")[0]
        assert top in PURE | STDLIB_OK, f"{path.name} imports {name}"
        assert not name.startswith(("gamedb.store", "gamedb.build", "gamedb.cli", "gamedb.play")), name


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=str)
def test_only_the_store_imports_sqlalchemy_and_only_the_cli_imports_click(path: Path) -> None:
    tops = {name.split(".")[0] for name in _imports(path)}
    if "store" not in path.parts:
        assert not tops & {"sqlalchemy", "alembic"}, path
    if "cli" not in path.parts:
        assert not tops & {"click", "tqdm"}, path
