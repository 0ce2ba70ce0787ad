# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The STSD family's math, as parts (see :mod:`evofeat.linear.stsd`, :mod:`evofeat.linear.stsd_multiclass`).

STSD's round (Alg. 1 of Zhang et al., ICDM 2015) is written once, in the
paper's notation, in :meth:`STSDCore.learn`, over parts that the core's fields
choose when it is built; an off-paper variant is another choice of parts:

- the loss: the hinge, or the regressor's epsilon-insensitive loss;
- the step rule: the paper's ``tau`` along ``y x`` (Alg. 2: PA, PA-I, PA-II,
  or the perceptron's 1); not the paper's: AdaGrad's per-coordinate step
  (``adagrad``) or ``tau`` in AdaGrad's metric (``metric_tau``);
- the constraint: the L1 ball as one scale factor (:func:`l1ball_scale`, ``_core/ball.pxd``);
- the truncation (Alg. 3): the largest ``|w|``, a random subset (Knuth's
  Algorithm S) or all.

The authors' MATLAB code (``original``) has its own round,
:meth:`STSDCore.learn_code`, over the same parts. Each part is a function
pointer chosen once: one indirect call per row, none per coordinate. The
weights are the weight vector of ``_core/weight_vector.pxd``, ``w = scale *
v`` with ``l1 = sum |v|`` up to date, so the ball is O(1); the support is the
indexed min-heap of ``_core/topk.pxd``, so a row costs O(nnz log k). The
multiclass core keys its heap on the L1 norm of each feature's weight row.
"""

from libc.math cimport INFINITY, fabs, floor, isfinite, sqrt
from libc.stdint cimport int64_t, uint64_t

from evofeat._core.adaptive cimport adagrad_step
from evofeat._core.ball cimport ball_scale
from evofeat._core.bias cimport bias_adagrad, bias_add, bias_score, bias_sq
from evofeat._core.core cimport Core
from evofeat._core.losses cimport PA_I_TAU, PA_II_TAU, PA_TAU, epsilon_insensitive, hinge, pa_tau
from evofeat._core.rng cimport GOLDEN, next_uniform
from evofeat._core.safe cimport dot, saturate, sq_norm
from evofeat._core.topk cimport budget_round, topk_pop, topk_rebuild, topk_touch
from evofeat._core.weight_vector cimport (
    WeightVector, weight_vector, wv_add_l1, wv_evict_min_l1, wv_fold_l1, wv_zero_l1,
)

import numpy as np

cdef enum:
    STEP_PA = PA_TAU  # tau = l / ||x||^2
    STEP_PA_I = PA_I_TAU  # min(C, l / ||x||^2)
    STEP_PA_II = PA_II_TAU  # l / (||x||^2 + 1 / (2C))
    STEP_PERCEPTRON = 3  # 1, on mistakes
    KEEP_LARGEST = 0
    KEEP_ALL = 1
    KEEP_RANDOM = 2
    KEEP_RANDOM_ALWAYS = 3  # STSD_rand.m: the random mask is drawn even when the support fits
    ALONG_X = 0  # how add() turns a row into a step: a x (the paper's)
    ADAGRAD = 1  # AdaGrad's lr a x / sqrt(eps + G), G += x^2 first
    IN_METRIC = 2  # a x / sqrt(eps + G), G already holding the row

#: ``rule`` codes by name: the step (Alg. 2)
STEP_RULES = {"pa": STEP_PA, "pa-i": STEP_PA_I, "pa-ii": STEP_PA_II, "perceptron": STEP_PERCEPTRON}
#: ``select`` codes by name: which weights truncation keeps (Alg. 3)
SELECTIONS = {
    "largest": KEEP_LARGEST, "all": KEEP_ALL, "random": KEEP_RANDOM,
    "random-always": KEEP_RANDOM_ALWAYS,
}

cdef double TINY_SCALE = 1e-120  # below this, the scale is folded into v
cdef int64_t ALL_COLS = (<int64_t> 1) << 62

# the parts: a loss (and the step's direction), a step rule, a truncation to k weights
ctypedef double (*Loss)(STSDCore s, double y, double f, double* direction) noexcept
ctypedef void (*StepRule)(STSDCore s, const int64_t* idx, const double* val, Py_ssize_t n,
                          double loss, double sq, double direction) noexcept
ctypedef void (*Truncation)(STSDCore s, int64_t k) noexcept


cdef inline int64_t budget_limit(int select, double budget, int64_t d, bint original) noexcept nogil:
    """How many weights truncation keeps at dimension ``d`` (Alg. 3; the original code rounds)."""
    cdef int64_t k
    if select == KEEP_ALL:
        return d
    if original:
        return budget_round(budget, d)  # no minimum
    k = <int64_t> floor(budget * <double> d + 1e-9)  # floor(B d), tolerant of 0.29 * 100
    return k if k > 1 else 1


def keep_count(str select, double budget, int64_t d, bint original):
    """:func:`budget_limit` for the truncation named ``select`` (a key of :data:`SELECTIONS`)."""
    return budget_limit(SELECTIONS[select], budget, d, original)


cdef inline double step_size(int rule, double C, double loss, double sq) noexcept nogil:
    """``tau`` of Alg. 2 (Eq. 5, 7, 8) from the loss and ``sq = ||x||^2``; 1 for the perceptron."""
    if rule == STEP_PERCEPTRON:
        return 1.0
    return pa_tau(rule, C, loss, sq)


cdef inline double code_step_size(int rule, double C, double loss, double sq,
                                  double margin) noexcept nogil:
    """The authors' ``tau``: ``||x||`` where the paper has ``||x||^2``, and their PA-II bracket."""
    if rule == STEP_PA_II:
        return 1.0 - margin / (sqrt(sq) + 1.0 / (2.0 * C))
    return step_size(rule, C, loss, sqrt(sq))


