# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Online gradient descent's math and the two loss functions as Python callables (see :mod:`evofeat.linear.ogd`)."""

from libc.stdint cimport int64_t

from evofeat._core.bias cimport bias_score
from evofeat._core.core cimport Core
from evofeat._core.losses cimport c_loss_slope, c_loss_value, label_of
from evofeat._core.safe cimport safe_axpy, safe_dot
from evofeat._core.steprule cimport OGD_RULE, StepRule, rule_apply, rule_bias, rule_delta, rule_make, rule_row


def loss_value(int kind, double f, double y):
    """The loss of score ``f`` on label ``y``: logistic (``kind`` 0, stable) or square (1).

    >>> loss_value(1, 0.5, 1.0), loss_value(0, 1e300, 1.0)
    (0.25, 0.0)
    """
    return c_loss_value(kind, f, y)


def loss_slope(int kind, double f, double y):
    """The derivative of :func:`loss_value` in ``f``.

    >>> loss_slope(1, 0.5, 1.0)
    -1.0
    """
    return c_loss_slope(kind, f, y)


cdef class OGDCore(Core):
    """OGD: ``w``, the loss code ``loss_kind``, the step ``lr / sqrt(t)`` after ``t`` rounds.

    With ``fit_intercept`` (1), the bias ``intercept`` is the weight of a
    constant input 1 that every row has, stepped by ``intercept_lr /
    sqrt(t)`` times the loss slope.
    """

    cdef public double[::1] w
    cdef public int loss_kind
    cdef public double lr
    cdef public int64_t t
    cdef public int fit_intercept
    cdef public double intercept, intercept_lr

    cdef inline double decision(self, const int64_t* idx, const double* val, Py_ssize_t n) noexcept:
        return bias_score(self.fit_intercept, self.intercept, safe_dot(&self.w[0], idx, val, n))

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        cdef double s = self.decision(idx, val, n)
        label[0] = label_of(self.loss_kind, s)
        return s

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        self.t += 1
        cdef double slope = c_loss_slope(self.loss_kind, self.decision(idx, val, n), y)
        cdef double q
        cdef StepRule r = rule_make(OGD_RULE, self.lr, 0.0, 0.0, 0.0, 0.0)
        cdef StepRule br = rule_bias(&r, self.intercept_lr)
        if rule_row(&r, <double> self.t, slope, NULL, NULL, 0, NULL, NULL, NULL, 0, False, &q):
            safe_axpy(&self.w[0], q, idx, val, n)  # the step q x (none if q is not finite)
        if self.fit_intercept and rule_row(&br, <double> self.t, slope, NULL, NULL, 0, NULL, NULL,
                                           NULL, 0, False, &q):
            self.intercept = rule_apply(&br, self.intercept,
                                        rule_delta(&br, NULL, NULL, 1.0, 0.0, 1.0, slope, q), 0.0, 0.0)
        return c_loss_value(self.loss_kind, score, y)
