# cython: cdivision=True
# The step rules of the gradient learners, written once: OGD (the paper's ``lr / sqrt(t)``), diagonal AdaGrad (Duchi et
# al. 2011), FTRL-Proximal (McMahan et al. 2013, Algorithm 1) and NAG (Ross, Mineiro, Langford 2013, Algorithm 2).
#
# A rule is a ``StepRule`` (its kind, parameters and NAG's row counts) over per-coordinate state that its owner keeps:
# ``G`` (AdaGrad's and NAG's sums of squared gradients, FTRL's ``n``), ``z`` (FTRL) and ``s`` (NAG's scales). A row's
# step is ``rule_row`` (once per row: OGD's step size, NAG's rescaling and counts), then ``rule_delta`` per coordinate
# (the change of its weight) and ``rule_apply`` (the new weight). The learners that hold a rule (linear/_adaptive.pyx,
# ensemble/_fesl.pyx's current model) and their biases (``rule_bias``: the same rule on the input 1, its own state and
# rate, no L1 or L2) step through these functions. Everything is ``cdef inline`` over a struct: the kind is a
# predictable branch, no virtual call per coordinate.
from libc.math cimport fabs, sqrt
from libc.stdint cimport int64_t

from evofeat._core.adaptive cimport adagrad_step, ftrl_step, ftrl_weight, nag_ratio, nag_rescaled
from evofeat._core.safe cimport MAX, saturate

cdef enum:
    OGD_RULE = 0
    ADAGRAD_RULE = 1
    FTRL_RULE = 2
    NAG_RULE = 3


cdef struct StepRule:
    int kind  # OGD_RULE, ADAGRAD_RULE, FTRL_RULE or NAG_RULE
    double lr  # OGD's and NAG's eta, AdaGrad's lr, FTRL's alpha
    double eps  # AdaGrad's initial accumulator
    double beta, l1, l2  # FTRL-Proximal's rate offset and penalties
    double t, N  # NAG: rows stepped and their sum of x_i^2 / s_i^2


cdef inline StepRule rule_make(int kind, double lr, double eps, double beta, double l1,
                               double l2) noexcept nogil:
    """A rule with no rows counted."""
    cdef StepRule r
    r.kind, r.lr, r.eps, r.beta, r.l1, r.l2, r.t, r.N = kind, lr, eps, beta, l1, l2, 0.0, 0.0
    return r


cdef inline StepRule rule_bias(const StepRule* r, double lr) noexcept nogil:
    """The rule of the bias (the input 1): ``r`` with the rate ``lr`` and no L1 or L2."""
    cdef StepRule b = r[0]
    b.lr, b.l1, b.l2 = lr, 0.0, 0.0
    return b


cdef inline bint in_mask(const int64_t* space, int64_t cur, int64_t j) noexcept nogil:
    """Whether coordinate ``j`` is stepped: all are when ``space`` is NULL, else those with ``space[j] == cur``."""
    return space == NULL or space[j] == cur


cdef inline bint rule_row(StepRule* r, double clock, double slope, const int64_t* idx,
                          const double* val, Py_ssize_t n, double* w, double* s,
                          const int64_t* space, int64_t cur, bint bias, double* q) noexcept nogil:
    """The row's part of the step, before its coordinates: into ``q``, OGD's ``-lr / sqrt(clock) slope``
    (the step is ``q x``); NAG's ``sqrt(t / N)`` after rescaling each stepped weight whose ``|x_i|`` exceeds
    its scale ``s_i`` and counting the row (``bias``: the input 1 of scale 1 adds 1 to ``N``). False: no
    step (a step that is not finite, or NAG with no value seen yet)."""
    cdef Py_ssize_t k
    cdef int64_t j
    cdef double a, x, nx = 0.0
    if r.kind == OGD_RULE:
        q[0] = -(r.lr / sqrt(clock)) * slope
        return fabs(q[0]) <= MAX
    if not fabs(slope) <= MAX:
        return False
    if r.kind != NAG_RULE:
        return True
    for k in range(n):  # new scales: rescale the weight, then N's term (at most 1)
        j = idx[k]
        if not in_mask(space, cur, j):
            continue
        a = fabs(val[k])
        if a > s[j]:
            w[j] = nag_rescaled(w[j], s[j], a)
            s[j] = a
        if s[j] > 0.0:
            x = a / s[j]
            nx += x * x
    if bias:
        nx = nx + 1.0
    r.t += 1.0
    r.N = saturate(r.N + nx)
    if not r.N > 0.0:  # no value seen yet: every gradient is 0
        return False
    q[0] = sqrt(r.t / r.N)
    return True


