"""The types the package shares, arrays and progress callbacks: one home, imported
everywhere they are used.

>>> import numpy as np
>>> keys: Keys = np.array([1 << 48], np.int64)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

Floats: TypeAlias = npt.NDArray[np.float64]
"""Values, probabilities, gaps: float64 arrays."""
Ints: TypeAlias = npt.NDArray[np.int64]
"""Counts, labels, indices: int64 arrays."""
Keys: TypeAlias = npt.NDArray[np.int64]
"""Canonical position keys (``games.base``: the layer in bits 48 and up)."""
Bools: TypeAlias = npt.NDArray[np.bool_]
"""Masks."""

Progress: TypeAlias = Callable[[int, int], None]
"""``on_progress(done, total)``: work done of a total known in advance."""
OpenProgress: TypeAlias = Callable[[int, int | None], None]
"""``on_progress(done, total)``; ``total`` is None where it is not known in advance."""

__all__ = ["Bools", "Floats", "Ints", "Keys", "OpenProgress", "Progress"]
