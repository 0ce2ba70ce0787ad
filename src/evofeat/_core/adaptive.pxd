# Per-coordinate adaptive steps, shared by linear/_adaptive.pyx (FTRL, AdaGrad, NAG) and ensemble/_fesl.pyx (base=...):
# FTRL-Proximal's lazy weight and update (McMahan et al. 2013, Algorithm 1), diagonal AdaGrad (Duchi et al. 2011),
# NAG's rescaled weight and normalised ratio (Ross, Mineiro, Langford 2013, Algorithm 2).
from libc.math cimport exp, expm1, fabs, log1p, sqrt

from evofeat._core.safe cimport saturate


cdef inline double ftrl_weight(double z, double n, double alpha, double beta, double l1,
                               double l2) noexcept nogil:
    """``w = -(z - sgn(z) l1) / ((beta + sqrt(n)) / alpha + l2)``, 0 if ``|z| <= l1``."""
    if fabs(z) <= l1:
        return 0.0
    cdef double d = (beta + sqrt(n)) / alpha + l2
    if not d > 0.0:  # beta = l2 = 0 and n = 0 (a gradient whose square underflowed)
        return 0.0
    return saturate(-(z - (l1 if z > 0.0 else -l1)) / d)


cdef inline double ftrl_step(double* z, double* n, double w, double g, double alpha) noexcept nogil:
    """Algorithm 1's update of one coordinate with gradient ``g`` and current weight ``w`` (each term saturated)."""
    cdef double n_new = saturate(n[0] + g * g)
    cdef double sigma = saturate((sqrt(n_new) - sqrt(n[0])) / alpha)
    z[0] = saturate(z[0] + saturate(g - saturate(sigma * w)))
    n[0] = n_new
    return n_new


cdef inline double adagrad_step(double* G, double g, double lr, double eps) noexcept nogil:
    """``G += g^2`` and the step ``-lr g / sqrt(eps + G)`` to add to the weight (each saturated)."""
    G[0] = saturate(G[0] + g * g)
    return saturate(-lr * (g / sqrt(eps + G[0])))


cdef inline double nag_rescaled(double w, double s, double a) noexcept nogil:
    """NAG's weight for a value of magnitude ``a`` on a coordinate of scale ``s``: ``w s / a`` if ``a > s > 0``, else ``w``."""
    if a > s and s > 0.0:
        return w * (s / a)
    return w


cdef inline double nag_ratio(double g, double G) noexcept nogil:
    """``g / sqrt(G)`` (``G`` holds ``g^2``, so at most 1 in magnitude; kept there when ``G`` saturated or underflowed)."""
    if g == 0.0:
        return 0.0
    cdef double r = g / sqrt(G) if G > 0.0 else (1.0 if g > 0.0 else -1.0)
    if r > 1.0:
        return 1.0
    if r < -1.0:
        return -1.0
    return r


cdef inline double invariant_shrink(int kind, double D, double slope, double score,
                                    double y) noexcept nogil:
    """The factor in ``(0, 1]`` that turns a gradient step into its importance-invariant version.

    The gradient step moves the score by ``-D`` (``D`` = the steps times the
    row's values); the invariant step (Karampatziakis and Langford 2011, VW's
    ``--invariant``) follows the loss's gradient flow along the same direction
    for the same "time" ``a = D / slope``: square loss ``(1 - exp(-2a)) /
    (2a)``; logistic: ``delta / delta_1`` where ``delta`` (the margin's change)
    solves ``delta + e^(y f) (e^delta - 1) = a`` (Newton, from the right) and
    ``delta_1 = a / (1 + e^(y f))`` is the gradient step's.
    """
    if D == 0.0 or slope == 0.0:
        return 1.0
    cdef double a = D / slope
    if not (a > 0.0 and a <= 1.7976931348623157e308):
        return 1.0
    if kind == 1:
        return -expm1(-2.0 * a) / (2.0 * a)
    cdef double E = exp(y * score)
    cdef double d1 = a / (1.0 + E)
    if not d1 > 0.0:  # the margin's exponential overflowed: no step to shrink
        return 1.0
    cdef double d = d1
    cdef double hi = log1p(a / E) if E > 0.0 else a  # E (e^delta - 1) <= a
    if hi < d:
        d = hi
    cdef double f, nxt
    cdef int it
    for it in range(100):  # convex and increasing: Newton from the right decreases to the root
        f = d + E * expm1(d) - a
        if not f > 0.0:
            break
        nxt = d - f / (1.0 + E * exp(d))
        if not nxt < d:
            break
        d = nxt
    return d / d1
