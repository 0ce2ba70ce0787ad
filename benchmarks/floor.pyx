# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The floor of the speed targets: PA-I (C = 1) as one bare compiled loop over CSR arrays.

No feature index, no chunks, no visibility, no safety checks: the least a
prequential linear learner can cost on this machine. Compiled on first use by
``pyximport`` (benchmarks only; not part of the library).
"""

from libc.stdint cimport int64_t


def pa1(const int64_t[::1] indptr, const int64_t[::1] indices, const double[::1] data,
        const double[::1] y, double[::1] w):
    cdef Py_ssize_t i, k, a, b
    cdef int64_t wrong = 0
    cdef double s, loss, sq, t
    for i in range(y.shape[0]):
        a = indptr[i]
        b = indptr[i + 1]
        s = 0.0
        for k in range(a, b):
            s += w[indices[k]] * data[k]
        if (1.0 if s > 0.0 else -1.0) != y[i]:
            wrong += 1
        loss = 1.0 - y[i] * s
        if loss > 0.0:
            sq = 0.0
            for k in range(a, b):
                sq += data[k] * data[k]
            if sq > 0.0:
                t = min(1.0, loss / sq) * y[i]
                for k in range(a, b):
                    w[indices[k]] += t * data[k]
    return wrong
