# The losses of the online learners, each written once: the hinge (perceptron, PA, OFS, STSD), the
# epsilon-insensitive loss (PA regression), the logistic and square losses (OGD, FESL, FTRL, AdaGrad,
# NAG, Auto's mixture), and the Passive-Aggressive step size tau that the hinge learners share.
# Everything here is ``cdef inline``: each learner module compiles its own copy.
cimport cython
from libc.math cimport exp, fabs, log1p

from evofeat._core.safe cimport MAX, fmax0, sign_label

cdef enum:
    LOSS_LOGISTIC = 0  # the ``kind`` of c_loss_value, c_loss_slope, c_loss_step, label_of
    LOSS_SQUARE = 1
    PA_TAU = 0  # tau = l / ||x||^2 (Crammer et al. 2006, Eq. 6)
    PA_I_TAU = 1  # min(C, l / ||x||^2) (Eq. 7)
    PA_II_TAU = 2  # l / (||x||^2 + 1 / (2C)) (Eq. 8)


cdef inline double hinge(double margin) noexcept nogil:
    """The hinge loss ``max(0, 1 - m)`` of the margin ``m = y f`` (multiclass: ``f_y - f_r``)."""
    return fmax0(0.0, 1.0 - margin)


cdef inline double epsilon_insensitive(double y, double f, double epsilon) noexcept nogil:
    """PA regression's loss ``max(0, |y - f| - epsilon)``."""
    return fmax0(0.0, fabs(y - f) - epsilon)


@cython.cdivision(True)  # as in the .pyx cores it came from: no zero check (sq > 0, C > 0 there)
cdef inline double pa_tau(int rule, double C, double loss, double sq) noexcept nogil:
    """PA's step size from the loss and ``sq = ||x||^2`` (``rule``: ``PA_TAU``, ``PA_I_TAU``, else
    PA-II); PA-I's minimum is Python's ``min(C, l / sq)`` (``C`` unless ``l / sq`` is smaller)."""
    cdef double r
    if rule == PA_TAU:
        return loss / sq
    if rule == PA_I_TAU:
        r = loss / sq
        return r if r < C else C
    return loss / (sq + 1.0 / (2.0 * C))


cdef inline double exp_or_0(double x) noexcept nogil:
    """``exp(x)``; 0.0 below -750, where ``exp`` underflows to 0.0 anyway (without the libm's
    slow underflow path): the same bits as ``exp``. Auto's losses use it; the losses below do
    not (the branch cost OGD 1 to 2 % in an A/B: its margins jump across -750)."""
    return 0.0 if x < -750.0 else exp(x)


cdef inline double softplus_of(double m, double l) noexcept nogil:
    """``ln(1 + exp(m))`` from ``l = ln(1 + exp(-|m|))`` (two signs of ``m`` share one ``l``)."""
    if m > 0.0:
        return m + l
    return l


cdef inline double softplus(double m, double e) noexcept nogil:
    """``ln(1 + exp(m))``, computed stably from ``e = exp(-|m|)`` (not through
    :func:`softplus_of`: that changed the gradient learners' machine code, and OGD's speed)."""
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
    if kind == LOSS_LOGISTIC:
        m = -y * f
        return softplus(m, exp(-fabs(m)))
    d = y - f
    return d * d


cdef inline double c_loss_slope(int kind, double f, double y) noexcept nogil:
    """The derivative of :func:`c_loss_value` in ``f``: ``-y sigmoid(-y f)`` or ``-2 (y - f)``."""
    cdef double m
    if kind == LOSS_LOGISTIC:
        m = -y * f
        return -y * sigmoid(m, exp(-fabs(m)))
    return -2.0 * (y - f)


cdef inline bint c_loss_step(int kind, double f, double y, double* loss,
                             double* slope) noexcept nogil:
    """:func:`c_loss_value` into ``loss`` and :func:`c_loss_slope` into ``slope``, the logistic
    loss's exponential computed once; False when the slope is not finite (the square loss of a
    saturated score), so there is no step."""
    cdef double m, e, d
    if kind == LOSS_LOGISTIC:
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
    if kind == LOSS_LOGISTIC:
        return sign_label(f)
    return f
