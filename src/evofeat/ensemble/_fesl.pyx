# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled math of FESL-c, FESL-s, NOGD, ROGD-u, ROGD-f.

See :mod:`evofeat.ensemble.fesl` for the algorithms, their parameters and their references; this module holds only
the per-row arithmetic, in the operation order of the NumPy references.
"""

import numpy as np

from cpython.object cimport PyObject_GenericSetAttr
from libc.math cimport exp, fabs, ldexp, log, log1p, sqrt
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, realloc

from evofeat._core.adaptive cimport ftrl_weight, nag_rescaled
from evofeat._core.bias cimport bias_score
from evofeat._core.core cimport Core
from evofeat._core.losses cimport c_loss_slope, c_loss_value, label_of
from evofeat._core.rng cimport GOLDEN, peek_uniform
from evofeat._core.steprule cimport (
    FTRL_RULE, NAG_RULE, OGD_RULE, StepRule, rule_apply, rule_bias, rule_delta, rule_deltas, rule_make,
    rule_row, step_add,
)
from evofeat._core.safe cimport (
    MAX, NORMAL, exponent, fmax0, safe_axpy, safe_dot, safe_dotn, saturate, sign_label, unscale,
)

#: loss codes
LOGISTIC, SQUARE = 0, 1
cdef enum:  # method codes (C constants: a Python global would be looked up on every row)
    NOGD = 0
    ROGD_U = 1
    ROGD_F = 2
    FESL_C = 3
    FESL_S = 4
#: an overlap row whose largest value lies outside [SMALL, BIG] is stored rescaled.
cdef double BIG = 2.0 ** 100
cdef double SMALL = 2.0 ** -100
#: a loss entering the ensemble weights is capped here; cumulative losses stay below 2 LCAP.
cdef double LCAP = 2.0 ** 1000
#: the step rule's fields as the model file names them: field -> the rule's
RULE_FIELDS = {"base": "kind", "lr": "lr", "eps": "eps", "beta": "beta", "l1": "l1", "l2": "l2",
               "nag_t": "t", "nag_N": "N"}


cdef inline double entropy(double x) noexcept nogil:
    if x <= 0.0 or x >= 1.0:
        return 0.0
    return -x * log(x) - (1.0 - x) * log(1.0 - x)


cdef bint all_finite(double[:, ::1] A):
    cdef Py_ssize_t i, j
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if not fabs(A[i, j]) <= MAX:
                return False
    return True


def pinv_psd(K, Py_ssize_t n, double ridge):
    """``(K[:n, :n] + ridge I)^+`` of a symmetric PSD matrix, by eigendecomposition.

    Eigenvalues at most ``n * eps * max|e|`` are treated as zero (the rule of
    ``numpy.linalg.pinv(..., rcond=n * eps, hermitian=True)``), so ``ridge=0``
    gives the Moore-Penrose pseudo-inverse and ``ridge > 0`` the ridge inverse.
    If ``K[:n, :n]`` or the result is not finite, the result is the zero
    matrix (no map) rather than an error.

    >>> pinv_psd(np.array([[2.0, 0.0], [0.0, 0.0]]), 2, 0.0)
    array([[0.5, 0. ],
           [0. , 0. ]])
    """
    if n == 0:
        return np.zeros((0, 0))
    A = np.array(K[:n, :n], dtype=np.float64, order="C")
    cdef double[:, ::1] a = A
    cdef Py_ssize_t i
    for i in range(n):
        a[i, i] += ridge
    if not all_finite(a):
        return np.zeros((n, n))
    ev, V = np.linalg.eigh(A)
    cdef const double[:] e = ev
    cdef double top = 0.0
    for i in range(n):
        top = fmax0(top, fabs(e[i]))
    cdef double cut = n * 2.220446049250313e-16 * top
    inv = np.zeros(n)
    cdef double[::1] iv = inv
    for i in range(n):
        if fabs(e[i]) > cut:
            iv[i] = 1.0 / e[i]
    out = np.ascontiguousarray((V * inv) @ V.T)
    if not all_finite(out):
        return np.zeros((n, n))
    return out


cdef void c_project(double[:, ::1] buf, Py_ssize_t nb, const int64_t* space, int64_t s,
                    const int64_t* idx, const double* val, Py_ssize_t n, double[::1] q,
                    int e) noexcept:
    """``q[b] = sum_k buf[idx[k], b] val[k] 2^-e`` over the entries of space ``s`` (``b < nb``).

    With ``buf`` the overlap rows stored column-wise, this is ``X_s x_s``.
    """
    cdef Py_ssize_t k, b
    cdef int64_t j
    cdef double v
    for b in range(nb):
        q[b] = 0.0
    for k in range(n):
        j = idx[k]
        if space[j] == s:
            v = val[k] if e == 0 else ldexp(val[k], -e)
            for b in range(nb):
                q[b] += buf[j, b] * v


cdef int c_project_exp(double[:, ::1] buf, Py_ssize_t nb, const int64_t* space, int64_t s,
                       const int64_t* idx, const double* val, Py_ssize_t n,
                       double[::1] q) noexcept:
    """:func:`c_project` into ``q``; returns ``e`` with ``q 2^e`` the projection (0 unless it overflows).

    If it overflows, the row's part in space ``s`` is rescaled by ``2^-e`` (its
    largest value in ``[0.5, 1)``) and projected again, so ``q`` is finite.
    """
    c_project(buf, nb, space, s, idx, val, n, q, 0)
    cdef bint ok = True
    cdef Py_ssize_t b, k
    for b in range(nb):
        if not fabs(q[b]) <= MAX:
            ok = False
    if ok:
        return 0
    cdef double m = 0.0
    for k in range(n):
        if space[idx[k]] == s:
            m = fmax0(m, fabs(val[k]))
    cdef int e = exponent(m)
    c_project(buf, nb, space, s, idx, val, n, q, e)
    return e


def project_exp(buf, Py_ssize_t n, space, int64_t s, idx, val):
    """``(q, e)``: the row ``(idx, val)``'s part in space ``s`` through the first ``n`` stored rows, ``q 2^e``.

    >>> q, e = project_exp(np.eye(2), 2, np.array([1, 1]), 1, np.array([0, 1]), np.array([3.0, 4.0]))
    >>> q.tolist(), e
    ([3.0, 4.0], 0)
    """
    cdef double[:, ::1] b = np.ascontiguousarray(buf, dtype=np.float64)
    cdef int64_t[::1] sp = np.ascontiguousarray(space, dtype=np.int64)
    cdef int64_t[::1] ix = np.ascontiguousarray(idx, dtype=np.int64)
    cdef double[::1] vv = np.ascontiguousarray(val, dtype=np.float64)
    q = np.zeros(max(n, 1))
    if ix.shape[0] == 0 or n == 0:
        return q[:n], 0
    cdef int e = c_project_exp(b, n, &sp[0], s, &ix[0], &vv[0], ix.shape[0], q)
    return q[:n], e


cdef class FESLCore(Core):
    """FESL's state (Hou et al., 2017): the current model ``w``, the map in use and the next one.

    Per feature: ``w`` (the new model: OGD on the current space), ``space``
    (the space of each feature, 0 unassigned, k for S_k), ``buf_a`` / ``buf_p``
    (the overlap rows of the map in use / collected for the next switch,
    column-wise). The map: ``h_a = Kp X_old X_old^T Kp`` and ``r_a = Kp X_old
    w_old`` (``Kp = (X_new X_new^T + ridge I)^+``); the next one: the Grams
    ``k_p`` (next-space parts), ``g_p`` (current-space parts), ``c_p``
    (collected current-space parts . those of ``buf_a``) and ``v_p``
    (collected current-space parts . ``w``). The ensemble: ``alpha1``,
    ``alpha2`` (FESL-s) and the cumulative losses ``loss1``, ``loss2``
    (FESL-c). Counters: the current space ``cur``, features seen ``dim``,
    ``switches``, rows in the map in use ``n_a`` and collected ``n_p``,
    rounds ``t`` (and ``t_p`` since the switch), whether the current / next
    space is visible (``v_cur``, ``v_next``). ``rng``: the SplitMix64 state of
    FESL-s's draws. Parameters: ``method``, ``loss_kind``, ``lr``,
    ``horizon`` (0: anytime), ``ridge``, ``clock`` (0 global, 1 restart at a
    switch). ``rule``: the step rule of the model learned on the current space
    (:mod:`evofeat._core.steprule`), over the per-feature ``G``, ``z`` and
    ``s``; in the model file as ``base`` (its kind: 0 OGD, 1 AdaGrad, 2 FTRL
    with ``alpha = lr`` and ``w`` kept equal to the lazy weight, 3 NAG),
    ``lr``, ``eps``, ``beta``, ``l1``, ``l2`` and NAG's counts since the
    switch ``nag_t``, ``nag_N``. With ``fit_intercept`` (1, not the paper's):
    the biases on a constant input 1, ``intercept`` of the current model
    (stepped by its base, with AdaGrad's / NAG's accumulator ``intercept_G``,
    FTRL's ``intercept_z`` and ``intercept_G`` as its ``n``; over FTRL kept
    equal to the lazy weight) and ``intercept_old`` of the old model (OGD on
    the recovered rows, as ``r_a``).
    """

    cdef public double[::1] w, G, z, s
    cdef public int64_t[::1] space
    cdef public double[:, ::1] buf_a, buf_p, h_a, k_p, g_p, c_p
    cdef public double[::1] r_a, v_p
    cdef public double alpha1, alpha2, loss1, loss2
    cdef public int64_t cur, dim, switches, n_a, n_p, t, t_p, v_cur, v_next
    cdef public uint64_t rng
    cdef public int method, loss_kind, clock
    cdef public double horizon, ridge
    cdef StepRule rule
    cdef public int fit_intercept
    cdef public double intercept, intercept_G, intercept_z, intercept_old
    # scratch (not state): projections of a row through the stored rows, and a rescaled row
    cdef double[::1] q1, q2, q3, q4
    cdef double* xs
    cdef Py_ssize_t xs_cap
    # the pending map that predict computed on the row before a switch, and the (t, n_p, switches)
    # it was computed at: the switch that follows on the same row reuses it (nothing between them
    # changes what it reads) instead of a second eigendecomposition
    cdef object pmap
    cdef int64_t pmap_t, pmap_np, pmap_sw
    # q1 = X_new x 2^-q1_e as predict left it for its row, computed at (t, switches, dim) = (q1_t,
    # q1_sw, q1_dim): learn on the same row (the loop always predicts a row right before learning
    # it) reuses it while they are unchanged (a switch or a new feature between them changes it)
    cdef int q1_e
    cdef int64_t q1_t, q1_sw, q1_dim

    # Listed by hand, the one core that does: eight of its fields (RULE_FIELDS) live in the step
    # rule's struct and are served by name (__getattr__ / __setattr__), so they are no cdef public
    # attribute fields_of could find; the order is the model files' (tests/_core/test_state_fields_declared_once.py).
    _fields = (
        "w", "space", "buf_a", "buf_p", "h_a", "r_a", "k_p", "g_p", "c_p", "v_p",
        "alpha1", "alpha2", "loss1", "loss2",
        "cur", "dim", "switches", "n_a", "n_p", "t", "t_p", "v_cur", "v_next",
        "rng", "method", "loss_kind", "lr", "horizon", "ridge", "clock", "G", "base", "eps",
        "z", "beta", "l1", "l2", "s", "nag_t", "nag_N",
        "fit_intercept", "intercept", "intercept_G", "intercept_z", "intercept_old",
    )

    def __cinit__(self, *args, **kwargs):
        self.xs = NULL
        self.xs_cap = 0
        self.q1_t = -1

    def __init__(self, **fields):
        Core.__init__(self, **fields)
        B = self.r_a.shape[0]
        self.q1 = np.zeros(B)
        self.q2 = np.zeros(B)
        self.q3 = np.zeros(B)
        self.q4 = np.zeros(B)

    @staticmethod
    def empty(Py_ssize_t capacity, Py_ssize_t B, int method, int loss_kind, double lr,
              double horizon, double ridge, int clock, uint64_t rng, int base, double eps,
              double beta, double l1, double l2, int fit_intercept=0):
        """A fresh state (no feature, no switch) with room for ``capacity`` features and ``B``
        overlap rows: what ``FESLCore(**fields)`` builds from zeros, without the checks by name."""
        cdef FESLCore c = FESLCore.__new__(FESLCore)
        c.w, c.G, c.z, c.s = np.zeros(capacity), np.zeros(capacity), np.zeros(capacity), np.zeros(capacity)
        c.space = np.zeros(capacity, dtype=np.int64)
        c.buf_a, c.buf_p = np.zeros((capacity, B)), np.zeros((capacity, B))
        c.h_a, c.k_p, c.g_p, c.c_p = np.zeros((B, B)), np.zeros((B, B)), np.zeros((B, B)), np.zeros((B, B))
        c.r_a, c.v_p = np.zeros(B), np.zeros(B)
        c.alpha1 = c.alpha2 = 0.5
        c.rng, c.method, c.loss_kind, c.clock = rng, method, loss_kind, clock
        c.horizon, c.ridge = horizon, ridge
        c.rule = rule_make(base, lr, eps, beta, l1, l2)
        c.q1, c.q2, c.q3, c.q4 = np.zeros(B), np.zeros(B), np.zeros(B), np.zeros(B)
        c.fit_intercept = fit_intercept
        return c

    def __dealloc__(self):
        free(self.xs)

    # ------------------------------------------------------------------ the rule's fields, by name
    def __getattr__(self, name):
        cdef dict r
        if name in RULE_FIELDS:
            r = self.rule
            return r[RULE_FIELDS[name]]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name, value):
        cdef dict r
        if name in RULE_FIELDS:
            r = self.rule
            r[RULE_FIELDS[name]] = value
            self.rule = r
        else:
            PyObject_GenericSetAttr(self, name, value)

    # ------------------------------------------------------------------ rows through stored rows
    cdef inline bint in_space(self, int64_t col, int64_t s) noexcept:
        return self.space[col] == s

    cdef double dot_space(self, int64_t s, const int64_t* idx, const double* val,
                          Py_ssize_t n) noexcept:
        """``w . x`` over the entries of space ``s``, with the overflow rule of ``safe_dot``."""
        cdef double f = 0.0, mw = 0.0, mv = 0.0, t = 0.0
        cdef Py_ssize_t k
        for k in range(n):
            if self.space[idx[k]] == s:
                f += self.w[idx[k]] * val[k]
        if NORMAL <= fabs(f) <= MAX:
            return f
        for k in range(n):
            if self.space[idx[k]] == s:
                mw = fmax0(mw, fabs(self.w[idx[k]]))
                mv = fmax0(mv, fabs(val[k]))
        cdef int ew = exponent(mw), ev = exponent(mv)
        for k in range(n):
            if self.space[idx[k]] == s:
                t += ldexp(self.w[idx[k]], -ew) * ldexp(val[k], -ev)
        return unscale(t, ew + ev)

    cdef double dot_cur(self, const int64_t* idx, const double* val, Py_ssize_t n) noexcept:
        """The current model's score: :meth:`dot_space` of the current space; NAG: with
        each weight rescaled to the row's new scale (``nag_rescaled``), not yet stored."""
        cdef int64_t cur = self.cur, j
        cdef Py_ssize_t k
        if self.rule.kind != NAG_RULE or not self.grow_xs(n):
            return self.dot_space(cur, idx, val, n)
        for k in range(n):
            j = idx[k]
            self.xs[k] = nag_rescaled(self.w[j], self.s[j], fabs(val[k])) if self.space[j] == cur else 0.0
        return safe_dotn(self.xs, val, n)

    cdef double score_new(self, const int64_t* idx, const double* val, Py_ssize_t n) noexcept:
        """The current model's score: :meth:`dot_cur`, plus its bias with ``fit_intercept``."""
        return bias_score(self.fit_intercept, self.intercept, self.dot_cur(idx, val, n))

    cdef double score_old(self, double f) noexcept:
        """The old model's score from ``f = r_a . (X_new x) = w_old . psi(x)``: plus its bias with ``fit_intercept``."""
        return bias_score(self.fit_intercept, self.intercept_old, f)

    cdef double pending_bias(self) noexcept:
        """The bias of the next cycle's old model: ``a1 b_old + a2 b`` (that of the predictor now)."""
        cdef double a1, a2
        self.ens_weights(&a1, &a2)
        return saturate(a1 * self.intercept_old + a2 * self.intercept)

    cdef bint grow_xs(self, Py_ssize_t n) noexcept:
        """Room for ``n`` entries in the scratch row ``xs`` (False: no memory)."""
        cdef double* grown
        if n > self.xs_cap:
            grown = <double*> realloc(self.xs, max(n, 8) * sizeof(double))
            if grown is NULL:
                return False
            self.xs = grown
            self.xs_cap = max(n, 8)
        return True

    cdef void track_vp(self, const int64_t* idx, const double* delta, Py_ssize_t n) noexcept:
        """``v_p += X_p,cur delta``: keep ``v_p = X_p,cur w`` in step with a change of ``w``."""
        cdef int e
        cdef Py_ssize_t i
        if self.n_p > 0:
            e = self.project_exp(self.buf_p, self.n_p, self.cur, idx, delta, n, self.q2)
            for i in range(self.n_p):
                self.v_p[i] = saturate(self.v_p[i] + unscale(self.q2[i], e))

    cdef inline void project(self, double[:, ::1] buf, Py_ssize_t nb, int64_t s,
                             const int64_t* idx, const double* val, Py_ssize_t n, double[::1] q,
                             int e) noexcept:
        c_project(buf, nb, &self.space[0], s, idx, val, n, q, e)

    cdef inline int project_exp(self, double[:, ::1] buf, Py_ssize_t nb, int64_t s,
                                const int64_t* idx, const double* val, Py_ssize_t n,
                                double[::1] q) noexcept:
        return c_project_exp(buf, nb, &self.space[0], s, idx, val, n, q)

    cdef double through(self, double[::1] r, double[:, ::1] buf, Py_ssize_t nb, int64_t s,
                        const int64_t* idx, const double* val, Py_ssize_t n) noexcept:
        """``r . (X_s x_s)``: a model seen through the first ``nb`` stored rows (never NaN)."""
        cdef int e = self.project_exp(buf, nb, s, idx, val, n, self.q1)
        self.q1_e = e
        if nb == 0:
            return unscale(safe_dotn(NULL, NULL, 0), e)
        return unscale(safe_dotn(&r[0], &self.q1[0], nb), e)

    cdef bint has_values(self, int64_t s, const int64_t* idx, const double* val,
                         Py_ssize_t n) noexcept:
        cdef Py_ssize_t k
        for k in range(n):
            if self.space[idx[k]] == s and val[k] != 0.0:
                return True
        return False

    cdef void matvec(self, double[:, ::1] A, Py_ssize_t n, Py_ssize_t m, double[::1] x,
                     double[::1] out) noexcept:
        """``out = A[:n, :m] @ x[:m]``, each entry summed left to right, rescaled if it overflows."""
        cdef Py_ssize_t i, j
        cdef double s
        for i in range(n):
            s = 0.0
            for j in range(m):
                s += A[i, j] * x[j]
            if not fabs(s) <= MAX:
                s = safe_dotn(&A[i, 0], &x[0], m)
            out[i] = s

    # ------------------------------------------------------------------ the ensemble
    cdef double horizon_of(self, int64_t rounds) noexcept:
        """T2 of the paper: the ``horizon`` parameter, or the running count ``rounds`` (anytime)."""
        return self.horizon if self.horizon > 0.0 else <double> rounds

    cdef void ens_weights(self, double* a1, double* a2) noexcept:
        """Normalised weights of the old and the new model for the next prediction."""
        cdef double eta, s
        if self.switches == 0 or self.method == NOGD:
            a1[0] = 0.0
            a2[0] = 1.0
        elif self.method <= 2:
            a1[0] = 1.0
            a2[0] = 0.0
        elif self.method == FESL_C:  # Eq. (3) in closed form: a_i ~ exp(-eta L_i)
            eta = sqrt(8.0 * log(2.0) / self.horizon_of(self.t_p + 1))
            a1[0] = 1.0 / (1.0 + exp(-eta * (self.loss2 - self.loss1)))
            a2[0] = 1.0 - a1[0]
        else:
            s = self.alpha1 + self.alpha2
            a1[0] = self.alpha1 / s
            a2[0] = self.alpha2 / s

    def weights(self):
        """``(a1, a2)``: the weights of the old and the new model for the next prediction."""
        cdef double a1, a2
        self.ens_weights(&a1, &a2)
        return a1, a2

    cdef double combine(self, double f1, double f2, double a1, double a2) noexcept:
        if self.method == FESL_C:
            return saturate(a1 * f1 + a2 * f2)
        if self.method == FESL_S:  # Eq. (7): model 1 with probability a1
            return f1 if peek_uniform(self.rng) < a1 else f2
        return f1 if a1 > 0.0 else f2

    cdef void update_weights(self, double l1, double l2) noexcept:
        cdef double m, T, delta, eta, v1, v2, W, b1, b2
        l1 = min(l1, LCAP)  # a loss of a saturated score; the weights only need which is larger
        l2 = min(l2, LCAP)
        if self.method == FESL_C:
            self.loss1 += l1
            self.loss2 += l2
            if max(self.loss1, self.loss2) > LCAP:  # the weights depend on L2 - L1 only
                m = min(self.loss1, self.loss2)
                self.loss1 = min(self.loss1 - m, LCAP)
                self.loss2 = min(self.loss2 - m, LCAP)
        elif self.method == FESL_S:  # fixed share, Eq. (8): delta = 1/(T2-1)
            T = self.horizon_of(self.t_p + 1)
            delta = 1.0 / (T - 1.0)
            eta = sqrt(8.0 / T * (2.0 * log(2.0) + (T - 1.0) * entropy(delta)))
            m = min(l1, l2)
            v1 = self.alpha1 * exp(-eta * (l1 - m))
            v2 = self.alpha2 * exp(-eta * (l2 - m))
            W = v1 + v2
            b1 = delta * W + (1.0 - delta) * v1
            b2 = delta * W + (1.0 - delta) * v2
            self.alpha1 = b1 / (b1 + b2)
            self.alpha2 = b2 / (b1 + b2)
            self.rng = self.rng + GOLDEN

    def pending_map(self):
        """The map and the old model the next switch would start from: ``(Kp, r)``.

        The old model of the next cycle is the learner's current predictor on
        the current space, ``a1 M^T w_old + a2 w``, seen through the collected
        rows: ``u = X_cur (a1 M^T w_old + a2 w)`` with ``X_cur M^T w_old = C
        r_a``; then ``r = Kp u``.
        """
        cdef Py_ssize_t n = self.n_p, i
        cdef double a1, a2
        kp = pinv_psd(np.asarray(self.k_p), n, self.ridge)
        self.ens_weights(&a1, &a2)
        cdef double[::1] u = np.zeros(n)
        for i in range(n):
            u[i] = a2 * self.v_p[i]
        if a1 != 0.0 and n > 0:
            self.matvec(self.c_p, n, self.n_a, self.r_a, self.q4)
            for i in range(n):
                u[i] = saturate(u[i] + a1 * self.q4[i])
        cdef double[::1] r = np.zeros(n)
        if n > 0:
            self.matvec(kp, n, n, u, r)
        return kp, np.asarray(r)

    # ------------------------------------------------------------------ the protocol
    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        cdef int64_t cur = self.cur
        cdef double s, f1 = 0.0, f2, a1, a2
        cdef double[::1] r
        self.q1_t = -1  # q1 is not (yet) this row's projection through buf_a
        if cur == 0:
            label[0] = label_of(self.loss_kind, 0.0)
            return 0.0
        if (self.n_p > 0 and not self.has_values(cur, idx, val, n)
                and self.has_values(cur + 1, idx, val, n)):
            # the old space has gone from this row: predict as the switch will make us
            self.pmap = self.pending_map()
            self.pmap_t, self.pmap_np, self.pmap_sw = self.t, self.n_p, self.switches
            r = self.pmap[1]
            f1 = self.through(r, self.buf_p, self.n_p, cur + 1, idx, val, n)
            if self.fit_intercept:  # the new model starts at 0, its bias too
                f1 = saturate(f1 + self.pending_bias())
            if self.method == NOGD:
                s = 0.0
            elif self.method <= 2:
                s = f1
            else:
                s = self.combine(f1, 0.0, 0.5, 0.5)
            label[0] = label_of(self.loss_kind, s)
            return s
        self.ens_weights(&a1, &a2)
        if a1 > 0.0 or self.method == FESL_S:
            f1 = self.score_old(self.through(self.r_a, self.buf_a, self.n_a, cur, idx, val, n))
            self.q1_t, self.q1_sw, self.q1_dim = self.t, self.switches, self.dim
        f2 = self.score_new(idx, val, n)
        s = self.combine(f1, f2, a1, a2)
        label[0] = label_of(self.loss_kind, s)
        return s

    cdef void step_model(self, double clock, double slope, const int64_t* idx, const double* val,
                         Py_ssize_t n) noexcept:
        """The step of the model learned on the current space by its rule (the step size's clock ``clock``),
        and of its bias by the same rule on the input 1; ``v_p = X_p,cur w`` follows every change of ``w``."""
        cdef StepRule* r = &self.rule
        cdef StepRule br
        cdef int64_t cur = self.cur, j
        cdef Py_ssize_t k, i
        cdef double q = 0.0, d
        cdef int e
        cdef double* w = &self.w[0]
        cdef const int64_t* space = &self.space[0]
        if r.kind != OGD_RULE and not (fabs(slope) <= MAX and self.grow_xs(n)):
            return  # a step that is not finite, or no memory: no step
        cdef double* xs = self.xs  # after grow_xs; locals: the stores through w cannot change them
        cdef double* G
        cdef double* z
        if r.kind == NAG_RULE:  # NAG rescales weights before its step: as a change of w (0 where none)
            for k in range(n):
                j = idx[k]
                self.xs[k] = 0.0
                if self.space[j] == cur:
                    self.xs[k] = saturate(nag_rescaled(w[j], self.s[j], fabs(val[k])) - w[j])
            self.track_vp(idx, self.xs, n)
        if not rule_row(r, clock, slope, idx, val, n, w, &self.s[0], &self.space[0], cur,
                        self.fit_intercept, &q):
            return
        if r.kind == OGD_RULE:  # the step is q x: v_p += q X_p,cur x, then w += q x (no buffer)
            if self.n_p > 0:
                e = self.project_exp(self.buf_p, self.n_p, cur, idx, val, n, self.q2)
                for i in range(self.n_p):
                    self.v_p[i] = saturate(self.v_p[i] + unscale(q * self.q2[i], e))
            for k in range(n):  # OGD keeps w: rule_apply is step_add
                if space[idx[k]] == cur:
                    w[idx[k]] = step_add(w[idx[k]], q * val[k])
        else:
            G, z = &self.G[0], &self.z[0]
            rule_deltas(r, xs, idx, val, n, w, G, z, &self.s[0], slope, q, space, cur)
            self.track_vp(idx, xs, n)
            if r.kind == FTRL_RULE:  # rule_apply's choice made once for the row
                for k in range(n):
                    j = idx[k]
                    if space[j] == cur:
                        w[j] = ftrl_weight(z[j], G[j], r.lr, r.beta, r.l1, r.l2)
            else:
                for k in range(n):
                    j = idx[k]
                    if space[j] == cur:
                        w[j] = step_add(w[j], xs[k])
        if self.fit_intercept:  # the input 1: the gradient is the slope, with the bias's own state
            br = rule_bias(r, r.lr)
            d = rule_delta(&br, &self.intercept_G, &self.intercept_z, 1.0, self.intercept, 1.0, slope, q)
            self.intercept = rule_apply(&br, self.intercept, d, self.intercept_z, self.intercept_G)

    cdef void store_row(self, double[:, ::1] gram, int64_t b, int64_t s, const int64_t* idx,
                        const double* val, Py_ssize_t n) noexcept:
        """Write the row's part in space ``s`` into slot ``b`` of ``buf_p`` and fill row/column ``b`` of ``gram``."""
        cdef Py_ssize_t k, i
        for k in range(n):
            if self.space[idx[k]] == s:
                self.buf_p[idx[k], b] = val[k]
        self.project(self.buf_p, b + 1, s, idx, val, n, self.q3, 0)
        for i in range(b + 1):
            gram[b, i] = self.q3[i]
            gram[i, b] = self.q3[i]

    cdef void collect(self, const int64_t* idx, const double* val, Py_ssize_t n) noexcept:
        """Keep an overlap row (the first ``B`` of each overlap) for the next map, rescaled if extreme."""
        cdef int64_t b = self.n_p, cur = self.cur
        cdef double m = 0.0
        cdef Py_ssize_t k, i
        for k in range(n):
            if self.space[idx[k]] == cur or self.space[idx[k]] == cur + 1:
                m = fmax0(m, fabs(val[k]))
        cdef int e = exponent(m) if (m > BIG or 0.0 < m < SMALL) else 0
        if not self.grow_xs(n):
            return  # no memory: the row is not kept
        for k in range(n):
            self.xs[k] = ldexp(val[k], -e)
        self.store_row(self.g_p, b, cur, idx, self.xs, n)
        self.store_row(self.k_p, b, cur + 1, idx, self.xs, n)
        cdef int eq = self.project_exp(self.buf_a, self.n_a, cur, idx, self.xs, n, self.q2)
        for i in range(self.n_a):
            self.c_p[b, i] = unscale(self.q2[i], eq)
        self.v_p[b] = self.dot_space(cur, idx, self.xs, n)
        self.n_p = b + 1

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        cdef int kind = self.loss_kind
        cdef double loss = c_loss_value(kind, score, y)
        cdef int64_t cur = self.cur
        cdef double tau, f, f1 = 0.0, f2, g
        cdef int ez = 0
        cdef Py_ssize_t na, i
        if cur == 0:
            return loss
        self.t += 1
        if self.v_cur == 1 and self.v_next == 1 and self.n_p < self.buf_p.shape[1]:
            self.collect(idx, val, n)
        # OGD's rate, as steprule.pxd's rule_row has it (written twice: a shared inline was tried while
        # steprule.pxd still had Cython's zero-division checks, and changed the OGD learners' machine
        # code; with cdivision on there since, it could be shared, not yet re-checked)
        tau = self.rule.lr / sqrt(<double> self.t)
        if self.switches == 0:
            f = self.score_new(idx, val, n)
            self.step_model(<double> self.t, c_loss_slope(kind, f, y), idx, val, n)
            return loss
        self.t_p += 1
        na = self.n_a
        if self.method >= 1:
            if self.q1_t == self.t - 1 and self.q1_sw == self.switches and self.q1_dim == self.dim:
                ez = self.q1_e  # predict projected this row already
            else:
                ez = self.project_exp(self.buf_a, na, cur, idx, val, n, self.q1)  # X_new x = z 2^ez
            f1 = self.score_old(unscale(safe_dotn(&self.r_a[0], &self.q1[0], na), ez))
        f2 = self.score_new(idx, val, n)
        self.update_weights(c_loss_value(kind, f1, y), c_loss_value(kind, f2, y))
        if self.method == ROGD_U or self.method >= 3:  # Eq. (4): w_old -= tau dl x~
            g = tau * c_loss_slope(kind, f1, y)
            if fabs(g) <= MAX:
                self.matvec(self.h_a, na, na, self.q1, self.q3)
                for i in range(na):
                    self.r_a[i] = saturate(self.r_a[i] - unscale(g * self.q3[i], ez))
                if self.fit_intercept:  # its input 1
                    self.intercept_old = saturate(self.intercept_old - g)
        if self.method == NOGD or self.method >= 3:
            self.step_model(<double> (self.t if self.clock == 0 else self.t_p),
                            c_loss_slope(kind, f2, y), idx, val, n)
        return loss

    def switch(self):
        """The old space has vanished: fit the map on the collected rows and start a new model."""
        if (self.pmap is not None and self.pmap_t == self.t and self.pmap_np == self.n_p
                and self.pmap_sw == self.switches):
            kp, r = self.pmap
        else:
            kp, r = self.pending_map()
        self.pmap = None
        cdef double b_next = self.pending_bias() if self.fit_intercept else 0.0
        cdef Py_ssize_t n = self.n_p, dim = self.dim, i, j
        self.buf_a[:dim] = self.buf_p[:dim]
        self.buf_p[:dim] = 0.0
        self.h_a[:, :] = 0.0
        with np.errstate(over="ignore", invalid="ignore"):  # an overflowing map is dropped below
            h = np.ascontiguousarray(kp @ np.ascontiguousarray(np.asarray(self.g_p)[:n, :n]) @ kp)
        cdef const double[:, ::1] hv = h
        if not all_finite(h):  # the map overflows: dropped
            n = 0
        for i in range(n):
            for j in range(n):
                self.h_a[i, j] = hv[i, j]
        cdef const double[::1] rv = r
        self.r_a[:] = 0.0
        for i in range(n):
            self.r_a[i] = rv[i]
        self.k_p[:, :] = 0.0
        self.g_p[:, :] = 0.0
        self.c_p[:, :] = 0.0
        self.v_p[:] = 0.0
        self.n_a = n
        self.n_p = 0
        self.cur += 1
        self.switches += 1
        self.t_p = 0
        self.rule.t, self.rule.N = 0.0, 0.0  # NAG's counts restart with the new model
        self.alpha1, self.alpha2, self.loss1, self.loss2 = 0.5, 0.5, 0.0, 0.0
        if self.fit_intercept:  # the old model takes the predictor's bias; the new one starts at 0
            self.intercept_old = b_next
            self.intercept = self.intercept_G = self.intercept_z = 0.0

    cdef int visible(self, const int64_t* cols, Py_ssize_t n, Py_ssize_t dim) except -1:
        cdef int64_t nxt, j, cur, s
        cdef Py_ssize_t k
        cdef bint has_cur = False, has_next = False
        if self.cur == 0:
            self.cur = 1
        nxt = self.cur + 1 if self.dim > 0 else 1
        for j in range(self.dim, dim):
            self.space[j] = nxt
        self.dim = max(self.dim, dim)
        cur = self.cur
        for k in range(n):
            s = self.space[cols[k]]
            has_cur = has_cur or s == cur
            has_next = has_next or s == cur + 1
        if has_next and not has_cur:
            self.switch()
            has_cur = True
            has_next = False
        self.v_cur = 1 if has_cur else 0
        self.v_next = 1 if has_next else 0
        return 0
