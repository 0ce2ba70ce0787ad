# cython: language_level=3, boundscheck=False, wraparound=False
"""The Zipf rows of ``synth.py`` in compiled code (benchmarks only; built on first use by pyximport)."""

import numpy as np

from libc.stdint cimport int64_t


def zipf_rows(Py_ssize_t n, Py_ssize_t d, Py_ssize_t nnz, const double[::1] cdf,
              const int64_t[::1] perm, seed):
    """``n`` rows of ``nnz`` distinct columns drawn from ``cdf`` (by rank), mapped through ``perm``.

    Uniforms come from NumPy's legacy ``RandomState(seed)`` (MT19937), drawn in
    blocks and consumed in order, so the rows do not depend on the block size.
    """
    rs = np.random.RandomState(seed)
    cdef double[::1] u = rs.random_sample(1 << 16)
    cdef Py_ssize_t used = 0, i, k, lo, hi, mid, r
    cdef int64_t c
    cdef double total = cdf[cdf.shape[0] - 1], x
    indices = np.empty(n * nnz, np.int64)
    cdef int64_t[::1] out = indices
    cdef int64_t[::1] stamp = np.full(d, -1, np.int64)
    for i in range(n):
        k = 0
        while k < nnz:
            if used == u.shape[0]:
                u = rs.random_sample(1 << 16)
                used = 0
            x = u[used] * total
            used += 1
            lo, hi = 0, cdf.shape[0]  # searchsorted(cdf, x, side="right")
            while lo < hi:
                mid = (lo + hi) >> 1
                if cdf[mid] <= x:
                    lo = mid + 1
                else:
                    hi = mid
            r = lo if lo < d else d - 1
            c = perm[r]
            if stamp[c] == i:
                continue
            stamp[c] = i
            out[i * nnz + k] = c
            k += 1
        indices[i * nnz : (i + 1) * nnz].sort()
    return indices
