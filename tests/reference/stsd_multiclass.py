"""Multiclass STSD in plain NumPy: the reference of :class:`evofeat.linear.STSDMulticlass`."""

from __future__ import annotations

import numpy as np

from evofeat.linear.stsd import _MODES, budget_limit
from reference.stsd import _TINY_SCALE, running_sum, step_size

__all__ = ["stsd_multiclass_reference"]


def stsd_multiclass_reference(
    X: np.ndarray,
    y: np.ndarray,
    mode: str = "stsd-i",
    C: float = 0.1,
    radius: float = 30.0,
    budget: float = 0.5,
    n_classes: int = 2,
) -> np.ndarray:
    """Plain-NumPy multiclass STSD over a dense stream (NaN = absent); returns the predicted classes.

    One row at a time, columns in order of first appearance, ``W = scale * V``
    and sums left to right in column order, as on the compiled path.

    >>> X = np.array([[1.0, np.nan], [1.0, 1.0], [np.nan, 1.0]])
    >>> stsd_multiclass_reference(X, np.array([2, 1, 1]), n_classes=3)
    array([0., 2., 1.])
    """
    n, d = X.shape
    V, g = np.zeros((d, n_classes)), np.zeros(d)
    scale, l1, dim = 1.0, 0.0, 0
    out = np.empty(n)
    for t in range(n):
        cols = np.flatnonzero(~np.isnan(X[t]))
        x = X[t, cols]
        dim = max(dim, int(cols.max()) + 1 if cols.size else 0)
        f = np.array([running_sum(0.0, V[cols, c] * x) for c in range(n_classes)]) * scale
        out[t] = float(np.argmax(f))  # the first maximum: the lowest class among ties
        yc = int(y[t])
        rest = f.copy()
        rest[yc] = -np.inf
        r = int(np.argmax(rest))
        loss = max(0.0, 1.0 - (f[yc] - f[r]))
        sq = running_sum(0.0, x * x)
        if loss > 0 and 0 < sq < np.inf:
            a = step_size(_MODES[mode][0], C, loss, 2.0 * sq, 0.0, False) / scale
            for j, xj in zip(cols.tolist(), x.tolist(), strict=True):
                if xj != 0.0:
                    V[j, yc] += a * xj
                    V[j, r] -= a * xj
                    old, g[j] = g[j], running_sum(0.0, np.abs(V[j]))
                    l1 += g[j] - old
        if scale * l1 > radius:
            scale *= radius / (scale * l1)
            if scale < _TINY_SCALE:
                V *= scale
                l1 *= scale
                scale = 1.0
                g = np.array([running_sum(0.0, np.abs(row)) for row in V])
        support = np.flatnonzero(g)
        k = budget_limit("largest", budget, dim, False)
        # evict the smallest row norms first, the higher column first among ties
        if support.size > k:
            drop = support[np.lexsort((-support, g[support]))[: support.size - k]]
            l1 = running_sum(l1, -g[drop])
            g[drop] = 0.0
            V[drop] = 0.0
        if not g.any():
            l1 = 0.0
    return out