cdef inline bint suffers(int rule, double loss, double margin) noexcept nogil:
    """Whether the round steps: a positive loss (Alg. 1), a mistake for the perceptron
    (``margin <= 0``: unlike the perceptron cores' ``not margin > 0``, a NaN margin is none)."""
    if rule == STEP_PERCEPTRON:
        return margin <= 0.0
    return loss > 0.0


cdef inline bint l1ball_scale(double* scale, double l1, double radius) noexcept nogil:
    """The L1 ball as a scale factor: ``w <- min(1, radius / ||w||_1) w`` for ``l1 = ||w||_1``;
    True when the scale got so small that it must be folded into the weights."""
    return ball_scale(scale, l1, radius) and scale[0] < TINY_SCALE


# ---------------------------------------------------------------------------------- the losses
cdef double loss_hinge(STSDCore s, double y, double f, double* direction) noexcept:
    """The hinge ``max(0, 1 - y f)``, stepping along ``y``."""
    direction[0] = y
    return hinge(y * f)


cdef double loss_epsilon_insensitive(STSDCore s, double y, double f, double* direction) noexcept:
    """``max(0, |y - f| - epsilon)`` (PA regression), stepping along the sign of ``y - f``."""
    direction[0] = 1.0 if y > f else -1.0
    return epsilon_insensitive(y, f, s.epsilon)


# ----------------------------------------------------------------------------- the step rules
cdef inline void add(STSDCore s, const int64_t* idx, const double* val, Py_ssize_t n, double a,
                     int64_t lo, int64_t hi, int along) noexcept:
    """``w[c] += a x[c]`` (or AdaGrad's step, see ``along``) for the row's ``lo <= c < hi``,
    added to ``v`` divided by the scale. A row sparser than half the support sifts each
    coordinate in the heap (O(nnz log k)), a denser one rebuilds it (O(nnz + k))."""
    cdef WeightVector wv = s.wv()
    cdef double inv = a / s.scale, delta
    cdef bint bulk = 2 * n > s.hsize + 16
    cdef Py_ssize_t k
    cdef int64_t c
    for k in range(n):
        c = idx[k]
        if c < lo or c >= hi or val[k] == 0.0:
            continue
        if along == IN_METRIC:
            delta = inv * (val[k] / sqrt(s.eps + s.G[c]))
        elif along == ADAGRAD:  # the hinge's subgradient is -a x
            delta = adagrad_step(&s.G[c], -a * val[k], s.lr, s.eps) / s.scale
        else:
            delta = inv * val[k]
        wv_add_l1(&wv, &s.l1, c, delta, not bulk)
    if bulk:
        topk_rebuild(wv.heap, wv.pos, wv.hsize, wv.v, idx, n)


