"""Commands that make and check databases: build, verify, upgrade."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gamedb.cli._common import cli, progress_bar, signed, table, user_errors, vars_of

if TYPE_CHECKING:  # the library is imported inside the commands (fast --help)
    from gamedb.builder import BuildReport
    from gamedb.builder.estimate import Estimate
    from gamedb.verify import VerifyReport

#: ``gamedb.builder.CHUNK_SIZE``, written out so that ``build --help`` need not import the
#: solver (tests/test_cli_startup.py checks that the two agree).
_CHUNK_SIZE = 32_768

def default_db_path(spec: str) -> Path:
    """Return ``<spec>.sqlite`` in the current directory, the spec written as a file name.

    Never inside the checkout's ``data/``: that folder holds only the shipped files.

    >>> default_db_path("jujitsu(num_cards=8,ties=carry)").as_posix()
    'jujitsu_num_cards=8_ties=carry.sqlite'
    """
    return Path(re.sub(r"[(),]+", "_", spec).strip("_") + ".sqlite")


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@cli.command(name="build")
@click.argument("spec")
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Database file (default: <spec>.sqlite in the current directory, e.g. "
                   "jujitsu_num_cards=8_ties=carry.sqlite). A partial build resumes.")
@click.option("--workers", default=lambda: min(64, _usable_cpus()), show_default="all usable CPUs",
              type=click.IntRange(1, 64),
              help="Processes expanding and solving big layers in parallel (small games "
                   "never start them).")
@click.option("--chunk-size", default=_CHUNK_SIZE, show_default=True,
              type=click.IntRange(1, 10_000_000), help="States per transaction.")
@click.option("--values-only", is_flag=True,
              help="Store values, not strategies (huge builds; strategies are then "
                   "solved on demand from the stored successor values).")
@click.option("--strategies-from", type=click.IntRange(0, None), default=None,
              help="Store strategies only for positions of this layer and up (cards in "
                   "hand for Goofspiel); the others are stored as with --values-only. "
                   "Default: every layer, except point-difference Goofspiel of 11 or more "
                   "cards: 11 cards in hand and up.")
@click.option("--pages-below", type=click.IntRange(0, None), default=None,
              help="Store the layers below this one as compressed pages of values (no "
                   "strategies, ~7 bytes a position instead of ~28) rather than one SQLite "
                   "row each; `gamedb show`, `gamedb verify` and the standalone "
                   "`gamedb/probe.py` read both. Default: the "
                   "layers without strategies of point-difference Goofspiel of 11 or more "
                   "cards (docs/format.md); rows everywhere else. 0: rows only.")
@click.option("--page-min", type=click.IntRange(0, None), default=None,
              help="Store every other layer of at least this many positions as keyed "
                   "pages: keys, values, gaps and strategies compressed together (~9-47 "
                   "bytes a position with strategies instead of ~140 in rows; plain SQL "
                   "sees rows only). Default: 65536 (one page) for Goofspiel built through "
                   "its index, 0 (rows only) for the other families. A resumed build keeps "
                   "its own.")
@click.option("--page-size", type=click.IntRange(1, 1 << 24), default=65_536,
              show_default=True,
              help="Values per page of a page layer, at most (a page holds whole blocks of "
                   "the game's index, at least one). Smaller pages: faster single reads, "
                   "larger files.")
@click.option("--cluster", metavar="ADDRESS", callback=lambda ctx, param, value: _cluster(value),
              help="Solve the chunks on a Dask cluster instead of --workers processes: "
                   "tcp://HOST:PORT (a running Dask scheduler) or local:N (a Dask cluster "
                   "in this process, N worker threads, started and stopped here). This process still writes the "
                   "file. A scheduler has 10 s to accept and 10 s to answer "
                   "(GAMEDB_CLUSTER_TIMEOUT=SECONDS in the environment sets both). Needs "
                   "the cluster extra (docs/cluster.md).")
@click.option("--cluster-workers", type=click.IntRange(1, 1_000_000), default=None,
              help="With --estimate --cluster tcp://HOST:PORT: plan for this many "
                   "single-threaded Dask workers (default: the running scheduler's).")
@click.option("--worker-memory", metavar="SIZE", default=None,
              callback=lambda ctx, param, value: _memory(value),
              help="With --estimate --cluster tcp://HOST:PORT: plan for workers of this "
                   "much memory, e.g. 8GiB (default: the running scheduler's memory limit).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--estimate", "only_estimate", is_flag=True,
              help="Print the positions, memory, disk and time the build would take; "
                   "build nothing.")
@click.option("--force", is_flag=True,
              help="Build even if the estimated memory exceeds the memory available.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the final report (or with --estimate, the estimate) as JSON.")
@user_errors
def build_command(spec: str, db_path: Path | None, workers: int, chunk_size: int,
                  values_only: bool, strategies_from: int | None, pages_below: int | None,
                  page_min: int | None,
                  page_size: int, cluster: str | None, cluster_workers: int | None,
                  worker_memory: int | None, quiet: bool, only_estimate: bool, force: bool,
                  as_json: bool) -> None:
    """Solve every reachable position of SPEC into a SQLite database.

    Without --db the file is SPEC written as a file name, in the current directory
    (never in the checkout's data/, which holds only the shipped files). The first
    build compiles the solver (10-20 s, once; cached afterwards). A build that would
    need more memory than this machine has available is refused up front with its
    estimate (--force builds anyway).

    \b
    Example:
        gamedb build "jujitsu(num_cards=8)"      # writes jujitsu_num_cards=8_ties=carry.sqlite
        gamedb build "jujitsu(num_cards=13)" --db j13.sqlite --workers 2
        gamedb build "goofspiel(num_cards=11)" --db g11.sqlite --cluster tcp://10.0.0.5:8786
        gamedb build "nim(heaps=1-3-5-7)" --db nim.sqlite --quiet --json
        gamedb build "goofspiel(num_cards=13)" --estimate
        gamedb build "goofspiel(num_cards=13)" --estimate --cluster tcp://10.0.0.5:8786 \\
            --cluster-workers 64 --worker-memory 8GiB      # the plan, layer by layer
    """
    from gamedb.builder import build
    from gamedb.builder.cluster import ClusterError, parse_address, processes_here
    from gamedb.builder.estimate import available_memory, estimate
    from gamedb.games import load_game
    from gamedb.builder.workers import WorkerDied

    if spec.endswith(".sqlite") or os.path.isfile(spec):  # isfile: False for a huge name
        raise click.ClickException(
            f"{spec!r} is a file, not a game spec; to resume or inspect a file, give it with "
            f"--db: gamedb build SPEC --db {spec} (gamedb info {spec} shows its SPEC)")
    if db_path is not None and not db_path.name:  # --db "": Path('') is the folder '.'
        raise click.BadParameter("an empty name; give the file to write, e.g. --db game.sqlite",
                                 param_hint="'--db'")
    if values_only and strategies_from is not None:  # the file recorded both, silently
        raise click.UsageError("--values-only stores no strategies and --strategies-from N "
                               "stores them from layer N up: give one of the two")
    scheduler = cluster is not None and parse_address(cluster)[0] == "scheduler"
    if (cluster_workers or worker_memory) and not scheduler:
        raise click.UsageError(
            "--cluster-workers and --worker-memory plan the map and reduce tasks of a "
            "Dask scheduler's workers: give its address with --cluster tcp://HOST:PORT "
            "and --estimate (local:N's threads share this machine: --estimate alone "
            "counts them)")
    game = load_game(spec)
    if strategies_from is not None:
        _refuse_above_the_top(game, strategies_from)
    if only_estimate and scheduler and _print_cluster_plan(  # local:N: as --workers N
            game, str(cluster), cluster_workers, worker_memory, as_json, quiet):
        return
    if only_estimate:
        guess = estimate(game, workers=processes_here(workers, cluster),
                         values_only=values_only, strategies_from=strategies_from,
                         pages_below=pages_below, page_min=page_min)
        click.echo(json.dumps(vars_of(guess)) if as_json else _estimate_table(guess))
        return
    path = db_path or default_db_path(game.spec)
    if not path.parent.is_dir():  # a typo in a path must not make a new tree
        raise click.ClickException(f"cannot write {path}: folder {str(path.parent)!r} "
                                   "does not exist")
    try:
        with progress_bar(quiet, "states", warm_up=True) as on_progress:
            report = build(game, path, workers=workers, chunk_size=chunk_size,
                           observer=on_progress, values_only=values_only,
                           strategies_from=strategies_from, cluster=cluster,
                           pages_below=pages_below, page_size=page_size, page_min=page_min,
                           max_memory=None if force else available_memory())
        click.echo(json.dumps(vars_of(report)) if as_json else _format_report(report))
    except KeyboardInterrupt:  # also while the report is printed: the same line
        click.echo(f"interrupted: every finished chunk is saved in {path}; run the same "
                   "command to resume" if path.exists() else  # e.g. reaching a cluster
                   f"interrupted before {path} was written: nothing to resume", err=True)
        raise SystemExit(130) from None
    except (WorkerDied, ClusterError) as exc:
        raise click.ClickException(f"{path}: {exc}") from None


def _refuse_above_the_top(game: Any, strategies_from: int) -> None:
    """A usage error for ``--strategies-from`` above the game's top layer (the start's):
    no layer would store a strategy, in a file that does not say it is values-only."""
    from gamedb.games.base import top_layer

    top = top_layer(game)
    if strategies_from > top:
        raise click.BadParameter(
            f"{strategies_from}: the game's top layer is {top}, so no layer would store "
            f"a strategy; give 0..{top}, or --values-only to store none",
            param_hint="'--strategies-from'")


def _print_cluster_plan(game: Any, cluster: str, workers: int | None, memory: int | None,
                        as_json: bool, quiet: bool) -> bool:
    """Print the plan of a build by map and reduce tasks (win/loss Goofspiel) on the
    workers of the Dask scheduler at ``cluster``; False for a game built otherwise (its
    estimate is the one-machine one). Unless ``quiet``, say first on stderr that the
    exact counts it needs take a while (the build's forward pass: 9 s at 11 cards, 12-16
    minutes at 13; the one-machine estimate extrapolates in a second)."""
    from dataclasses import asdict

    from gamedb.builder.cluster import ClusterError
    from gamedb.builder.cluster_plan import cluster_shape, plan, table
    from gamedb.builder.estimate import available_memory
    from gamedb.builder.grouped import is_grouped

    face = game.indexed_face()
    if face is None or not is_grouped(face):
        return False
    try:
        count, each = cluster_shape(cluster, workers, memory, available_memory())
    except ClusterError as exc:
        raise click.ClickException(f"{exc}; or give --cluster-workers and --worker-memory "
                                   "to plan without it") from None
    if each <= 0:
        raise click.ClickException("the memory of a worker is not known: give "
                                   "--worker-memory (e.g. 8GiB)")
    if not quiet:
        click.echo("counting every layer's positions, prize sets and score sets exactly "
                   "(the build's forward pass; 11 cards: about 10 s, 13 cards: 12-16 min "
                   "and 4.7 GB on a 2-core machine) ...", err=True)
    found = plan(face, game.spec, count, each)
    if as_json:
        click.echo(json.dumps({**asdict(found), "cpu_seconds": found.cpu_seconds,
                               "wall_seconds": found.wall_seconds,
                               "disk_bytes": found.disk_bytes, "worker_peak": found.worker_peak,
                               "fits": found.fits}))
    else:
        click.echo(table(found))
    return True


def _memory(text: str | None) -> int | None:
    """Check ``--worker-memory`` (a usage error, exit 2)."""
    from gamedb.builder.cluster_plan import parse_size

    if text is None:
        return None
    try:
        return parse_size(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _cluster(address: str | None) -> str | None:
    """Check ``--cluster``'s syntax (a usage error, exit 2) without importing Dask."""
    from gamedb.builder.cluster import parse_address

    if address is not None:
        try:
            parse_address(address)
        except ValueError as exc:
            raise click.BadParameter(str(exc)) from None
    return address


