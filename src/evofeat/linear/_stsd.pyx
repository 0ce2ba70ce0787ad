# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The STSD family's math (see :mod:`evofeat.linear.stsd`, :mod:`evofeat.linear.stsd_multiclass`).

STSD's weights are the one weight vector of ``_core/weight_vector.pxd``,
``w = scale * v``, with ``l1 = sum |v|`` up to date (its ``_l1`` functions),
so the scaling onto the L1 ball is O(1); the support (the non-zero ``v``) is
the indexed min-heap of ``_core/topk.pxd``, so truncation costs O(log k) per
removed weight. A row costs O(nnz log k). ``adagrad`` replaces the step
``tau y x`` by AdaGrad's per-coordinate one (``_core/adaptive.pxd``): each
coordinate's step is added to ``v`` divided by the scale, so it stays exact
and O(nnz); the scaling stays one factor. ``metric_tau`` keeps the paper's
``tau`` with ``||x||^2`` measured in AdaGrad's metric and steps ``tau y D x``,
``D = diag(1 / sqrt(eps + G))``. The multiclass learner keys its
heap on the L1 norm of each feature's row of weights instead.
"""

from libc.math cimport fabs, floor, isfinite, sqrt
from libc.stdint cimport int64_t, uint64_t

from evofeat._core.adaptive cimport adagrad_step
from evofeat._core.bias cimport bias_adagrad, bias_add, bias_score, bias_sq
from evofeat._core.core cimport Core
from evofeat._core.rng cimport GOLDEN, next_uniform
from evofeat._core.safe cimport dot, fmax0, saturate, sq_norm
from evofeat._core.topk cimport topk_pop, topk_rebuild, topk_touch
from evofeat._core.weight_vector cimport (
    WeightVector, weight_vector, wv_add_l1, wv_evict_min_l1, wv_fold_l1, wv_zero_l1,
)

import numpy as np

cdef enum:
    STEP_PA = 0  # tau = l / ||x||^2
    STEP_PA_I = 1  # min(C, l / ||x||^2)
    STEP_PA_II = 2  # l / (||x||^2 + 1 / (2C))
    STEP_PERCEPTRON = 3  # 1, on mistakes
    KEEP_LARGEST = 0
    KEEP_ALL = 1
    KEEP_RANDOM = 2
    KEEP_RANDOM_ALWAYS = 3  # STSD_rand.m: the random mask is drawn even when the support fits

#: ``rule`` codes by name: the step (Alg. 2)
STEP_RULES = {"pa": STEP_PA, "pa-i": STEP_PA_I, "pa-ii": STEP_PA_II, "perceptron": STEP_PERCEPTRON}
#: ``select`` codes by name: which weights truncation keeps (Alg. 3)
SELECTIONS = {
    "largest": KEEP_LARGEST, "all": KEEP_ALL, "random": KEEP_RANDOM,
    "random-always": KEEP_RANDOM_ALWAYS,
}

cdef double TINY_SCALE = 1e-120  # below this, the scale is folded into v
cdef int64_t ALL_COLS = (<int64_t> 1) << 62


cdef inline double fmin0(double a, double b) noexcept nogil:
    """Python's ``min(a, b)``: ``b`` only when it is smaller."""
    return b if b < a else a


cdef inline int64_t budget_limit(int select, double budget, int64_t d, bint original) noexcept nogil:
    """How many weights truncation keeps at dimension ``d`` (Alg. 3; the original code rounds)."""
    cdef int64_t k
    if select == KEEP_ALL:
        return d
    if original:
        return <int64_t> floor(budget * <double> d + 0.5)  # MATLAB round (halves up), no minimum
    k = <int64_t> floor(budget * <double> d + 1e-9)  # floor(B d), tolerant of 0.29 * 100
    return k if k > 1 else 1


cdef inline double step_size(int rule, double C, double loss, double sq, double margin,
                             bint original) noexcept nogil:
    """The step ``tau`` (Alg. 2); the original code divides by ``||x||``, not ``||x||^2``."""
    if rule == STEP_PERCEPTRON:
        return 1.0
    cdef double nrm = sqrt(sq) if original else sq
    if rule == STEP_PA:
        return loss / nrm
    if rule == STEP_PA_I:
        return fmin0(C, loss / nrm)
    if original:
        return 1.0 - margin / (nrm + 1.0 / (2.0 * C))  # the bracket as the authors coded it
    return loss / (nrm + 1.0 / (2.0 * C))


