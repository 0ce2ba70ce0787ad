"""OGD and the losses in plain NumPy: the reference of :class:`evofeat.linear.OGD`."""

from __future__ import annotations

import numpy as np

from reference.safe import MAX, dot_reference, saturate_reference

__all__ = ["loss_reference", "ogd_reference", "step_reference"]


def loss_reference(loss: str, f: float, y: float) -> tuple[float, float]:
    """Plain-NumPy loss and its derivative in ``f`` (for the references).

    >>> loss_reference("square", 1.0, 3.0)
    (4.0, -4.0)
    """
    if loss == "square":
        with np.errstate(over="ignore"):  # a saturated score: an infinite loss, a skipped step
            d = y - f
            return d * d, -2.0 * d
    return float(np.logaddexp(0.0, -y * f)), float(-y * np.exp(-np.logaddexp(0.0, y * f)))


def ogd_reference(
    X: np.ndarray,
    y: np.ndarray,
    lr: float = 1.0,
    loss: str = "logistic",
    intercept_lr: float | None = None,
) -> np.ndarray:
    """Plain-NumPy OGD over a dense stream (NaN = absent); returns the predictions.

    ``intercept_lr``: learn a bias with this step scale (``None``: no bias).

    >>> ogd_reference(np.array([[1.0, np.nan], [1.0, 2.0]]), np.array([1, -1]))
    array([-1.,  1.])
    >>> ogd_reference(np.array([[1.0, np.nan], [1.0, 2.0]]), np.array([1, -1]), intercept_lr=1.0)
    array([-1.,  1.])
    """
    n, d = X.shape
    w = np.zeros(d)
    b = np.zeros(1)
    out = np.empty(n)
    for t in range(n):
        vis = ~np.isnan(X[t])
        x = X[t, vis]
        f = dot_reference(w[vis], x)
        if intercept_lr is not None:
            f = min(max(f + float(b[0]), -MAX), MAX)
        out[t] = f if loss == "square" else (1.0 if f > 0 else -1.0)
        slope = loss_reference(loss, f, y[t])[1]
        w[vis] = step_reference(w[vis], -lr / np.sqrt(t + 1) * slope, x)
        if intercept_lr is not None:
            with np.errstate(over="ignore", invalid="ignore"):
                b = step_reference(b, -intercept_lr / np.sqrt(t + 1) * slope, np.ones(1))
    return out


def step_reference(w: np.ndarray, a: float, x: np.ndarray) -> np.ndarray:
    """Plain-NumPy ``w + a x`` with the rule of :func:`~evofeat.linear._safe.safe_axpy`.

    >>> step_reference(np.array([1.0]), np.inf, np.array([1.0]))
    array([1.])
    """
    if not abs(a) <= 1.7976931348623157e308:
        return w
    with np.errstate(over="ignore"):
        out: np.ndarray = saturate_reference(w + a * x)
    return out
