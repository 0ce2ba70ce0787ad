"""Overflow-safe compiled arithmetic for the gradient and mistake-driven linear learners.

The rules, shared by the perceptron, PA, OGD and FESL (kernels and NumPy
references alike):

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

import numba as nb
import numpy as np

from evofeat.base.kernel import leaf_jit

__all__ = [
    "MAX",
    "TINY",
    "dot_reference",
    "exponent",
    "safe_axpy",
    "safe_dot",
    "safe_dotn",
    "safe_matvec",
    "saturate",
    "saturate_reference",
    "unscale",
    "unscale_reference",
]

#: The largest finite double.
MAX = 1.7976931348623157e308
#: The smallest positive (subnormal) double.
TINY = 5e-324
#: The smallest positive normal double: sums below it may have lost products to underflow.
_NORMAL = 2.2250738585072014e-308


@leaf_jit
def saturate(v):  # type: ignore[no-untyped-def]
    """``v`` clipped to ``[-MAX, MAX]`` (``+-inf`` becomes ``+-MAX``; finite values are unchanged)."""
    if v > MAX:
        return MAX
    if v < -MAX:
        return -MAX
    return v


@leaf_jit
def exponent(m):  # type: ignore[no-untyped-def]
    """``e`` with ``m 2^-e`` in ``[0.5, 1)`` for ``m > 0`` (0 for ``m = 0``)."""
    return math.frexp(m)[1]


@leaf_jit
def unscale(t, e):  # type: ignore[no-untyped-def]
    """``t 2^e`` saturated at ``+-MAX``, and at ``+-TINY`` if ``t != 0`` underflows."""
    r = saturate(math.ldexp(t, e))
    if r == 0.0 and t != 0.0:
        return TINY if t > 0.0 else -TINY
    return r


@leaf_jit
def _rescaled_dot(w, idx, val):  # type: ignore[no-untyped-def]
    mw = 0.0
    mv = 0.0
    for k in range(idx.shape[0]):
        mw = max(mw, abs(w[idx[k]]))
        mv = max(mv, abs(val[k]))
    ew = exponent(mw)
    ev = exponent(mv)
    t = 0.0
    for k in range(idx.shape[0]):
        t += math.ldexp(w[idx[k]], -ew) * math.ldexp(val[k], -ev)
    return unscale(t, ew + ev)


@leaf_jit
def safe_dot(w, idx, val):  # type: ignore[no-untyped-def]
    """``w[idx] . val`` summed left to right; on overflow or underflow, recomputed rescaled (never NaN)."""
    s = 0.0
    for k in range(idx.shape[0]):
        s += w[idx[k]] * val[k]
    if _NORMAL <= abs(s) <= MAX:
        return s
    return _rescaled_dot(w, idx, val)


@leaf_jit
def safe_dotn(a, b, n):  # type: ignore[no-untyped-def]
    """``a[:n] . b[:n]`` with the overflow rule of :func:`safe_dot`."""
    s = 0.0
    for i in range(n):
        s += a[i] * b[i]
    if _NORMAL <= abs(s) <= MAX:
        return s
    ma = 0.0
    mb = 0.0
    for i in range(n):
        ma = max(ma, abs(a[i]))
        mb = max(mb, abs(b[i]))
    ea = exponent(ma)
    eb = exponent(mb)
    t = 0.0
    for i in range(n):
        t += math.ldexp(a[i], -ea) * math.ldexp(b[i], -eb)
    return unscale(t, ea + eb)


@nb.njit(cache=True)  # allocates its result: needs numba's runtime
def safe_matvec(A, n, m, x):  # type: ignore[no-untyped-def]
    """``A[:n, :m] @ x[:m]``, each entry by :func:`safe_dotn` (a plain loop, no BLAS)."""
    out = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += A[i, j] * x[j]
        if not abs(s) <= MAX:
            s = safe_dotn(A[i], x, m)
        out[i] = s
    return out


@leaf_jit
def safe_axpy(w, a, idx, val):  # type: ignore[no-untyped-def]
    """``w[idx] += a val``, each weight saturated at ``+-MAX``; nothing happens if ``a`` is not finite.

    Returns whether the update was applied.
    """
    if not abs(a) <= MAX:
        return False
    for k in range(idx.shape[0]):
        v = w[idx[k]] + a * val[k]
        if not abs(v) <= MAX:
            v = MAX if v > 0.0 else -MAX
        w[idx[k]] = v
    return True


# ---------------------------------------------------------------------------- NumPy references
def saturate_reference(v: Any) -> Any:
    """Plain-NumPy :func:`saturate` (NaN stays NaN).

    >>> saturate_reference(np.array([np.inf, -1.0]))
    array([ 1.79769313e+308, -1.00000000e+000])
    """
    return np.clip(v, -MAX, MAX)


def unscale_reference(t: Any, e: int) -> Any:
    """Plain-NumPy :func:`unscale`: ``t 2^e`` saturated at ``+-MAX`` and, where ``t != 0`` underflows, ``+-TINY``.

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
