# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The perceptron's math (see :mod:`evofeat.linear.perceptron`)."""

from libc.stdint cimport int64_t

from evofeat._core.bias cimport bias_add, bias_score
from evofeat._core.core cimport Core
from evofeat._core.safe cimport safe_axpy, safe_dot, sign_label


cdef class PerceptronCore(Core):
    """``w``: one weight per feature; ``lr``: the step on a mistake.

    With ``fit_intercept`` (1), the bias ``intercept`` is the weight of a
    constant input 1 that every row has: added to the score, stepped by
    ``intercept_lr y`` on a mistake.
    """

    cdef public double[::1] w
    cdef public double lr
    cdef public int fit_intercept
    cdef public double intercept, intercept_lr

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        cdef double s = safe_dot(&self.w[0], idx, val, n)
        if self.fit_intercept:  # the branch outside the part, as PA's hot path
            s = bias_score(1, self.intercept, s)
        label[0] = sign_label(s)
        return s

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        if y * score > 0.0:
            return 0.0
        safe_axpy(&self.w[0], self.lr * y, idx, val, n)
        bias_add(self.fit_intercept, &self.intercept, self.intercept_lr * y)
        return 1.0
