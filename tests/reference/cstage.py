"""OPID's C-stage (Eq. 2) solved in one batch: the reference of :mod:`evofeat.onepass.cstage`."""

from __future__ import annotations

import numpy as np

__all__ = ["closed_form"]


def closed_form(
    X: np.ndarray, Y: np.ndarray, n_survived: int, consistency: float = 1.0, l2: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """Batch reference for Eq. 2: all rows at once, as one stacked ridge problem.

    Eq. 2 is ``||M w - t||^2 + rho ||w||^2`` with the rows ``M = [[X~, 0],
    [0, X_s], sqrt(lambda) [X~, -X_s]]`` and targets ``t = [Y; Y; 0]``; this
    solves it by least squares on ``M`` stacked over ``sqrt(rho) I`` (no
    normal equations), independently of Prop. 1.

    >>> X = np.eye(3); W_all, W_s = closed_form(X, np.eye(3)[:, :2], n_survived=1)
    >>> W_all.shape, W_s.shape
    ((3, 2), (1, 2))
    """
    n, n_all = X.shape
    Xs = X[:, n_all - n_survived :]
    zs, za = np.zeros((n, n_survived)), np.zeros((n, n_all))
    rl = np.sqrt(consistency)
    M = np.vstack(
        [
            np.hstack([X, zs]),
            np.hstack([za, Xs]),
            np.hstack([rl * X, -rl * Xs]),
            np.sqrt(l2) * np.eye(n_all + n_survived),
        ]
    )
    t = np.vstack([Y, Y, np.zeros((n + n_all + n_survived, Y.shape[1]))])
    W = np.linalg.lstsq(M, t, rcond=None)[0]
    return W[:n_all], W[n_all:]