cdef void step_tau(STSDCore s, const int64_t* idx, const double* val, Py_ssize_t n,
                   double loss, double sq, double direction) noexcept:
    """The paper's step (Alg. 2): ``w <- w + tau y x`` (the bias takes ``tau y``)."""
    cdef double tau = step_size(s.rule, s.C, loss, sq)
    s.last_tau = tau
    add(s, idx, val, n, tau * direction, 0, ALL_COLS, ALONG_X)
    bias_add(s.fit_intercept, &s.intercept, tau * direction)


cdef void step_adagrad(STSDCore s, const int64_t* idx, const double* val, Py_ssize_t n,
                       double loss, double sq, double direction) noexcept:
    """Not the paper's: AdaGrad's per-coordinate step, ``G += x^2``, ``w += lr y x / sqrt(eps + G)``."""
    add(s, idx, val, n, direction, 0, ALL_COLS, ADAGRAD)
    bias_adagrad(s.fit_intercept, &s.intercept, &s.intercept_G, -direction, s.lr, s.eps)


cdef void step_metric_tau(STSDCore s, const int64_t* idx, const double* val, Py_ssize_t n,
                          double loss, double sq, double direction) noexcept:
    """Not the paper's: ``tau`` with ``x' D x`` for ``||x||^2``, and ``w += tau y D x``, in
    AdaGrad's metric ``D = diag(1 / sqrt(eps + G))`` (``G += x^2`` first)."""
    cdef double s2 = 0.0, x, tau
    cdef Py_ssize_t k
    cdef int64_t c
    for k in range(n):  # x' D x after G += x^2, left to right
        x = val[k]
        if x == 0.0:
            continue
        c = idx[k]
        s.G[c] = saturate(s.G[c] + x * x)
        s2 += x * x / sqrt(s.eps + s.G[c])
    if s.fit_intercept:  # the input 1's term
        s.intercept_G = saturate(s.intercept_G + 1.0)
        s2 += 1.0 / sqrt(s.eps + s.intercept_G)
    if s2 > 0.0 and isfinite(s2):
        tau = step_size(s.rule, s.C, loss, s2) * direction
        add(s, idx, val, n, tau, 0, ALL_COLS, IN_METRIC)
        bias_add(s.fit_intercept, &s.intercept, tau / sqrt(s.eps + s.intercept_G))


# ----------------------------------------------------------------------------- the truncations
cdef void keep_all(STSDCore s, int64_t k) noexcept:
    """No truncation (STSD-I-all)."""


cdef void keep_largest(STSDCore s, int64_t k) noexcept:
    """Alg. 3: keep the ``k`` largest ``|w|`` (among equals the lower column). The same set as
    OFS's :func:`wv_offer` on the same union, but not its order of heap operations (here the
    whole row enters, then the smallest leave), so not its heap layout or its sums: see
    ``_core/weight_vector.pxd``."""
    cdef WeightVector wv = s.wv()
    while s.hsize > k:
        wv_evict_min_l1(&wv, &s.l1)


cdef void keep_random(STSDCore s, int64_t k) noexcept:
    """STSD-I-rand: a uniform ``k``-subset of the support, when it is larger."""
    if s.hsize > k:
        random_keep(s, k, <double> s.hsize)


cdef void keep_random_code(STSDCore s, int64_t k) noexcept:
    """``STSD_rand.m``: a uniform ``k``-subset of all ``d`` coordinates when the support is larger
    (``KEEP_RANDOM_ALWAYS``: whenever it is not empty)."""
    if s.hsize > (0 if s.select == KEEP_RANDOM_ALWAYS else k):
        random_keep(s, k, <double> s.dim)


