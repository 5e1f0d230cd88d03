"""The ``gamedb`` command line: thin click commands over the library.

One module per group of commands; each registers itself on the ``cli`` group.
"""

from __future__ import annotations

import os
import sys

try:
    from gamedb.cli._common import cli
    from gamedb.cli import evaluate, families, inspect, play, query, serve, solve  # noqa: F401  (registers the commands)
except KeyboardInterrupt:  # Ctrl-C while the program starts: one line, as in a command
    program = sys.modules.get("__main__")
    if os.path.basename(sys.argv[0]) != "gamedb" and getattr(
            getattr(program, "__spec__", None), "name", None) != "gamedb.__main__":
        raise  # imported by a program of its own: its Ctrl-C
    sys.stderr.write("interrupted\n")
    raise SystemExit(130) from None


def main() -> None:
    """The ``gamedb`` program (``python -m gamedb`` too): run ``cli``, then end without
    the interpreter's teardown (``gamedb.cli.exit``)."""
    from gamedb.cli.exit import exit_now

    try:
        cli()
    except SystemExit as exc:
        exit_now(exc.code)
    exit_now(0)


__all__ = ["cli", "main"]
