"""Small compiled vector operations on a sparse row (``idx``, ``val``) shared by linear learners."""

from __future__ import annotations

from evofeat.base.kernel import leaf_jit

__all__ = ["axpy", "dot", "sign_label", "sort_prefix", "sq_norm"]


@leaf_jit
def dot(w, idx, val):  # type: ignore[no-untyped-def]
    """``w[idx] . val``, summed left to right (the order every path uses)."""
    s = 0.0
    for k in range(idx.shape[0]):
        s += w[idx[k]] * val[k]
    return s


@leaf_jit
def sq_norm(val):  # type: ignore[no-untyped-def]
    """``||val||^2``, summed left to right."""
    s = 0.0
    for k in range(val.shape[0]):
        s += val[k] * val[k]
    return s


@leaf_jit
def axpy(w, a, idx, val):  # type: ignore[no-untyped-def]
    """``w[idx] += a * val``."""
    for k in range(idx.shape[0]):
        w[idx[k]] += a * val[k]


@leaf_jit
def sign_label(score):  # type: ignore[no-untyped-def]
    """The binary label of a score: +1 if ``score > 0``, else -1 (a score of 0 predicts -1)."""
    return 1.0 if score > 0.0 else -1.0


@leaf_jit
def sort_prefix(a, n):  # type: ignore[no-untyped-def]
    """Sort ``a[:n]`` in place, ascending (heapsort: O(n log n), allocates nothing).

    NumPy's sort in numba needs the runtime (it allocates a stack); this one
    can be called from functions compiled without it (``_nrt=False``).

    >>> import numpy as np
    >>> a = np.array([5, 3, 9, 1, 7, 0])
    >>> sort_prefix(a, 5)
    >>> a.tolist()
    [1, 3, 5, 7, 9, 0]
    """
    for start in range(n // 2 - 1, -1, -1):
        _sink(a, start, n)
    for end in range(n - 1, 0, -1):
        a[0], a[end] = a[end], a[0]
        _sink(a, 0, end)


@leaf_jit
def _sink(a, i, n):  # type: ignore[no-untyped-def]
    x = a[i]
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and a[c + 1] > a[c]:
            c += 1
        if not a[c] > x:
            break
        a[i] = a[c]
        i = c
    a[i] = x