def _estimate_table(guess: Estimate) -> str:
    from gamedb.builder.estimate import available_memory, duration, size

    positions = (f"{guess.positions:,}" if guess.exact
                 else f"about {guess.positions:.1e} (extrapolated from smaller sizes)")
    available = available_memory()
    rows = [("positions", positions), ("peak memory", size(guess.memory_bytes)),
            ("disk", size(guess.disk_bytes)), ("time", duration(guess.seconds)),
            ("workers", f"{guess.processes} on this machine"),
            ("memory available", size(available) if available is not None else "unknown")]
    if available is not None:
        rows.append(("verdict", "fits: gamedb build runs" if guess.memory_bytes <= available
                     else "refused here: the peak memory exceeds the memory available "
                          "(--force builds anyway)"))
    return f"{guess.spec}\n" + "\n".join(f"  {name:<17} {value}" for name, value in rows)


def _format_report(report: BuildReport) -> str:
    if report.solved == 0:
        return f"{report.path}: already complete ({report.states:,} states), nothing to do"
    rate = report.solved / report.seconds if report.seconds else 0.0
    return (f"{report.path}: {report.status}, {report.states:,} states, solved "
            f"{report.solved:,} in {report.seconds:.2f} s ({rate:,.0f}/s), "
            f"root value {'-' if report.root_value is None else signed(report.root_value)}")


