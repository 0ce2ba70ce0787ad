# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""OCDS's math (see :mod:`evofeat.haphazard.ocds`): a classifier ``w`` on the universal feature
space (the features seen so far, ``seen``) and a non-negative graph ``G`` between them that
reconstructs the absent features from the present ones."""

from libc.math cimport ceil, exp, fabs, log, log1p, sqrt
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc, qsort

from evofeat._core.bias cimport bias_add, bias_score
from evofeat._core.core cimport Core
from evofeat._core.rng cimport draw_uniform
from evofeat._core.safe cimport saturate, sign_label
from evofeat.haphazard._order cimport Entry, by_key_desc

#: ``rule`` codes
RULE_PAPER, RULE_PACKAGE = 0, 1

#: the package's guards (``haphazard/models/model_zoo/ocds/ocds.py``, 1.2.8)
cdef double PKG_EPS = 1e-12
cdef double PKG_CLIP = 1e3
cdef double PKG_MIN_NORM = 1e-8
cdef double LN2 = 0.6931471805599453


cdef inline double _mul(double a, double b) noexcept nogil:
    """``a b`` saturated at +-MAX (every operand is finite, so nothing becomes NaN)."""
    return saturate(a * b)


cdef inline double _add(double a, double b) noexcept nogil:
    """``a + b`` saturated at +-MAX."""
    return saturate(a + b)


cdef inline double _log2_loss(double m) noexcept nogil:
    """``log2(1 + exp(-m))`` without overflow (``m = y score``)."""
    if m < 0.0:
        return (-m + log1p(exp(m))) / LN2
    return log1p(exp(-m)) / LN2


cdef inline double _clip(double v, double lo, double hi) noexcept nogil:
    return lo if v < lo else (hi if v > hi else v)


cdef inline double _sign(double v) noexcept nogil:
    return 1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0)


cdef class OCDSCore(Core):
    """``w``: the classifier on the universal feature space; ``seen``: 1.0 for each feature in
    it; ``G``: the graph (row: an observed feature, column: a feature it reconstructs);
    ``p``: the weight of the observed part of the prediction; ``L_obs``, ``L_rec``: the
    cumulative losses of the two parts; ``T``: rows learned; ``alpha``, ``beta1``, ``beta2``,
    ``gamma``, ``tau`` (0: ``1 / sqrt(t)``), ``seed``, ``rule`` (0 paper, 1 package).

    With ``fit_intercept`` (1), the bias ``intercept`` is the weight of a constant input 1
    that every row has: it adds to both parts' scores (so to the mix, whatever ``p``) and to
    ``w . psi`` in the residual ``r``; it steps on the squared loss's gradient for the input
    1 (no L1, graph or truncation acts on it) with ``intercept_lr`` (0: the classifier's step).
    """

    cdef public double[::1] w
    cdef public double[::1] seen
    cdef public double[:, ::1] G
    cdef public double p
    cdef public double L_obs
    cdef public double L_rec
    cdef public long long T
    cdef public double alpha
    cdef public double beta1
    cdef public double beta2
    cdef public double gamma
    cdef public double tau
    cdef public unsigned long long seed
    cdef public int rule
    cdef public int fit_intercept
    cdef public double intercept
    cdef public double intercept_lr

    cdef void parts(self, const int64_t* idx, const double* val, Py_ssize_t n,
                    double* psi, double* so, double* sr) noexcept:
        """The reconstruction ``psi_j = (1/d_t) sum_k G[k, j] x_k`` of every seen feature ``j``
        from the row's ``d_t`` present features that are in the universal space (before
        learning, a new feature is not: its edges are not drawn yet), the observed part
        ``w . x`` and the reconstructed part ``sum_{j seen, absent} w_j psi_j``."""
        cdef double* w = &self.w[0]
        cdef double* seen = &self.seen[0]
        cdef Py_ssize_t d = self.w.shape[0], j, k, at = 0, dt = 0
        cdef double s, a = 0.0, b = 0.0
        for k in range(n):
            a = _add(a, _mul(w[idx[k]], val[k]))
            if seen[idx[k]] != 0.0:
                dt += 1
        for j in range(d):
            if seen[j] == 0.0 or dt == 0:
                if psi != NULL:
                    psi[j] = 0.0
                continue
            s = 0.0
            for k in range(n):
                s = _add(s, _mul(self.G[idx[k], j], val[k]))
            s = s / dt
            if psi != NULL:
                psi[j] = s
            while at < n and idx[at] < j:
                at += 1
            if at < n and idx[at] == j:
                continue  # observed: not reconstructed
            b = _add(b, _mul(w[j], s))
        so[0] = a
        sr[0] = b

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        cdef double so, sr
        cdef double s = 0.0
        if n != 0:
            self.parts(idx, val, n, NULL, &so, &sr)
            s = _add(self.p * so, (1.0 - self.p) * sr)
        s = bias_score(self.fit_intercept, self.intercept, s)
        label[0] = sign_label(s)
        return s

    cdef void add_features(self, const int64_t* idx, Py_ssize_t n) noexcept:
        """Put the row's new features in the universal space, their graph edges drawn uniformly
        in [0, 1) (``G[i, j]`` the ``j``-th draw of stream ``i`` under ``seed``)."""
        cdef double* seen = &self.seen[0]
        cdef Py_ssize_t d = self.w.shape[0], j, k
        cdef int64_t i
        for k in range(n):
            if seen[idx[k]] == 0.0:
                seen[idx[k]] = 2.0  # new on this row
        for k in range(n):
            i = idx[k]
            if seen[i] != 2.0:
                continue
            for j in range(d):
                if seen[j] != 0.0:
                    self.G[i, j] = draw_uniform(<uint64_t>self.seed, <uint64_t>i, <uint64_t>j)
                    self.G[j, i] = draw_uniform(<uint64_t>self.seed, <uint64_t>j, <uint64_t>i)
        for k in range(n):
            seen[idx[k]] = 1.0

    cdef void mix(self) noexcept:
        """The weight ``p`` of the observed part: exponential weights on the cumulative losses,
        ``eta = 8 sqrt(1 / ln T)``."""
        cdef double lnT = log(<double>self.T), eta, eo, er
        if self.rule == RULE_PACKAGE:
            eta = 8.0 * sqrt(1.0 / max(lnT, PKG_EPS))
            eo = exp(_clip(-eta * self.L_obs, -50.0, 50.0))
            er = exp(_clip(-eta * self.L_rec, -50.0, 50.0))
            self.p = eo / (eo + er + PKG_EPS)
            return
        if self.T < 2:  # eta is infinite: all weight on the smaller loss
            self.p = 1.0 if self.L_obs < self.L_rec else (0.0 if self.L_obs > self.L_rec else 0.5)
            return
        eta = 8.0 * sqrt(1.0 / lnT)
        eo = eta * (self.L_rec - self.L_obs)  # p = e^-eta L_obs / (e^-eta L_obs + e^-eta L_rec)
        self.p = 1.0 / (1.0 + exp(-eo)) if eo >= 0.0 else exp(eo) / (1.0 + exp(eo))

    cdef void truncate(self) noexcept:
        """Keep the ``max(1, ceil(gamma m))`` largest ``|w_j|`` of the ``m`` seen features."""
        cdef double* w = &self.w[0]
        cdef double* seen = &self.seen[0]
        cdef Py_ssize_t d = self.w.shape[0], m = 0, j, i = 0, keep
        for j in range(d):
            if seen[j] != 0.0:
                m += 1
        keep = <Py_ssize_t>ceil(self.gamma * m)
        if keep < 1:
            keep = 1
        if keep >= m:
            return
        cdef Entry* buf = <Entry*>malloc(m * sizeof(Entry))
        if buf == NULL:
            return
        for j in range(d):
            if seen[j] != 0.0:
                buf[i].key = fabs(w[j])
                buf[i].col = j
                i += 1
        qsort(buf, m, sizeof(Entry), by_key_desc)
        cdef double thr = buf[keep - 1].key
        for j in range(keep, m):
            # the package zeroes below the keep-th magnitude (its ties all stay)
            if self.rule != RULE_PACKAGE or buf[j].key < thr:
                w[buf[j].col] = 0.0
        free(buf)

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        if n == 0:
            return 0.0
        cdef Py_ssize_t d = self.w.shape[0], j, k, i, at
        cdef double* psi = <double*>malloc(2 * d * sizeof(double))
        if psi == NULL:
            return 0.0
        cdef double* gw = psi + d
        cdef double* w = &self.w[0]
        cdef double* seen = &self.seen[0]
        cdef double so, sr, r, a, deg, lw, step, c, g, norm, l1, gb = 0.0
        cdef bint on = self.fit_intercept
        self.T += 1
        self.add_features(idx, n)
        self.parts(idx, val, n, psi, &so, &sr)
        so = bias_score(on, self.intercept, so)  # the input 1 is in both parts
        sr = bias_score(on, self.intercept, sr)
        # the two parts' losses and their weights
        self.L_obs = _add(self.L_obs, _log2_loss(y * so))
        self.L_rec = _add(self.L_rec, _log2_loss(y * sr))
        self.mix()
        # the classifier on the reconstructed row: squared loss, L1 and graph regularisers
        r = y
        for j in range(d):
            if seen[j] != 0.0:
                r = _add(r, -_mul(w[j], psi[j]))
        if on:
            r = _add(r, -self.intercept)
        step = self.tau if self.tau > 0.0 else 1.0 / sqrt(<double>self.T)
        c = -2.0 / n if self.rule == RULE_PACKAGE else -2.0
        if on:  # the squared loss's gradient on the input 1 (the package's rule takes no bias)
            gb = _mul(c, r)
        # the package's L1 weight is its lamda, beta1 + beta2 / 2 in the review's terms
        l1 = self.beta1 + self.beta2 / 2.0 if self.rule == RULE_PACKAGE else self.beta1
        for j in range(d):
            if seen[j] == 0.0:
                gw[j] = 0.0
                continue
            deg = 0.0
            lw = 0.0
            for i in range(d):
                if seen[i] != 0.0:
                    a = 0.5 * self.G[j, i] + 0.5 * self.G[i, j]  # no overflow at MAX
                    deg = _add(deg, a)
                    lw = _add(lw, _mul(a, w[i]))
            g = _add(_add(_mul(_mul(c, r), psi[j]), l1 * _sign(w[j])),
                     _mul(2.0 * self.beta2, _add(_mul(deg, w[j]), -lw)))
            if self.rule == RULE_PACKAGE:
                g = _clip(g, -PKG_CLIP, PKG_CLIP)
            gw[j] = g
        # the paper's simultaneous step uses the old w in G's gradient; the package the new one
        if self.rule != RULE_PACKAGE:
            self.learn_graph(idx, val, n, psi, r, step)
        for j in range(d):
            w[j] = _add(w[j], -_mul(step, gw[j]))
        if on:
            bias_add(1, &self.intercept,
                     -_mul(self.intercept_lr if self.intercept_lr > 0.0 else step, gb))
        if self.rule == RULE_PACKAGE:
            norm = 0.0
            for j in range(d):
                norm += w[j] * w[j]
            norm = sqrt(norm)
            if not (norm == norm and norm <= 1.8e308) or norm < PKG_MIN_NORM:
                for j in range(d):
                    w[j] = _sign(w[j]) * PKG_MIN_NORM
            self.learn_graph(idx, val, n, psi, r, step)
        if self.gamma < 1.0:
            self.truncate()
        free(psi)
        return r * r

    cdef void learn_graph(self, const int64_t* idx, const double* val, Py_ssize_t n,
                          const double* psi, double r, double step) noexcept:
        """The graph's step on rows of the observed features: the gradient of the squared
        loss through ``psi`` and of ``alpha ||x - psi_obs||^2``; kept non-negative."""
        cdef double* w = &self.w[0]
        cdef double* seen = &self.seen[0]
        cdef Py_ssize_t d = self.w.shape[0], j, k, at
        cdef double g, gp, gn, ratio, norm
        cdef int64_t row
        for k in range(n):
            row = idx[k]
            at = 0
            for j in range(d):
                if seen[j] == 0.0:
                    continue
                g = _mul(_mul(_mul(-2.0 / n, r), val[k]), w[j])
                while at < n and idx[at] < j:
                    at += 1
                if at < n and idx[at] == j:
                    g = _add(g, _mul(_mul(-2.0 * self.alpha / n, val[k]), _add(val[at], -psi[j])))
                if self.rule == RULE_PACKAGE:
                    g = _clip(g, -PKG_CLIP, PKG_CLIP)
                    gp = g if g > 0.0 else 0.0
                    gn = -g if g < 0.0 else 0.0
                    ratio = _clip((gn + PKG_EPS) / (gp + PKG_EPS), 1e-3, 1e3)
                    self.G[row, j] = _clip(self.G[row, j] * ratio, 0.0, 1e6)
                else:
                    self.G[row, j] = max(0.0, _add(self.G[row, j], -_mul(step, g)))
            if self.rule == RULE_PACKAGE:
                norm = 0.0
                for j in range(d):
                    if seen[j] != 0.0:
                        norm = _add(norm, _mul(self.G[row, j], self.G[row, j]))
                if sqrt(norm) + PKG_EPS < PKG_MIN_NORM:
                    for j in range(d):
                        if seen[j] != 0.0:
                            self.G[row, j] += PKG_MIN_NORM
