"""SplitMix64 in plain Python, for the NumPy references (the compiled one is ``evofeat/_core/rng.pxd``).

Steele, Lea, Flood. Fast Splittable Pseudorandom Number Generators. OOPSLA
2014: advance a 64-bit state by the golden gamma, mix it; a uniform is the top
53 bits of the mixed word times ``2^-53``, in ``[0, 1)``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["draw_uniform", "uniform"]

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix(z: int) -> int:
    """SplitMix64's finaliser on a 64-bit word."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def uniform(state: np.ndarray) -> float:
    """Advance the SplitMix64 ``state`` (a ``uint64`` array of one entry, in place); its next uniform.

    >>> state = np.array([0], dtype=np.uint64)
    >>> round(uniform(state), 6), hex(int(state[0]))
    (0.883311, '0x9e3779b97f4a7c15')
    """
    s = (int(state[0]) + _GOLDEN) & _MASK
    state[0] = s
    return (_mix(s) >> 11) * (1.0 / 9007199254740992.0)


def draw_uniform(seed: int, stream: int, k: int) -> float:
    """The ``k``-th uniform in ``[0, 1)`` of ``stream`` under ``seed`` (counter-based: no state).

    The same numbers as ``draw_uniform`` of ``_core/rng.pxd``: mix the seed, then the
    stream, then the counter, each offset by the golden gamma.

    >>> round(draw_uniform(0, 0, 0), 6), draw_uniform(3, 1, 2) == draw_uniform(3, 1, 2)
    (0.203103, True)
    """
    z = _mix((int(seed) + _GOLDEN) & _MASK)
    z = _mix(z ^ ((int(stream) * _GOLDEN) & _MASK))
    z = _mix((z + int(k) * _GOLDEN) & _MASK)
    return (z >> 11) * (1.0 / 9007199254740992.0)
