# Online per-feature scaling in front of a learner's core (see evofeat/_core/scaling.pyx).
from libc.stdint cimport int64_t

from evofeat._core.core cimport Core


cdef class ScaledCore(Core):
    cdef public Core inner
    # scratch (not state): the last row predict scaled (its columns, raw and scaled values)
    cdef int64_t* tcols
    cdef double* traw
    cdef double* tval
    cdef Py_ssize_t tcap, tlen
    cdef double* scaled(self, const int64_t* idx, const double* val, Py_ssize_t n) noexcept
    cdef void transform(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* out) noexcept
    cdef void update(self, const int64_t* idx, const double* val, Py_ssize_t n) noexcept


cdef class ZScoreCore(ScaledCore):
    cdef public double[::1] count
    cdef public double[::1] mean
    cdef public double[::1] m2


cdef class QuantileCore(ScaledCore):
    cdef public int64_t window
    cdef public int64_t[::1] seen
    cdef public double[:, ::1] recent


cdef double normal_quantile(double p) noexcept nogil
