"""Per-coordinate adaptive steps: FTRL-Proximal (McMahan et al. 2013) and AdaGrad (Duchi et al. 2011).

Written from the papers (FTRL-Proximal: Algorithm 1 of McMahan et al.,
"Ad Click Prediction: a View from the Trenches", KDD 2013; AdaGrad's
diagonal update) and the choices the learners document: only the features
of the row take part (an absent feature keeps its state), the accumulator of
AdaGrad starts at ``eps`` inside the square root, the logistic loss's slope
``p - y01`` is ``-y / (1 + exp(y f))``, the square loss's ``-2 (y - f)``.
With ``fit_intercept``, a bias on a constant input 1 (gradient ``dl/df``),
added after the features' sum, with its own state and the same update at the
rate ``intercept_lr`` (default: ``alpha`` / ``lr``); FTRL's bias has no L1 or
L2.
"""

from __future__ import annotations

import math

import numpy as np

from oracle import dot, rows
from oracle.fesl import _LOSS, _label

__all__ = ["adagrad", "ftrl"]


def ftrl(
    X: np.ndarray,
    y: np.ndarray,
    alpha: float = 0.1,
    beta: float = 1.0,
    l1: float = 1.0,
    l2: float = 1.0,
    loss: str = "logistic",
    fit_intercept: bool = False,
    intercept_lr: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """FTRL-Proximal: labels (the score for the square loss) and scores.

    ``w_i = 0`` if ``|z_i| <= l1``, else ``-(z_i - sgn(z_i) l1) / ((beta +
    sqrt(n_i)) / alpha + l2)``; after predicting, per feature of the row:
    ``g_i = dl/df x_i``, ``sigma_i = (sqrt(n_i + g_i^2) - sqrt(n_i)) / alpha``,
    ``z_i += g_i - sigma_i w_i``, ``n_i += g_i^2``.
    """
    z, n = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    zb, nb, rate = 0.0, 0.0, alpha if intercept_lr is None else intercept_lr
    labels, scores = np.empty(len(y)), np.empty(len(y))
    for t, cols, x, _ in rows(X):
        w = np.zeros(X.shape[1])
        for i in cols.tolist():
            if abs(z[i]) > l1:
                w[i] = -(z[i] - math.copysign(l1, z[i])) / ((beta + math.sqrt(n[i])) / alpha + l2)
        f = dot(w, x, cols)
        b = 0.0
        if fit_intercept and zb != 0.0:  # no L1: any z_b gives a weight
            b = -zb / ((beta + math.sqrt(nb)) / rate)
            f += b
        scores[t], labels[t] = f, _label(f, loss)
        slope = _LOSS[loss](f, float(y[t]))[1]
        for i in cols.tolist():
            g = slope * x[i]
            sigma = (math.sqrt(n[i] + g * g) - math.sqrt(n[i])) / alpha
            z[i] += g - sigma * w[i]
            n[i] += g * g
        if fit_intercept:
            sigma = (math.sqrt(nb + slope * slope) - math.sqrt(nb)) / rate
            zb += slope - sigma * b
            nb += slope * slope
    return labels, scores


def adagrad(
    X: np.ndarray,
    y: np.ndarray,
    lr: float = 0.1,
    eps: float = 1e-8,
    loss: str = "logistic",
    fit_intercept: bool = False,
    intercept_lr: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """AdaGrad: ``G_i += g_i^2``, ``w_i -= lr g_i / sqrt(eps + G_i)`` over the row's features (and the bias)."""
    w, G = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    b, Gb, rate = 0.0, 0.0, lr if intercept_lr is None else intercept_lr
    labels, scores = np.empty(len(y)), np.empty(len(y))
    for t, cols, x, _ in rows(X):
        f = dot(w, x, cols)
        if fit_intercept:
            f += b
        scores[t], labels[t] = f, _label(f, loss)
        slope = _LOSS[loss](f, float(y[t]))[1]
        for i in cols.tolist():
            g = slope * x[i]
            G[i] += g * g
            w[i] -= lr * g / math.sqrt(eps + G[i])
        if fit_intercept:
            Gb += slope * slope
            b -= rate * slope / math.sqrt(eps + Gb)
    return labels, scores
