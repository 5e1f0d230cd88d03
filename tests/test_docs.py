"""The docs cannot rot: every example query runs on the shipped files, the format
reference names every column, and data/ is what SHA256SUMS and SOURCE.md say."""

from __future__ import annotations

import hashlib
import inspect
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from gamedb.cli.solve import default_db_path
from gamedb.probe import GameFile
from gamedb.store import open_db
from gamedb.store.export import key_info
from gamedb.store.schema import metadata
from gamedb.verify import verify

ROOT = Path(__file__).resolve().parents[1]
DOCS, DATA = ROOT / "docs", ROOT / "data"
JUJITSU = DATA / "jujitsu_num_cards=8_ties=carry.shipped.sqlite"
OSHI_ZUMO = DATA / "oshi_zumo_alesia=false_coins=50_min_bid=1_size=3.shipped.sqlite"
_QUERY = re.compile(r"^### (Q\d+)\..*?^File: `([^`]+)`.*?^```sql\n(.*?)^```", re.S | re.M)


def _queries() -> dict[str, tuple[Path, str]]:
    text = (DOCS / "queries.md").read_text()
    return {name: (ROOT / file, sql) for name, file, sql in _QUERY.findall(text)}


QUERIES = _queries()


def _run(name: str) -> list[tuple]:
    path, sql = QUERIES[name]
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return conn.execute(sql).fetchall()


_DIAGRAM = re.compile(r"^`([a-z_]+\([^`]*\))` \(([a-z_-]+-v\d+)\):\n\n```text\n(.*?)\n```", re.S | re.M)


def test_format_md_draws_every_family_s_key_as_its_declaration_does() -> None:
    from gamedb.games import GAMES, load_game

    drawn = _DIAGRAM.findall((DOCS / "format.md").read_text())
    assert {spec.partition("(")[0] for spec, _, _ in drawn} <= set(GAMES) and len(drawn) >= 7
    for spec, layout, diagram in drawn:
        game = load_game(spec)
        assert (game.spec, game.key_layout, game.layout.diagram()) == (spec, layout, diagram)


def _register_the_worked_example(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run adding-a-game.md's module as ``gamedb.games.pennies`` and register it (its
    registry line), for this test only."""
    import sys
    import types

    from gamedb import games

    code = re.findall(r"```python\n(.*?)```", (DOCS / "adding-a-game.md").read_text(), re.S)
    module = types.ModuleType("gamedb.games.pennies")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(code[0], str(DOCS / "adding-a-game.md"), "exec"), module.__dict__)
    monkeypatch.setitem(games.GAMES, "pennies", module.Pennies)


def _test_module(path: Path):  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_docs_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_adding_a_game_md_builds_its_worked_example(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from gamedb import games
    from gamedb.builder import build
    from gamedb.games.base import reference_expand, successor_table
    from gamedb.solver.backward import enumerate_layers

    _register_the_worked_example(monkeypatch)
    game = games.load_game("pennies")
    assert (game.spec, game.key_layout, game.action_noun) == ("pennies(rounds=3)", "pennies-v1", "side")
    for layer, keys in enumerate_layers(game).items():
        assert (game.layer_of(keys) == layer).all()
        for key in keys.tolist():
            assert game.canonical(game.decode(key)).key == key
        assert successor_table(game.expand(keys), 0) == successor_table(reference_expand(game, keys), 0)
    path = tmp_path / "pennies.sqlite"
    build(game, path)
    with open_db(path) as db:
        assert db.probe("start").value == pytest.approx(0.0, abs=1e-9)
        assert db.probe("left=1 diff=0").strategies[1] == pytest.approx({0: 0.5, 1: 0.5})
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT key, position FROM positions").fetchall()
    assert rows and all(text == game.format_position(game.decode(key)) for key, text in rows)
    with GameFile(path) as book:
        assert book.position(book.root_keys[0])["position"] == "left=3 diff=0"


def test_adding_a_game_md_s_example_passes_every_family_s_tests_with_nothing_else_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The guide's claim: its module, registry line and conformance entry are all a
    family needs; the tests every registered family must pass (conformance, rules and
    examples), ``gamedb solve`` and the explorer's answer work on it."""
    from gamedb.subgame import solve_json

    _register_the_worked_example(monkeypatch)
    entry = re.search(r'^ +"pennies": \[(.*)\],$', (DOCS / "adding-a-game.md").read_text(), re.M)
    assert entry is not None
    conformance = _test_module(ROOT / "tests" / "games" / "test_conformance.py")
    checks = {name: list(inspect.signature(check).parameters)
              for name, check in vars(conformance).items() if name.startswith("test_")}
    assert sum(params[:1] == ["spec"] for params in checks.values()) >= 6
    for spec in re.findall(r'"([^"]+)"', entry.group(1)):
        for name, params in checks.items():  # (the views' check, on a build: above)
            if params == ["spec"]:
                getattr(conformance, name)(spec)
            elif params == ["spec", "canonical"]:
                getattr(conformance, name)(spec, True)
                getattr(conformance, name)(spec, False)
    rules = _test_module(ROOT / "tests" / "games" / "test_rules.py")
    rules.test_rules_explain_every_field_the_position_accepts("pennies")
    rules.test_rules_examples_are_commands_that_work("pennies", tmp_path, monkeypatch)
    rules.test_action_names_are_distinct_strings("pennies")
    shown = solve_json("pennies(rounds=3)", "left=1 diff=2")
    assert shown["value"] == pytest.approx(1.0) and shown["moves"]


