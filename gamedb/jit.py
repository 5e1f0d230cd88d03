"""numba, imported without its optional SciPy and cffi probes (~0.5 s of every command).

When numba's typing registries load (at the first compiled or cached call) they import
``numba.np.arraymath``, which imports ``scipy.linalg`` only to learn whether BLAS is
there for ``np.correlate``/``np.convolve``, and ``numba.core.typing.cffi_utils``, which
imports ``cffi`` (if installed) to type cffi functions. gamedb's compiled code uses
none of these, and they cost more start-up than a whole small build. So those two
modules are loaded here once with ``scipy.linalg`` and ``cffi`` hidden; anything
compiled later that needs BLAS (``np.dot``) still imports SciPy normally. Every gamedb
module takes ``numba`` from here.
"""

from __future__ import annotations

import sys


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
from numba import njit  # noqa: E402

__all__ = ["numba", "njit"]
