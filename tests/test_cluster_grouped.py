"""Win/loss Goofspiel on a cluster by map and reduce tasks (``builder.grouped``).

The keyed page layers of win/loss Goofspiel are built on a Dask scheduler's workers one
task per group of prize sets (map: solve the group's positions from its part of the summary
below; reduce: add up a group's part of the layer's summary): the file is the local
build's, page for page, and a layer left with pages missing (a cluster build stops
with its pages stored in any order) resumes, on the cluster or here, to the same file.
A ``local:N`` cluster's threads share the builder's memory and solve such layers chunk
by chunk, as ``--workers`` does; the tests below rehearse map and reduce on one
(``Dask.shares_memory`` patched False), and a real scheduler runs them too.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
from pathlib import Path

import pytest

from gamedb.builder import build, grouped
from gamedb.builder.cluster import Dask, DaskPool
from gamedb.builder.progress import Counting
from gamedb.games.goofspiel import groups
from tests.test_cluster import Scheduler
from tests.test_cluster import _dump as rows_dump

pytest.importorskip("distributed")

SPEC = "goofspiel(num_cards=7)"
PAGES = {"page_min": 500, "page_size": 300, "strategies_from": 0}


def _dump(path: Path) -> tuple[object, ...]:
    """``tests/test_cluster.py``'s dump (rows, layers, meta, Grundy values) and the pages."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        pages = conn.execute("SELECT layer, page, first_key, count, data FROM pages "
                             "ORDER BY layer, page").fetchall()
    return (pages, *rows_dump(path))


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("grouped") / "local.sqlite"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(groups, "GROUP_TARGET", 2_000)
        build(SPEC, path, **PAGES)  # type: ignore[arg-type]
    return path


@pytest.fixture(autouse=True)
def small_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(groups, "GROUP_TARGET", 2_000)  # several groups a layer


def _rehearse(monkeypatch: pytest.MonkeyPatch) -> None:
    """``local:2`` runs map and reduce tasks, as a scheduler's workers do."""
    monkeypatch.setattr(Dask, "shares_memory", property(lambda self: False))


@pytest.fixture
def rehearsed(monkeypatch: pytest.MonkeyPatch) -> None:
    _rehearse(monkeypatch)


def _spied_layers(patch: pytest.MonkeyPatch) -> list[int]:
    """The layers ``GroupedLayer.run`` (map and reduce tasks) runs from now on."""
    layers: list[int] = []
    run = grouped.GroupedLayer.run

    def spied(self: grouped.GroupedLayer, layer: int, *args: object) -> object:
        layers.append(layer)
        return run(self, layer, *args)  # type: ignore[arg-type]

    patch.setattr(grouped.GroupedLayer, "run", spied)
    return layers


def test_the_layers_have_several_groups_and_runs(local: Path) -> None:
    from gamedb.games import load_game
    face = load_game(SPEC).indexed_face()
    with sqlite3.connect(local) as conn:
        paged = [layer for (layer,) in conn.execute("SELECT DISTINCT layer FROM pages")]
    assert len(paged) >= 3
    assert max(len(face.map_groups(layer, 300)) for layer in paged) >= 5  # type: ignore[union-attr]


def test_a_cluster_build_by_map_and_reduce_is_the_local_build(local: Path, tmp_path: Path,
                                                              rehearsed: None) -> None:
    path = tmp_path / "cluster.sqlite"
    with pytest.MonkeyPatch.context() as patch:
        layers = _spied_layers(patch)
        build(SPEC, path, cluster="local:2", **PAGES)  # type: ignore[arg-type]
    with sqlite3.connect(local) as conn:
        paged = [layer for (layer,) in conn.execute("SELECT DISTINCT layer FROM pages")]
    assert layers == paged  # every keyed page layer by map and reduce tasks
    assert _dump(path) == _dump(local)


