"""gamedb.jit: numba's cache as a long command sees it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gamedb.jit import needs_compiling


def test_needs_compiling_sees_the_compiled_helpers_a_module_imports(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game module whose kernels live in a helper module (``goofspiel`` and
    ``goofspiel_keys``) still says that its first build compiles."""
    (tmp_path / "fresh_kernels.py").write_text(
        "from gamedb.jit import njit\n\n@njit(cache=True)\ndef thrice(x):\n    return 3 * x\n")
    (tmp_path / "fresh_rules.py").write_text("from fresh_kernels import thrice\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert needs_compiling("fresh_rules")
    assert sys.modules["fresh_rules"].thrice(2) == 6  # compiles and writes the cache
    assert not needs_compiling("fresh_rules")