@cli.command(name="verify")
@click.argument("db_path", metavar="DB", type=click.Path(path_type=Path))
@click.option("--sample", type=click.IntRange(1), help="Check N random positions (huge files).")
@click.option("--exact", is_flag=True,
              help="Also re-solve each checked stage game in rational arithmetic.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of --sample.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@user_errors
def verify_command(db_path: Path, sample: int | None, exact: bool, seed: int,
                   as_json: bool, quiet: bool) -> None:
    """Re-derive every stored stage game from stored values and re-check its solution.

    Exit status 0 when every position is an equilibrium within 1e-9 (relative to its
    payoff range, as the solver checks; a float32 copy from gamedb ship: plus twice its
    rounding error, which the summary states), 1 otherwise: the failing positions are
    listed, those whose successors all passed (the altered ones) first.

    \b
    Example:
        gamedb verify data/jujitsu_num_cards=8_ties=carry.shipped.sqlite --exact
        gamedb verify big.sqlite --sample 100000
    """
    from gamedb.verify import verify

    with progress_bar(quiet or not sys.stderr.isatty(), "positions") as on_progress:
        report = verify(db_path, sample=sample, exact=exact, seed=seed, on_progress=on_progress)
    click.echo(json.dumps(_verify_json(report)) if as_json else _verify_table(report))
    if not report.ok:
        raise click.ClickException(_verdict(db_path, report))


def _verify_json(report: VerifyReport) -> dict[str, Any]:
    return {"ok": report.ok, "states": report.states, "checked": report.checked,
            "max_gap": report.max_gap, "max_exact_error": report.max_exact_error,
            "failures": report.failures, "failing_keys": report.failing_keys,
            "failed": [vars_of(f) for f in report.failed], "problems": report.problems,
            "note": report.note,
            "layers": {str(k): vars_of(x) for k, x in sorted(report.layers.items())}}


def _verify_table(report: VerifyReport) -> str:
    rows = [(str(k), f"{x.checked:,}", f"{x.max_gap:.1e}", str(x.failures))
            for k, x in sorted(report.layers.items(), reverse=True)]
    exact = ("" if report.max_exact_error is None
             else f", max error against exact rationals {report.max_exact_error:.1e}")
    lines = [table(("layer", "checked", "max gap", "failures"), rows), "",
             f"{report.checked:,} of {report.states:,} positions checked, max gap "
             f"{report.max_gap:.1e}{exact}: {'sound' if report.ok else 'NOT sound'}"]
    lines += [f"  {problem}" for problem in report.problems]
    lines += [f"  ({report.note})"] if report.note else []
    lines += [f"  FAIL {f.position} (key {f.key}, layer {f.layer}): {f.reason}"
              + (" [a successor fails too]" if f.after_successor else "")
              for f in report.failed]
    if report.failures > len(report.failed):
        lines.append(f"  ... and {report.failures - len(report.failed):,} more")
    return "\n".join(lines)


def _verdict(path: Path, report: VerifyReport) -> str:
    if report.failed:
        first = report.failed[0]
        return (f"{path}: {report.failures:,} position(s) fail, first {first.position} "
                f"(key {first.key}): {first.reason}")
    if report.problems:
        return f"{path}: {report.problems[0]}"
    return f"{path}: no position was checked"


@cli.command(name="upgrade")
@click.argument("db_path", metavar="DB", type=click.Path(path_type=Path))
@click.option("--no-backup", is_flag=True,
              help="Do not copy the file first (for a file too big to copy). The upgrade "
                   "is one transaction either way: a failure leaves the file as it was.")
@user_errors
def upgrade_command(db_path: Path, no_backup: bool) -> None:
    """Upgrade a database file written by an older gamedb to the current schema.

    A copy of the file is kept beside it (DB.bak-REVISION) unless --no-backup is given.

    \b
    Example:
        gamedb upgrade old.sqlite
    """
    from gamedb.store.migrate import backup_path, upgrade_file

    before, after = upgrade_file(db_path, backup=not no_backup)
    kept = "no backup" if no_backup else f"backup: {backup_path(db_path, before)}"
    click.echo(f"{db_path}: schema {before} -> {after} ({kept})"
               if before != after else f"{db_path}: already at schema {after}")
