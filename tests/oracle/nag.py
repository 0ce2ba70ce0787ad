"""Normalised adaptive gradient descent, NAG (Ross, Mineiro, Langford, "Normalized Online Learning", UAI 2013).

Written from the paper's Algorithm 2 (NAG), with explicit loops:

    initially w_i = s_i = G_i = N = 0
    for t = 1, 2, ...: receive x_t
        for each i with |x_ti| > s_i: w_i <- w_i s_i / |x_ti| (if s_i > 0); s_i <- |x_ti|
        predict  f = sum_i w_i x_ti
        N <- N + sum_i x_ti^2 / s_i^2
        receive y_t; for each i: g_i = dl(f, y_t)/df x_ti, G_i <- G_i + g_i^2,
                                  w_i <- w_i - eta sqrt(t / N) g_i / (s_i sqrt(G_i))

and the choices the learner documents: "each i" is each feature of the row
(an absent feature keeps ``w_i``, ``s_i``, ``G_i`` and adds nothing to
``N``); a coordinate whose gradient is 0 is not stepped (``0 / 0`` in the
paper's line); with ``fit_intercept``, a bias on a constant input 1 of scale
1 (it adds 1 to ``N`` on every row), added after the features' sum and
stepped with its own accumulator at ``intercept_lr`` (default ``lr``).
Only ordinary values are fed here, so none of the learner's saturation
guards is restated.

``invariant``: the importance-invariant update (Karampatziakis and Langford,
"Online importance weight aware updates", UAI 2011; Vowpal Wabbit's
``--invariant``). The row's gradient steps ``Delta w_i`` fix a direction and
"time" ``a = lr h`` with ``h`` the score's move per unit of update; the
score then follows ``df/dtau = -h dl/df`` for ``tau`` in ``[0, lr]``, and all
steps are scaled so the score moves that far. Here the flow's end is found
by bisection on the margin ``m = y f``: ``m' + e^m' = m + e^m + a``
(logistic), or in closed form ``f' = y - (y - f) e^(-2a)`` (square).
"""

from __future__ import annotations

import math

import numpy as np

from oracle import dot, rows
from oracle.fesl import _LOSS, _label

__all__ = ["nag"]


def nag(
    X: np.ndarray,
    y: np.ndarray,
    lr: float = 0.5,
    loss: str = "logistic",
    fit_intercept: bool = False,
    intercept_lr: float | None = None,
    invariant: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """NAG: labels (the score for the square loss) and scores."""
    d = X.shape[1]
    w, s, G = np.zeros(d), np.zeros(d), np.zeros(d)
    b, Gb, N = 0.0, 0.0, 0.0
    rate = lr if intercept_lr is None else intercept_lr
    labels, scores = np.empty(len(y)), np.empty(len(y))
    for t, cols, x, _ in rows(X):
        for i in cols.tolist():  # lines 5-9: a new scale rescales the weight
            if abs(x[i]) > s[i]:
                if s[i] > 0.0:
                    w[i] = w[i] * (s[i] / abs(x[i]))
                s[i] = abs(x[i])
        f = dot(w, x, cols)
        if fit_intercept:
            f += b
        scores[t], labels[t] = f, _label(f, loss)
        nx = 0.0
        for i in cols.tolist():  # line 11
            if s[i] > 0.0:
                r = abs(x[i]) / s[i]
                nx += r * r
        N += nx + (1.0 if fit_intercept else 0.0)
        slope = _LOSS[loss](f, float(y[t]))[1]
        q = math.sqrt((t + 1) / N) if N > 0.0 else 0.0
        step = np.zeros(d)
        for i in cols.tolist():  # lines 13-16
            g = slope * x[i]
            if g == 0.0:
                continue
            G[i] += g * g
            step[i] = lr * q * (g / math.sqrt(G[i])) / s[i]
        step_b = 0.0
        if fit_intercept and slope != 0.0:
            Gb += slope * slope
            step_b = rate * q * (slope / math.sqrt(Gb))
        move = -(dot(step, x, cols) + step_b)  # the gradient step's change of the score
        k = _invariant(loss, f, float(y[t]), move, move / -slope) if invariant and move else 1.0
        w -= k * step
        b -= k * step_b
    return labels, scores


def _invariant(loss: str, f: float, y: float, move: float, a: float) -> float:
    """The invariant step's change of the score over the gradient step's ``move`` (``a = lr h``)."""
    if loss == "square":
        return (y - (y - f) * math.exp(-2.0 * a) - f) / move
    m = y * f
    target = m + math.exp(m) + a
    # m' + e^m' grows with m'; m' - m <= a and e^m' <= e^m + a bound the root
    lo, hi = m, min(m + a, math.log(math.exp(m) + a))
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid + math.exp(mid) < target:
            lo = mid
        else:
            hi = mid
    return y * (0.5 * (lo + hi) - m) / move