cdef void random_keep(STSDCore s, int64_t k, double n) noexcept:
    """Keep a uniform ``k``-subset of ``n`` coordinates, the support first, by column (Knuth's
    Algorithm S, one draw per coordinate until ``k`` are kept); zero the rest. The draws run by
    rank up to the next dropped one, whose column is found by walking ``pos`` (no sort); draws
    that must keep every remaining coordinate just advance the generator."""
    cdef WeightVector wv = s.wv()
    cdef const int64_t* pos = wv.pos
    cdef uint64_t* rng = <uint64_t*> &s.rng
    cdef uint64_t state = rng[0]  # in a register while drawing
    cdef int64_t m = s.hsize, j = 0, kept = 0, c = 0, seen = 0
    cdef bint member
    while True:
        while j < m:  # the draws, up to the next rank that goes
            if kept < k and <double> (k - kept) >= n - <double> j:
                # u (n - j) < n - j <= k - kept: every remaining coordinate is kept
                state += <uint64_t> (m - j) * GOLDEN
                j = m
            elif kept < k and next_uniform(&state) * (n - <double> j) < <double> (k - kept):
                kept += 1
                j += 1
            else:
                break
        if j >= m:
            rng[0] = state
            return
        while True:  # the column of rank j: seen members lie before column c
            member = pos[c] >= 0
            if member & (seen == j):
                break
            seen += member
            c += 1
        wv_zero_l1(&wv, &s.l1, c)
        seen += 1
        c += 1
        j += 1


