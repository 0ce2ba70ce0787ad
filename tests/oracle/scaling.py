"""Online per-feature scaling learned from the rows before: running z-scores and normal scores.

Written from the documented semantics of the online scalings (evofeat's
``OnlineScaled``; the quantile transform is the marginal step of OVFM's
Gaussian copula, He et al., "Online Missing Value Imputation and Change
Point Detection with the Gaussian Copula", AAAI 2022, with the mid-rank the
learner documents in place of OVFM's ``n / (n + 1) F_n(x)``):

- each row's present values are scaled with the statistics of the rows
  before it; the learner predicts and learns on that same scaled row; then
  the statistics take the row's raw values;
- an absent feature (NaN) is neither scaled nor counted, and stays absent;
  a feature first seen mid-stream starts with empty statistics;
- ``"zscore"``: ``(x - mean) / sd`` with Welford's running mean and the
  population standard deviation ``sqrt(m2 / count)``; 0 while ``sd`` is 0
  (no value, or one distinct value, seen yet);
- ``"quantile"``: ``Phi^-1(q)`` with the mid-rank ``q = (b + e / 2 + 1 / 2)
  / (n + 1)`` of the value among the feature's last ``window`` values
  (``b``, ``e`` the kept values below and equal to it, ``n`` how many are
  kept); the first value (``n = 0``) has ``q = 1 / 2``, a score of 0.

The scaled stream is again a dense array with NaN where absent, so any
other oracle runs on it unchanged (the members of a scaled learner learn
from their own predictions on the scaled rows only).
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np
from scipy.special import ndtri

__all__ = ["quantile", "scale", "zscore"]


def zscore(X: np.ndarray) -> np.ndarray:
    """Each present value as ``(x - mean) / sd`` of the feature's values in the rows before."""
    d = X.shape[1]
    count, mean, m2 = np.zeros(d), np.zeros(d), np.zeros(d)
    out = np.full(X.shape, np.nan)
    for t in range(X.shape[0]):
        cols = np.flatnonzero(~np.isnan(X[t])).tolist()
        for i in cols:  # scale with the rows before
            sd = math.sqrt(m2[i] / count[i]) if count[i] > 0 else 0.0
            out[t, i] = (X[t, i] - mean[i]) / sd if sd > 0.0 else 0.0
        for i in cols:  # then take the row (Welford)
            x = float(X[t, i])
            count[i] += 1.0
            delta = x - mean[i]
            mean[i] += delta / count[i]
            m2[i] += delta * (x - mean[i])
    return out


def quantile(X: np.ndarray, window: int = 100) -> np.ndarray:
    """Each present value as the normal score of its mid-rank among the feature's last ``window``."""
    kept: list[deque[float]] = [deque(maxlen=window) for _ in range(X.shape[1])]
    out = np.full(X.shape, np.nan)
    for t in range(X.shape[0]):
        cols = np.flatnonzero(~np.isnan(X[t])).tolist()
        for i in cols:
            x = float(X[t, i])
            below = sum(1 for v in kept[i] if v < x)
            equal = sum(1 for v in kept[i] if v == x)
            q = (below + equal / 2.0 + 0.5) / (len(kept[i]) + 1.0)
            out[t, i] = float(ndtri(q))
        for i in cols:
            kept[i].append(float(X[t, i]))
    return out


def scale(X: np.ndarray, method: str, window: int = 100) -> np.ndarray:
    """``X`` scaled online by ``method`` (``"zscore"`` or ``"quantile"``); NaN stays NaN."""
    if method == "zscore":
        return zscore(X)
    if method == "quantile":
        return quantile(X, window)
    raise ValueError(f"unknown scaling {method!r}")
