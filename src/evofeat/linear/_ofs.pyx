# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The OFS family's math (see :mod:`evofeat.linear.ofs` and :mod:`evofeat.linear.ofs_partial`).

:class:`OFSCore` is OFS (Hoi et al. 2012, Algorithm 3 with the truncation of
Algorithm 2); :class:`PETrunCore` and :class:`RANDCore` are its perceptron
baselines; :class:`OFSPCore` is OFS with partial inputs (Wang et al. 2014,
Algorithm 3). The weights are the one weight vector of
``_core/weight_vector.pxd``: ``w = scale * v`` with ``||v||^2`` up to date and
the support (at most B columns) in an indexed min-heap, so a row costs
O(nnz log B), never O(d). ``adagrad`` (OFS and OFS_P) replaces the step
``lr y x`` by AdaGrad's per-coordinate one (``_core/adaptive.pxd``); the
decay and the projection stay one factor each. ``rank_power = p > 0`` (with
``adagrad``) truncates by ``|w_i| (eps + G_i)^p`` instead of ``|w_i|``: the
heap is then keyed on ``rank`` (that score in units of ``v``, 0 off the
support) instead of ``v``.
"""

from libc.math cimport INFINITY, fabs, floor, pow, sqrt
from libc.stdint cimport int8_t, int64_t, uint64_t

from evofeat._core.adaptive cimport adagrad_step
from evofeat._core.bias cimport bias_adagrad, bias_add, bias_score
from evofeat._core.core cimport Core
from evofeat._core.rng cimport draw_uniform
from evofeat._core.safe cimport dot, fmax0
from evofeat._core.topk cimport topk_heapify, topk_pop, topk_touch
from evofeat._core.weight_vector cimport (
    WeightVector, weight_vector, wv_fold_to, wv_offer, wv_set, wv_shrink,
)

cdef double HUGE = 1e150  # a step larger than this in units of v is renormalised first


cdef class OFSCore(Core):
    """OFS: ``w = scale * v`` truncated to the ``B`` largest ``|w|``; ``lr`` eta, ``l2`` lambda.

    ``B`` is ``budget_count`` (>= 1), else ``max(1, round(budget * dim))``; ``dw`` and
    ``cand`` are scratch (the step on each entry of a row, the row's entries outside the
    support).
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
    cdef public bint adagrad  # AdaGrad's per-coordinate step instead of lr (Duchi et al. 2011)
    cdef public double eps  # AdaGrad's divisor sqrt(eps + G)
    cdef public double[::1] rank  # rank_power > 0: |v_i| (eps + G_i)^rank_power, the heap's key
    cdef public double rank_power  # 0: truncate by |w| (the paper's rule, the heap keyed on v)
    # the bias (_core/bias.pxd): outside v, the scale, the decay, the ball and the budget
    cdef public int fit_intercept
    cdef public double intercept
    cdef public double intercept_G  # AdaGrad's sum of squared hinge subgradients on the input 1

    _fields = (
        "v", "heap", "pos", "dw", "cand", "hsize", "scale", "sq_norm", "B", "dim",
        "lr", "l2", "radius", "budget", "budget_count", "zero_is_mistake", "G", "adagrad", "eps",
        "rank", "rank_power", "fit_intercept", "intercept", "intercept_G",
    )

    cdef inline WeightVector weights(self) noexcept:
        return weight_vector(&self.v[0], &self.heap[0], &self.pos[0], &self.hsize,
                             &self.scale, &self.sq_norm)

    cdef inline double label_of(self, double s) noexcept:
        if s > 0.0:
            return 1.0
        return 0.0 if (s == 0.0 and self.zero_is_mistake) else -1.0

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        cdef double s = bias_score(self.fit_intercept, self.intercept,
                                   self.scale * dot(&self.v[0], idx, val, n))
        label[0] = self.label_of(s)
        return s

    cdef inline void step_bias(self, double y) noexcept:
        """OFS's step on the input 1 (always observed): ``b += lr y``, or AdaGrad's with gradient ``-y``."""
        if self.adagrad:
            bias_adagrad(self.fit_intercept, &self.intercept, &self.intercept_G, -y, self.lr,
                         self.eps)
        else:
            bias_add(self.fit_intercept, &self.intercept, self.lr * y)

    cdef int visible(self, const int64_t* cols, Py_ssize_t n, Py_ssize_t dim) except -1:
        """B follows the number of features seen (halves round up, as MATLAB's ``round``)."""
        cdef int64_t b
        self.dim = dim
        if self.budget_count >= 1:
            self.B = self.budget_count
        else:
            b = <int64_t> floor(self.budget * <double> dim + 0.5)
            self.B = b if b > 1 else 1
        return 0

    cdef void step(self, const int64_t* idx, Py_ssize_t n) noexcept:
        """``w += dw`` (``dw[k]`` on column ``idx[k]``), project onto the L2 ball, keep the B largest.

        The support is updated in place; the new columns are then offered to the
        full heap one by one (one enters only if it beats the heap's minimum, which
        leaves): exactly the B largest of the union, in O(nnz + k log B) for k changes.
        """
        cdef WeightVector wv = self.weights()
        cdef double* v = wv.v
        cdef double* dw = &self.dw[0]
        cdef int64_t* cand = &self.cand[0]
        cdef double big = 0.0, extra = 0.0, z, scale, norm
        cdef Py_ssize_t k, j, m = 0
        cdef int64_t c
        cdef bint ranked = self.rank_power != 0.0
        for k in range(n):
            big = fmax0(big, fabs(dw[k]))
        if not big < INFINITY:
            return  # a step that overflowed (or NaN): skip it, the state stays finite
        if big > HUGE * self.scale:
            wv_fold_to(&wv, big)  # a huge row: the scale carries its magnitude, v stays finite
            if ranked:
                self.rerank()
        for k in range(n):
            if dw[k] == 0.0:
                continue
            c = idx[k]
            if wv.pos[c] < 0:
                cand[m] = k
                m += 1
                z = dw[k] / self.scale
                extra += z * z
            elif ranked:
                self.set_ranked(&wv, c, v[c] + dw[k] / self.scale)
            else:
                wv_set(&wv, c, v[c] + dw[k] / self.scale)
        scale = self.scale
        norm = scale * sqrt(fmax0(self.sq_norm + extra, 0.0))  # ||w~||, new columns included
        if norm > self.radius:
            self.scale = scale * (self.radius / norm)
        for j in range(m):
            k = cand[j]
            if ranked:
                self.offer_ranked(&wv, idx[k], dw[k] / scale)
            else:
                wv_offer(&wv, idx[k], dw[k] / scale, self.B)

    cdef inline double rank_of(self, int64_t c, double x) noexcept:
        """The truncation score of ``v[c] = x``: ``|x| (eps + G_c)^rank_power``."""
        return fabs(x) * pow(self.eps + self.G[c], self.rank_power)

    cdef void set_ranked(self, WeightVector* wv, int64_t c, double x) noexcept:
        """:func:`wv_set` with the heap keyed on ``rank`` (a score that underflows to 0 drops ``c``)."""
        cdef double* rank = &self.rank[0]
        cdef double old = wv.v[c]
        rank[c] = self.rank_of(c, x)
        if rank[c] == 0.0:
            x = 0.0
        wv.v[c] = x
        wv.sq_norm[0] += x * x - old * old
        topk_touch(wv.heap, wv.pos, wv.hsize, rank, c)

    cdef void offer_ranked(self, WeightVector* wv, int64_t c, double x) noexcept:
        """:func:`wv_offer` by ``rank``: ``c`` enters if the support has room or it outranks the minimum."""
        cdef double* rank = &self.rank[0]
        cdef double r = self.rank_of(c, x)
        cdef int64_t low
        if self.B <= 0 or r == 0.0:
            return
        if wv.hsize[0] >= self.B:
            low = wv.heap[0]
            if r < rank[low] or (r == rank[low] and c > low):
                return
            topk_pop(wv.heap, wv.pos, wv.hsize, rank)
            wv.sq_norm[0] -= wv.v[low] * wv.v[low]
            wv.v[low] = 0.0
            rank[low] = 0.0
        self.set_ranked(wv, c, x)

    cdef void rerank(self) noexcept:
        """After ``v`` was re-expressed under a new scale: every rank again, the heap reordered."""
        cdef int64_t i, c
        for i in range(self.hsize):
            c = self.heap[i]
            self.rank[c] = self.rank_of(c, self.v[c])
        topk_heapify(&self.heap[0], &self.pos[0], &self.hsize, &self.rank[0])

    cdef void shrink(self, WeightVector* wv) noexcept:
        """The decay ``w *= 1 - lr l2`` (a fold of the scale into ``v`` re-ranks)."""
        cdef double folded = self.scale * (1.0 - self.lr * self.l2)
        wv_shrink(wv, 1.0 - self.lr * self.l2)
        if self.rank_power != 0.0 and self.scale != folded:
            self.rerank()

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        """Decay ``1 - lr l2``; on ``y w.x <= 1`` the step ``lr y x``, projection, truncation."""
        cdef double margin = y * score
        cdef WeightVector wv = self.weights()
        cdef double* dw = &self.dw[0]
        cdef Py_ssize_t k
        self.shrink(&wv)
        if margin <= 1.0:
            for k in range(n):
                if self.adagrad:  # the hinge's subgradient is -y x
                    dw[k] = adagrad_step(&self.G[idx[k]], -y * val[k], self.lr, self.eps)
                else:
                    dw[k] = self.lr * y * val[k]
            self.step(idx, n)
            self.step_bias(y)
        return fmax0(0.0, 1.0 - margin)


