"""The peer tests share bench/openspiel_peer.py (OpenSpiel's value iteration, HiGHS LP)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
