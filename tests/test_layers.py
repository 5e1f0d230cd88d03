"""The import boundaries of STYLE G5, checked with ``ast`` so they cannot drift."""

from __future__ import annotations

import ast
import re
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
        assert not name.startswith(("gamedb.store", "gamedb.builder", "gamedb.cli", "gamedb.play")), name


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=str)
def test_only_the_store_imports_sqlalchemy_and_only_the_cli_imports_click(path: Path) -> None:
    tops = {name.split(".")[0] for name in _imports(path)}
    if "store" not in path.parts:
        assert not tops & {"sqlalchemy", "alembic"}, path
    if "cli" not in path.parts:
        assert not tops & {"click", "tqdm"}, path


# -- one home per game (issue 11): outside gamedb/games/ no code names a family --------

GAMES_DIR = PACKAGE / "games"
#: Modules allowed to name a family, and why.
NAMES_A_FAMILY = {
    PACKAGE / "probe.py": "the stand-alone, standard-library-only reader (copied beside a "
                          "shipped file) computes Jujitsu keys itself: it cannot import "
                          "gamedb.games",
}


def _family_pattern() -> re.Pattern[str]:
    from gamedb.games import GAMES

    # "oshi_zumo", "Oshi-Zumo", "tictoe", "Tic-Toe": any separator between letters.
    spelled = ["[_ -]?".join(name.replace("_", "")) for name in GAMES]
    return re.compile(rf"(?<![a-z0-9])(?:{'|'.join(spelled)})(?![a-z0-9])", re.IGNORECASE)


def _prose(tree: ast.Module) -> set[int]:
    """ids of the string constants that are prose, not code: docstrings (any string
    standing alone as a statement, attribute docstrings too), click ``help=`` and
    ``epilog=`` texts, and module constants used as one."""
    prose: set[int] = set()
    texts: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            prose.add(id(node.value))
        if isinstance(node, ast.keyword) and node.arg in ("help", "epilog"):
            prose |= {id(n) for n in ast.walk(node.value) if isinstance(n, ast.Constant)}
            texts |= {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id in texts for t in node.targets):
            prose |= {id(n) for n in ast.walk(node.value) if isinstance(n, ast.Constant)}
    return prose


