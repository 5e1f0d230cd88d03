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


def test_a_cache_compiled_with_other_options_is_not_loaded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """numba's cache is keyed by the source file's time and size, not by the options: a
    kernel module left unchanged while ``gamedb.jit`` started releasing the GIL loaded
    its old compiled code, which holds it (a checkout updated in place: ``local:2``'s two
    threads took turns, 11 cards in 35 s instead of 19). Such a cache is compiled again."""
    (tmp_path / "stale_jit.py").write_text("from numba import njit\n")  # the old options
    (tmp_path / "stale_kernels.py").write_text(
        "from stale_jit import njit\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import stale_kernels  # type: ignore[import-not-found]

    assert stale_kernels.twice(3) == 6  # compiled, cached
    (tmp_path / "stale_jit.py").write_text("from gamedb.jit import njit\n")  # same kernels
    for name in ("stale_jit", "stale_kernels"):
        del sys.modules[name]
    import stale_kernels  # type: ignore[import-not-found,no-redef]

    assert stale_kernels.twice(3) == 6
    assert stale_kernels.twice.targetoptions["nogil"]
    assert (sum(stale_kernels.twice._cache_hits.values()),
            sum(stale_kernels.twice._cache_misses.values())) == (0, 1)
    del sys.modules["stale_kernels"]
    import stale_kernels  # type: ignore[import-not-found,no-redef]  # its own cache: loaded

    assert stale_kernels.twice(3) == 6 and sum(stale_kernels.twice._cache_hits.values()) == 1


def test_a_module_compiled_once_does_not_say_it_compiles_for_a_function_never_called(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every build said "compiling first" although its code was cached: a helper that
    builds never call (``hashing._find``, used by reads) never gets a cache entry. A
    module compiles anew only all at once (first run, or its source changed)."""
    (tmp_path / "half_used.py").write_text(
        "from gamedb.jit import njit\n\n@njit(cache=True)\ndef used(x):\n    return 3 * x\n"
        "\n\n@njit(cache=True)\ndef never(x):\n    return 5 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert needs_compiling("half_used")
    assert sys.modules["half_used"].used(2) == 6
    assert not needs_compiling("half_used")
