# The bias (intercept) of the online learners, written once: the weight b of a constant input 1 that every row has.
#
# The bias is not a feature: it is always visible, has no column in the feature index, never counts in a budget, a
# stage or a truncation, is not in coef_, and no constraint acts on it (the L1 / L2 balls and the decays bound the
# feature weights only, as scikit-learn leaves the intercept out of its penalty). Each learner keeps it in named fields
# of its core (fit_intercept, intercept, and the bias's own accumulator when its rule has one) and steps it with its own
# rule on the input 1: its share of the score (bias_score), of ||x||^2 (bias_sq), of the step (bias_add,
# bias_adagrad). Everything is ``cdef inline``: with fit_intercept off a learner pays one predictable branch.
from evofeat._core.adaptive cimport adagrad_step
from evofeat._core.safe cimport saturate


cdef inline double bias_score(bint on, double b, double s) noexcept nogil:
    """The score ``s`` plus the bias, saturated at ``+-MAX`` (``s`` itself when ``on`` is off)."""
    if on:
        return saturate(s + b)
    return s


cdef inline double bias_sq(bint on, double sq) noexcept nogil:
    """``||x||^2`` with the bias's input 1 counted (``sq + 1``) when ``on``."""
    if on:
        return sq + 1.0
    return sq


cdef inline void bias_add(bint on, double* b, double a) noexcept nogil:
    """The step ``a`` on the input 1: ``b += a``, saturated, when ``on``."""
    if on:
        b[0] = saturate(b[0] + a)


cdef inline void bias_adagrad(bint on, double* b, double* G, double g, double lr,
                              double eps) noexcept nogil:
    """AdaGrad's step on the input 1 with gradient ``g``: ``G += g^2``, ``b -= lr g / sqrt(eps + G)`` (when ``on``)."""
    if on:
        b[0] = saturate(b[0] + adagrad_step(G, saturate(g), lr, eps))
