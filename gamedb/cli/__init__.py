"""The ``gamedb`` command line: thin click commands over the library.

One module per group of commands; each registers itself on the ``cli`` group.
"""

from __future__ import annotations

from gamedb.cli._common import cli
from gamedb.cli import families, inspect, play, query, serve, solve  # noqa: F401  (registers the commands)

__all__ = ["cli"]
