"""The array types the package shares: one home, imported everywhere they are used.

>>> import numpy as np
>>> keys: Keys = np.array([1 << 48], np.int64)
"""

from __future__ import annotations

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

__all__ = ["Bools", "Floats", "Ints", "Keys"]
