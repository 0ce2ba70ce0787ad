"""Small compiled vector operations on a sparse row (``idx``, ``val``) shared by linear learners."""

from __future__ import annotations

import numba as nb

__all__ = ["axpy", "dot", "sign_label", "sq_norm"]


@nb.njit(cache=True)
def dot(w, idx, val):  # type: ignore[no-untyped-def]
    """``w[idx] . val``, summed left to right (the order every path uses)."""
    s = 0.0
    for k in range(idx.shape[0]):
        s += w[idx[k]] * val[k]
    return s


@nb.njit(cache=True)
def sq_norm(val):  # type: ignore[no-untyped-def]
    """``||val||^2``, summed left to right."""
    s = 0.0
    for k in range(val.shape[0]):
        s += val[k] * val[k]
    return s


@nb.njit(cache=True)
def axpy(w, a, idx, val):  # type: ignore[no-untyped-def]
    """``w[idx] += a * val``."""
    for k in range(idx.shape[0]):
        w[idx[k]] += a * val[k]


@nb.njit(cache=True)
def sign_label(score):  # type: ignore[no-untyped-def]
    """The binary label of a score: +1 if ``score > 0``, else -1 (a score of 0 predicts -1)."""
    return 1.0 if score > 0.0 else -1.0
