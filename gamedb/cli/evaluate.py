"""The evaluate command: one agent's exact payoff against the equilibrium and its best response."""

from __future__ import annotations

import json
from pathlib import Path

import click

from gamedb.cli._common import cli, progress_bar, signed, table, user_errors, vars_of
from gamedb.cli.play import AGENT_NAMES


@cli.command(epilog=AGENT_NAMES)
@click.argument("db_path", metavar="DB", type=click.Path(path_type=Path))
@click.argument("agent")
@click.option("--exact", is_flag=True,
              help="Evaluate even a game too big for it (refused otherwise, up front: "
                   "minutes and gigabytes past 30,000 positions).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@click.option("--quiet", is_flag=True, help="No progress bar on stderr.")
@user_errors
def evaluate(db_path: Path, agent: str, exact: bool, as_json: bool, quiet: bool) -> None:
    """Score AGENT exactly: its payoff against DB's equilibrium and against its best
    response, in each seat, and its exploitability (no sampling, no LP).

    AGENT is a built-in name (below), module:callable (a Python function (game, state,
    player) -> {action: probability}) or openspiel:module:attr (an OpenSpiel policy, or
    a function of the pyspiel game returning one; docs/openspiel.md). Exact for agents
    whose moves depend on the position only. Agents that play alike at positions the
    file stores as one (random, equilibrium) are scored by layers over the stored
    positions, which also shows where the best response gains: by layer, and the
    positions where the agent loses most. Progress and ETA on stderr.

    \b
    Example:
        gamedb evaluate g5.sqlite random
        gamedb evaluate g5.sqlite level-2 --json
        gamedb evaluate g4.sqlite openspiel:my_agents:policy
    """
    from gamedb.play.names import make_agent
    from gamedb.play.score import check_scorable, score_agent
    from gamedb.store import open_db

    with open_db(db_path) as db:
        player = make_agent(agent, db.game, db)
        positions = db.meta.get("states")
        if not exact and isinstance(positions, int):
            check_scorable(db.game, player, positions,
                           instead="insist with --exact, or simulate with gamedb match --games")
        with progress_bar(quiet, "positions") as on_progress:
            score = score_agent(db.game, db, player, on_progress=on_progress)
    fields = vars_of(score)
    del fields["best_response"]  # an agent (a move per position), not a number
    fields["layers"] = [vars_of(layer) for layer in score.layers]
    fields["worst"] = [vars_of(worst) for worst in score.worst]
    if as_json:
        click.echo(json.dumps(fields))
        return
    click.echo(f"{score.agent} in {score.spec} (game value {signed(score.value)} for player 1)\n")
    click.echo(table(["", "seat 1", "seat 2"], [
        ["vs equilibrium", *(signed(v) for v in score.vs_equilibrium)],
        ["vs best response", *(signed(v) for v in score.vs_best_response)]]))
    click.echo(f"\nexploitability {score.exploitability:.6f}   ({score.seconds:.1f} s, "
               f"by {score.method})")
    if score.layers:
        click.echo("\nwhat the best response gains, by layer\n" + table(
            ["layer", "positions", "seat 1", "seat 2"],
            [[str(lay.layer), f"{lay.positions:,}", *(f"{x:.6f}" for x in lay.loss)]
             for lay in score.layers]))
    if score.worst:
        click.echo("\nwhere it loses most (stored positions)\n" + table(
            ["seat", "as", "reach", "loss", "position"],
            [[str(w.seat), f"player {w.player}", f"{w.reach:.4f}", f"{w.loss:.4f}", w.position]
             for w in score.worst]))
