"""FTRL-Proximal in plain NumPy, and the prequential loop of the per-coordinate references."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from reference.ogd import loss_reference
from reference.safe import MAX, dot_reference

__all__ = [
    "ftrl_reference",
    "ftrl_step_reference",
    "ftrl_weights_reference",
    "run_reference",
]


def ftrl_weights_reference(
    z: np.ndarray, n: np.ndarray, alpha: float, beta: float, l1: float, l2: float
) -> np.ndarray:
    """The lazy weights of Algorithm 1 from ``z`` and ``n``, with the core's guards.

    >>> ftrl_weights_reference(np.array([0.5, 3.0]), np.array([1.0, 1.0]), 0.1, 1.0, 1.0, 1.0)
    array([ 0.        , -0.09523810])
    """
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        d = (beta + np.sqrt(n)) / alpha + l2
        w = np.clip(-(z - np.where(z > 0.0, l1, -l1)) / d, -MAX, MAX)
        out: np.ndarray = np.where((np.abs(z) <= l1) | ~(d > 0.0), 0.0, w)
    return out


def ftrl_reference(
    X: np.ndarray,
    y: np.ndarray,
    alpha: float = 0.1,
    beta: float = 1.0,
    l1: float = 1.0,
    l2: float = 1.0,
    loss: str = "logistic",
    intercept_lr: float | None = None,
) -> np.ndarray:
    """Plain-NumPy FTRL-Proximal over a dense stream (NaN = absent); returns the predictions.

    ``intercept_lr``: learn a bias with this alpha, ``beta`` and no L1/L2
    (``None``: no bias).

    >>> ftrl_reference(np.array([[1.0, np.nan], [1.0, 2.0], [1.0, 2.0]]), np.array([1, -1, -1]), l1=0.0)
    array([-1.,  1., -1.])
    """
    z, nn = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    zb, nb = np.zeros(1), np.zeros(1)

    def weights(vis: np.ndarray) -> np.ndarray:
        return ftrl_weights_reference(z[vis], nn[vis], alpha, beta, l1, l2)

    def update(vis: np.ndarray, w: np.ndarray, g: np.ndarray) -> None:
        z[vis], nn[vis] = ftrl_step_reference(z[vis], nn[vis], w, g, alpha)

    rate = alpha if intercept_lr is None else intercept_lr

    def bias() -> float:
        return float(ftrl_weights_reference(zb, nb, rate, beta, 0.0, 0.0)[0])

    def bias_update(g: float) -> None:
        zb[:], nb[:] = ftrl_step_reference(zb, nb, np.array([bias()]), np.array([g]), rate)

    intercept = None if intercept_lr is None else (bias, bias_update)
    return run_reference(X, y, loss, weights, update, intercept)


def ftrl_step_reference(
    z: np.ndarray, n: np.ndarray, w: np.ndarray, g: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 1's update of ``(z, n)`` for gradients ``g`` at weights ``w``, each term saturated.

    >>> ftrl_step_reference(np.zeros(1), np.zeros(1), np.zeros(1), np.array([0.5]), 0.1)
    (array([0.5]), array([0.25]))
    """
    with np.errstate(over="ignore"):
        n_new = np.clip(n + g * g, -MAX, MAX)
        sigma = np.clip((np.sqrt(n_new) - np.sqrt(n)) / alpha, -MAX, MAX)
        step = np.clip(g - np.clip(sigma * w, -MAX, MAX), -MAX, MAX)
        return np.clip(z + step, -MAX, MAX), n_new


def run_reference(
    X: np.ndarray,
    y: np.ndarray,
    loss: str,
    weights: Callable[[np.ndarray], np.ndarray],
    update: Callable[[np.ndarray, np.ndarray, np.ndarray], None],
    intercept: tuple[Callable[[], float], Callable[[float], None]] | None = None,
) -> np.ndarray:
    """The prequential loop of a per-coordinate reference over a dense stream (NaN = absent).

    ``weights(vis)`` gives the weights of the visible features; after the
    prediction, ``update(vis, w, g)`` steps on them with the gradients ``g``
    (saturated at +-MAX; a step whose loss slope is not finite is skipped).
    ``intercept``: ``(bias(), bias_update(g))``, a bias added to the score
    (saturated) and stepped with the gradient of its constant input 1.
    Returns the predictions (labels, or scores for the square loss).
    """
    out = np.empty(X.shape[0])
    for t in range(X.shape[0]):
        vis = ~np.isnan(X[t])
        x = X[t, vis]
        w = weights(vis)
        f = dot_reference(w, x)
        if intercept is not None:
            f = min(max(f + intercept[0](), -MAX), MAX)
        out[t] = f if loss == "square" else (1.0 if f > 0 else -1.0)
        slope = loss_reference(loss, f, y[t])[1]
        if abs(slope) <= MAX:
            with np.errstate(over="ignore"):
                update(vis, w, np.clip(slope * x, -MAX, MAX))
                if intercept is not None:
                    intercept[1](slope)
    return out
