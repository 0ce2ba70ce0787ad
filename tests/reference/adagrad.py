"""OGD with AdaGrad steps in plain NumPy: the reference of :class:`evofeat.linear.AdaGrad`."""

from __future__ import annotations

import numpy as np

from reference.ftrl import run_reference
from reference.safe import MAX

__all__ = ["adagrad_reference"]


def adagrad_reference(
    X: np.ndarray,
    y: np.ndarray,
    lr: float = 0.1,
    eps: float = 1e-8,
    loss: str = "logistic",
    intercept_lr: float | None = None,
) -> np.ndarray:
    """Plain-NumPy AdaGrad OGD over a dense stream (NaN = absent); returns the predictions.

    ``intercept_lr``: learn a bias with this step scale and its own
    accumulator (``None``: no bias).

    >>> adagrad_reference(np.array([[1.0, np.nan], [1.0, 2.0]]), np.array([1, -1]))
    array([-1.,  1.])
    """
    w, G = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    b, Gb = np.zeros(1), np.zeros(1)

    def step(v: np.ndarray, acc: np.ndarray, g: np.ndarray, rate: float) -> None:
        acc[:] = np.clip(acc + g * g, -MAX, MAX)
        v[:] = np.clip(v - np.clip(rate * (g / np.sqrt(eps + acc)), -MAX, MAX), -MAX, MAX)

    def update(vis: np.ndarray, _: np.ndarray, g: np.ndarray) -> None:
        wv, Gv = w[vis], G[vis]
        step(wv, Gv, g, lr)
        w[vis], G[vis] = wv, Gv

    def bias_update(g: float) -> None:
        step(b, Gb, np.array([g]), lr if intercept_lr is None else intercept_lr)

    intercept = None if intercept_lr is None else (lambda: float(b[0]), bias_update)
    return run_reference(X, y, loss, lambda vis: w[vis], update, intercept)
