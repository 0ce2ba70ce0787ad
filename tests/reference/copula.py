"""The online Gaussian copula in plain NumPy: the reference of :class:`evofeat.preprocessing.Imputed`
(the full ``sigma``; the ``neighbours`` variant has none)."""

from __future__ import annotations

import numpy as np

__all__ = ["copula_reference"]


def copula_reference(
    X: np.ndarray, window: int = 100, forget: float = 0.01, ridge: float = 1e-6, learn: bool = True
) -> np.ndarray:
    """The rows :class:`Imputed` hands its learner, in plain NumPy, over a dense stream (NaN:
    absent; a feature never seen stays NaN); ``learn=False`` keeps ``sigma`` the identity.

    >>> copula_reference(np.array([[1.0, 2.0], [3.0, np.nan]])).round(3).tolist()
    [[0.0, 0.0], [0.674, 0.0]]
    """
    from scipy.special import ndtri

    n, d = X.shape
    sigma, seen, out = np.eye(d), np.zeros(d, dtype=bool), np.full(X.shape, np.nan)
    history: list[list[float]] = [[] for _ in range(d)]
    for t in range(n):
        present = ~np.isnan(X[t])
        o, m = np.flatnonzero(present), np.flatnonzero(~present & seen)
        z = np.empty(o.size)
        for k, j in enumerate(o):  # the mid-rank among the last `window` values before the row
            kept = np.asarray(history[j][-window:])
            z[k] = ndtri(
                (np.sum(kept < X[t, j]) + 0.5 * np.sum(kept == X[t, j]) + 0.5) / (kept.size + 1)
            )
        row = np.zeros(d)
        row[o] = z
        cond = np.zeros((m.size, m.size))
        if m.size:
            s_mm = sigma[np.ix_(m, m)]
            if o.size:
                solve = np.linalg.solve(
                    sigma[np.ix_(o, o)] + ridge * np.eye(o.size), sigma[np.ix_(o, m)]
                )
                row[m] = solve.T @ z
                cond = s_mm - sigma[np.ix_(m, o)] @ solve
            else:
                cond = s_mm
        u = np.sort(np.concatenate([o, m]))
        out[t, u] = row[u]
        if learn:
            step = max(1.0 / (t + 2.0), forget)
            moment = np.outer(row, row)
            moment[np.ix_(m, m)] += cond
            sub = (1 - step) * sigma[np.ix_(u, u)] + step * moment[np.ix_(u, u)]
            scale = 1.0 / np.sqrt(np.diag(sub))
            sub = sub * scale[:, None] * scale[None, :]
            np.fill_diagonal(sub, 1.0)
            sigma[np.ix_(u, u)] = sub
        for j in o:
            history[j].append(float(X[t, j]))
        seen |= present
    return out
