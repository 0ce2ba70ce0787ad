# The losses of the gradient learners (OGD, FESL, FTRL, AdaGrad), in one place.
# Everything here is ``cdef inline``: each learner module compiles its own copy.
from libc.math cimport exp, log1p

from evofeat._core.safe cimport sign_label


cdef inline double c_loss_value(int kind, double f, double y) noexcept nogil:
    """Logistic ``ln(1 + exp(-y f))`` (computed stably) or square ``(y - f)^2``."""
    cdef double m, d
    if kind == 0:
        m = -y * f
        if m > 0.0:
            return m + log1p(exp(-m))
        return log1p(exp(m))
    d = y - f
    return d * d


cdef inline double c_loss_slope(int kind, double f, double y) noexcept nogil:
    """The derivative of :func:`c_loss_value` in ``f``: ``-y sigmoid(-y f)`` or ``-2 (y - f)``."""
    cdef double m, s, e
    if kind == 0:
        m = -y * f
        if m >= 0.0:
            s = 1.0 / (1.0 + exp(-m))
        else:
            e = exp(m)
            s = e / (1.0 + e)
        return -y * s
    return -2.0 * (y - f)


cdef inline double label_of(int kind, double f) noexcept nogil:
    """The sign of ``f`` (0 predicts -1), or ``f`` itself for the square loss."""
    if kind == 0:
        return sign_label(f)
    return f
