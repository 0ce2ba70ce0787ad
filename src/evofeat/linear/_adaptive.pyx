# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The per-coordinate adaptive learners' math (see :mod:`evofeat.linear.ftrl` and :mod:`evofeat.linear.adagrad`).

Each coordinate's state is touched only when its feature is in the row, so
an absent feature keeps its state and an unseen one starts at zero.
"""

from libc.math cimport fabs
from libc.stdint cimport int64_t
from libc.stdlib cimport free, realloc

from evofeat._core.core cimport Core
from evofeat._core.adaptive cimport adagrad_step, ftrl_step, ftrl_weight
from evofeat._core.losses cimport c_loss_slope, c_loss_value, label_of
from evofeat._core.safe cimport MAX, safe_dot, safe_dotn, saturate


cdef class FTRLCore(Core):
    """FTRL-Proximal: ``z`` and ``n`` per feature; ``alpha``, ``beta``, ``l1``, ``l2``; the loss code ``loss_kind``.

    With ``fit_intercept`` (1), a bias on a constant input 1 that every row
    has: its own ``intercept_z`` and ``intercept_n``, the rate scale
    ``intercept_lr`` (its alpha) and ``beta``, no L1 or L2.
    """

    cdef public double[::1] z
    cdef public double[::1] n
    cdef public double alpha, beta, l1, l2
    cdef public int loss_kind
    cdef public int fit_intercept
    cdef public double intercept_z, intercept_n, intercept_lr
    cdef double* wbuf  # the row's lazy weights (scratch, not state)
    cdef Py_ssize_t wcap

    _fields = (
        "z", "n", "alpha", "beta", "l1", "l2", "loss_kind",
        "fit_intercept", "intercept_z", "intercept_n", "intercept_lr",
    )

    cdef inline double bias(self) noexcept:
        """The lazy weight of the bias (no L1, no L2)."""
        return ftrl_weight(self.intercept_z, self.intercept_n, self.intercept_lr, self.beta, 0.0,
                           0.0)

    def __dealloc__(self):
        free(self.wbuf)

    cdef double* weights(self, const int64_t* idx, Py_ssize_t m) noexcept:
        """The row's weights from ``z`` and ``n`` into the scratch buffer (NULL if it cannot grow)."""
        cdef double* grown
        if m > self.wcap:
            grown = <double*> realloc(self.wbuf, m * sizeof(double))
            if grown == NULL:
                return NULL
            self.wbuf = grown
            self.wcap = m
        cdef Py_ssize_t k
        cdef const double* z = &self.z[0]
        cdef const double* nn = &self.n[0]
        for k in range(m):
            self.wbuf[k] = ftrl_weight(z[idx[k]], nn[idx[k]], self.alpha, self.beta, self.l1,
                                       self.l2)
        return self.wbuf

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t m,
                        double* label) noexcept:
        cdef double s = 0.0
        cdef double* w
        if m > 0:
            w = self.weights(idx, m)
            if w != NULL:
                s = safe_dotn(w, val, m)
        if self.fit_intercept:
            s = saturate(s + self.bias())
        label[0] = label_of(self.loss_kind, s)
        return s

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t m,
                      double y, double score) noexcept:
        cdef double slope = c_loss_slope(self.loss_kind, score, y)
        cdef double loss = c_loss_value(self.loss_kind, score, y)
        if not fabs(slope) <= MAX:  # the square loss of a saturated score: no step
            return loss
        cdef Py_ssize_t k
        cdef int64_t i
        cdef double w
        cdef double* z = &self.z[0]
        cdef double* nn = &self.n[0]
        for k in range(m):
            i = idx[k]
            w = ftrl_weight(z[i], nn[i], self.alpha, self.beta, self.l1, self.l2)
            ftrl_step(&z[i], &nn[i], w, saturate(slope * val[k]), self.alpha)
        if self.fit_intercept:  # the gradient on the constant input 1 is the slope
            ftrl_step(&self.intercept_z, &self.intercept_n, self.bias(), saturate(slope),
                      self.intercept_lr)
        return loss


cdef class AdaGradCore(Core):
    """Diagonal AdaGrad OGD: ``w`` and ``G`` (sum of squared gradients) per feature; ``lr``, ``eps``, ``loss_kind``.

    With ``fit_intercept`` (1), a bias ``intercept`` on a constant input 1
    that every row has, with its own accumulator ``intercept_G`` and step
    scale ``intercept_lr``.
    """

    cdef public double[::1] w
    cdef public double[::1] G
    cdef public double lr, eps
    cdef public int loss_kind
    cdef public int fit_intercept
    cdef public double intercept, intercept_G, intercept_lr

    _fields = ("w", "G", "lr", "eps", "loss_kind", "fit_intercept", "intercept", "intercept_G",
               "intercept_lr")

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t m,
                        double* label) noexcept:
        cdef double s = safe_dot(&self.w[0], idx, val, m)
        if self.fit_intercept:
            s = saturate(s + self.intercept)
        label[0] = label_of(self.loss_kind, s)
        return s

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t m,
                      double y, double score) noexcept:
        cdef double slope = c_loss_slope(self.loss_kind, score, y)
        cdef double loss = c_loss_value(self.loss_kind, score, y)
        if not fabs(slope) <= MAX:  # the square loss of a saturated score: no step
            return loss
        cdef Py_ssize_t k
        cdef int64_t i
        cdef double g
        cdef double* w = &self.w[0]
        cdef double* G = &self.G[0]
        for k in range(m):
            i = idx[k]
            g = saturate(slope * val[k])
            w[i] = saturate(w[i] + adagrad_step(&G[i], g, self.lr, self.eps))
        if self.fit_intercept:  # the gradient on the constant input 1 is the slope
            self.intercept = saturate(
                self.intercept + adagrad_step(&self.intercept_G, saturate(slope), self.intercept_lr,
                                              self.eps))
        return loss
