"""The low-rank least-squares map from a new feature space back to the old one.

FESL (Hou et al., 2017, Sec. 4) recovers the vanished features from the new
ones with the least-squares map fitted on the ``B`` overlap rows that show
both spaces. With ``X1`` (``B x d1``) and ``X2`` (``B x d2``) those rows,

    M* = argmin_M ||X1 - X2 M||^2 = X2^+ X1,   psi(x2) = M*^T x2 = X1^T (X2 X2^T)^+ X2 x2,

the minimum-norm solution, equal to the paper's ``(X2^T X2)^{-1} X2^T X1``
whenever ``X2^T X2`` is invertible (``B >= d2``) and defined when it is not
(``B < d2``, the usual case). ``psi`` has rank at most ``B``, so it is never
stored as a ``d2 x d1`` matrix: recovering a row costs ``O(B nnz + B^2)``
through the ``B x B`` matrix ``(X2 X2^T)^+`` and the overlap rows
themselves, and a linear model ``w1`` of S1 enters only through ``X1 w1``
(``B`` numbers), since ``w1 . psi(x2) = (X1 w1) . (X2 X2^T)^+ X2 x2``.

The overlap rows are held column-wise, one row of ``buf`` per feature and one
column per overlap row, so a learner's per-feature state grows with them.

Extreme values: :func:`pinv_psd` and :func:`gram_pinv` return the zero matrix
(the map of no overlap rows) when the Gram matrix or its pseudo-inverse is
not finite, instead of raising ``LinAlgError``; the compiled core (``FESLCore.project_exp``) projects
a row whose products would overflow after rescaling it by a power of two and
returns that exponent. FESL also stores an overlap row whose largest value is
above ``2^100`` or below ``2^-100`` rescaled by a power of two (both spaces
together), which leaves the map unchanged when the overlap rows are linearly
independent, so the Gram matrices it inverts stay finite.
"""

from __future__ import annotations

import numpy as np

from evofeat.ensemble._fesl import pinv_psd, project_exp

__all__ = ["gram_pinv", "pinv_psd", "project_exp", "recover"]


def recover(X1: np.ndarray, X2: np.ndarray, x2: np.ndarray, ridge: float = 0.0) -> np.ndarray:
    """``psi(x2) = X1^T (X2 X2^T + ridge I)^+ X2 x2``: S1 recovered from a row of S2 (plain NumPy).

    ``X1`` (``B x d1``) and ``X2`` (``B x d2``) are the overlap rows; this is
    the map of FESL's Algorithm 1, computed straight from its definition.

    Examples
    --------
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
