"""numba, imported without its optional SciPy and cffi probes (~0.5 s of every command).

When numba's typing registries load (at the first compiled or cached call) they import
``numba.np.arraymath``, which imports ``scipy.linalg`` only to learn whether BLAS is
there for ``np.correlate``/``np.convolve``, and ``numba.core.typing.cffi_utils``, which
imports ``cffi`` (if installed) to type cffi functions. gamedb's compiled code uses
none of these, and they cost more start-up than a whole small build. So those two
modules are loaded here once with ``scipy.linalg`` and ``cffi`` hidden; anything
compiled later that needs BLAS (``np.dot``) still imports SciPy normally. Every gamedb
module takes ``njit`` from here: numba's, releasing the GIL (``nogil=True``) so that
threads run compiled code in parallel.

`needs_compiling` tells whether a module's compiled functions are in numba's on-disk
cache yet, so a long command can say that its first run compiles (once).

Typing (``mypy --strict``, run by ``.ci/run``): numba ignores Python annotations, so a
compiled kernel is annotated like any function (arrays ``npt.NDArray[...]``, scalars
``int``/``float``/``bool``, or ``int | np.int64`` where numpy scalars come in; numba
infers finer types from the call) and mypy checks its body: no kernel needs a
``# type: ignore``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any, TypeVar, cast


def _load_without(hidden: str, module: str) -> None:
    """Import ``module`` while ``import hidden`` raises ImportError."""
    if module in sys.modules or hidden in sys.modules:
        return
    sys.modules[hidden] = None  # type: ignore[assignment]  # import -> ImportError
    try:
        __import__(module)
    finally:
        if sys.modules.get(hidden, 0) is None:
            del sys.modules[hidden]


_load_without("scipy.linalg", "numba.np.arraymath")
_load_without("cffi", "numba.core.typing.cffi_utils")

import numba  # noqa: E402

F = TypeVar("F", bound=Callable[..., Any])


def njit(**options: Any) -> Callable[[F], F]:
    """``numba.njit(**options)``, releasing the GIL unless told otherwise
    (``nogil=True``): the compiled code of threads in one process runs in parallel
    (``--cluster local:N``'s workers are threads of the builder's process).

    numba's on-disk cache (``cache=True``) is valid while the function's source file is
    unchanged (its time and size): it does not look at the options. So a cache compiled
    with other options (a checkout whose ``gamedb/jit.py`` changed and whose kernels did
    not: code that holds the GIL, its two threads taking turns, 11 cards in 35 s instead
    of 19) would be loaded. The options are added to that stamp: such a cache is stale,
    compiled again once."""
    options.setdefault("nogil", True)
    compile_ = numba.njit(**options)
    salt = repr(sorted((k, v) for k, v in options.items() if k != "cache"))

    def decorate(func: F) -> F:
        dispatcher = compile_(func)
        cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
        if cache_file is not None and hasattr(cache_file, "_source_stamp"):
            cache_file._source_stamp = (cache_file._source_stamp, salt)
        return cast(F, dispatcher)

    return decorate



def needs_compiling(*modules: str) -> bool:
    """Return True if the cached (``cache=True``) compiled functions of ``modules`` come
    from a source file none of whose functions has a compiled version in numba's on-disk
    cache yet: its first run, or its source changed (which voids the cache of every
    function of the file at once).

    A file with some functions cached has run before: the others are functions that no
    run has called yet (``hashing._find`` is called by reads, never by a build), and a
    command that needs one compiles it in well under a second.

    A module's compiled functions are those in its namespace, its own and those it
    imports (``goofspiel`` calls ``goofspiel.keys``'s). Helpers inlined into their
    callers (``inline="always"``) are never cached on their own and are skipped. A cache
    numba does not let us read counts as present.

    >>> needs_compiling("gamedb.bits")   # no compiled functions at all
    False
    """
    files: dict[str, bool] = {}  # source file of compiled functions: one of them cached
    for name in modules:
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if _compiled(obj):
                where = obj.py_func.__code__.co_filename
                files[where] = files.get(where, False) or not _uncached(obj)
    return not all(files.values())


def _compiled(obj: Any) -> bool:
    """True for a compiled function numba caches on its own (not inlined)."""
    return (isinstance(obj, numba.core.dispatcher.Dispatcher)
            and obj.targetoptions.get("inline", "never") == "never")


def _uncached(obj: Any) -> bool:
    """True for a compiled function (``_compiled``) with no version in the cache."""
    if not _compiled(obj):
        return False
    try:
        # numba's private cache index ({} when empty), untyped in its stubs
        return not getattr(obj, "_cache")._cache_file._load_index()
    except Exception:  # noqa: BLE001  (a numba without this layout, or no cache: unknown)
        return False


__all__ = ["needs_compiling", "numba", "njit"]