cdef class PETrunCore(OFSCore):
    """PE_trun: on a mistake ``w += y x``, then keep the B largest ``|w|``."""

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        cdef double* dw = &self.dw[0]
        cdef Py_ssize_t k
        if y * score > 0.0:
            return 0.0
        for k in range(n):
            dw[k] = y * val[k]
        self.step(idx, n)
        bias_add(self.fit_intercept, &self.intercept, y)
        return 1.0


cdef class RANDCore(OFSCore):
    """RAND: a perceptron on the features marked in ``flag`` (a random set of at most B).

    ``n_selected`` features are in the set, listed in ``sel``; ``n_draws``
    uniforms of stream 0 under ``seed`` were used; ``vis`` is scratch.
    ``redraw``: 0, the set is drawn once (open slots filled as B grows); 1,
    after every mistake ``w += y x`` on every feature of the row, a new set of
    B is drawn among the ``n_shown`` visible features ``shown``, and every
    weight outside it is zeroed (the OFS authors' ``RND.m``).
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

    _fields = OFSCore._fields + (
        "flag", "vis", "sel", "shown", "seed", "n_selected", "n_draws", "n_shown", "redraw"
    )

    cdef inline int64_t draw(self, int64_t i, int64_t m) noexcept:
        """A uniform position in ``i .. m - 1`` (the next draw of stream 0)."""
        cdef int64_t r = i + <int64_t> (draw_uniform(<uint64_t> self.seed, 0,
                                                     <uint64_t> self.n_draws) * <double> (m - i))
        self.n_draws += 1
        return r

    cdef inline void shuffle_head(self, int64_t* vis, int64_t m, int64_t slots) noexcept:
        """A partial Fisher-Yates shuffle: ``vis[:slots]`` becomes a uniform draw from ``vis[:m]``."""
        cdef int64_t i, r, c
        for i in range(slots):
            r = self.draw(i, m)
            c = vis[i]
            vis[i] = vis[r]
            vis[r] = c

    cdef int visible(self, const int64_t* cols, Py_ssize_t n, Py_ssize_t dim) except -1:
        """Update B; fill the open slots from the visible features not in the set (Fisher-Yates)."""
        OFSCore.visible(self, cols, n, dim)
        cdef Py_ssize_t j
        if self.redraw:
            for j in range(n):
                self.shown[j] = cols[j]
            self.n_shown = n
        if self.B <= self.n_selected:
            return 0
        cdef int8_t* flag = &self.flag[0]
        cdef int64_t* vis = &self.vis[0]
        cdef int64_t m = 0, i, slots
        for j in range(n):
            if flag[cols[j]] == 0:
                vis[m] = cols[j]
                m += 1
        slots = self.B - self.n_selected
        if m < slots:
            slots = m
        self.shuffle_head(vis, m, slots)
        for i in range(slots):
            flag[vis[i]] = 1
            self.sel[self.n_selected] = vis[i]
            self.n_selected += 1
        return 0

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        cdef double* v = &self.v[0]
        cdef int8_t* flag = &self.flag[0]
        cdef Py_ssize_t k
        if y * score > 0.0:
            return 0.0
        bias_add(self.fit_intercept, &self.intercept, y)  # outside the random set
        if self.redraw:
            self.redraw_after(idx, val, n, y)
            return 1.0
        for k in range(n):
            if flag[idx[k]] != 0:
                v[idx[k]] += y * val[k]
        return 1.0

    cdef void redraw_after(self, const int64_t* idx, const double* val, Py_ssize_t n,
                           double y) noexcept:
        """``w += y x``, a new random set of B among the visible features, ``w`` zeroed outside it."""
        cdef double* v = &self.v[0]
        cdef int8_t* flag = &self.flag[0]
        cdef int64_t* vis = &self.vis[0]
        cdef int64_t* sel = &self.sel[0]
        cdef int64_t m = self.n_shown, slots = self.B, i, c
        cdef Py_ssize_t k
        for k in range(n):
            v[idx[k]] += y * val[k]
        for i in range(m):
            vis[i] = self.shown[i]
        if m < slots:
            slots = m
        self.shuffle_head(vis, m, slots)
        for i in range(slots):
            flag[vis[i]] |= 2
        for k in range(n):  # the row and the old set: zeroed unless drawn again
            if not flag[idx[k]] & 2:
                v[idx[k]] = 0.0
        for i in range(self.n_selected):
            c = sel[i]
            if not flag[c] & 2:
                v[c] = 0.0
            flag[c] = 0
        for i in range(slots):
            flag[vis[i]] = 1
            sel[i] = vis[i]
        self.n_selected = slots


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

    _fields = OFSCore._fields + (
        "flag", "vis", "pick", "n_visible", "t", "seed", "epsilon", "marked", "n_marked",
    )

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
        """The same draw as the prediction; each observed value divided by its probability."""
        cdef bint explore, held, seen
        cdef double s = self.observe(idx, val, n, &explore)
        cdef double margin = y * s, eps = self.epsilon, q_explore = 0.0, q, r
        cdef WeightVector wv = self.weights()
        cdef const double* v = wv.v
        cdef const int8_t* flag = &self.flag[0]
        cdef double* dw = &self.dw[0]
        cdef int64_t m = self.n_visible
        cdef Py_ssize_t j
        self.shrink(&wv)
        if margin <= 1.0:
            if m > 0:
                r = <double> self.B / <double> m
                q_explore = eps * (r if r < 1.0 else 1.0)
            for j in range(n):
                held = v[idx[j]] != 0.0  # in w_t's support
                seen = (flag[idx[j]] != 0) if explore else held
                q = q_explore + (1.0 - eps) * (1.0 if held else 0.0)
                if not seen:
                    dw[j] = 0.0
                elif self.adagrad:
                    dw[j] = adagrad_step(&self.G[idx[j]], -y * val[j] / q, self.lr, self.eps)
                else:
                    dw[j] = self.lr * y * val[j] / q
            self.step(idx, n)
            self.step_bias(y)  # the input 1 is observed with probability 1
        self.unmark()
        self.t += 1
        return fmax0(0.0, 1.0 - margin)
