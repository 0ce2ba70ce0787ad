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
    cdef bint adopt(self, ScaledCore other) noexcept
    cdef bint reserve(self, Py_ssize_t n) noexcept


cdef class ZScoreCore(ScaledCore):
    cdef public double[::1] count
    cdef public double[::1] mean
    cdef public double[::1] m2


cdef class QuantileCore(ScaledCore):
    cdef public int64_t window
    cdef public int64_t[::1] seen
    cdef public double[:, ::1] recent
    # scratch (not state): each feature's kept values in increasing order (rows of `window`),
    # built from `recent` on the first transform, then kept in step by `update`
    cdef double* srt
    cdef Py_ssize_t srt_rows
    cdef bint sort_kept(self) noexcept


cdef class QuantileSketchCore(ScaledCore):
    cdef public int64_t window
    cdef public int64_t[::1] seen
    cdef public double[:, ::1] sample


cdef Py_ssize_t count_below(const double* a, Py_ssize_t m, double x) noexcept nogil
cdef Py_ssize_t count_not_above(const double* a, Py_ssize_t lo, Py_ssize_t m,
                                double x) noexcept nogil
cdef Py_ssize_t sorted_insert(double* a, Py_ssize_t m, double x) noexcept nogil
cdef void sorted_replace(double* a, Py_ssize_t m, double old, double x) noexcept nogil
cdef Py_ssize_t sorted_remove(double* a, Py_ssize_t m, double x) noexcept nogil


cdef double normal_quantile(double p) noexcept nogil