cdef class STSDCore(Core):
    """STSD's state: ``w = scale * v`` with ``l1 = sum |v|``, the support heap, the step rule."""

    cdef public double[::1] v  # the weights up to the scale
    cdef public int64_t[::1] heap  # the support (non-zero v) as a topk min-heap
    cdef public int64_t[::1] pos  # each column's position in heap, -1 if absent
    cdef public int64_t hsize  # the support size
    cdef public double scale
    cdef public double l1  # sum |v|, kept up to date
    cdef public double last_tau  # the tau of the last step (the original code's new features)
    cdef public int64_t dim  # the number of features seen so far
    cdef public int64_t new_from  # first column of a new stage, -1 if none (original code)
    cdef public int rule  # a STEP_RULES code
    cdef public double C
    cdef public double radius
    cdef public double budget
    cdef public bint original  # the authors' MATLAB rules instead of the paper's
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

    _fields = (
        "v", "heap", "pos", "hsize", "scale", "l1", "last_tau", "dim", "new_from", "rule", "C",
        "radius", "budget", "original", "project", "select", "regression", "epsilon", "rng",
        "G", "adagrad", "metric_tau", "lr", "eps", "fit_intercept", "intercept", "intercept_G",
    )

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
            label[0] = 1.0 if f > 0.0 else (-1.0 if f < 0.0 else 0.0)
        return f

    cdef void add(self, const int64_t* idx, const double* val, Py_ssize_t n, double a,
                  int64_t lo, int64_t hi) noexcept:
        """``w[c] += a x[c]`` for the row's columns ``lo <= c < hi`` with ``x[c] != 0``.

        With ``adagrad``, ``a`` is the direction (``y``, or the sign of ``y - f``) and
        ``w[c] += lr a x[c] / sqrt(eps + G[c])`` after ``G[c] += x[c]^2`` (the hinge's
        subgradient is ``-a x``); with ``metric_tau`` as well, ``a`` is ``tau`` times the
        direction and ``w[c] += a x[c] / sqrt(eps + G[c])`` (``G`` already holds the row, see
        :meth:`metric_norm`). A row that touches fewer coordinates than half the support sifts each
        in the heap (O(nnz log k)); a denser one rebuilds it (O(nnz + k)). The
        heap's layout never changes a result: it pops in the total order.
        """
        cdef WeightVector wv = self.wv()
        cdef double inv = a / self.scale
        cdef bint bulk = 2 * n > self.hsize + 16
        cdef Py_ssize_t k
        cdef int64_t c
        for k in range(n):
            c = idx[k]
            if c < lo or c >= hi or val[k] == 0.0:
                continue
            if self.metric_tau:
                wv_add_l1(&wv, &self.l1, c, inv * (val[k] / sqrt(self.eps + self.G[c])), not bulk)
            elif self.adagrad:
                wv_add_l1(&wv, &self.l1, c,
                          adagrad_step(&self.G[c], -a * val[k], self.lr, self.eps) / self.scale,
                          not bulk)
            else:
                wv_add_l1(&wv, &self.l1, c, inv * val[k], not bulk)
        if bulk:
            topk_rebuild(wv.heap, wv.pos, wv.hsize, wv.v, idx, n)

    cdef double metric_norm(self, const int64_t* idx, const double* val, Py_ssize_t n) noexcept:
        """``G[c] += x[c]^2`` over the row, then ``sum x[c]^2 / sqrt(eps + G[c])`` (left to right):
        ``||x||^2`` in the metric ``diag(1 / sqrt(eps + G))`` of ``metric_tau``'s step."""
        cdef double s = 0.0, x
        cdef Py_ssize_t k
        cdef int64_t c
        for k in range(n):
            x = val[k]
            if x == 0.0:
                continue
            c = idx[k]
            self.G[c] = saturate(self.G[c] + x * x)
            s += x * x / sqrt(self.eps + self.G[c])
        return s

    cdef inline double metric_bias(self) noexcept:
        """The input 1's term of :meth:`metric_norm` (``G_b += 1``, then ``1 / sqrt(eps + G_b)``); 0 without a bias."""
        if not self.fit_intercept:
            return 0.0
        self.intercept_G = saturate(self.intercept_G + 1.0)
        return 1.0 / sqrt(self.eps + self.intercept_G)

    cdef void random_keep(self, int64_t k, double n) noexcept:
        """Keep a uniform ``k``-subset of ``n`` coordinates, the support first, by column (Algorithm
        S of Knuth, one draw per coordinate until ``k`` are kept); zero the rest.

        The draws decide by rank (the position of a coordinate in column
        order), so they run in a tight loop up to the next dropped rank; the
        support is then walked in column order through ``pos`` (no sort) to
        the column of that rank. The draws that must keep every remaining
        coordinate are skipped by advancing the generator. O(draws + last
        dropped column) per call, without branching on each column.
        """
        cdef WeightVector wv = self.wv()
        cdef const int64_t* pos = wv.pos
        cdef uint64_t* rng = <uint64_t*> &self.rng
        cdef uint64_t state = rng[0]  # in a register while drawing
        cdef int64_t m = self.hsize, j = 0, kept = 0, c = 0, seen = 0
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
            wv_zero_l1(&wv, &self.l1, c)
            seen += 1
            c += 1
            j += 1

    cdef void sparsify(self) noexcept:
        """Project onto the L1 ball (a scale factor) and truncate to the budget (Alg. 1, 3)."""
        cdef WeightVector wv = self.wv()
        cdef double l1
        cdef int64_t k
        if self.project:
            l1 = self.scale * self.l1
            if l1 > self.radius:
                self.scale *= self.radius / l1
                if self.scale < TINY_SCALE:  # fold the scale into v before it underflows
                    wv_fold_l1(&wv, &self.l1)
        if self.select != KEEP_ALL:
            k = budget_limit(self.select, self.budget, self.dim, self.original)
            if self.hsize > k or (self.select == KEEP_RANDOM_ALWAYS and self.hsize > 0):
                if self.select == KEEP_LARGEST:
                    while self.hsize > k:
                        wv_evict_min_l1(&wv, &self.l1)
                else:
                    self.random_keep(k, <double> self.dim if self.original else <double> self.hsize)
        if self.hsize == 0:
            self.l1 = 0.0

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        cdef int64_t new_from = self.new_from
        cdef double margin = y * score, loss, direction, tau = 0.0, sq
        cdef bint update, stepped
        self.new_from = -1
        if self.regression:  # epsilon-insensitive loss
            loss = fmax0(0.0, fabs(y - score) - self.epsilon)
            direction = 1.0 if y > score else -1.0
            update = loss > 0.0
        else:
            loss = fmax0(0.0, 1.0 - margin)
            direction = y
            if self.original:
                update = margin <= 1.0
            elif self.rule == STEP_PERCEPTRON:
                update = margin <= 0.0
            else:
                update = loss > 0.0
        sq = bias_sq(self.fit_intercept, sq_norm(val, n))  # the bias's input 1 counts
        stepped = update and sq > 0.0 and isfinite(sq)
        if stepped:
            tau = step_size(self.rule, self.C, loss, sq, margin, self.original)
            self.last_tau = tau
        if self.original and new_from >= 0:
            # first round of a new stage: old coordinates step, new ones get the last tau
            if stepped:
                self.add(idx, val, n, tau * direction, 0, new_from)
                bias_add(self.fit_intercept, &self.intercept, tau * direction)  # an old input
            self.add(idx, val, n, (1.0 if self.rule == STEP_PERCEPTRON else self.last_tau) * direction,
                     new_from, ALL_COLS)
            self.sparsify()
        elif stepped and self.metric_tau:  # tau of Alg. 2 with ||x||^2 in AdaGrad's metric
            sq = self.metric_norm(idx, val, n) + self.metric_bias()
            if sq > 0.0 and isfinite(sq):
                tau = step_size(self.rule, self.C, loss, sq, margin, False) * direction
                self.add(idx, val, n, tau, 0, ALL_COLS)
                bias_add(self.fit_intercept, &self.intercept,
                         tau / sqrt(self.eps + self.intercept_G))
            self.sparsify()
        elif stepped and self.adagrad:  # the hinge's subgradient on the input 1 is -direction
            self.add(idx, val, n, direction, 0, ALL_COLS)
            bias_adagrad(self.fit_intercept, &self.intercept, &self.intercept_G, -direction,
                         self.lr, self.eps)
            self.sparsify()
        elif stepped:
            self.add(idx, val, n, tau * direction, 0, ALL_COLS)
            bias_add(self.fit_intercept, &self.intercept, tau * direction)
            self.sparsify()
        elif not self.original:
            self.sparsify()  # the paper's sparsity step runs every round
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

    _fields = ("V", "g", "heap", "pos", "hsize", "scale", "l1", "dim", "rule", "C", "radius",
               "budget", "fit_intercept", "intercept")

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
        cdef Py_ssize_t K = self.V.shape[1], k, yc, r
        cdef double loss, sq, a, tau, old
        cdef int64_t j, keep
        if not (y > -1.0 and y < <double> K):  # int(y) is not a class
            return 0.0
        yc = <Py_ssize_t> y
        self.scores(idx, val, n)
        r = self.argmax(yc)
        loss = fmax0(0.0, 1.0 - (self.f[yc] - self.f[r]))
        sq = bias_sq(self.fit_intercept, sq_norm(val, n))  # each class's input 1 counts
        if loss > 0.0 and 0.0 < sq and isfinite(sq):
            tau = step_size(self.rule, self.C, loss, 2.0 * sq, 0.0, False)
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
        if self.scale * self.l1 > self.radius:  # the L1 ball over all the weights
            self.scale *= self.radius / (self.scale * self.l1)
            if self.scale < TINY_SCALE:
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
