# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The per-coordinate adaptive learners' math (see :mod:`evofeat.linear.ftrl`, :mod:`evofeat.linear.adagrad` and :mod:`evofeat.linear.nag`).

Each coordinate's state is touched only when its feature is in the row, so
an absent feature keeps its state and an unseen one starts at zero.
"""

from libc.math cimport fabs
from libc.stdint cimport int64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memcpy

from evofeat._core.adaptive cimport ftrl_weight, invariant_shrink, nag_rescaled
from evofeat._core.bias cimport bias_score
from evofeat._core.core cimport Core
from evofeat._core.losses cimport c_loss_step, label_of
from evofeat._core.safe cimport safe_dot, safe_dotn, saturate
from evofeat._core.steprule cimport (
    ADAGRAD_RULE, FTRL_RULE, NAG_RULE, StepRule, adagrad_delta, ftrl_delta, nag_delta, rule_apply,
    rule_bias, rule_deltas, rule_make, rule_row, step_add,
)


cdef class RowScratch(Core):
    """A :class:`Core` with scratch buffers for the row's weights as the learner uses them and
    their columns (not state)."""

    cdef double* wbuf
    cdef int64_t* wcols
    cdef Py_ssize_t wcap

    def __dealloc__(self):
        free(self.wbuf)
        free(self.wcols)

    cdef double* scratch(self, Py_ssize_t m) noexcept:
        """Room for ``m`` weights in ``wbuf`` and ``m`` columns in ``wcols`` (NULL if they cannot
        grow)."""
        cdef double* grown
        cdef int64_t* cols
        if m > self.wcap:
            grown = <double*> realloc(self.wbuf, m * sizeof(double))
            if grown == NULL:
                return NULL
            self.wbuf = grown
            cols = <int64_t*> realloc(self.wcols, m * sizeof(int64_t))
            if cols == NULL:
                return NULL
            self.wcols = cols
            self.wcap = m
        return self.wbuf


cdef class FTRLCore(RowScratch):
    """FTRL-Proximal: ``z`` and ``n`` per feature; ``alpha``, ``beta``, ``l1``, ``l2``; the loss code ``loss_kind``.

    With ``fit_intercept`` (1), a bias on a constant input 1 that every row
    has: its own ``intercept_z`` and ``intercept_n``, the rate scale
    ``intercept_lr`` (its alpha) and ``beta``, no L1 or L2.
    """

    cdef public double[::1] z
    cdef public double[::1] n
    cdef public double alpha, beta, l1, l2
    cdef public int loss_kind
    cdef public int fit_intercept
    cdef public double intercept_z, intercept_n, intercept_lr
    # scratch (not state): predict leaves the row's weights in wbuf and its columns in wcols (wlen
    # of them; 0: none). learn consumes the mark and reads a column's weight from wbuf when the
    # column is the one predict computed it for (the loop always predicts a row right before
    # learning it; nothing between them changes z or n: visible() does not touch them, the columns
    # are increasing so a step never changes a weight still to be read); on any other row, and with
    # no mark (a fresh or loaded core, a predict that could not grow the buffers), it computes it
    cdef Py_ssize_t wlen

    cdef inline StepRule rule(self) noexcept:
        return rule_make(FTRL_RULE, self.alpha, 0.0, self.beta, self.l1, self.l2)

    cdef inline double bias(self) noexcept:
        """The lazy weight of the bias (no L1, no L2)."""
        cdef StepRule r = self.rule()
        cdef StepRule br = rule_bias(&r, self.intercept_lr)
        return rule_apply(&br, 0.0, 0.0, self.intercept_z, self.intercept_n)

    def coef(self, Py_ssize_t n):
        """The lazy weights of the first ``n`` features (``coef_``), as :meth:`predict` computes them."""
        import numpy as np
        out = np.zeros(max(0, min(n, self.z.shape[0])))
        cdef double[::1] o = out
        cdef Py_ssize_t i
        for i in range(o.shape[0]):
            o[i] = ftrl_weight(self.z[i], self.n[i], self.alpha, self.beta, self.l1, self.l2)
        return out

    def intercept_weight(self):
        """The bias's lazy weight (``intercept_``)."""
        return self.bias()

    cdef double* weights(self, const int64_t* idx, Py_ssize_t m) noexcept:
        """The row's weights from ``z`` and ``n`` into the scratch buffer, marked with the row's
        columns for :meth:`learn` (NULL, and no mark, if the buffers cannot grow)."""
        self.wlen = 0
        cdef double* wb = self.scratch(m)
        if wb == NULL:
            return NULL
        cdef Py_ssize_t k
        cdef const double* z = &self.z[0]
        cdef const double* nn = &self.n[0]
        for k in range(m):
            wb[k] = ftrl_weight(z[idx[k]], nn[idx[k]], self.alpha, self.beta, self.l1, self.l2)
        memcpy(self.wcols, idx, m * sizeof(int64_t))
        self.wlen = m
        return wb

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t m,
                        double* label) noexcept:
        cdef double s = 0.0
        cdef double* w
        if m > 0:
            w = self.weights(idx, m)
            if w != NULL:
                s = safe_dotn(w, val, m)
        if self.fit_intercept:  # the lazy weight is computed only when the bias is on
            s = bias_score(1, self.bias(), s)
        label[0] = label_of(self.loss_kind, s)
        return s

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t m,
                      double y, double score) noexcept:
        cdef bint marked = self.wlen == m  # predict's weights if they are this row's (see below)
        self.wlen = 0
        cdef double loss, slope
        if not c_loss_step(self.loss_kind, score, y, &loss, &slope):
            return loss
        cdef Py_ssize_t k
        cdef int64_t i
        cdef double w
        cdef double* z = &self.z[0]
        cdef double* nn = &self.n[0]
        cdef const double* wb = self.wbuf
        cdef const int64_t* wc = self.wcols
        cdef StepRule r = self.rule()
        cdef StepRule br
        for k in range(m):
            i = idx[k]
            if marked and wc[k] == i:
                w = wb[k]
            else:
                w = ftrl_weight(z[i], nn[i], self.alpha, self.beta, self.l1, self.l2)
            ftrl_delta(&r, &nn[i], &z[i], w, val[k], slope, False)
        if self.fit_intercept:  # the gradient on the constant input 1 is the slope
            br = rule_bias(&r, self.intercept_lr)
            ftrl_delta(&br, &self.intercept_n, &self.intercept_z, self.bias(), 1.0, slope, False)
        return loss


