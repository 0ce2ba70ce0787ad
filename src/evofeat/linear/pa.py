"""Passive-Aggressive classifiers PA, PA-I and PA-II on evolving features."""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import numba as nb
import numpy as np

from evofeat.base import InputError, OnlineLearner, register_kernel
from evofeat.linear._ops import axpy, dot, sign_label, sq_norm

__all__ = ["PA", "pa_reference"]

_MODES = {"pa": 0, "pa-i": 1, "pa-ii": 2}


class PAState(NamedTuple):
    w: np.ndarray  # weights, one per feature
    p: np.ndarray  # [mode, C]


@nb.njit(cache=True)
def _predict(state, idx, val):  # type: ignore[no-untyped-def]
    s = dot(state.w, idx, val)
    return s, sign_label(s)


@nb.njit(cache=True)
def _step_size(mode, C, loss, sq_norm):  # type: ignore[no-untyped-def]
    if mode == 0:
        return loss / sq_norm
    if mode == 1:
        return min(C, loss / sq_norm)
    return loss / (sq_norm + 1.0 / (2.0 * C))


@nb.njit(cache=True)
def _learn(state, idx, val, y, score):  # type: ignore[no-untyped-def]
    loss = max(0.0, 1.0 - y * score)
    if loss == 0.0:
        return 0.0
    sq = sq_norm(val)
    if sq == 0.0 or not np.isfinite(sq):
        return loss
    axpy(state.w, _step_size(int(state.p[0]), state.p[1], loss, sq) * y, idx, val)
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
            raise InputError("unknown PA mode", expected=" or ".join(_MODES), received=repr(self.mode),
                             fix="pass mode='pa-i'")
        if not (isinstance(self.C, int | float) and self.C > 0 and np.isfinite(self.C)):
            raise InputError("C must be positive", expected="a finite number > 0", received=repr(self.C),
                             fix="pass C=1.0")

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
        f = float(np.sum(w[vis] * x[vis]))
        out[t] = 1.0 if f > 0 else -1.0
        loss = max(0.0, 1.0 - y[t] * f)
        sq = float(x @ x)
        if loss > 0 and sq > 0:
            tau = {"pa": loss / sq, "pa-i": min(C, loss / sq), "pa-ii": loss / (sq + 1 / (2 * C))}[mode]
            w[vis] += tau * y[t] * x[vis]
    return out


LEARNERS = {name: partial(PA, mode=name) for name in _MODES}
