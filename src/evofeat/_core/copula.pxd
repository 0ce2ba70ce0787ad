# Absent features imputed in a Gaussian copula's space, in front of a learner's core (copula.pyx).
from libc.stdint cimport int64_t

from evofeat._core.scaling cimport QuantileCore


cdef class CopulaCore(QuantileCore):
    cdef public double[:, ::1] sigma
    cdef public double forget
    cdef public double ridge
    cdef public int64_t rows
    # scratch (not state): the extended row; the observed and imputed columns; the factor of
    # sigma's observed block; its solves; the imputed block's conditional covariance
    cdef int64_t* xidx
    cdef double* xval
    cdef int64_t* obs
    cdef int64_t* mis
    cdef double* chol
    cdef double* work
    cdef double* cmm
    cdef Py_ssize_t xcap, ccap, wcap, mcap, no, nm
    cdef int reserve_work(self, Py_ssize_t d, Py_ssize_t no, Py_ssize_t nm, bint keep) noexcept
    cdef Py_ssize_t extend(self, const int64_t* idx, const double* z, Py_ssize_t n,
                           bint keep) noexcept
    cdef void em_step(self, Py_ssize_t m) noexcept


cdef double learn_unimputed(QuantileCore core, const int64_t* idx, const double* feed,
                            Py_ssize_t nfeed, const double* val, Py_ssize_t n, double y,
                            double score) noexcept


cdef class NeighbourCopulaCore(QuantileCore):
    cdef public int64_t[:, ::1] nbr
    cdef public double[:, ::1] cross
    cdef public double[:, ::1] vj
    cdef public double[:, ::1] vi
    cdef public double[:, ::1] cnt
    cdef public double forget
    cdef public int64_t seed
    cdef public int64_t rows
    # scratch (not state): the extended row; each column's mark (the row's stamp when present)
    # and its present score
    cdef int64_t* xidx
    cdef double* xval
    cdef int64_t* mark
    cdef double* zat
    cdef int64_t stamp
    cdef Py_ssize_t xcap
    cdef Py_ssize_t extend(self, const int64_t* idx, const double* z, Py_ssize_t n) noexcept
    cdef double rho(self, int64_t j, Py_ssize_t s) noexcept
