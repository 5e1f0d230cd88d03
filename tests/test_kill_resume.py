"""Crash safety: real builds killed with SIGKILL at random moments resume to the same file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parents[1] / "bench" / "kill_resume.py"


@pytest.mark.slow
@pytest.mark.parametrize("spec,chunk,extra", [
    ("jujitsu(num_cards=8)", "32", ""),
    ("goofspiel(num_cards=6)", "500", ""),  # win/loss through its indexed face: killed mid-layer
    # page layers 1-7, pages of at most 500 values: killed between and inside pages' chunks
    ("goofspiel(num_cards=8,returns_type=point_difference)", "2000",
     "--pages-below 8 --strategies-from 8 --page-size 500"),
    # keyed pages with strategies (win/loss: keys no product), pages of about 700
    ("goofspiel(num_cards=7)", "700", "--page-min 1000 --page-size 700"),
    # the enumerating builder's keyed pages: one page a chunk
    ("jujitsu(num_cards=9)", "40", "--page-min 100"),
])
def test_randomly_killed_builds_resume_to_the_reference_database(spec: str, chunk: str,
                                                                  extra: str) -> None:
    result = subprocess.run(
        [sys.executable, str(HARNESS), "--spec", spec, "--kills", "10",
         "--chunk-size", chunk, "--seed", "7", "--build-args", extra],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "10 kills" in result.stdout and "every resumed database identical" in result.stdout