def test_queries_md_has_at_least_ten_queries_each_with_a_file() -> None:
    text = (DOCS / "queries.md").read_text()
    assert len(QUERIES) >= 10 and len(QUERIES) == text.count("```sql")


@pytest.mark.parametrize("name", sorted(QUERIES, key=lambda q: int(q[1:])))
def test_every_example_query_runs_and_returns_rows(name: str) -> None:
    assert _run(name)


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="no sqlite3 shell installed")
@pytest.mark.parametrize("name", ["Q2", "Q3", "Q9", "Q14"])
def test_example_queries_run_in_the_plain_sqlite3_shell(name: str) -> None:
    path, sql = QUERIES[name]
    done = subprocess.run(["sqlite3", "-readonly", "-csv", str(path)], input=sql,
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stderr == "" and len(done.stdout.splitlines()) == len(_run(name))


def test_the_opening_value_query_agrees_with_the_probe_api() -> None:
    [(position, value)] = _run("Q2")
    with open_db(JUJITSU) as db:
        assert value == pytest.approx(db.probe("start").value, abs=1e-9) == 0.0
        assert position == db.probe("start").position


def test_the_opening_strategy_query_agrees_with_the_stdlib_probe() -> None:
    shown = dict(_run("Q3"))
    with GameFile(JUJITSU) as book:
        cards = list(range(1, 9))
        real = book.probe_jujitsu(cards, cards).strategies[1]
    assert shown == {card: round(p, 4) for card, p in real.items()} and 8 not in shown


def test_oshi_zumo_queries_match_buro_and_the_probe_api() -> None:
    buro = [.139, .053, .146, .060, .152, .067, .156, .068, .156]
    assert [bid for bid, _ in _run("Q9")] == list(range(1, 10))
    assert [p for _, p in _run("Q9")] == pytest.approx(buro, abs=0.002)
    [(value,)] = _run("Q10")
    with open_db(OSHI_ZUMO) as db:
        assert value == pytest.approx(db.probe("coins1=17 coins2=34 pos=3").value, abs=1e-12)
    assert [pos for pos, _ in _run("Q11")] == list(range(-3, 4))


def test_the_key_lookup_query_uses_the_key_gamedb_key_prints() -> None:
    info = key_info("jujitsu(num_cards=8)", "hand1=2,7 hand2=4,8 pot=0 diff=-2")
    assert f"WHERE key = {info.key}" in QUERIES["Q12"][1] and not info.swapped
    with open_db(JUJITSU) as db:
        entry = db.probe("hand1=2,7 hand2=4,8 pot=0 diff=-2")
    assert {(p, info.actions[p][a], prob) for p, s in entry.strategies.items()
            for a, prob in s.items()} \
        == set(_run("Q12"))


def test_the_format_reference_names_every_table_column_and_view_column() -> None:
    text = (DOCS / "format.md").read_text()
    for table in metadata.tables.values():
        assert f"`{table.name}`" in text
        for column in table.columns:
            assert f"`{column.name}`" in text, f"{table.name}.{column.name}"
    for path in DATA.glob("*.shipped.sqlite"):
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            for view in ("positions", "position_strategies"):
                for column in conn.execute(f"SELECT * FROM {view} LIMIT 0").description:
                    assert f"`{column[0]}`" in text, f"{view}.{column[0]}"


def _sums() -> dict[str, str]:
    lines = (DATA / "SHA256SUMS").read_text().splitlines()
    return {name: digest for digest, name in (line.split("  ", 1) for line in lines)}


def test_data_checksums_verify_and_every_shipped_file_is_listed() -> None:
    sums = _sums()
    assert set(sums) == {p.name for p in DATA.glob("*.sqlite")}
    for name, digest in sums.items():
        assert hashlib.sha256((DATA / name).read_bytes()).hexdigest() == digest, name
        assert f"`{name}`" in (DATA / "SOURCE.md").read_text()
    assert sum(p.stat().st_size for p in DATA.iterdir()) < 50 * 2**20


@pytest.mark.parametrize("name", sorted(_sums()))
def test_shipped_files_are_finalised(name: str) -> None:
    path = DATA / name
    assert not path.with_name(name + "-wal").exists()
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        assert conn.execute("PRAGMA freelist_count").fetchone() == (0,)
    with open_db(path) as db:
        assert db.info().status == "complete"


@pytest.mark.parametrize("name", sorted(_sums()))
def test_shipped_files_pass_verify(name: str) -> None:
    report = verify(DATA / name)
    with open_db(DATA / name) as db:
        book = db.meta.get("book_from_layer")  # an opening book: its lowest layer was
        layers = db.info().layers  # checked in the full file (meta.book_source)
        assert report.ok and report.checked == sum(x.states for x in layers
                                                   if book is None or x.layer > book)
        assert bool(report.note) == (book is not None)
        if book is not None:
            checked = db.meta["book_source"]["verified"]
            assert checked["positions"] == db.info().states and checked["max_gap"] < 1e-9


def _readme_blocks(language: str) -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M)


