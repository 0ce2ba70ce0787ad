"""FESL's least-squares map in plain NumPy, straight from its definition (see :mod:`evofeat.ensemble.mapping`)."""

from __future__ import annotations

import numpy as np

__all__ = ["gram_pinv", "recover"]


def recover(X1: np.ndarray, X2: np.ndarray, x2: np.ndarray, ridge: float = 0.0) -> np.ndarray:
    """``psi(x2) = X1^T (X2 X2^T + ridge I)^+ X2 x2``: S1 recovered from a row of S2 (plain NumPy).

    ``X1`` (``B x d1``) and ``X2`` (``B x d2``) are the overlap rows; this is
    the map of FESL's Algorithm 1, computed straight from its definition.

    >>> rng = np.random.default_rng(0)
    >>> X1 = rng.standard_normal((10, 4))
    >>> G = rng.standard_normal((4, 6))
    >>> x1 = rng.standard_normal(4)
    >>> float(np.round(np.abs(recover(X1, X1 @ G, x1 @ G) - x1).max(), 8))
    0.0
    """
    out: np.ndarray = X1.T @ (gram_pinv(X2, ridge) @ (X2 @ x2))
    return out


def gram_pinv(X2: np.ndarray, ridge: float = 0.0) -> np.ndarray:
    """``(X2 X2^T + ridge I)^+`` in plain NumPy, with the eigenvalue cut and the guard of :func:`pinv_psd`.

    >>> gram_pinv(np.array([[1.0, 0.0], [0.0, 2.0]]))
    array([[1.  , 0.  ],
           [0.  , 0.25]])
    """
    with np.errstate(over="ignore", invalid="ignore"):
        K = X2 @ X2.T + ridge * np.eye(X2.shape[0])
        if not np.isfinite(K).all():
            return np.zeros_like(K)
        out: np.ndarray = np.linalg.pinv(
            K, rcond=max(1, K.shape[0]) * np.finfo(float).eps, hermitian=True
        )
    return out if np.isfinite(out).all() else np.zeros_like(out)
