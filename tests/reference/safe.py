"""Overflow-safe arithmetic of the linear learners in plain NumPy: the references' twin of ``_core/safe.pxd``.

The compiled versions are ``evofeat/_core/safe.pxd`` (inline, ``cimport``-ed
by each learner; ``evofeat._core.helpers.safe_dot`` and ``safe_axpy`` call
them on NumPy arrays). The rules, shared by the perceptron, PA, OGD and FESL
(kernels and NumPy references alike):

- A dot product is summed left to right as usual; only when that sum is not
  finite (an intermediate product or sum overflowed, giving ``inf`` or
  ``inf - inf = NaN``), or is 0 or below the smallest normal double (products
  may have underflowed), is it recomputed on operands rescaled by powers of
  two (exact) and the result saturated to ``+-MAX``, the largest finite
  double, or, if it is not 0 but underflows, to ``+-TINY``, the smallest
  positive double: the score keeps its sign. So a score is never NaN, a
  mistake-driven learner is scale-invariant from rows of norm 1e-300 to
  1e300, and ordinary data give bit-identical results.
- A weight update ``w += a x`` is skipped when the step ``a`` is not finite
  (the square loss of a saturated score) and saturates each weight at
  ``+-MAX`` instead of overflowing to ``inf``.

Other underflow is left alone: an update below the smallest double is 0.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "MAX",
    "TINY",
    "dot_reference",
    "saturate_reference",
    "unscale_reference",
]

#: The largest finite double.
MAX = 1.7976931348623157e308
#: The smallest positive (subnormal) double.
TINY = 5e-324
#: The smallest positive normal double: sums below it may have lost products to underflow.
_NORMAL = 2.2250738585072014e-308


def saturate_reference(v: Any) -> Any:
    """``v`` clipped to ``[-MAX, MAX]`` (NaN stays NaN), as the compiled ``saturate``.

    >>> saturate_reference(np.array([np.inf, -1.0]))
    array([ 1.79769313e+308, -1.00000000e+000])
    """
    return np.clip(v, -MAX, MAX)


def unscale_reference(t: Any, e: int) -> Any:
    """``t 2^e`` saturated at ``+-MAX`` and, where ``t != 0`` underflows, ``+-TINY``.

    >>> unscale_reference(np.array([1.0, -1.0, 0.0]), -2000)
    array([ 5.e-324, -5.e-324,  0.e+000])
    """
    with np.errstate(over="ignore", under="ignore"):
        r = np.clip(np.ldexp(t, e), -MAX, MAX)
        r = np.where((r == 0.0) & (np.asarray(t) != 0.0), np.copysign(TINY, t), r)
    return float(r) if np.ndim(r) == 0 else r


def dot_reference(a: np.ndarray, b: np.ndarray) -> float:
    """Plain-NumPy ``a . b`` with the overflow rule of :func:`safe_dot`.

    >>> dot_reference(np.array([1e300, -1e300]), np.array([1e300, 1e300]))
    0.0
    >>> dot_reference(np.array([1e300]), np.array([1e300]))
    1.7976931348623157e+308
    >>> dot_reference(np.array([-1e-300]), np.array([1e-300]))
    -5e-324
    """
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        s = float(a @ b)
        if _NORMAL <= abs(s) <= MAX or a.size == 0:
            return s
        ea = int(np.frexp(np.max(np.abs(a)))[1])
        eb = int(np.frexp(np.max(np.abs(b)))[1])
        t = float(np.sum(np.ldexp(a, -ea) * np.ldexp(b, -eb)))
        r = float(np.clip(np.ldexp(t, ea + eb), -MAX, MAX))
        return math.copysign(TINY, t) if r == 0.0 and t != 0.0 else r
