# cython: language_level=3, boundscheck=True, wraparound=False
"""The compiled helpers of ``_core/safe.pxd``, ``topk.pxd`` and ``rng.pxd``, callable from Python.

The learners ``cimport`` the inline versions; these wrappers (bounds-checked)
let tests and the NumPy side call exactly the same code on NumPy arrays.
"""

from cpython.buffer cimport PyBUF_C_CONTIGUOUS, PyBUF_FORMAT, PyBuffer_Release, PyObject_GetBuffer
from libc.math cimport fabs
from libc.stdint cimport int64_t, uint64_t

from evofeat._core cimport rng, safe, topk


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


def draw_uniform(uint64_t seed, uint64_t stream, uint64_t k):
    """The ``k``-th uniform in [0, 1) of ``stream`` under ``seed``: SplitMix64, counter-based (no state).

    The draw of ``rng.pxd`` that OFS_P, RAND and FESL-s use.

    >>> round(draw_uniform(0, 0, 0), 6), draw_uniform(3, 1, 2) == draw_uniform(3, 1, 2)
    (0.203103, True)
    """
    return rng.draw_uniform(seed, stream, k)


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


cdef Py_ssize_t _head(Py_buffer* view, Py_ssize_t n) noexcept:
    """How many doubles the first ``n`` rows of a float64 C-contiguous buffer hold (-1: not one)."""
    if view.itemsize != 8 or view.format == NULL or not (
        view.format[0] == b"d" and view.format[1] == 0
        or view.format[0] in (b"<", b"=", b"@") and view.format[1] == b"d" and view.format[2] == 0
    ):
        return -1
    if view.ndim == 0:
        return 1
    cdef Py_ssize_t k, count = min(max(n, 0), view.shape[0])
    for k in range(1, view.ndim):
        count *= view.shape[k]
    return count


def finite_head(obj, Py_ssize_t n):
    """Whether the first ``n`` rows of ``obj`` (a float64 C-contiguous buffer) are all finite.

    One pass, no temporaries: ``np.isfinite(np.asarray(obj)[:n]).all()``.
    Returns -1 when ``obj`` is no such buffer (the caller checks it otherwise).

    >>> import numpy as np
    >>> finite_head(np.array([[1.0, 2.0], [np.inf, 0.0]]), 1), finite_head(np.array([1.0, np.nan]), 2)
    (1, 0)
    >>> finite_head(np.arange(3), 3)
    -1
    """
    cdef Py_buffer view
    try:
        PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
    except (BufferError, TypeError, ValueError):
        return -1
    cdef Py_ssize_t i, count = _head(&view, n)
    cdef const double* a = <const double*> view.buf
    cdef int out = 1 if count >= 0 else -1
    for i in range(max(count, 0)):
        if not fabs(a[i]) <= 1.7976931348623157e308:  # inf and NaN fail the comparison
            out = 0
            break
    PyBuffer_Release(&view)
    return out


def max_abs_head(obj, Py_ssize_t n, scale=None):
    """``np.max(np.abs(w[:n]))`` of a float64 C-contiguous buffer ``w`` in one pass (0.0 if empty).

    With ``scale`` (a float64 buffer as long), the largest ``|w_i| scale_i``.
    NaN if any term is NaN, as ``np.max``.

    >>> import numpy as np
    >>> max_abs_head(np.array([1.0, -3.0, 9.0]), 2), max_abs_head(np.array([2.0, -3.0]), 2, np.array([2.0, 1.0]))
    (3.0, 4.0)
    """
    cdef Py_buffer view, sview
    cdef bint scaled = scale is not None
    PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
    cdef Py_ssize_t count = _head(&view, n)
    if scaled:
        try:
            PyObject_GetBuffer(scale, &sview, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
        except BaseException:
            PyBuffer_Release(&view)
            raise
        if _head(&sview, n) != count:
            count = -1
            PyBuffer_Release(&sview)
            scaled = False
    if count < 0:
        PyBuffer_Release(&view)
        raise ValueError("max_abs_head takes float64 C-contiguous buffers of matching lengths")
    cdef const double* a = <const double*> view.buf
    cdef const double* s = <const double*> sview.buf if scaled else NULL
    cdef double v, top = 0.0
    cdef Py_ssize_t i
    for i in range(count):
        v = fabs(fabs(a[i]) * s[i]) if scaled else fabs(a[i])
        if v != v:
            top = v
            break
        if v > top:
            top = v
    PyBuffer_Release(&view)
    if scaled:
        PyBuffer_Release(&sview)
    return top
