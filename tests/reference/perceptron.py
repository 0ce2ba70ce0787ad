"""Rosenblatt's perceptron in plain NumPy: the reference of :class:`evofeat.linear.Perceptron`."""

from __future__ import annotations

import numpy as np

from reference.safe import MAX, dot_reference, saturate_reference

__all__ = ["perceptron_reference"]


def perceptron_reference(
    X: np.ndarray,
    y: np.ndarray,
    lr: float = 1.0,
    fit_intercept: bool = False,
    intercept_lr: float = 1.0,
) -> np.ndarray:
    """Plain-NumPy perceptron over a dense stream (NaN = absent); returns the predicted labels.

    >>> perceptron_reference(np.array([[1.0], [1.0]]), np.array([1, 1]))
    array([-1.,  1.])
    >>> perceptron_reference(np.array([[1.0], [1.0]]), np.array([1, 1]), fit_intercept=True)
    array([-1.,  1.])
    """
    n, d = X.shape
    w = np.zeros(d)
    b = 0.0
    out = np.empty(n)
    for t in range(n):
        x = np.nan_to_num(X[t], nan=0.0)
        f = dot_reference(w, x)
        if fit_intercept:
            f = min(max(f + b, -MAX), MAX)
        out[t] = 1.0 if f > 0 else -1.0
        if y[t] * f <= 0:
            with np.errstate(over="ignore"):
                w = saturate_reference(w + lr * y[t] * x)
            if fit_intercept:
                b = min(max(b + intercept_lr * y[t], -MAX), MAX)
    return out