cdef class STSDCore(Core):
    """STSD's state: ``w = scale * v`` with ``l1 = sum |v|``, the support heap, and the fields
    that choose its parts (``rule``, ``regression``, ``adagrad``, ``metric_tau``, ``project``,
    ``select``, ``original``: read once, when the core is built; growing, loading and copying
    build a new core)."""

    cdef public double[::1] v  # the weights up to the scale
    cdef public int64_t[::1] heap  # the support (non-zero v) as a topk min-heap
    cdef public int64_t[::1] pos  # each column's position in heap, -1 if absent
    cdef public int64_t hsize  # the support size
    cdef public double scale
    cdef public double l1  # sum |v|, kept up to date
    cdef public double last_tau  # the tau of the paper's last step (the original code's new features)
    cdef public int64_t dim  # the number of features seen so far
    cdef public int64_t new_from  # first column of a new stage, -1 if none (original code)
    cdef public int rule  # a STEP_RULES code
    cdef public double C
    cdef public double radius
    cdef public double budget
    cdef public bint original  # the authors' MATLAB round instead of the paper's
    cdef public bint project  # scale onto the L1 ball
    cdef public int select  # a SELECTIONS code
    cdef public bint regression  # epsilon-insensitive loss instead of the hinge
    cdef public double epsilon
    # STSD-I-rand's SplitMix64 state: its 64 bits as a signed integer, so the field always has the
    # same dtype (int64) for the model files
    cdef public int64_t rng
    cdef public double[::1] G  # AdaGrad: each coordinate's sum of squared (sub)gradients
    cdef public bint adagrad  # AdaGrad's per-coordinate step instead of tau (Duchi et al. 2011)
    cdef public bint metric_tau  # with adagrad: the step is tau (Alg. 2) in AdaGrad's metric, not lr
    cdef public double lr  # AdaGrad's eta
    cdef public double eps  # AdaGrad's divisor sqrt(eps + G)
    # the bias (_core/bias.pxd): outside v, the scale, the ball and the budget
    cdef public int fit_intercept
    cdef public double intercept
    cdef public double intercept_G  # AdaGrad's sum of squared (sub)gradients on the input 1
    # the parts the fields choose (not state: rebuilt from the fields)
    cdef Loss loss
    cdef StepRule step
    cdef Truncation truncate
    cdef double ball  # the L1 ball's radius, inf without one

    def __init__(self, **fields):
        Core.__init__(self, **fields)
        self.loss = loss_epsilon_insensitive if self.regression else loss_hinge
        self.step = (step_metric_tau if self.metric_tau else step_adagrad if self.adagrad
                     else step_tau)
        self.ball = self.radius if self.project else INFINITY
        if self.select == KEEP_LARGEST:
            self.truncate = keep_largest
        elif self.select == KEEP_ALL:
            self.truncate = keep_all
        else:
            self.truncate = keep_random_code if self.original else keep_random

    cdef inline WeightVector wv(self) noexcept:
        """The weight vector over this state's fields (``l1`` is tracked instead of ``||v||^2``)."""
        return weight_vector(&self.v[0], &self.heap[0], &self.pos[0], &self.hsize, &self.scale,
                             NULL)

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        cdef double f = bias_score(self.fit_intercept, self.intercept,
                                   self.scale * dot(&self.v[0], idx, val, n))
        if self.regression:
            label[0] = f
        else:
            # the three-way sign (0 on a score of 0 or NaN), not OFS's label_of (-1 on NaN)
            label[0] = 1.0 if f > 0.0 else (-1.0 if f < 0.0 else 0.0)
        return f

    cdef void sparsify(self) noexcept:
        """Scale onto the L1 ball (Alg. 1) and truncate to the budget (Alg. 3)."""
        cdef WeightVector wv = self.wv()
        if l1ball_scale(&self.scale, self.scale * self.l1, self.ball):
            wv_fold_l1(&wv, &self.l1)
        self.truncate(self, budget_limit(self.select, self.budget, self.dim, self.original))
        if self.hsize == 0:
            self.l1 = 0.0

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        """Alg. 1 after the prediction ``f = score``: suffer the loss; if it counts, step over the
        whole row ``x = [x~, x^]`` (Eq. 4: the new features by the same step); then scale onto
        the L1 ball and truncate, every round. ``||x||^2`` counts the bias's input 1."""
        if self.original:
            return self.learn_code(idx, val, n, y, score)
        cdef double direction, loss = self.loss(self, y, score, &direction)
        cdef double sq = bias_sq(self.fit_intercept, sq_norm(val, n))
        self.new_from = -1
        if suffers(self.rule, loss, y * score) and sq > 0.0 and isfinite(sq):
            self.step(self, idx, val, n, loss, sq, direction)
        self.sparsify()
        return loss

    cdef double learn_code(self, const int64_t* idx, const double* val, Py_ssize_t n,
                           double y, double score) noexcept:
        """The authors' round: a step whenever ``y f <= 1``, with their ``tau``; on the first row
        of a stage the old features step and the new ones take the last ``tau`` (1 for the
        perceptron); scaling and truncation only after either."""
        cdef int64_t new_from = self.new_from
        cdef double margin = y * score, direction, tau
        cdef double loss = self.loss(self, y, score, &direction)
        cdef double sq = bias_sq(self.fit_intercept, sq_norm(val, n))
        cdef bint stepped = margin <= 1.0 and sq > 0.0 and isfinite(sq)
        self.new_from = -1
        if stepped:
            tau = code_step_size(self.rule, self.C, loss, sq, margin)
            self.last_tau = tau
            add(self, idx, val, n, tau * direction, 0, ALL_COLS if new_from < 0 else new_from,
                ALONG_X)
            bias_add(self.fit_intercept, &self.intercept, tau * direction)
        if new_from >= 0:
            tau = 1.0 if self.rule == STEP_PERCEPTRON else self.last_tau
            add(self, idx, val, n, tau * direction, new_from, ALL_COLS, ALONG_X)
        if stepped or new_from >= 0:
            self.sparsify()
        return loss

    cdef int visible(self, const int64_t* cols, Py_ssize_t n, Py_ssize_t dim) except -1:
        if dim > self.dim:
            if self.dim > 0:
                self.new_from = self.dim  # columns from the previous dimension on are new
            self.dim = dim
        return 0


