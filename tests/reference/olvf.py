"""OLVF in plain NumPy: the reference of :mod:`evofeat.haphazard.olvf`."""

from __future__ import annotations

import numpy as np
from scipy.special import expit

__all__ = ["olvf_reference"]


def _sparsify(v: np.ndarray, seen: np.ndarray, B: float, package: bool) -> None:
    """The sparsity step on ``v`` over the seen features (see :class:`OLVF`)."""
    cols = np.flatnonzero(seen)
    keep = max(1, int(np.floor(B * cols.size)))
    if cols.size > keep:
        order = cols[np.lexsort((cols, -(v[cols] if package else np.abs(v[cols]))))]
        v[order[:keep] if package else order[keep:]] = 0.0


def olvf_reference(
    X: np.ndarray,
    y: np.ndarray,
    C: float = 0.01,
    C_bar: float = 0.0001,
    B: float = 1.0,
    reg: float = 0.0001,
    rule: str = "paper",
) -> np.ndarray:
    """Plain-NumPy OLVF over a dense stream (NaN = absent); returns the predicted labels.

    >>> olvf_reference(np.array([[1.0, np.nan], [1.0, 2.0]]), np.array([1, -1]), C=1.0)
    array([-1.,  1.])
    """
    pkg, eps = rule == "package", float(np.finfo(float).eps)
    n, d = X.shape
    w, wbar, seen, out = np.zeros(d), np.zeros(d), np.zeros(d, dtype=bool), np.empty(n)
    for t in range(n):
        m = ~np.isnan(X[t])
        x = np.where(m, X[t], 0.0)
        f = float(w[m] @ x[m])
        out[t] = 1.0 if f > 0 else -1.0
        if not m.any():
            continue
        new, right, s = m & ~seen, float(out[t] == y[t]), float(wbar[m].sum())
        if pkg:  # the package's gradient and step (zero at wbar = 0)
            e = np.exp(-right * s)
            g = -(np.log(e) / np.log(1.0 + e)) * right
            gg = m.sum() * g * g
            tb = C_bar if gg == 0 else min(C_bar, -np.log(1.0 + e) / gg)
            wbar[m & seen] += tb * g
            wbar[new] = -tb * g
        elif right:
            g = -expit(-s)
            wbar[m] -= min(C_bar, np.logaddexp(0.0, -s) / (m.sum() * g * g)) * g
        seen |= m
        sign = -1.0 if pkg else 1.0
        pw, px = expit(sign * wbar[seen].sum()), expit(sign * wbar[m].sum())
        loss, sq = max(0.0, 1.0 - y[t] * f), float(x @ x)
        tau = min(C, loss / (sq + eps)) if pkg else min(C, loss / sq) if sq > 0 else 0.0
        w[m & ~new] += pw * tau * y[t] * x[m & ~new]
        w[new] = px * tau * y[t] * x[new]
        ip = float(wbar @ w)
        if pkg:
            w *= min(1.0, reg / (ip + eps))
        elif ip > reg:
            w *= reg / ip
        if B < 1:
            _sparsify(w, seen, B, pkg)
            _sparsify(wbar, seen, B, pkg)
    return out
