# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled search of :class:`evofeat.selection.citests.FisherZTester`.

It enumerates conditioning sets in order and stops at the first that makes
the two variables independent (Fisher's z-test of the partial correlation).
"""

import numpy as np

from libc.math cimport atanh, fabs, isnan, sqrt, NAN
from libc.stdint cimport int64_t


cdef double partial_corr(const double[:, ::1] C, const int64_t[::1] S, double[:, ::1] M,
                         double[:, ::1] X) noexcept:
    """Partial correlation of variables 0 and 1 given ``S`` (Schur complement, Gaussian elimination).

    ``M`` (k x k+2) and ``X`` (k x 2) are scratch. Solves ``D [x0 x1] = [B0 B1]``
    with ``D = C[S, S]``, ``B = C[S, 0:2]`` by elimination with partial pivoting.
    """
    cdef Py_ssize_t k = S.shape[0], a, b, col, row, piv, c, rhs
    cdef double f, acc, tmp, a00, a01, a11, den
    for a in range(k):
        for b in range(k):
            M[a, b] = C[S[a], S[b]]
        M[a, k] = C[S[a], 0]
        M[a, k + 1] = C[S[a], 1]
    for col in range(k):
        piv = col
        for row in range(col + 1, k):
            if fabs(M[row, col]) > fabs(M[piv, col]):
                piv = row
        if M[piv, col] == 0.0:
            return NAN
        if piv != col:
            for c in range(k + 2):
                tmp = M[col, c]
                M[col, c] = M[piv, c]
                M[piv, c] = tmp
        for row in range(col + 1, k):
            f = M[row, col] / M[col, col]
            for c in range(col, k + 2):
                M[row, c] -= f * M[col, c]
    for rhs in range(2):
        for row in range(k - 1, -1, -1):
            acc = M[row, k + rhs]
            for c in range(row + 1, k):
                acc -= M[row, c] * X[c, rhs]
            X[row, rhs] = acc / M[row, row]
    a00 = C[0, 0]
    a01 = C[0, 1]
    a11 = C[1, 1]
    for a in range(k):
        a00 -= C[0, S[a]] * X[a, 0]
        a01 -= C[0, S[a]] * X[a, 1]
        a11 -= C[1, S[a]] * X[a, 1]
    den = a00 * a11
    if not den > 0.0:
        return NAN
    return a01 / sqrt(den)


def fisher_search(const double[:, ::1] C, Py_ssize_t n, double cutoff, Py_ssize_t max_size,
                  Py_ssize_t req):
    """First set (pool positions, lexicographic within a size, sizes 1..max_size) giving independence.

    ``C`` is the covariance of ``[x, y, pool...]``; ``req >= 0`` keeps only the
    sets holding that position. Returns the positions (an empty array when
    there is none).

    >>> C = np.array([[1.0, 0.5, 0.7], [0.5, 1.0, 0.7], [0.7, 0.7, 1.0]])
    >>> fisher_search(C, 1000, 1.96, 1, -1).tolist()
    [0]
    """
    cdef Py_ssize_t p = C.shape[0] - 2, size, a, i, dof
    cdef int64_t[::1] idx, S
    cdef double r, z
    cdef bint ok
    cdef double[:, ::1] M
    cdef double[:, ::1] X
    for size in range(1, min(max_size, p) + 1):
        idx = np.arange(size, dtype=np.int64)
        S = np.empty(size, dtype=np.int64)
        M = np.empty((size, size + 2))
        X = np.empty((size, 2))
        while True:
            ok = req < 0
            for a in range(size):
                if idx[a] == req:
                    ok = True
            if ok:
                for a in range(size):
                    S[a] = idx[a] + 2
                r = partial_corr(C, S, M, X)
                dof = n - size - 3
                if isnan(r) or dof <= 0:
                    return np.asarray(idx).copy()
                z = sqrt(<double> dof) * atanh(min(1.0, max(-1.0, r)))
                if fabs(z) < cutoff:
                    return np.asarray(idx).copy()
            i = size - 1
            while i >= 0 and idx[i] == p - size + i:
                i -= 1
            if i < 0:
                break
            idx[i] += 1
            for a in range(i + 1, size):
                idx[a] = idx[a - 1] + 1
    return np.zeros(0, dtype=np.int64)