@pytest.mark.parametrize("index", range(len(_readme_blocks("python"))))
def test_the_readme_python_examples_run(index: int, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # the example writes its file where it runs
    code = _readme_blocks("python")[index]
    exec(compile(code, f"README.md python block {index + 1}", "exec"), {"__name__": "__readme__"})
    assert capsys.readouterr().out.strip()  # it printed its answer
    assert not any(p.suffix == ".sqlite" for p in DATA.iterdir() if not p.name.endswith(".shipped.sqlite"))


def test_the_readme_opens_with_the_build_and_the_test_command_ci_runs() -> None:
    first = _readme_blocks("sh")[0].splitlines()
    build_line, test_line = (line for line in first if line and not line.startswith("#"))
    shown = re.search(r'gamedb show "([^"]+)"', build_line)
    assert 'gamedb build "jujitsu(num_cards=8)"' in build_line and shown
    assert shown.group(1) == default_db_path("jujitsu(num_cards=8,ties=carry)").as_posix()
    assert test_line.split(" && ")[-1] in (ROOT / ".ci" / "run").read_text().splitlines()


def test_the_project_docs_stand_alone_and_name_their_architecture_page() -> None:
    pages = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
    assert not [p.name for p in pages if "../shared" in p.read_text()]
    assert "docs/architecture.md" in (ROOT / "README.md").read_text()


def test_no_page_keeps_a_merge_conflict() -> None:
    pages = [*sorted(ROOT.glob("*.md")), *sorted(DOCS.glob("*.md"))]
    marks = re.compile(r"^(<{7}|>{7})( |$)", re.M)
    assert not [p.name for p in pages if marks.search(p.read_text())]


def test_the_play_page_s_python_example_runs_with_its_imports() -> None:
    code = re.findall(r"```python\n(.*?)```", (DOCS / "play.md").read_text(), re.S)
    assert code and "from gamedb.play.evaluate import" in code[0]
    exec(compile(code[0], "docs/play.md python block", "exec"), {"__name__": "__play_md__"})
