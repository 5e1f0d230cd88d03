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


def test_every_compiled_function_of_gamedb_releases_the_gil() -> None:
    """``--cluster local:N`` solves in N threads of the builder's process: a compiled
    function holding the GIL would run them one at a time."""
    import importlib
    import pkgutil

    import numba

    import gamedb

    compiled = {}
    for info in pkgutil.walk_packages(gamedb.__path__, "gamedb."):
        if info.name.startswith(("gamedb.web", "gamedb.openspiel", "gamedb.cli",
                                 "gamedb.__main__")):
            continue  # optional extras and the command line: no compiled code
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if isinstance(obj, numba.core.dispatcher.Dispatcher) and obj.__module__ == info.name:
                compiled[f"{info.name}.{name}"] = obj.targetoptions.get("nogil", False)
    assert len(compiled) > 40, sorted(compiled)
    assert [name for name, nogil in compiled.items() if not nogil] == []
