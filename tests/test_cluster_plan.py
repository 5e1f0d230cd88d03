"""``build --estimate --cluster``: the plan of win/loss Goofspiel's map and reduce tasks."""

from __future__ import annotations

import json

import numpy as np
from click.testing import CliRunner

from gamedb.builder.cluster_plan import RATES, plan
from gamedb.cli import cli
from gamedb.games import load_game
from gamedb.games.goofspiel import groups
from gamedb.games.goofspiel.winloss import WinLossIndex

SPEC = "goofspiel(num_cards=8)"


def test_the_plan_counts_every_position_task_and_part_of_the_build(monkeypatch) -> None:
    monkeypatch.setattr(groups, "GROUP_TARGET", 20_000)  # several tasks a layer
    face = load_game(SPEC).indexed_face()
    assert isinstance(face, WinLossIndex)
    found = plan(face, SPEC, 4, 2 << 30)
    assert [r.positions for r in found.layers] == [face.size(k) for k in face.layers()]
    for r in found.layers:
        k = r.layer
        chunks = face.chunks(k, 1 << 16)
        per_group = {g: sum(chunks[i][1] - chunks[i][0] for i in numbers)
                     for g, numbers in face.map_groups(k, 1 << 16).items()}
        assert r.map_tasks == sum(1 for n in per_group.values() if n) and r.map_tasks >= 1
        assert r.largest_task == max(per_group.values())
        assert r.reduce_tasks == len(face.part_sizes(k))
        assert sum(face.part_sizes(k)) == face.summary_size(k)
        assert r.part_out == 8 * max(face.part_sizes(k))
        assert np.isclose(r.cpu_seconds, face.size(k) * RATES.get(k, max(RATES.values())))
        assert r.map_bytes > face.layer_bytes(k) and found.tables >= face.layer_bytes(k)
    assert max(r.map_tasks for r in found.layers) >= 5
    assert found.fits and found.worker_peak < 2 << 30


def test_build_estimate_with_a_cluster_prints_the_plan_and_its_verdict() -> None:
    runner = CliRunner()
    shown = runner.invoke(cli, ["build", SPEC, "--estimate", "--cluster", "tcp://10.9.9.9:8786",
                                "--cluster-workers", "8", "--worker-memory", "2GiB"])
    assert shown.exit_code == 0, shown.output
    assert "on 8 workers of 2.0 GiB" in shown.stdout and ": fits" in shown.stdout
    # the exact counts take minutes at 13 cards: said before, not after a silence
    assert shown.stderr.startswith("counting every layer's positions") and "12-16 min" \
        in shown.stderr
    tight = runner.invoke(cli, ["build", SPEC, "--estimate", "--cluster", "tcp://10.9.9.9:8786",
                                "--cluster-workers", "2", "--worker-memory", "100MiB",
                                "--json"])
    assert tight.exit_code == 0, tight.output
    data = json.loads(tight.stdout)
    assert data["workers"] == 2 and data["worker_bytes"] == 100 << 20 and not data["fits"]
    assert sum(layer["positions"] for layer in data["layers"]) == 1_711_712


def test_a_bad_worker_memory_is_a_usage_error() -> None:
    bad = CliRunner().invoke(cli, ["build", SPEC, "--estimate", "--cluster",
                                   "tcp://10.9.9.9:8786", "--worker-memory", "lots"])
    assert bad.exit_code == 2 and "'lots' is not a memory size" in bad.output
    assert "Traceback" not in bad.output


def test_a_game_without_map_and_reduce_tasks_keeps_the_one_machine_estimate() -> None:
    shown = CliRunner().invoke(cli, ["build", "jujitsu(num_cards=6)", "--estimate",
                                     "--cluster", "local:2"])
    assert shown.exit_code == 0 and "peak memory" in shown.output
    assert "map tasks" not in shown.output


def test_a_local_cluster_is_estimated_as_a_build_on_this_machine() -> None:
    """``local:N``'s threads solve win/loss as ``--workers N`` does (no map and reduce
    tasks: ``builder.grouped.grouped_layer``), so its estimate is the one-machine one,
    for N workers; options that plan a scheduler's workers are refused with it."""
    runner = CliRunner()
    shown = runner.invoke(cli, ["build", SPEC, "--estimate", "--cluster", "local:3", "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output) == json.loads(runner.invoke(
        cli, ["build", SPEC, "--estimate", "--workers", "3", "--json"]).output)
    for extra in (["--cluster", "local:2", "--worker-memory", "8GiB"],
                  ["--cluster-workers", "4"]):
        refused = runner.invoke(cli, ["build", SPEC, "--estimate", *extra])
        assert refused.exit_code == 2, refused.output
        assert "give its address with --cluster tcp://HOST:PORT" in refused.output
        assert "Traceback" not in refused.output
