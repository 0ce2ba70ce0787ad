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
not finite, instead of raising ``LinAlgError``; :func:`project_exp` projects
a row whose products would overflow after rescaling it by a power of two and
returns that exponent. FESL also stores an overlap row whose largest value is
above ``2^100`` or below ``2^-100`` rescaled by a power of two (both spaces
together), which leaves the map unchanged when the overlap rows are linearly
independent, so the Gram matrices it inverts stay finite.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from evofeat.linear._safe import MAX, exponent

__all__ = ["gram_pinv", "matvec", "pinv_psd", "project", "project_exp", "recover", "store_row"]


@nb.njit(cache=True)
def _finite(A):  # type: ignore[no-untyped-def]
    for v in A.ravel():
        if not abs(v) <= MAX:
            return False
    return True


@nb.njit(cache=True)
def pinv_psd(K, n, ridge):  # type: ignore[no-untyped-def]
    """``(K[:n, :n] + ridge I)^+`` of a symmetric PSD matrix, by eigendecomposition.

    Eigenvalues at most ``n * eps * max|e|`` are treated as zero (the rule of
    ``numpy.linalg.pinv(..., rcond=n * eps, hermitian=True)``), so ``ridge=0``
    gives the Moore-Penrose pseudo-inverse and ``ridge > 0`` the ridge inverse.
    If ``K[:n, :n]`` or the result is not finite, the result is the zero
    matrix (no map) rather than an error.

    >>> pinv_psd(np.array([[2.0, 0.0], [0.0, 0.0]]), 2, 0.0)
    array([[0.5, 0. ],
           [0. , 0. ]])
    """
    if n == 0:
        return np.zeros((0, 0))
    A = K[:n, :n].copy()
    for i in range(n):
        A[i, i] += ridge
    if not _finite(A):
        return np.zeros((n, n))
    e, V = np.linalg.eigh(A)
    top = 0.0
    for i in range(n):
        top = max(top, abs(e[i]))
    cut = n * 2.220446049250313e-16 * top
    inv = np.zeros(n)
    for k in range(n):
        if abs(e[k]) > cut:
            inv[k] = 1.0 / e[k]
    out = (V * inv) @ V.T
    if not _finite(out):
        return np.zeros((n, n))
    return out


@nb.njit(cache=True)
def project(buf, n, space, s, idx, val):  # type: ignore[no-untyped-def]
    """``q[b] = sum_k buf[idx[k], b] val[k]`` over the entries of space ``s``, for the first ``n`` rows.

    With ``buf`` the overlap rows stored column-wise, this is ``X_s x_s``:
    the products of a row's part in space ``s`` with each stored row's part.
    """
    q = np.zeros(n)
    for k in range(idx.shape[0]):
        j = idx[k]
        if space[j] == s:
            v = val[k]
            for b in range(n):
                q[b] += buf[j, b] * v
    return q


@nb.njit(cache=True)
def project_exp(buf, n, space, s, idx, val):  # type: ignore[no-untyped-def]
    """:func:`project` as ``(q, e)`` with ``q 2^e`` the projection: ``e = 0`` unless it overflows.

    Then the row's part in space ``s`` is rescaled by ``2^-e`` (its largest
    value in ``[0.5, 1)``) and projected again, so ``q`` is finite.
    """
    q = project(buf, n, space, s, idx, val)
    ok = True
    for b in range(n):
        if not abs(q[b]) <= MAX:
            ok = False
    if ok:
        return q, 0
    m = 0.0
    for k in range(idx.shape[0]):
        if space[idx[k]] == s:
            m = max(m, abs(val[k]))
    e = exponent(m)
    q = np.zeros(n)
    for k in range(idx.shape[0]):
        j = idx[k]
        if space[j] == s:
            v = math.ldexp(val[k], -e)
            for b in range(n):
                q[b] += buf[j, b] * v
    return q, e


@nb.njit(cache=True)
def store_row(buf, gram, b, space, s, idx, val):  # type: ignore[no-untyped-def]
    """Write the row's part in space ``s`` into slot ``b`` and fill row/column ``b`` of its Gram matrix.

    Entries of other spaces are left to other calls; ``gram[b, :b+1]`` and
    ``gram[:b+1, b]`` become the products of the new row with the stored ones.
    """
    for k in range(idx.shape[0]):
        if space[idx[k]] == s:
            buf[idx[k], b] = val[k]
    q = project(buf, b + 1, space, s, idx, val)
    for i in range(b + 1):
        gram[b, i] = q[i]
        gram[i, b] = q[i]


@nb.njit(cache=True)
def matvec(A, n, m, x):  # type: ignore[no-untyped-def]
    """``A[:n, :m] @ x[:m]`` (B is small: a plain loop, no BLAS)."""
    out = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += A[i, j] * x[j]
        out[i] = s
    return out


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