cdef class STSDMulticlassCore(Core):
    """Multiclass STSD's state: ``W = scale * V`` (features x classes), truncated by feature."""

    cdef public double[:, ::1] V  # the weights up to the scale, one column per class
    cdef public double[::1] g  # sum_c |V[j, c]|: feature j's L1 norm (the heap key)
    cdef public int64_t[::1] heap  # features with a non-zero row, a topk min-heap over g
    cdef public int64_t[::1] pos
    cdef public int64_t hsize
    cdef public double scale
    cdef public double l1  # the sum of g, kept up to date
    cdef public int64_t dim
    cdef public int rule
    cdef public double C
    cdef public double radius
    cdef public double budget
    cdef public int fit_intercept
    cdef public double[::1] intercept  # one bias per class (_core/bias.pxd), outside V's scale
    cdef double[::1] f  # scratch: the class scores of the current row

    def __init__(self, **fields):
        Core.__init__(self, **fields)
        self.f = np.zeros(self.V.shape[1])

    cdef void scores(self, const int64_t* idx, const double* val, Py_ssize_t n) noexcept:
        cdef Py_ssize_t K = self.V.shape[1], k, c
        cdef double* f = &self.f[0]
        cdef const double* row
        for c in range(K):
            f[c] = 0.0
        for k in range(n):
            row = &self.V[idx[k], 0]
            for c in range(K):
                f[c] += row[c] * val[k]
        for c in range(K):
            f[c] = bias_score(self.fit_intercept, self.intercept[c], f[c] * self.scale)

    cdef Py_ssize_t argmax(self, Py_ssize_t skip) noexcept:
        """The highest score (the lowest class among ties), ``skip`` excluded."""
        cdef Py_ssize_t best = -1, c
        for c in range(self.f.shape[0]):
            if c != skip and (best < 0 or self.f[c] > self.f[best]):
                best = c
        return best

    cdef void row_norm(self, int64_t j) noexcept:
        """``g[j] = sum_c |V[j, c]|``, left to right."""
        cdef Py_ssize_t c
        self.g[j] = 0.0
        for c in range(self.V.shape[1]):
            self.g[j] += fabs(self.V[j, c])

    cdef void fold_scale(self) noexcept:
        """Multiply the scale into ``V`` (when it gets tiny), dropping rows that underflow to 0."""
        cdef int64_t i, j
        cdef Py_ssize_t c
        for i in range(self.hsize):  # the rows outside the support are 0
            j = self.heap[i]
            for c in range(self.V.shape[1]):
                self.V[j, c] *= self.scale
        self.l1 *= self.scale
        self.scale = 1.0
        for i in range(self.hsize):
            self.row_norm(self.heap[i])
        topk_rebuild(&self.heap[0], &self.pos[0], &self.hsize, &self.g[0], NULL, 0)

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        self.scores(idx, val, n)
        cdef Py_ssize_t best = self.argmax(-1)
        label[0] = <double> best
        return self.f[best]

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        """The multiclass PA step on the STSD round: ``W_y += tau x``, ``W_r -= tau x`` with
        ``tau`` of Alg. 2 on ``2 ||x||^2``, the L1 ball, then truncation by feature."""
        cdef Py_ssize_t K = self.V.shape[1], k, yc, r
        cdef double loss, sq, a, tau, old
        cdef int64_t j, keep
        if not (y > -1.0 and y < <double> K):  # int(y) is not a class
            return 0.0
        yc = <Py_ssize_t> y
        self.scores(idx, val, n)
        r = self.argmax(yc)
        loss = hinge(self.f[yc] - self.f[r])
        sq = bias_sq(self.fit_intercept, sq_norm(val, n))  # each class's input 1 counts
        if loss > 0.0 and 0.0 < sq and isfinite(sq):
            tau = step_size(self.rule, self.C, loss, 2.0 * sq)
            bias_add(self.fit_intercept, &self.intercept[yc], tau)
            bias_add(self.fit_intercept, &self.intercept[r], -tau)
            a = tau / self.scale
            for k in range(n):
                j = idx[k]
                if val[k] == 0.0:
                    continue
                self.V[j, yc] += a * val[k]
                self.V[j, r] -= a * val[k]
                old = self.g[j]
                self.row_norm(j)
                self.l1 += self.g[j] - old
                topk_touch(&self.heap[0], &self.pos[0], &self.hsize, &self.g[0], j)
        if l1ball_scale(&self.scale, self.scale * self.l1, self.radius):
            self.fold_scale()
        keep = budget_limit(KEEP_LARGEST, self.budget, self.dim, False)
        while self.hsize > keep:  # drop the features with the smallest weight rows
            j = topk_pop(&self.heap[0], &self.pos[0], &self.hsize, &self.g[0])
            self.l1 -= self.g[j]
            self.g[j] = 0.0
            for k in range(K):
                self.V[j, k] = 0.0
        if self.hsize == 0:
            self.l1 = 0.0
        return loss

    cdef int visible(self, const int64_t* cols, Py_ssize_t n, Py_ssize_t dim) except -1:
        if dim > self.dim:
            self.dim = dim
        return 0