cdef inline double adagrad_delta(const StepRule* r, double* G, double x, double slope) noexcept nogil:
    """AdaGrad's change of a weight on value ``x``: ``G += g^2``, ``-lr g / sqrt(eps + G)`` (``g = slope x``)."""
    return adagrad_step(G, saturate(slope * x), r.lr, r.eps)


cdef inline double ftrl_delta(const StepRule* r, double* G, double* z, double w, double x, double slope,
                              bint change) noexcept nogil:
    """FTRL's update of ``z`` and ``n = G`` from weight ``w``; the lazy weight's change (0 unless ``change``:
    a learner that keeps no weight reads the lazy one)."""
    ftrl_step(z, G, w, saturate(slope * x), r.lr)
    if not change:
        return 0.0
    return saturate(ftrl_weight(z[0], G[0], r.lr, r.beta, r.l1, r.l2) - w)


cdef inline double nag_delta(const StepRule* r, double* G, double s, double x, double slope,
                             double q) noexcept nogil:
    """NAG's change ``-lr q g / (s sqrt(G))`` (ratio clipped to [-1, 1]), ``G += g^2``; 0 when ``g = 0``."""
    cdef double g = saturate(slope * x)
    if g == 0.0:
        return 0.0
    G[0] = saturate(G[0] + g * g)
    return -saturate(r.lr * q * nag_ratio(g, G[0]) / s)


cdef inline double rule_delta(const StepRule* r, double* G, double* z, double s, double w, double x,
                              double slope, double q) noexcept nogil:
    """The change of a weight ``w`` on value ``x`` (gradient ``slope x``) by the rule, updating its
    coordinate's ``G`` and ``z``; ``q`` is :func:`rule_row`'s; OGD's is ``q x``. A learner whose rule is
    fixed calls its kind's function (one per coordinate); :func:`rule_deltas` picks it once per row."""
    if r.kind == OGD_RULE:
        return q * x
    if r.kind == ADAGRAD_RULE:
        return adagrad_delta(r, G, x, slope)
    if r.kind == FTRL_RULE:
        return ftrl_delta(r, G, z, w, x, slope, True)
    return nag_delta(r, G, s, x, slope, q)


cdef inline double step_add(double w, double d) noexcept nogil:
    """``w + d`` saturated (``w`` itself when ``d`` is 0): the weight after a change by a rule that keeps ``w``."""
    if d != 0.0:
        return saturate(w + d)
    return w


cdef inline double rule_apply(const StepRule* r, double w, double d, double z, double G) noexcept nogil:
    """The weight after the change ``d``: FTRL's lazy weight itself (not ``w + d``), else :func:`step_add`."""
    if r.kind == FTRL_RULE:
        return ftrl_weight(z, G, r.lr, r.beta, r.l1, r.l2)
    return step_add(w, d)


cdef inline void rule_deltas(const StepRule* r, double* d, const int64_t* idx, const double* val,
                             Py_ssize_t n, const double* w, double* G, double* z, const double* s,
                             double slope, double q, const int64_t* space, int64_t cur) noexcept nogil:
    """The change of each stepped coordinate of the row into ``d`` (0 for the others), the rule's kind
    picked once for the row."""
    cdef Py_ssize_t k
    cdef int64_t j
    if r.kind == NAG_RULE:
        for k in range(n):
            j = idx[k]
            d[k] = nag_delta(r, &G[j], s[j], val[k], slope, q) if in_mask(space, cur, j) else 0.0
    elif r.kind == ADAGRAD_RULE:
        for k in range(n):
            j = idx[k]
            d[k] = adagrad_delta(r, &G[j], val[k], slope) if in_mask(space, cur, j) else 0.0
    elif r.kind == FTRL_RULE:
        for k in range(n):
            j = idx[k]
            d[k] = ftrl_delta(r, &G[j], &z[j], w[j], val[k], slope, True) if in_mask(space, cur, j) else 0.0
    else:
        for k in range(n):
            d[k] = q * val[k] if in_mask(space, cur, idx[k]) else 0.0
