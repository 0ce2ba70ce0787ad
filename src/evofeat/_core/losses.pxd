# The losses of the gradient learners (OGD, FESL, FTRL, AdaGrad, NAG), in one place.
# Everything here is ``cdef inline``: each learner module compiles its own copy.
from libc.math cimport exp, fabs, log1p

from evofeat._core.safe cimport MAX, sign_label


cdef inline double softplus(double m, double e) noexcept nogil:
    """``ln(1 + exp(m))``, computed stably from ``e = exp(-|m|)``."""
    if m > 0.0:
        return m + log1p(e)
    return log1p(e)


cdef inline double sigmoid(double m, double e) noexcept nogil:
    """``1 / (1 + exp(-m))``, computed stably from ``e = exp(-|m|)``."""
    if m > 0.0:
        return 1.0 / (1.0 + e)
    return e / (1.0 + e)


cdef inline double c_loss_value(int kind, double f, double y) noexcept nogil:
    """Logistic ``ln(1 + exp(-y f))`` (computed stably) or square ``(y - f)^2``."""
    cdef double m, d
    if kind == 0:
        m = -y * f
        return softplus(m, exp(-fabs(m)))
    d = y - f
    return d * d


cdef inline double c_loss_slope(int kind, double f, double y) noexcept nogil:
    """The derivative of :func:`c_loss_value` in ``f``: ``-y sigmoid(-y f)`` or ``-2 (y - f)``."""
    cdef double m
    if kind == 0:
        m = -y * f
        return -y * sigmoid(m, exp(-fabs(m)))
    return -2.0 * (y - f)


cdef inline bint c_loss_step(int kind, double f, double y, double* loss,
                             double* slope) noexcept nogil:
    """:func:`c_loss_value` into ``loss`` and :func:`c_loss_slope` into ``slope``, the logistic
    loss's exponential computed once; False when the slope is not finite (the square loss of a
    saturated score), so there is no step."""
    cdef double m, e, d
    if kind == 0:
        m = -y * f
        e = exp(-fabs(m))
        loss[0] = softplus(m, e)
        slope[0] = -y * sigmoid(m, e)
    else:
        d = y - f
        loss[0] = d * d
        slope[0] = -2.0 * d
    return fabs(slope[0]) <= MAX


cdef inline double label_of(int kind, double f) noexcept nogil:
    """The sign of ``f`` (0 predicts -1), or ``f`` itself for the square loss."""
    if kind == 0:
        return sign_label(f)
    return f
