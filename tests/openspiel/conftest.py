"""The bridge's tests share reference.py (here) and bench/openspiel_peer.py (value iteration)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "bench"))

#: The games every position of which is compared with OpenSpiel (issue 23).
CASES = [f"goofspiel(num_cards=4,points_order={order},returns_type={returns})"
         for order in ("random", "descending") for returns in ("win_loss", "point_difference")
         ] + ["oshi_zumo(coins=10,min_bid=1,size=2)"]


@pytest.fixture(scope="session")
def bridge_of(built):  # type: ignore[no-untyped-def]
    """Return a function: spec -> a ``Bridge`` over its file, built once per session."""
    from gamedb.openspiel.bridge import Bridge

    opened: dict[str, Bridge] = {}

    def get(spec: str) -> Bridge:
        if spec not in opened:
            opened[spec] = Bridge.open(built(spec))
        return opened[spec]

    yield get
    for bridge in opened.values():
        bridge.close()
