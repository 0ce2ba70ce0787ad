# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The perceptron's math (see :mod:`evofeat.linear.perceptron`)."""

from libc.stdint cimport int64_t

from evofeat._core.core cimport Core
from evofeat._core.safe cimport safe_axpy, safe_dot, sign_label


cdef class PerceptronCore(Core):
    """``w``: one weight per feature; ``lr``: the step on a mistake."""

    cdef public double[::1] w
    cdef public double lr

    _fields = ("w", "lr")

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        cdef double s = safe_dot(&self.w[0], idx, val, n)
        label[0] = sign_label(s)
        return s

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        if y * score > 0.0:
            return 0.0
        safe_axpy(&self.w[0], self.lr * y, idx, val, n)
        return 1.0