def _code_words(path: Path) -> list[tuple[int, str]]:
    """Every identifier and non-prose string of a module, with its line."""
    tree = ast.parse(path.read_text())
    prose, words = _prose(tree), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            words.append((node.lineno, node.value))
        elif isinstance(node, ast.Name):
            words.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute):
            words.append((node.lineno, node.attr))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            words.append((node.lineno, node.name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            words += [(node.lineno, a.name) for a in node.names]
            words += [(node.lineno, node.module)] if getattr(node, "module", None) else []
    return words


OUTSIDE_GAMES = [p for p in sorted(PACKAGE.rglob("*.py")) if GAMES_DIR not in p.parents]


@pytest.mark.parametrize("path", [p for p in OUTSIDE_GAMES if p not in NAMES_A_FAMILY], ids=str)
def test_no_code_outside_the_games_names_a_family(path: Path) -> None:
    family = _family_pattern()
    found = [f"line {line}: {word!r}" for line, word in _code_words(path) if family.search(word)]
    assert not found, f"{path.name} names a game family in code (read game.capabilities): {found}"


@pytest.mark.parametrize("path", OUTSIDE_GAMES, ids=str)
def test_no_code_outside_the_games_reads_a_games_private_attributes(path: Path) -> None:
    tree = ast.parse(path.read_text())
    found = [f"line {node.lineno}: .{node.attr}" for node in ast.walk(tree)
             if isinstance(node, ast.Attribute) and node.attr.startswith("_")
             and not node.attr.startswith("__") and _names_a_game(node.value)]
    assert not found, f"{path.name} reads a game's private attributes: {found}"


def test_the_private_attribute_check_sees_a_games_private_attribute(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("x = db.game._layout.fields, game._N, game.__class__, other._x\n")
    with pytest.raises(AssertionError) as caught:
        test_no_code_outside_the_games_reads_a_games_private_attributes(path)
    assert "._layout" in str(caught.value) and "._N" in str(caught.value)
    assert "._x" not in str(caught.value) and "__class__" not in str(caught.value)


def _names_a_game(node: ast.expr) -> bool:
    """True for an expression naming a game or its indexed face (``game``, ``db.game``,
    ``small_game``, ``face``)."""
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return name in ("game", "face") or name.endswith(("_game", "_face"))


@pytest.mark.parametrize("path", OUTSIDE_GAMES, ids=str)
def test_no_code_outside_the_games_probes_a_game_with_getattr(path: Path) -> None:
    """``getattr(game, "num_cards")`` or ``hasattr(face, "x")`` asks a family for what it
    is by another door: declare it on ``Game``, ``Capabilities`` or ``LayerSource``."""
    tree = ast.parse(path.read_text())
    found = [f"line {node.lineno}: {ast.unparse(node)}" for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
             and node.func.id in ("getattr", "hasattr") and node.args
             and _names_a_game(node.args[0])]
    assert not found, f"{path.name} probes a game's attributes by name: {found}"


def test_the_getattr_check_sees_probing_a_game_or_a_face(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("a = getattr(game, 'num_cards'), hasattr(db.game, 'x')\n"
                    "b = getattr(face, 'disk', 1), getattr(state, 'prize'), getattr(obj, n)\n")
    with pytest.raises(AssertionError) as caught:
        test_no_code_outside_the_games_probes_a_game_with_getattr(path)
    found = str(caught.value).partition("\n")[0]
    assert found.count("line ") == 3 and "state" not in found and "obj" not in found


def test_the_family_check_sees_code_and_skips_prose(tmp_path: Path) -> None:
    tree = ast.parse('"""Goofspiel."""\nimport click\n'
                     '@click.option("--x", help="Oshi-Zumo only")\ndef f():\n'
                     '    """Nim."""\n    return g("tic-toe") or is_jujitsu\n')
    path = tmp_path / "m.py"
    path.write_text(ast.unparse(tree))
    family = _family_pattern()
    assert sorted(w for _, w in _code_words(path) if family.search(w)) == ["is_jujitsu", "tic-toe"]


# -- gamedb serve (issue 13): an optional extra that the core never imports -------------

WEB_DIR = PACKAGE / "web"
#: The one place outside gamedb/web/ that may import it, inside its command (lazily).
WEB_ENTRY = PACKAGE / "cli" / "serve.py"


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=str)
def test_only_gamedb_web_imports_the_web_extra_and_only_serve_imports_gamedb_web(path: Path) -> None:
    names = _imports(path)
    if WEB_DIR not in path.parents:
        assert not {n.split(".")[0] for n in names} & {"starlette", "uvicorn", "anyio"}, path
        if path != WEB_ENTRY:
            assert not any(n == "gamedb.web" or n.startswith("gamedb.web.") for n in names), path


def test_serve_imports_gamedb_web_only_inside_the_command() -> None:
    tree = ast.parse(WEB_ENTRY.read_text())
    top = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert not any((node.module or "").startswith("gamedb.web") for node in top
                   if isinstance(node, ast.ImportFrom))


@pytest.mark.parametrize("path", sorted((WEB_DIR / "static").iterdir()), ids=str)
def test_the_explorer_page_names_no_family(path: Path) -> None:
    found = _family_pattern().findall(path.read_text())
    assert not found, f"{path.name} names a game family (read the API's names and noun): {found}"


# -- build --cluster (issue 15): Dask is an optional extra, imported only when used -----

CLUSTER = PACKAGE / "builder" / "cluster.py"


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=str)
def test_only_gamedb_cluster_imports_dask(path: Path) -> None:
    if path != CLUSTER:
        assert not {n.split(".")[0] for n in _imports(path)} & {"distributed", "dask"}, path


def test_gamedb_cluster_imports_dask_only_inside_functions() -> None:
    tree = ast.parse(CLUSTER.read_text())
    top = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    names = {alias.name for node in top if isinstance(node, ast.Import) for alias in node.names}
    names |= {node.module or "" for node in top if isinstance(node, ast.ImportFrom)}
    assert not {n.split(".")[0] for n in names} & {"distributed", "dask"}, names


# -- the OpenSpiel bridge (issue 23): an optional extra that the core never imports ------

OPENSPIEL_DIR = PACKAGE / "openspiel"
#: The modules of the bridge that import OpenSpiel's Python package when imported (its
#: Policy subclasses), after ``require_openspiel`` has said how to install it; nothing
#: else in gamedb imports them. (The MCTS agent takes ``pyspiel`` from
#: ``require_openspiel`` when imported: no import statement.)
OPENSPIEL_USERS = {OPENSPIEL_DIR / "policy.py"}


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=str)
def test_only_gamedb_openspiel_imports_openspiel(path: Path) -> None:
    if OPENSPIEL_DIR not in path.parents:
        assert not {n.split(".")[0] for n in _imports(path)} & {"pyspiel", "open_spiel"}, path


@pytest.mark.parametrize("path", sorted(OPENSPIEL_DIR.glob("*.py")), ids=str)
def test_the_bridge_imports_openspiel_only_inside_functions_but_for_its_policy(path: Path) -> None:
    top = [node for node in ast.parse(path.read_text()).body
           if isinstance(node, (ast.Import, ast.ImportFrom))]
    names = {alias.name for node in top if isinstance(node, ast.Import) for alias in node.names}
    names |= {node.module or "" for node in top if isinstance(node, ast.ImportFrom)}
    found = {n.split(".")[0] for n in names} & {"pyspiel", "open_spiel"}
    assert found == ({"open_spiel"} if path in OPENSPIEL_USERS else set()), path
