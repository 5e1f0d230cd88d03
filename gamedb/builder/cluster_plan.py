"""The plan of a win/loss Goofspiel build on a Dask cluster, layer by layer.

``gamedb build "goofspiel(num_cards=13)" --estimate --cluster ...`` prints it: what the
map and reduce tasks of each layer (``builder.grouped``) hold, send and take, from the
win/loss index's exact counts (its forward pass: seconds at 11 cards, minutes at 13)
and the CPU rates measured on this project's own 11- and 12-card builds.

A map task holds the tables all groups of its layer share (the moves of its layer and
the layer below, the blocks: sent to every worker once a layer), its group's score sets
(its cells) and part of the summary below, one chunk's stage games at a time, and its
group's finished pages and contributions until it returns. A layer's contributions (a
term for every chance value and draw) wait on the workers until the reduce tasks that
need them have all their inputs: at worst the whole layer's, spread over the workers
(Dask spills them to disk past a worker's memory limit), and so do the cells of the
map tasks not run yet. Each worker also keeps its share of two summaries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gamedb.builder.grouped import Grouped

#: CPU seconds a position of a k x k layer costs, measured: the largest of the 11-card
#: file and the 12-card build (``layers.seconds / layers.done``, the workers' seconds on
#: this project's 2-core machine, 2026-11-26). Bigger k take the largest.
RATES = {1: 0.38e-6, 2: 0.38e-6, 3: 0.38e-6, 4: 0.38e-6, 5: 0.77e-6, 6: 1.86e-6,
         7: 2.80e-6, 8: 3.93e-6, 9: 3.87e-6, 10: 4.54e-6}
#: Bytes a stored position takes in the file (the 11-card file: 3.51 GB, 729 M positions).
STORED = 4.81
#: Bytes a worker process holds before any task (Python, NumPy, numba's compiled code,
#: Dask), measured as a worker's RSS at its first task.
PROCESS = 300 << 20
#: Bytes of a term sent from a map task to a reduce task: one float64 for each chance
#: value of the layer and each draw (``WinLossIndex.dense``).
TERM = 8
#: Bytes of a position's terms inside its map task before they are made whole segments:
#: entry (int32), term (float64), draw (int8), a few positions two at score 0.
RAW_TERM = 14
#: Copies of a chunk's k x k games alive in the kernel (payoffs, tableau, strategies).
GAME_COPIES = 3
#: Copies of the data a task makes or receives that a Dask worker holds at its peak (the
#: objects, and their serialized frames while they are sent or received): measured,
#: 10-card win/loss on 4 workers peaked at 1.55 GiB where one copy counts 1.0 GiB.
DASK_COPIES = 2


@dataclass(frozen=True, slots=True)
class LayerPlan:
    """One layer on the cluster."""

    layer: int
    positions: int
    summary_bytes: int
    map_tasks: int
    largest_task: int
    """Positions of the largest map task (a group of prize sets)."""
    part_in: int
    """Bytes the largest map task reads of the summary below."""
    map_bytes: int
    """Peak bytes of a worker running the largest map task (``PROCESS`` and tables in)."""
    waiting: int
    """Bytes of the layer's contributions waiting for their reduce tasks and of the
    cells waiting for their map tasks, a worker's share of all of them."""
    reduce_tasks: int
    reduce_bytes: int
    """Peak bytes of a worker running the largest reduce task: its inputs (k terms an
    entry), a draw's selection of them, and its part."""
    part_out: int
    """Bytes of the largest part of this layer's summary (a reduce task's result)."""
    cpu_seconds: float
    wall_seconds: float
    to_builder: int
    """Bytes of finished pages the builder receives (and writes)."""
    between_workers: int
    """Bytes of contributions sent from map to reduce tasks."""


@dataclass(frozen=True, slots=True)
class ClusterPlan:
    """Every layer, and what the whole build needs."""

    spec: str
    workers: int
    worker_bytes: int
    tables: int
    """Bytes of the tables every worker holds for the layer that needs the most."""
    layers: list[LayerPlan]

    @property
    def cpu_seconds(self) -> float:
        return sum(layer.cpu_seconds for layer in self.layers)

    @property
    def wall_seconds(self) -> float:
        return sum(layer.wall_seconds for layer in self.layers)

    @property
    def disk_bytes(self) -> int:
        return sum(layer.to_builder for layer in self.layers)

    @property
    def held_bytes(self) -> int:
        """Summaries a worker keeps alive at worst: its share of two adjacent layers'."""
        sizes = [layer.summary_bytes for layer in self.layers]
        pairs = [a + b for a, b in zip(sizes, sizes[1:] + [0])]
        return max(pairs) // self.workers

    @property
    def worker_peak(self) -> int:
        """Peak bytes of one worker: its largest task, its share of the contributions
        waiting, and the summaries it keeps."""
        fixed = PROCESS + self.tables
        return fixed + self.held_bytes + DASK_COPIES * max(
            max(layer.map_bytes, layer.reduce_bytes) - fixed + layer.waiting
            for layer in self.layers)

    @property
    def fits(self) -> bool:
        return self.worker_peak <= self.worker_bytes


