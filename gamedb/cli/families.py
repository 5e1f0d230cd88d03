"""Commands that describe the game families: games, rules."""

from __future__ import annotations

import json
from typing import Any

import click

from gamedb.cli._common import cli, user_errors

_RULES_HINT = "gamedb rules FAMILY explains a game's rules and positions."


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
def games(as_json: bool) -> None:
    """List the game families and their parameters.

    \b
    Example:
        gamedb games
        gamedb games --json
    """
    from gamedb.games import GAMES, format_spec

    families = [{"name": name, "spec": format_spec(name, {p.name: p.default for p in cls.params}),
                 "params": [_param_json(p) for p in cls.params]}
                for name, cls in sorted(GAMES.items())]
    click.echo(json.dumps(families, indent=2) if as_json else
               _games_table(families) + f"\n\n{_RULES_HINT}")


def _param_json(param: Any) -> dict[str, Any]:
    return {"name": param.name, "type": param.kind.__name__, "default": param.default,
            "low": param.low, "high": param.high, "choices": list(param.choices) or None,
            "doc": param.doc}


def _games_table(families: list[dict[str, Any]]) -> str:
    lines = []
    for family in families:
        lines += [family["name"], *_params_table(family["params"])]
    return "\n".join(lines)


def _params_table(params: list[dict[str, Any]]) -> list[str]:
    return [f"  {p['name']:<14} {_param_range(p):<28} {p['doc']} (default: {p['default']})"
            for p in params] or ["  (no parameters)"]


def _param_range(param: dict[str, Any]) -> str:
    """Write a parameter's allowed values: ``a|b``, ``1..16``, ``>= 0`` or its type.

    >>> _param_range({"choices": None, "low": 0, "high": None, "type": "int"})
    '>= 0'
    """
    low, high = param["low"], param["high"]
    if param["choices"]:
        return "|".join(param["choices"])
    if low is not None and high is not None:
        return f"{low}..{high}"
    if low is not None or high is not None:
        return f">= {low}" if low is not None else f"<= {high}"
    return str({"int": "integer", "str": "text"}.get(param["type"], param["type"]))


@cli.command()
@click.argument("family")
@user_errors
def rules(family: str) -> None:
    """Explain a game family: its rules, how to write a position, example commands.

    FAMILY is a name from `gamedb games` (a whole spec works too).

    \b
    Example:
        gamedb rules jujitsu
        gamedb rules "oshi_zumo(coins=10)"
    """
    from gamedb.games import GAMES, parse_spec

    cls = GAMES[parse_spec(family)[0]]
    params = _params_table([_param_json(p) for p in cls.params])
    head = (f"Parameters (in a spec such as {cls.name}(name=value,...))" if cls.params
            else f"Parameters: none (the spec is {cls.name})")
    click.echo("\n".join([cls.rules.rstrip(), "", head, *params[:len(cls.params)]]))
