"""Passive-Aggressive classifiers PA, PA-I and PA-II on evolving features."""

from __future__ import annotations

import math
from functools import partial
from typing import NamedTuple

import numba as nb
import numpy as np

from evofeat.base import InputError, OnlineLearner, register_kernel
from evofeat.base.kernel import leaf_jit
from evofeat.linear._ops import sign_label, sq_norm
from evofeat.linear._safe import (
    MAX,
    dot_reference,
    exponent,
    safe_axpy,
    safe_dot,
    saturate,
    saturate_reference,
)

__all__ = ["PA", "pa_reference"]

_MODES = {"pa": 0, "pa-i": 1, "pa-ii": 2}
_NORMAL = 2.2250738585072014e-308  # the smallest positive normal double


class PAState(NamedTuple):
    w: np.ndarray  # weights, one per feature
    p: np.ndarray  # [mode, C]


@nb.njit(cache=True)
def _predict(state, idx, val):  # type: ignore[no-untyped-def]
    s = safe_dot(state.w, idx, val)
    return s, sign_label(s)


@leaf_jit
def _step_size(mode, C, loss, sq_norm):  # type: ignore[no-untyped-def]
    if mode == 0:
        return loss / sq_norm
    if mode == 1:
        return min(C, loss / sq_norm)
    return loss / (sq_norm + 1.0 / (2.0 * C))


@leaf_jit
def _rescaled_step(mode, C, loss, e, sqs):  # type: ignore[no-untyped-def]
    """``tau 2^e``: the step on the row rescaled to ``x 2^-e`` (``sqs`` its squared norm).

    ``||x||^2 = 2^(2e) sqs`` over- or underflowed; ``tau x = (tau 2^e) (x 2^-e)``
    is computed without forming it.
    """
    if mode == 2:
        if e > 0:
            return math.ldexp(loss / (sqs + math.ldexp(1.0 / (2.0 * C), -2 * e)), -e)
        return loss * math.ldexp(1.0, e) / (math.ldexp(sqs, 2 * e) + 1.0 / (2.0 * C))
    r = loss / sqs
    if mode == 1 and not math.ldexp(r, -2 * e) < C:
        return math.ldexp(C, e)
    return math.ldexp(r, -e)


@nb.njit(cache=True)
def _learn(state, idx, val, y, score):  # type: ignore[no-untyped-def]
    loss = max(0.0, 1.0 - y * score)
    if loss == 0.0:
        return 0.0
    sq = sq_norm(val)
    if _NORMAL <= sq <= MAX:
        a = _step_size(int(state.p[0]), state.p[1], loss, sq) * y
        if safe_axpy(state.w, a, idx, val):
            return loss
    m = 0.0
    for k in range(val.shape[0]):
        m = max(m, abs(val[k]))
    if m == 0.0:  # a zero row: nothing to learn
        return loss
    e = exponent(m)
    sqs = 0.0
    for k in range(val.shape[0]):
        v = math.ldexp(val[k], -e)
        sqs += v * v
    c = _rescaled_step(int(state.p[0]), state.p[1], loss, e, sqs) * y
    if abs(c) <= MAX:
        w = state.w
        for k in range(idx.shape[0]):
            w[idx[k]] = saturate(w[idx[k]] + c * math.ldexp(val[k], -e))
    return loss


@nb.njit(cache=True)
def _visible(state, cols, dim):  # type: ignore[no-untyped-def]
    pass


register_kernel(PAState, _predict, _learn, _visible)


class PA(OnlineLearner):
    """Passive-Aggressive binary classifier (Crammer et al., 2006) on evolving features.

    Predict ``sign(w . x)`` (a score of exactly 0 predicts -1); on a hinge
    loss ``l = max(0, 1 - y w . x) > 0`` update ``w += tau y x`` with
    ``tau = l / ||x||^2`` (PA), ``min(C, l / ||x||^2)`` (PA-I) or
    ``l / (||x||^2 + 1 / (2C))`` (PA-II). Only visible features take part:
    an unseen feature has weight 0, a vanished feature keeps its weight and
    is used again if it comes back. A row with ``||x|| = 0`` is skipped.

    Extreme values: when ``||x||^2`` over- or underflows (rows of norm above
    about 1e154 or below 1e-154) the step is computed on the row rescaled by
    a power of two, so ``tau x`` is the exact step and PA stays
    scale-invariant (rows of norm 1e300 or 1e-300 are learned like rows of
    norm 1); a score that overflows is recomputed rescaled and saturated at
    +-1.8e308, one that underflows keeps its sign (+-5e-324), never NaN;
    each weight saturates at +-1.8e308.

    Parameters
    ----------
    mode
        ``"pa"``, ``"pa-i"`` or ``"pa-ii"``.
    C
        Aggressiveness of PA-I and PA-II (ignored by PA).

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import full
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german", preprocess="zscore")
    >>> result = prequential(PA(mode="pa-i", C=0.1), full(ds.X, ds.y, ds.feature_names))
    >>> result.mistakes
    380

    References
    ----------
    Crammer, Dekel, Keshet, Shalev-Shwartz, Singer. Online Passive-Aggressive
    Algorithms. JMLR 7, 2006 (Fig. 1 and Eq. 6-8).
    """

    def __init__(self, mode: str = "pa-i", C: float = 1.0) -> None:
        self.mode = mode
        self.C = C

    def _check_params(self) -> None:
        if self.mode not in _MODES:
            raise InputError(
                "unknown PA mode",
                expected=" or ".join(_MODES),
                received=repr(self.mode),
                fix="pass mode='pa-i'",
            )
        if not (isinstance(self.C, int | float) and self.C > 0 and np.isfinite(self.C)):
            raise InputError(
                "C must be positive",
                expected="a finite number > 0",
                received=repr(self.C),
                fix="pass C=1.0",
            )

    def reference_predictions(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        return pa_reference(X, y, self.mode, self.C)

    def _make_state(self, capacity: int) -> PAState:
        return PAState(w=np.zeros(capacity), p=np.array([_MODES[self.mode], float(self.C)]))


def pa_reference(X: np.ndarray, y: np.ndarray, mode: str = "pa-i", C: float = 1.0) -> np.ndarray:
    """Plain-NumPy PA over a dense stream (NaN = absent); returns the predicted labels.

    >>> pa_reference(np.array([[1.0, np.nan], [np.nan, 1.0]]), np.array([1, -1]))
    array([-1., -1.])
    """
    n, d = X.shape
    w = np.zeros(d)
    out = np.empty(n)
    for t in range(n):
        vis = ~np.isnan(X[t])
        x = np.where(vis, X[t], 0.0)
        f = dot_reference(w[vis], x[vis])
        out[t] = 1.0 if f > 0 else -1.0
        loss = max(0.0, 1.0 - y[t] * f)
        if loss > 0:
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


LEARNERS = {name: partial(PA, mode=name) for name in _MODES}