def plan(face: Grouped, spec: str, workers: int, worker_bytes: int) -> ClusterPlan:
    """Return the plan of building ``face``'s game on ``workers`` single-threaded
    workers of ``worker_bytes`` each (counts exact, times from ``RATES``)."""
    layers = []
    tables = 0
    for k in face.layers():
        tables = max(tables, face.layer_bytes(k))
        per_group = face.map_group_sizes(k)
        cells = face.cells_bytes(k)
        stage = face.stage_size(k)
        largest = int(per_group.max())
        part_in = max(face.part_sizes(k - 1)) * 8 if k > 1 else 0
        part_out = max(face.part_sizes(k)) * 8
        chunk_games = min(largest, 1 << 16) * stage * stage * 8 * GAME_COPIES
        held = int(largest * (RAW_TERM + TERM + STORED))
        terms = face.summary_size(k) * stage * TERM
        rate = RATES.get(stage, max(RATES.values()))
        cpu = face.size(k) * rate
        layers.append(LayerPlan(
            k, face.size(k), face.summary_size(k) * 8, int((per_group > 0).sum()), largest,
            part_in,
            PROCESS + face.layer_bytes(k) + int(cells.max()) + part_in + chunk_games + held,
            (terms + int(cells.sum())) // workers,
            len(face.set_bounds(k)) - 1,
            PROCESS + face.layer_bytes(k) + part_out * stage + part_out,
            part_out, cpu,
            max(cpu / workers, largest * rate), int(face.size(k) * STORED), terms))
    return ClusterPlan(spec, workers, worker_bytes, tables, layers)


def _gb(n: float) -> str:
    return f"{n / 1e9:,.1f}" if n >= 1e8 else f"{n / 1e9:,.3f}"


def table(p: ClusterPlan) -> str:
    """The plan as a table, a line a layer (largest first), and its totals."""
    from gamedb.builder.estimate import duration, size

    head = ("| layer | positions | map tasks | largest (positions) | part in MB | "
            "map task memory | waiting a worker | reduce tasks | reduce task memory | "
            "part out MB | CPU h | wall | "
            "to the builder GB | between workers GB |")
    lines = [f"{p.spec} on {p.workers} workers of {size(p.worker_bytes)} (one thread "
             f"each); the game's tables: at most {size(p.tables)} on every worker (a layer's, "
             f"and each map task its own prize sets' score sets)",
             "", head,
             "|---:" * 14 + "|"]
    for r in reversed(p.layers):
        lines.append(f"| {r.layer} | {r.positions:,} | {r.map_tasks:,} | {r.largest_task:,} | "
                     f"{r.part_in / 1e6:,.1f} | {size(r.map_bytes)} | {size(r.waiting)} | "
                     f"{r.reduce_tasks:,} | {size(r.reduce_bytes)} | "
                     f"{r.part_out / 1e6:,.1f} | {r.cpu_seconds / 3600:,.2f} | "
                     f"{duration(r.wall_seconds)} | {_gb(r.to_builder)} | "
                     f"{_gb(r.between_workers)} |")
    verdict = ("fits" if p.fits else
               "does NOT fit: more memory a worker, or more workers (the summaries spread)")
    lines += ["", f"total: {sum(r.positions for r in p.layers):,} positions, "
                  f"{p.cpu_seconds / 3600:,.1f} CPU h, {duration(p.wall_seconds)} of wall "
                  f"(layers one after the other, each as long as its share of CPU or its "
                  f"largest task), {size(p.disk_bytes)} of file on the builder's disk; a "
                  f"worker at most {size(p.worker_peak)} (its largest task, its share "
                  f"of the contributions waiting for the reduce tasks, and "
                  f"{size(p.held_bytes)} of summaries kept): {verdict}"]
    return "\n".join(lines)


_SIZE = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)(i?)B?", re.I)


def parse_size(text: str) -> int:
    """Bytes of a size such as ``8GiB``, ``8G`` (both 8 * 2**30), ``8GB`` (8e9),
    ``512MiB`` or ``1000000``; ValueError otherwise.

    >>> parse_size("8GiB"), parse_size("1.5 GB"), parse_size("4096")
    (8589934592, 1500000000, 4096)
    """
    match = _SIZE.fullmatch(text.strip())
    if match is None or float(match[1]) <= 0:
        raise ValueError(f"{text!r} is not a memory size (e.g. 8GiB, 512MiB, 16G)")
    power = "KMGT".find(match[2].upper()) + 1 if match[2] else 0
    decimal = not match[3] and text.strip().upper().endswith("B")  # GB, MB: powers of 1000
    base = 1000 if decimal else 1024
    return int(float(match[1]) * base ** power)


def cluster_shape(cluster: str, workers: int | None, worker_bytes: int | None,
                  available: int | None) -> tuple[int, int]:
    """Return (workers, bytes a worker) to plan for at the scheduler address ``cluster``:
    the given ones, else the running scheduler's (its workers' threads and smallest
    memory limit, else ``available``; ``ClusterError`` if unreachable). ``local:N`` runs
    no map and reduce tasks (``builder.grouped.grouped_layer``): nothing to plan."""
    from gamedb.builder.cluster import parse_address

    kind, where = parse_address(cluster)
    assert kind == "scheduler", "local:N is estimated as a build on this machine"
    if workers is not None and worker_bytes is not None:
        return workers, worker_bytes
    info = _scheduler_info(str(where))
    found = info.get("workers", {}).values()
    threads = sum(int(w.get("nthreads", 1)) for w in found)
    limits = [int(w.get("memory_limit") or 0) for w in found]
    return (workers or max(threads, 1),
            worker_bytes or (min(limits) if limits and min(limits) > 0 else available or 0))


def _scheduler_info(address: str) -> dict[str, Any]:
    from gamedb.builder.cluster import Dask

    with Dask.connect(address) as run_on:
        info: dict[str, Any] = run_on.client.scheduler_info()
    return info


__all__ = ["ClusterPlan", "LayerPlan", "RATES", "cluster_shape", "parse_size", "plan", "table"]