def test_a_local_clusters_threads_solve_win_loss_chunk_by_chunk(local: Path,
                                                                tmp_path: Path) -> None:
    """One map task a group ran 9-card win/loss (one group a layer) on one of
    ``local:2``'s threads: 24.7 s against 18.6 s for ``--workers 2``. Its threads see
    the whole summary, so every layer's chunks are tasks for both threads."""
    path = tmp_path / "threads.sqlite"
    tasks: list[int] = []
    submit = DaskPool._submit

    def counted(self: DaskPool[object, object], group: list[object]) -> None:
        tasks.append(len(group))
        submit(self, group)

    with pytest.MonkeyPatch.context() as patch:
        layers = _spied_layers(patch)
        patch.setattr(DaskPool, "_submit", counted)
        build(SPEC, path, cluster="local:2", **PAGES)  # type: ignore[arg-type]
    assert layers == []  # no map and reduce tasks
    assert len(tasks) >= 20 and sum(tasks) >= 50  # the chunks of every big layer
    assert _dump(path) == _dump(local)


@pytest.mark.parametrize("cluster, by_groups", [(None, False), ("local:2", False),
                                               ("local:2", True)],
                         ids=["here", "local-threads", "map-and-reduce"])
def test_a_layer_with_pages_missing_resumes_to_the_same_file(
        local: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cluster: str | None,
        by_groups: bool) -> None:
    """Pages stored in any order, as a stopped cluster build leaves them: every stored
    page is kept and read, only the missing chunks are solved."""
    if by_groups:
        _rehearse(monkeypatch)
    path = tmp_path / "partial.sqlite"
    shutil.copy(local, path)
    with sqlite3.connect(path) as conn:
        layer, pages = conn.execute("SELECT layer, count(*) FROM pages GROUP BY layer "
                                    "ORDER BY count(*) DESC LIMIT 1").fetchone()
        conn.execute("DELETE FROM pages WHERE layer = ? AND page IN (?, ?)",
                     (layer, pages // 3, pages // 2))
        conn.execute("DELETE FROM pages WHERE layer > ?", (layer,))
        conn.execute("DELETE FROM states WHERE layer > ?", (layer,))
        conn.execute("UPDATE layers SET done = (SELECT coalesce(sum(count), 0) FROM pages "
                     "WHERE pages.layer = layers.layer) WHERE layer >= ?", (layer,))
        conn.execute("UPDATE meta SET value = '\"building\"' WHERE name = 'status'")
        conn.execute("DELETE FROM meta WHERE name IN ('root_value', 'states', 'root_keys')")
        kept, total = conn.execute("SELECT sum(done), sum(states) FROM layers").fetchone()
    report = build(SPEC, path, cluster=cluster, **PAGES)  # type: ignore[arg-type]
    assert report.solved == total - kept  # every stored page kept, only the rest solved
    assert _dump(path) == _dump(local)


def test_a_worker_killed_mid_layer_on_a_scheduler_changes_nothing(local: Path,
                                                                  tmp_path: Path) -> None:
    """A real ``dask scheduler`` with three ``dask worker`` processes; the first busy
    worker is SIGKILLed once pages come in: it may hold the only copy of data the
    builder sent (the layer is then sent again), and the file is the local build's."""
    import distributed

    cluster = Scheduler()
    try:
        for _ in range(3):
            cluster.add_worker()
        cluster.wait_for_workers(3)
        killed: list[str] = []
        with distributed.Client(cluster.address, set_as_default=False) as watcher:
            pids = watcher.run(os.getpid)

            def kill_a_busy_worker(done: int, total: int) -> None:
                busy = [w for w, tasks in watcher.processing().items() if tasks and w in pids]
                if busy and not killed and done > total // 8:
                    os.kill(pids[busy[0]], signal.SIGKILL)
                    killed.append(busy[0])

            path = tmp_path / "killed.sqlite"
            build(SPEC, path, cluster=cluster.address, observer=Counting(kill_a_busy_worker),
                  **PAGES)  # type: ignore[arg-type]
        assert killed and any(w.poll() == -signal.SIGKILL for w in cluster.workers)
        assert _dump(path) == _dump(local)
    finally:
        cluster.stop()
