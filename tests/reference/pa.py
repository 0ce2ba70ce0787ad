"""PA, PA-I and PA-II in plain NumPy: the reference of :class:`evofeat.linear.PA`."""

from __future__ import annotations

import math

import numpy as np

from reference.safe import MAX, dot_reference, saturate_reference

__all__ = ["pa_reference"]

_NORMAL = 2.2250738585072014e-308  # the smallest positive normal double


def pa_reference(
    X: np.ndarray,
    y: np.ndarray,
    mode: str = "pa-i",
    C: float = 1.0,
    fit_intercept: bool = False,
) -> np.ndarray:
    """Plain-NumPy PA over a dense stream (NaN = absent); returns the predicted labels.

    With ``fit_intercept`` the bias is the last entry of a weight vector
    over the visible features and a constant 1.

    >>> pa_reference(np.array([[1.0, np.nan], [np.nan, 1.0]]), np.array([1, -1]))
    array([-1., -1.])
    >>> pa_reference(np.array([[1.0, np.nan], [np.nan, 1.0]]), np.array([1, -1]), fit_intercept=True)
    array([-1.,  1.])
    """
    n, d = X.shape
    w = np.zeros(d)
    b = np.zeros(1)
    out = np.empty(n)
    for t in range(n):
        vis = ~np.isnan(X[t])
        x = np.where(vis, X[t], 0.0)
        f = dot_reference(w[vis], x[vis])
        if fit_intercept:
            f = min(max(f + float(b[0]), -MAX), MAX)
        out[t] = 1.0 if f > 0 else -1.0
        loss = max(0.0, 1.0 - y[t] * f)
        if loss > 0 and fit_intercept:
            wb = _step_reference(np.append(w[vis], b), np.append(x[vis], 1.0), loss * y[t], mode, C)
            w[vis], b = wb[:-1], wb[-1:]
        elif loss > 0:
            w[vis] = _step_reference(w[vis], x[vis], loss * y[t], mode, C)
    return out


def _step_reference(w: np.ndarray, x: np.ndarray, ly: float, mode: str, C: float) -> np.ndarray:
    """``w + tau y x`` (``ly = loss y``), rescaled when ``||x||^2`` over- or underflows."""
    loss, y = abs(ly), math.copysign(1.0, ly)
    with np.errstate(over="ignore", under="ignore"):
        sq = float(x @ x)
        if _NORMAL <= sq <= MAX:
            tau = {"pa": loss / sq, "pa-i": min(C, loss / sq), "pa-ii": loss / (sq + 1 / (2 * C))}[
                mode
            ]
            if abs(tau * y) <= MAX:
                return saturate_reference(w + tau * y * x)
        m = float(np.max(np.abs(x), initial=0.0))
        if m == 0.0:
            return w
        e = int(np.frexp(m)[1])
        xs = np.ldexp(x, -e)
        sqs = float(xs @ xs)
        if mode == "pa-ii":
            if e > 0:
                c = math.ldexp(loss / (sqs + math.ldexp(1 / (2 * C), -2 * e)), -e)
            else:
                c = loss * math.ldexp(1.0, e) / (math.ldexp(sqs, 2 * e) + 1 / (2 * C))
        elif mode == "pa-i" and not _ldexp(loss / sqs, -2 * e) < C:
            c = _ldexp(C, e)
        else:
            c = _ldexp(loss / sqs, -e)
        if not abs(c) <= MAX:
            return w
        return saturate_reference(w + c * y * xs)


def _ldexp(x: float, e: int) -> float:
    """``x 2^e``, ``+-inf`` on overflow (``math.ldexp`` raises there)."""
    try:
        return math.ldexp(x, e)
    except OverflowError:
        return math.copysign(math.inf, x)
