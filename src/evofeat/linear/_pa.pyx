# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The Passive-Aggressive family's math (see :mod:`evofeat.linear.pa`)."""

from libc.math cimport fabs, ldexp
from libc.stdint cimport int64_t

from evofeat._core.bias cimport bias_add, bias_input, bias_score, bias_sq, bias_sq_scaled
from evofeat._core.core cimport Core
from evofeat._core.losses cimport PA_I_TAU, PA_II_TAU, PA_TAU, hinge, pa_tau
from evofeat._core.safe cimport (
    MAX, NORMAL, exponent, fmax0, safe_axpy, safe_dot, saturate, sign_label, sq_norm,
)

#: ``mode`` codes
PA_PLAIN, PA_I, PA_II = PA_TAU, PA_I_TAU, PA_II_TAU


cdef class PACore(Core):
    """``w``: one weight per feature; ``mode``: 0 PA, 1 PA-I, 2 PA-II; ``C``: aggressiveness.

    With ``fit_intercept`` (1), the bias ``intercept`` is the weight of a
    constant input 1 that every row has: it adds to the score and 1 to
    ``||x||^2``, and moves by ``tau y`` as every other weight.
    """

    cdef public double[::1] w
    cdef public int mode
    cdef public double C
    cdef public int fit_intercept
    cdef public double intercept

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        cdef double s = safe_dot(&self.w[0], idx, val, n)
        if self.fit_intercept:  # the branch outside the part: PA's hot path as it was
            s = bias_score(1, self.intercept, s)
        label[0] = sign_label(s)
        return s

    cdef inline double rescaled_step(self, double loss, int e, double sqs) noexcept:
        """``tau 2^e``: the step on the row rescaled to ``x 2^-e`` (``sqs`` its squared norm).

        Not :func:`pa_tau` on the rescaled row: each mode's formula is rearranged so that no
        intermediate over- or underflows, which takes other operations in another order (STSD,
        which has no such rescue, calls :func:`pa_tau` only)."""
        cdef double r
        if self.mode == PA_II_TAU:
            if e > 0:
                return ldexp(loss / (sqs + ldexp(1.0 / (2.0 * self.C), -2 * e)), -e)
            return loss * ldexp(1.0, e) / (ldexp(sqs, 2 * e) + 1.0 / (2.0 * self.C))
        r = loss / sqs
        if self.mode == PA_I_TAU and not ldexp(r, -2 * e) < self.C:
            return ldexp(self.C, e)
        return ldexp(r, -e)

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        cdef double loss = hinge(y * score)
        if loss == 0.0:
            return 0.0
        cdef double* w = &self.w[0]
        cdef double sq = sq_norm(val, n)
        cdef double a
        if self.fit_intercept:
            sq = bias_sq(1, sq)
        if NORMAL <= sq <= MAX:
            a = pa_tau(self.mode, self.C, loss, sq) * y
            if safe_axpy(w, a, idx, val, n):
                if self.fit_intercept:
                    bias_add(1, &self.intercept, a)
                return loss
        # ||x||^2 over- or underflowed: the step on the row rescaled by a power of two
        cdef double m = bias_input(self.fit_intercept)
        cdef double sqs = 0.0, v, c
        cdef Py_ssize_t k
        for k in range(n):
            m = fmax0(m, fabs(val[k]))
        if m == 0.0:  # a zero row: nothing to learn
            return loss
        cdef int e = exponent(m)
        for k in range(n):
            v = ldexp(val[k], -e)
            sqs += v * v
        sqs = bias_sq_scaled(self.fit_intercept, sqs, e)
        c = self.rescaled_step(loss, e, sqs) * y
        if fabs(c) <= MAX:
            for k in range(n):
                w[idx[k]] = saturate(w[idx[k]] + c * ldexp(val[k], -e))
            bias_add(self.fit_intercept, &self.intercept, c * ldexp(1.0, -e))
        return loss
