"""numba, imported without its SciPy BLAS probe (0.4-0.5 s of every command).

When numba's typing registries load (at the first compiled or cached call) they import
``numba.np.arraymath``, which imports ``scipy.linalg`` only to learn whether BLAS is
there for ``np.correlate``/``np.convolve``. gamedb's compiled code uses neither, and
SciPy's linear algebra costs more start-up than a whole small build. So that module is
loaded here once with ``scipy.linalg`` hidden; anything compiled later that needs BLAS
(``np.dot``) still imports SciPy normally. Every gamedb module takes ``numba`` from here.
"""

from __future__ import annotations

import sys


def _load_arraymath_without_scipy_blas() -> None:
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    sys.modules["scipy.linalg"] = None  # type: ignore[assignment]  # import -> ImportError
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        if sys.modules.get("scipy.linalg", 0) is None:
            del sys.modules["scipy.linalg"]


_load_arraymath_without_scipy_blas()

import numba  # noqa: E402
from numba import njit  # noqa: E402

__all__ = ["numba", "njit"]