cdef class AdaGradCore(Core):
    """Diagonal AdaGrad OGD: ``w`` and ``G`` (sum of squared gradients) per feature; ``lr``, ``eps``, ``loss_kind``.

    With ``fit_intercept`` (1), a bias ``intercept`` on a constant input 1
    that every row has, with its own accumulator ``intercept_G`` and step
    scale ``intercept_lr``.
    """

    cdef public double[::1] w
    cdef public double[::1] G
    cdef public double lr, eps
    cdef public int loss_kind
    cdef public int fit_intercept
    cdef public double intercept, intercept_G, intercept_lr

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t m,
                        double* label) noexcept:
        cdef double s = bias_score(self.fit_intercept, self.intercept,
                                   safe_dot(&self.w[0], idx, val, m))
        label[0] = label_of(self.loss_kind, s)
        return s

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t m,
                      double y, double score) noexcept:
        cdef double loss, slope
        if not c_loss_step(self.loss_kind, score, y, &loss, &slope):
            return loss
        cdef Py_ssize_t k
        cdef int64_t i
        cdef double* w = &self.w[0]
        cdef double* G = &self.G[0]
        cdef StepRule r = rule_make(ADAGRAD_RULE, self.lr, self.eps, 0.0, 0.0, 0.0)
        cdef StepRule br
        for k in range(m):
            i = idx[k]
            w[i] = step_add(w[i], adagrad_delta(&r, &G[i], val[k], slope))
        if self.fit_intercept:  # the gradient on the constant input 1 is the slope
            br = rule_bias(&r, self.intercept_lr)
            self.intercept = step_add(self.intercept, adagrad_delta(&br, &self.intercept_G, 1.0, slope))
        return loss


