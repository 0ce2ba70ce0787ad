# cython: language_level=3, boundscheck=True, wraparound=False
"""The compiled helpers of :mod:`evofeat._core.safe` and :mod:`evofeat._core.topk`, callable from Python.

The learners ``cimport`` the inline versions; these wrappers (bounds-checked)
let tests and the NumPy side call exactly the same code on NumPy arrays.
"""

from libc.stdint cimport int64_t

from evofeat._core cimport safe, topk


def safe_dot(const double[::1] w, const int64_t[::1] idx, const double[::1] val):
    """``w[idx] . val`` summed left to right; on overflow or underflow, recomputed rescaled (never NaN).

    >>> import numpy as np
    >>> safe_dot(np.array([1e300, -1e300]), np.array([0, 1]), np.array([1e300, 1e300]))
    0.0
    """
    if idx.shape[0] != val.shape[0]:
        raise ValueError("idx and val differ in length")
    if idx.shape[0] == 0:
        return 0.0
    _check(idx, w.shape[0])
    return safe.safe_dot(&w[0], &idx[0], &val[0], idx.shape[0])


def safe_axpy(double[::1] w, double a, const int64_t[::1] idx, const double[::1] val):
    """``w[idx] += a val``, each weight saturated at ``+-MAX``; nothing if ``a`` is not finite.

    Returns whether the update was applied.
    """
    if idx.shape[0] != val.shape[0]:
        raise ValueError("idx and val differ in length")
    if idx.shape[0] == 0:
        return safe.safe_axpy(NULL, a, NULL, NULL, 0)
    _check(idx, w.shape[0])
    return safe.safe_axpy(&w[0], a, &idx[0], &val[0], idx.shape[0])


cdef _check(const int64_t[::1] cols, Py_ssize_t d):
    cdef Py_ssize_t k
    for k in range(cols.shape[0]):
        if not 0 <= cols[k] < d:
            raise IndexError(f"column {cols[k]} outside 0..{d - 1}")


def topk_touch(int64_t[::1] heap, int64_t[::1] pos, int64_t[::1] hsize, const double[::1] w,
               int64_t col):
    """Restore the heap after ``w[col]`` changed (insert if new and non-zero, remove if now 0)."""
    if not 0 <= col < min(pos.shape[0], w.shape[0]):
        raise IndexError(f"column {col} outside the arrays")
    topk.topk_touch(&heap[0], &pos[0], &hsize[0], &w[0], col)


def topk_remove(int64_t[::1] heap, int64_t[::1] pos, int64_t[::1] hsize, const double[::1] w,
                int64_t col):
    """Take ``col`` out of the heap if it is there (``w[col]`` is left as it is)."""
    topk.topk_remove(&heap[0], &pos[0], &hsize[0], &w[0], col)


def topk_min(int64_t[::1] heap, int64_t[::1] hsize):
    """The column that would be evicted next (-1 if the heap is empty)."""
    return topk.topk_min(&heap[0], &hsize[0])


def topk_pop(int64_t[::1] heap, int64_t[::1] pos, int64_t[::1] hsize, const double[::1] w):
    """Remove and return the column that is evicted next (-1 if empty); ``w`` is left as it is."""
    return topk.topk_pop(&heap[0], &pos[0], &hsize[0], &w[0])


def topk_truncate(int64_t[::1] heap, int64_t[::1] pos, int64_t[::1] hsize, double[::1] w,
                  int64_t k):
    """Pop the smallest until at most ``k`` remain, zeroing their weights; return how many went."""
    return topk.topk_truncate(&heap[0], &pos[0], &hsize[0], &w[0], k)


def topk_reset(int64_t[::1] heap, int64_t[::1] pos, int64_t[::1] hsize):
    """Empty the heap."""
    topk.topk_reset(&heap[0], &pos[0], &hsize[0])


def topk_build(int64_t[::1] heap, int64_t[::1] pos, int64_t[::1] hsize, const double[::1] w,
               int64_t n):
    """Rebuild the heap from the non-zero entries of ``w[:n]``."""
    topk.topk_build(&heap[0], &pos[0], &hsize[0], &w[0], n)
