"""The perceptron (Rosenblatt 1958) and Passive-Aggressive PA / PA-I / PA-II (Crammer et al. 2006).

On evolving features: only the visible entries of a row take part; an
unseen feature has weight 0 and a vanished one keeps its weight. Predict
``sign(w . x)`` with ``sign(0) = -1``. With ``fit_intercept`` (the learners'
documented option), every row also has a constant input 1 whose weight, the
bias ``b``, is added after the features' sum and updated by the same rule.
"""

from __future__ import annotations

import numpy as np

from oracle import dot, rows, sq_norm

__all__ = ["pa", "perceptron"]


def perceptron(
    X: np.ndarray,
    y: np.ndarray,
    lr: float = 1.0,
    fit_intercept: bool = False,
    intercept_lr: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Predicted labels and scores; on a mistake (``y w . x <= 0``) ``w += lr y x`` (and ``b += intercept_lr y``).

    >>> perceptron(np.array([[1.0], [1.0]]), np.array([1, 1]))[0]
    array([-1.,  1.])
    """
    w = np.zeros(X.shape[1])
    b, rate = 0.0, lr if intercept_lr is None else intercept_lr
    labels, scores = np.empty(len(y)), np.empty(len(y))
    for t, cols, x, _ in rows(X):
        f = dot(w, x, cols)
        if fit_intercept:
            f += b
        scores[t], labels[t] = f, (1.0 if f > 0 else -1.0)
        if y[t] * f <= 0:
            w[cols] += (lr * y[t]) * x[cols]
            if fit_intercept:
                b += rate * y[t]
    return labels, scores


def pa_step(mode: str, C: float, loss: float, sq: float) -> float:
    """tau of Crammer et al. (2006), Eq. 6 (PA), 7 (PA-I), 8 (PA-II)."""
    if mode == "pa":
        return loss / sq
    if mode == "pa-i":
        return min(C, loss / sq)
    if mode == "pa-ii":
        return loss / (sq + 1.0 / (2.0 * C))
    raise ValueError(mode)


def pa(
    X: np.ndarray, y: np.ndarray, mode: str = "pa-i", C: float = 1.0, fit_intercept: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Predicted labels and scores; on hinge loss ``l = max(0, 1 - y w . x) > 0``: ``w += tau y x``.

    A row with ``||x|| = 0`` is skipped. With ``fit_intercept`` the input 1
    counts in the squared norm (``||x||^2 + 1``) and ``b += tau y``.

    >>> pa(np.array([[1.0, np.nan], [np.nan, 1.0]]), np.array([1, -1]))[0]
    array([-1., -1.])
    """
    w = np.zeros(X.shape[1])
    b = 0.0
    labels, scores = np.empty(len(y)), np.empty(len(y))
    for t, cols, x, _ in rows(X):
        f = dot(w, x, cols)
        if fit_intercept:
            f += b
        scores[t], labels[t] = f, (1.0 if f > 0 else -1.0)
        loss = max(0.0, 1.0 - y[t] * f)
        sq = sq_norm(x, cols)
        if fit_intercept:
            sq += 1.0
        if loss > 0 and sq > 0:
            tau = pa_step(mode, C, loss, sq)
            w[cols] += (tau * y[t]) * x[cols]
            if fit_intercept:
                b += tau * y[t]
    return labels, scores