cdef class NAGCore(RowScratch):
    """Normalised adaptive gradient (NAG): ``w``, ``s`` (largest ``|x_i|`` seen) and ``G`` per feature; ``t``, ``N``.

    ``lr`` is the step scale (eta), ``loss_kind`` the loss code; ``t`` counts
    the rows learned, ``N`` sums their ``x_i^2 / s_i^2``. With
    ``fit_intercept`` (1), a bias ``intercept`` on a constant input 1 (scale
    1, so it adds 1 to ``N`` on every row) with its accumulator
    ``intercept_G`` and step scale ``intercept_lr``. With ``invariant`` (1),
    the row's steps are shrunk together to the importance-invariant update.
    """

    cdef public double[::1] w
    cdef public double[::1] s
    cdef public double[::1] G
    cdef public double lr, t, N
    cdef public int loss_kind, invariant
    cdef public int fit_intercept
    cdef public double intercept, intercept_G, intercept_lr

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t m,
                        double* label) noexcept:
        cdef double sc = 0.0
        cdef Py_ssize_t k
        cdef double* v
        cdef const double* w = &self.w[0]
        cdef const double* s = &self.s[0]
        if m > 0:
            v = self.scratch(m)
            if v != NULL:
                for k in range(m):  # the weights rescaled to the row's new scales (lines 5-9)
                    v[k] = nag_rescaled(w[idx[k]], s[idx[k]], fabs(val[k]))
                sc = safe_dotn(v, val, m)
        sc = bias_score(self.fit_intercept, self.intercept, sc)
        label[0] = label_of(self.loss_kind, sc)
        return sc

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t m,
                      double y, double score) noexcept:
        cdef double loss, slope
        if not c_loss_step(self.loss_kind, score, y, &loss, &slope):
            return loss
        cdef Py_ssize_t k
        cdef double* w = &self.w[0]
        cdef double q = 0.0, db = 0.0, D = 0.0, shrink = 1.0
        cdef StepRule r = rule_make(NAG_RULE, self.lr, 0.0, 0.0, 0.0, 0.0)
        cdef StepRule br = rule_bias(&r, self.intercept_lr)
        r.t, r.N = self.t, self.N
        cdef bint step = rule_row(&r, 0.0, slope, idx, val, m, w, &self.s[0], NULL, 0,
                                  self.fit_intercept, &q)
        self.t, self.N = r.t, r.N
        if not step:
            return loss
        cdef double* d = self.scratch(m)  # the steps (lines 13-16), applied below
        if d == NULL and m > 0:  # an empty row (no buffer yet on a fresh core) still steps the bias
            return loss
        rule_deltas(&r, d, idx, val, m, w, &self.G[0], &self.G[0], &self.s[0], slope, q, NULL, 0)
        if self.fit_intercept:  # the input 1, of scale 1: the gradient is the slope
            db = nag_delta(&br, &self.intercept_G, 1.0, 1.0, slope, q)
        if self.invariant:
            for k in range(m):
                D = saturate(D - d[k] * val[k])
            shrink = invariant_shrink(self.loss_kind, saturate(D - db), slope, score, y)
        for k in range(m):
            w[idx[k]] = step_add(w[idx[k]], shrink * d[k])
        if self.fit_intercept:
            self.intercept = step_add(self.intercept, shrink * db)
        return loss


def learn_row(Core core, const int64_t[::1] idx, const double[::1] val, double y, double score):
    """``core.learn`` on one row (internal columns ``idx``, increasing; values ``val``) with no
    ``predict`` right before it, which the loop and the dict path never do: for tests. Returns
    the loss."""
    if idx.shape[0] != val.shape[0]:
        raise ValueError(f"idx and val differ in length: {idx.shape[0]} and {val.shape[0]}")
    if idx.shape[0] == 0:
        return core.learn(NULL, NULL, 0, y, score)
    return core.learn(&idx[0], &val[0], idx.shape[0], y, score)
