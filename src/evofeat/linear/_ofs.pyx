# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The OFS family's math (see :mod:`evofeat.linear.ofs` and :mod:`evofeat.linear.ofs_partial`).

:class:`OFSCore` is OFS (Hoi et al. 2012, Algorithm 3 with the truncation of Algorithm 2);
:class:`PETrunCore` and :class:`RANDCore` are its perceptron baselines; :class:`OFSPCore` is
OFS with partial inputs (Wang et al. 2014, Algorithm 3). Each is its paper's update over
parts: a step rule (:class:`StepRule`, the paper's ``lr y x``, or :class:`AdaGradStep`), the
L2 ball as one factor on the scale (``_core/l2ball.pxd``), a truncation (:class:`TopB`, the B
largest ``|w|``, or :class:`TopBRanked`; RAND's :class:`RandomSet` or :class:`RedrawnSet`).
An off-paper variant is another part, chosen when a core is built from its own fields
(``adagrad``, ``rank_power``, ``redraw``), so a model file or a pickle rebuilds the same
parts; an update calls each part once a row. The weights are the one weight vector of
``_core/weight_vector.pxd`` (``w = scale * v``, ``||v||^2`` tracked, the support of at most
B columns in an indexed min-heap): a row costs O(nnz log B), never O(d).
"""

from libc.math cimport INFINITY, fabs, pow
from libc.stdint cimport int8_t, int64_t, uint64_t

from evofeat._core.adaptive cimport adagrad_step
from evofeat._core.bias cimport bias_adagrad, bias_add, bias_score
from evofeat._core.core cimport Core
from evofeat._core.l2ball cimport l2ball_project
from evofeat._core.losses cimport hinge
from evofeat._core.rng cimport draw_uniform
from evofeat._core.safe cimport dot, fmax0
from evofeat._core.topk cimport budget_round, key_before, topk_heapify
from evofeat._core.weight_vector cimport (
    WV_TINY_SCALE, WeightVector, weight_vector, wv_evict_min_by, wv_fold_to, wv_offer, wv_set, wv_set_by,
    wv_shrink,
)

cdef double HUGE = 1e150  # a step larger than this in units of v is renormalised first

cdef class OFSCore(Core)
cdef class RANDCore(OFSCore)


cdef class StepRule:
    """The paper's step on a row: ``dw = lr y x`` (``lr = 1``: the perceptron's), the bias ``b += lr y``.

    ``weighted``: ``dw[k]`` holds, on entry, the probability ``q_k`` that ``x_k`` was observed
    (0: it was not); the step is then on ``x_k / q_k`` (OFS_P), and 0 where unobserved.
    """

    cdef void row(self, OFSCore core, const int64_t* idx, const double* val, Py_ssize_t n,
                  double y, bint weighted) noexcept:
        cdef double* dw = &core.dw[0]
        cdef double a = core.lr * y
        cdef Py_ssize_t k
        if not weighted:
            for k in range(n):
                dw[k] = a * val[k]
            return
        for k in range(n):
            if dw[k] != 0.0:
                dw[k] = a * val[k] / dw[k]

    cdef void bias(self, OFSCore core, double y) noexcept:
        bias_add(core.fit_intercept, &core.intercept, core.lr * y)


cdef class AdaGradStep(StepRule):
    """AdaGrad's per-coordinate step (Duchi et al. 2011) on the hinge's subgradient ``g = -y x``.

    ``G_i += g_i^2``, ``dw_i = -lr g_i / sqrt(eps + G_i)``; the bias the same with its own ``G_b``.
    """

    cdef void row(self, OFSCore core, const int64_t* idx, const double* val, Py_ssize_t n,
                  double y, bint weighted) noexcept:
        cdef double* dw = &core.dw[0]
        cdef double* G = &core.G[0]
        cdef Py_ssize_t k
        for k in range(n):
            if not weighted:
                dw[k] = adagrad_step(&G[idx[k]], -y * val[k], core.lr, core.eps)
            elif dw[k] != 0.0:
                dw[k] = adagrad_step(&G[idx[k]], -y * val[k] / dw[k], core.lr, core.eps)

    cdef void bias(self, OFSCore core, double y) noexcept:
        bias_adagrad(core.fit_intercept, &core.intercept, &core.intercept_G, -y, core.lr, core.eps)


cdef class TopB:
    """The paper's truncation (Algorithm 2): keep the B largest ``|w|``, the heap keyed on ``v``.

    A row's step is added to the support in place (:meth:`update`); the row's new columns
    are then offered to the full heap one by one (:meth:`admit`: one enters only if it
    beats the heap's minimum, which leaves): exactly the B largest of the union, in
    O(nnz + k log B) for k changes.
    """

    cdef Py_ssize_t update(self, OFSCore core, WeightVector* wv, const int64_t* idx,
                           Py_ssize_t n, double* extra) noexcept:
        """``v[c] += dw / scale`` on the row's columns in the support; the others listed in
        ``cand``, their ``||dw / scale||^2`` added to ``extra``; returns how many."""
        return add_row(self, core, wv, idx, n, extra, False)

    cdef void admit(self, OFSCore core, WeightVector* wv, const int64_t* idx, Py_ssize_t m,
                    double scale) noexcept:
        """Offer ``v[c] = dw / scale`` for the row's entries ``cand[:m]`` outside the support."""
        cdef const double* dw = &core.dw[0]
        cdef const int64_t* cand = &core.cand[0]
        cdef Py_ssize_t j
        for j in range(m):
            wv_offer(wv, idx[cand[j]], dw[cand[j]] / scale, core.B)

    cdef void refold(self, OFSCore core) noexcept:
        """After ``v`` was re-expressed under a new scale (the heap on ``v`` keeps its order)."""


cdef class TopBRanked(TopB):
    """Keep the B largest ``|w_i| (eps + G_i)^p`` (``p = rank_power``; with AdaGrad's ``G``).

    The heap is keyed on ``rank``: that score in units of ``v``, 0 off the support (a
    score that underflows to 0 drops its column).
    """

    cdef inline double rank_of(self, OFSCore core, int64_t c, double x) noexcept:
        return fabs(x) * pow(core.eps + core.G[c], core.rank_power)

    cdef void set_ranked(self, OFSCore core, WeightVector* wv, int64_t c, double x) noexcept:
        """:func:`wv_set` with the heap keyed on ``rank``."""
        cdef double* rank = &core.rank[0]
        rank[c] = self.rank_of(core, c, x)
        wv_set_by(wv, c, x if rank[c] != 0.0 else 0.0, rank)

    cdef Py_ssize_t update(self, OFSCore core, WeightVector* wv, const int64_t* idx,
                           Py_ssize_t n, double* extra) noexcept:
        return add_row(self, core, wv, idx, n, extra, True)

    cdef void admit(self, OFSCore core, WeightVector* wv, const int64_t* idx, Py_ssize_t m,
                    double scale) noexcept:
        """:func:`wv_offer` by ``rank``: a column enters if there is room or it outranks the minimum."""
        cdef double* rank = &core.rank[0]
        cdef const int64_t* cand = &core.cand[0]
        cdef double r, x
        cdef int64_t c, low
        cdef Py_ssize_t j
        for j in range(m):
            c = idx[cand[j]]
            x = core.dw[cand[j]] / scale
            r = self.rank_of(core, c, x)
            if core.B <= 0 or r == 0.0:
                continue
            if wv.hsize[0] >= core.B:
                low = wv.heap[0]
                if key_before(r, c, rank[low], low):
                    continue
                wv_evict_min_by(wv, rank)
                rank[low] = 0.0
            self.set_ranked(core, wv, c, x)

    cdef void refold(self, OFSCore core) noexcept:
        """Every rank again, the heap reordered."""
        cdef int64_t i, c
        for i in range(core.hsize):
            c = core.heap[i]
            core.rank[c] = self.rank_of(core, c, core.v[c])
        topk_heapify(&core.heap[0], &core.pos[0], &core.hsize, &core.rank[0])


cdef inline Py_ssize_t add_row(TopB part, OFSCore core, WeightVector* wv, const int64_t* idx,
                               Py_ssize_t n, double* extra, bint ranked) noexcept:
    """:meth:`TopB.update`, written once (``ranked`` is a constant at each call: no branch)."""
    cdef const double* dw = &core.dw[0]
    cdef int64_t* cand = &core.cand[0]
    cdef double z
    cdef Py_ssize_t k, m = 0
    for k in range(n):
        if dw[k] == 0.0:
            continue
        if wv.pos[idx[k]] < 0:
            cand[m] = k
            m += 1
            z = dw[k] / wv.scale[0]
            extra[0] += z * z
        elif ranked:
            (<TopBRanked> part).set_ranked(core, wv, idx[k], wv.v[idx[k]] + dw[k] / wv.scale[0])
        else:
            wv_set(wv, idx[k], wv.v[idx[k]] + dw[k] / wv.scale[0])
    return m


cdef class OFSCore(Core):
    """OFS: ``w = scale * v`` truncated to the ``B`` largest ``|w|``; ``lr`` eta, ``l2`` lambda.

    ``B`` is ``budget_count`` (>= 1), else ``max(1, round(budget * dim))``; ``dw`` and
    ``cand`` are scratch (the step on each entry of a row, the row's entries outside the
    support). ``rule`` and ``truncation`` are the parts: :class:`AdaGradStep` when
    ``adagrad``, :class:`TopBRanked` when ``rank_power != 0``, else the paper's.
    """

    cdef public double[::1] v
    cdef public int64_t[::1] heap
    cdef public int64_t[::1] pos
    cdef public double[::1] dw
    cdef public int64_t[::1] cand
    cdef public int64_t hsize
    cdef public double scale
    cdef public double sq_norm
    cdef public int64_t B
    cdef public int64_t dim
    cdef public double lr
    cdef public double l2
    cdef public double radius
    cdef public double budget
    cdef public int64_t budget_count
    cdef public bint zero_is_mistake
    cdef public double[::1] G  # AdaGrad: each coordinate's sum of squared hinge subgradients
    cdef public bint adagrad  # the step rule: AdaGrad's per-coordinate step instead of lr
    cdef public double eps  # AdaGrad's divisor sqrt(eps + G)
    cdef public double[::1] rank  # rank_power > 0: |v_i| (eps + G_i)^rank_power, the heap's key
    cdef public double rank_power  # the truncation: 0, by |w| (the paper's, the heap keyed on v)
    # the bias (_core/bias.pxd): outside v, the scale, the decay, the ball and the budget
    cdef public int fit_intercept
    cdef public double intercept
    cdef public double intercept_G  # AdaGrad's sum of squared hinge subgradients on the input 1
    cdef StepRule rule
    cdef TopB truncation

    def __init__(self, **fields):
        Core.__init__(self, **fields)
        self.rule = AdaGradStep() if self.adagrad else StepRule()
        self.truncation = TopBRanked() if self.rank_power != 0.0 else TopB()

    cdef inline WeightVector weights(self) noexcept:
        return weight_vector(&self.v[0], &self.heap[0], &self.pos[0], &self.hsize,
                             &self.scale, &self.sq_norm)

    cdef inline double label_of(self, double s) noexcept:
        """+1 above 0, else -1; a score of 0 is 0 (always a mistake) with ``zero_is_mistake``.
        (Not STSD's three-way sign: a NaN score is -1 here, 0 there.)"""
        if s > 0.0:
            return 1.0
        return 0.0 if (s == 0.0 and self.zero_is_mistake) else -1.0

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        cdef double s = bias_score(self.fit_intercept, self.intercept,
                                   self.scale * dot(&self.v[0], idx, val, n))
        label[0] = self.label_of(s)
        return s

    cdef int visible(self, const int64_t* cols, Py_ssize_t n, Py_ssize_t dim) except -1:
        """B follows the number of features seen (halves round up, as MATLAB's ``round``)."""
        cdef int64_t b
        self.dim = dim
        if self.budget_count >= 1:
            self.B = self.budget_count
        else:
            b = budget_round(self.budget, dim)
            self.B = b if b > 1 else 1
        return 0

    cdef void update(self, const int64_t* idx, const double* val, Py_ssize_t n, double y,
                     bint weighted) noexcept:
        """The step rule's step on the row, the ball, the truncation; the bias by the same rule."""
        self.rule.row(self, idx, val, n, y, weighted)
        self.step(idx, n)
        self.rule.bias(self, y)

    cdef void step(self, const int64_t* idx, Py_ssize_t n) noexcept:
        """``w~ = w + dw`` (``dw[k]`` on column ``idx[k]``), the L2 ball, the truncation."""
        cdef WeightVector wv = self.weights()
        cdef double* dw = &self.dw[0]
        cdef double big = 0.0, extra = 0.0, scale
        cdef Py_ssize_t k, m
        for k in range(n):
            big = fmax0(big, fabs(dw[k]))
        if not big < INFINITY:
            return  # a step that overflowed (or NaN): skip it, the state stays finite
        if big > HUGE * self.scale:
            wv_fold_to(&wv, big)  # a huge row: the scale carries its magnitude, v stays finite
            self.truncation.refold(self)
        m = self.truncation.update(self, &wv, idx, n, &extra)
        scale = self.scale
        l2ball_project(&self.scale, self.sq_norm + extra, self.radius)  # new columns included
        self.truncation.admit(self, &wv, idx, m, scale)

    cdef void shrink(self) noexcept:
        """The decay ``w *= 1 - lr l2``."""
        cdef WeightVector wv
        cdef double folded = self.scale * (1.0 - self.lr * self.l2)
        if folded < WV_TINY_SCALE:  # wv_shrink folds: the vector is built only then
            wv = self.weights()
            wv_shrink(&wv, 1.0 - self.lr * self.l2)
        else:
            self.scale = folded  # wv_shrink's scale *= factor, and no fold
        if self.scale != folded:
            self.truncation.refold(self)

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        """Decay ``1 - lr l2``; on ``y w.x <= 1`` the step ``lr y x``, projection, truncation."""
        cdef double margin = y * score
        self.shrink()
        if margin <= 1.0:
            self.update(idx, val, n, y, False)
        return hinge(margin)


cdef class PETrunCore(OFSCore):
    """PE_trun: on a mistake ``w += y x`` (the step rule with ``lr = 1``), then keep the B largest ``|w|``."""

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        if y * score > 0.0:
            return 0.0
        self.update(idx, val, n, y, False)
        return 1.0


cdef class RandomSet:
    """RAND's truncation as the paper states it: ``w += y x`` on a random set of at most B features.

    The set is drawn once; open slots (B grew) are filled from the visible features not in it.
    """

    cdef void visible(self, RANDCore core, const int64_t* cols, Py_ssize_t n) noexcept:
        """Fill the open slots from the visible features not in the set (Fisher-Yates)."""
        if core.B <= core.n_selected:
            return
        cdef int8_t* flag = &core.flag[0]
        cdef int64_t* vis = &core.vis[0]
        cdef int64_t m = 0, i, slots
        cdef Py_ssize_t j
        for j in range(n):
            if flag[cols[j]] == 0:
                vis[m] = cols[j]
                m += 1
        slots = core.B - core.n_selected
        if m < slots:
            slots = m
        core.shuffle_head(vis, m, slots)
        for i in range(slots):
            flag[vis[i]] = 1
            core.sel[core.n_selected] = vis[i]
            core.n_selected += 1

    cdef void add(self, RANDCore core, const int64_t* idx, const double* val, Py_ssize_t n,
                  double y) noexcept:
        cdef double* v = &core.v[0]
        cdef const int8_t* flag = &core.flag[0]
        cdef Py_ssize_t k
        for k in range(n):
            if flag[idx[k]] != 0:
                v[idx[k]] += y * val[k]


cdef class RedrawnSet(RandomSet):
    """The OFS authors' ``RND.m``: ``w += y x`` on the whole row, then a new set of B drawn
    among the ``n_shown`` visible features ``shown``, and every weight outside it zeroed."""

    cdef void visible(self, RANDCore core, const int64_t* cols, Py_ssize_t n) noexcept:
        cdef Py_ssize_t j
        for j in range(n):
            core.shown[j] = cols[j]
        core.n_shown = n
        RandomSet.visible(self, core, cols, n)

    cdef void add(self, RANDCore core, const int64_t* idx, const double* val, Py_ssize_t n,
                  double y) noexcept:
        cdef double* v = &core.v[0]
        cdef int8_t* flag = &core.flag[0]
        cdef int64_t* vis = &core.vis[0]
        cdef int64_t* sel = &core.sel[0]
        cdef int64_t m = core.n_shown, slots = core.B, i, c
        cdef Py_ssize_t k
        for k in range(n):
            v[idx[k]] += y * val[k]
        for i in range(m):
            vis[i] = core.shown[i]
        if m < slots:
            slots = m
        core.shuffle_head(vis, m, slots)
        for i in range(slots):
            flag[vis[i]] |= 2
        for k in range(n):  # the row and the old set: zeroed unless drawn again
            if not flag[idx[k]] & 2:
                v[idx[k]] = 0.0
        for i in range(core.n_selected):
            c = sel[i]
            if not flag[c] & 2:
                v[c] = 0.0
            flag[c] = 0
        for i in range(slots):
            flag[vis[i]] = 1
            sel[i] = vis[i]
        core.n_selected = slots


cdef class RANDCore(OFSCore):
    """RAND: a perceptron on the features marked in ``flag`` (a random set of at most B).

    ``n_selected`` features are in the set, listed in ``sel``; ``n_draws``
    uniforms of stream 0 under ``seed`` were used; ``vis`` is scratch. The set
    is the part ``draws``: :class:`RandomSet` (drawn once, the paper), or
    :class:`RedrawnSet` when ``redraw`` (a new set after every mistake, the
    OFS authors' ``RND.m``; ``shown[:n_shown]``: the visible features).
    """

    cdef public int8_t[::1] flag
    cdef public int64_t[::1] vis
    cdef public int64_t[::1] sel
    cdef public int64_t[::1] shown
    cdef public int64_t seed
    cdef public int64_t n_selected
    cdef public int64_t n_draws
    cdef public int64_t n_shown
    cdef public bint redraw
    cdef RandomSet draws

    def __init__(self, **fields):
        OFSCore.__init__(self, **fields)
        self.draws = RedrawnSet() if self.redraw else RandomSet()

    cdef inline int64_t draw(self, int64_t i, int64_t m) noexcept:
        """A uniform position in ``i .. m - 1`` (the next draw of stream 0)."""
        cdef int64_t r = i + <int64_t> (draw_uniform(<uint64_t> self.seed, 0,
                                                     <uint64_t> self.n_draws) * <double> (m - i))
        self.n_draws += 1
        return r

    cdef void shuffle_head(self, int64_t* vis, int64_t m, int64_t slots) noexcept:
        """A partial Fisher-Yates shuffle: ``vis[:slots]`` becomes a uniform draw from ``vis[:m]``."""
        cdef int64_t i, r, c
        for i in range(slots):
            r = self.draw(i, m)
            c = vis[i]
            vis[i] = vis[r]
            vis[r] = c

    cdef int visible(self, const int64_t* cols, Py_ssize_t n, Py_ssize_t dim) except -1:
        """Update B and the random set."""
        OFSCore.visible(self, cols, n, dim)
        self.draws.visible(self, cols, n)
        return 0

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        if y * score > 0.0:
            return 0.0
        bias_add(self.fit_intercept, &self.intercept, y)  # the perceptron's step, outside the set
        self.draws.add(self, idx, val, n, y)
        return 1.0


cdef class OFSPCore(OFSCore):
    """OFS_P: OFS's step on the importance-weighted attributes drawn for row ``t``.

    ``vis[:n_visible]``: the visible columns; ``epsilon``: the probability of exploring.
    ``flag`` marks the attributes drawn for row ``marked`` (-1: none), listed in
    ``pick[:n_marked]``: a prediction draws them and the update of the same row reuses
    them (the draws depend on the seed, the row and the visible set only), so an
    exploration row costs one draw of B attributes, not two.
    """

    cdef public int8_t[::1] flag
    cdef public int64_t[::1] vis
    cdef public int64_t[::1] pick
    cdef public int64_t n_visible
    cdef public int64_t t
    cdef public int64_t seed
    cdef public double epsilon
    cdef public int64_t marked
    cdef public int64_t n_marked

    cdef void mark_random(self) noexcept:
        """Mark ``min(B, n_visible)`` visible columns drawn uniformly for row t (Floyd's algorithm).

        Sets ``flag[c] = 1`` for each drawn column and lists them in ``pick``. (O(B) draws:
        the seed and the row are read into locals first, so the compiler mixes them once,
        not once a draw.)
        """
        cdef int8_t* flag = &self.flag[0]
        cdef int64_t* pick = &self.pick[0]
        cdef const int64_t* vis = &self.vis[0]
        cdef uint64_t seed = <uint64_t> self.seed, t = <uint64_t> self.t
        cdef int64_t m = self.n_visible, k = self.B if self.B < self.n_visible else self.n_visible
        cdef int64_t j, i, r, c
        for j in range(m - k, m):
            i = j - (m - k)
            r = <int64_t> (draw_uniform(seed, t, <uint64_t> (1 + i)) * <double> (j + 1))
            c = vis[r]
            if flag[c] != 0:
                c = vis[j]
            flag[c] = 1
            pick[i] = c
        self.marked = self.t
        self.n_marked = k

    cdef void unmark(self) noexcept:
        """Undo :meth:`mark_random`."""
        cdef int8_t* flag = &self.flag[0]
        cdef const int64_t* pick = &self.pick[0]
        cdef int64_t i
        for i in range(self.n_marked):
            flag[pick[i]] = 0
        self.n_marked = 0
        self.marked = -1

    cdef double observe(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        bint* explore) noexcept:
        """Draw row t's attributes (marked in ``flag``) unless marked already; the score on them."""
        cdef double s = 0.0
        cdef const int8_t* flag
        cdef const double* v
        cdef Py_ssize_t j
        if not draw_uniform(<uint64_t> self.seed, <uint64_t> self.t, 0) < self.epsilon:
            explore[0] = False
            return bias_score(self.fit_intercept, self.intercept,
                              self.scale * dot(&self.v[0], idx, val, n))
        explore[0] = True
        if self.marked != self.t:
            self.unmark()
            self.mark_random()
        flag = &self.flag[0]
        v = &self.v[0]
        for j in range(n):
            if flag[idx[j]] != 0:
                s += v[idx[j]] * val[j]
        return bias_score(self.fit_intercept, self.intercept, self.scale * s)

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        cdef bint explore
        cdef double s = self.observe(idx, val, n, &explore)
        label[0] = self.label_of(s)
        return s

    cdef int visible(self, const int64_t* cols, Py_ssize_t n, Py_ssize_t dim) except -1:
        """B, and the visible columns (marks drawn from the previous ones are dropped)."""
        OFSCore.visible(self, cols, n, dim)
        self.unmark()
        cdef int64_t* vis = &self.vis[0]
        cdef Py_ssize_t j
        for j in range(n):
            vis[j] = cols[j]
        self.n_visible = n
        return 0

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        """The same draw as the prediction; the step on each observed value over its probability
        ``q = epsilon min(1, B / d) + (1 - epsilon) [w_i != 0]`` (the input 1 has ``q = 1``)."""
        cdef bint explore, held, seen
        cdef double s = self.observe(idx, val, n, &explore)
        cdef double margin = y * s, eps = self.epsilon, q_explore = 0.0, r
        cdef const double* v
        cdef const int8_t* flag = &self.flag[0]
        cdef double* q = &self.dw[0]  # the rule replaces each q by its step
        cdef int64_t m = self.n_visible
        cdef Py_ssize_t j
        self.shrink()
        if margin <= 1.0:
            v = &self.v[0]
            if m > 0:
                r = <double> self.B / <double> m
                q_explore = eps * (r if r < 1.0 else 1.0)
            for j in range(n):
                held = v[idx[j]] != 0.0  # in w_t's support
                seen = (flag[idx[j]] != 0) if explore else held
                q[j] = (q_explore + (1.0 - eps) * held) * seen  # 0: not observed
            self.update(idx, val, n, y, True)  # the input 1 is observed with probability 1
        self.unmark()
        self.t += 1
        return hinge(margin)
