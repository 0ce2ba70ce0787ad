# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""OLVF's math (see :mod:`evofeat.haphazard.olvf`): an instance classifier ``w`` and a
feature-space classifier ``wbar`` over the features seen so far (``seen``)."""

from libc.math cimport exp, fabs, floor, log, log1p
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc, qsort

from evofeat._core.bias cimport bias_add, bias_score, bias_sq
from evofeat._core.core cimport Core
from evofeat._core.safe cimport safe_dot, sign_label
from evofeat.haphazard._order cimport Entry, by_key_desc

#: ``rule`` codes
RULE_PAPER, RULE_PACKAGE = 0, 1

#: the package's ``eps`` (``np.finfo(float).eps``)
cdef double EPS = 2.220446049250313e-16


cdef inline double _sigmoid(double z) noexcept nogil:
    """``1 / (1 + exp(-z))`` without overflow."""
    if z >= 0.0:
        return 1.0 / (1.0 + exp(-z))
    cdef double e = exp(z)
    return e / (1.0 + e)


cdef inline double _softplus(double z) noexcept nogil:
    """``log(1 + exp(z))`` without overflow."""
    if z > 0.0:
        return z + log1p(exp(-z))
    return log1p(exp(z))


cdef class OLVFCore(Core):
    """``w``: the instance classifier; ``wbar``: the feature-space classifier; ``seen``: 1.0
    for each feature seen so far (``n_seen`` of them); ``C``, ``C_bar``: the two
    aggressiveness bounds; ``B``: the fraction of seen features kept by the sparsity step;
    ``reg``: lambda of the projection step; ``rule``: 0 the paper's, 1 the package's.

    With ``fit_intercept`` (1), the bias ``intercept`` is the weight of a constant input 1
    that every row has, a feature of every space and so always shared: it adds to the
    score and 1 to ``||x||^2`` in ``tau``, and moves by ``p_w tau y`` as the shared
    features do; neither ``wbar``, the projection nor the sparsity step touches it.
    """

    cdef public double[::1] w
    cdef public double[::1] wbar
    cdef public double[::1] seen
    cdef public Py_ssize_t n_seen
    cdef public double C
    cdef public double C_bar
    cdef public double B
    cdef public double reg
    cdef public int rule
    cdef public int fit_intercept
    cdef public double intercept

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        # the classifier projected on the row's shared features (an unseen feature's weight is 0)
        cdef double s = safe_dot(&self.w[0], idx, val, n)
        s = bias_score(self.fit_intercept, self.intercept, s)
        label[0] = sign_label(s)
        return s

    cdef inline double confidence(self, double z) noexcept:
        """The projection confidence of a feature space whose ``wbar`` sum is ``z``."""
        if self.rule == RULE_PACKAGE:
            return _sigmoid(-z)  # the package's sigmoid is 1 / (1 + exp(z))
        return _sigmoid(z)

    cdef void learn_space(self, const int64_t* idx, Py_ssize_t n, double correct) noexcept:
        """Step 1: the feature-space classifier on the row's space ``r_x``, label ``correct``."""
        cdef double* wbar = &self.wbar[0]
        cdef double* seen = &self.seen[0]
        cdef double sbar = 0.0, g, lbar, tau, e, le
        cdef Py_ssize_t k
        for k in range(n):
            sbar += wbar[idx[k]]
        if self.rule == RULE_PACKAGE:
            # the package's gradient -(log e / log(1 + e)) I r, e = exp(-I wbar . r); its step
            # min(C_bar, -l / ||g||^2) is added on shared features and replaces new ones
            e = exp(-correct * sbar)
            le = log(1.0 + e)
            g = -(log(e) / le) * correct
            tau = self.C_bar if n * g * g == 0.0 else min(self.C_bar, -le / (n * g * g))
            for k in range(n):
                if seen[idx[k]] != 0.0:
                    wbar[idx[k]] += tau * g
                else:
                    wbar[idx[k]] = -tau * g
            return
        # the logistic loss log(1 + exp(-I wbar . r_x)) and its gradient -I sigma(-I wbar . r_x) r_x
        g = -correct * _sigmoid(-correct * sbar)
        if g == 0.0:
            return
        lbar = _softplus(-correct * sbar)
        tau = min(self.C_bar, lbar / (n * g * g))
        for k in range(n):
            wbar[idx[k]] -= tau * g

    cdef void shrink(self) noexcept:
        """Step 4: ``w *= min(1, reg / (wbar . w))``."""
        cdef double* w = &self.w[0]
        cdef double* wbar = &self.wbar[0]
        cdef Py_ssize_t j, d = self.w.shape[0]
        cdef double ip = 0.0, f
        for j in range(d):
            ip += wbar[j] * w[j]
        if self.rule == RULE_PACKAGE:
            f = min(1.0, self.reg / (ip + EPS))
        elif ip > self.reg:  # the paper's min(1, reg / (wbar . w)), applied when it shrinks
            f = self.reg / ip
        else:
            return
        for j in range(d):
            w[j] *= f

    cdef void truncate(self, double[::1] v) noexcept:
        """Step 5: keep ``max(1, floor(B m))`` of the ``m`` seen features' entries of ``v``."""
        cdef Py_ssize_t m = self.n_seen, d = v.shape[0], j, i = 0
        cdef Py_ssize_t keep = <Py_ssize_t>floor(self.B * m)
        if keep < 1:
            keep = 1
        if m <= keep:
            return
        cdef Entry* buf = <Entry*>malloc(m * sizeof(Entry))
        if buf == NULL:
            return
        cdef double* seen = &self.seen[0]
        for j in range(d):
            if seen[j] != 0.0 and i < m:  # (i < m: a state whose n_seen undercounts stays safe)
                # the paper keeps the largest magnitudes; the package zeroes the largest values
                buf[i].key = v[j] if self.rule == RULE_PACKAGE else fabs(v[j])
                buf[i].col = j
                i += 1
        qsort(buf, i, sizeof(Entry), by_key_desc)
        if self.rule == RULE_PACKAGE:
            for j in range(keep):
                v[buf[j].col] = 0.0
        else:
            for j in range(keep, i):
                v[buf[j].col] = 0.0
        free(buf)

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        if n == 0:  # no feature: nothing to learn from
            return 0.0
        cdef double* w = &self.w[0]
        cdef double* wbar = &self.wbar[0]
        cdef double* seen = &self.seen[0]
        cdef Py_ssize_t j, k, d = self.w.shape[0]
        cdef double correct = 1.0 if sign_label(score) == y else 0.0
        self.learn_space(idx, n, correct)
        # step 2: the confidences of projecting the classifier (on every seen feature, this
        # row's included) and the row (on its own features)
        cdef double zw = 0.0, zx = 0.0
        for k in range(n):
            zx += wbar[idx[k]]
            if seen[idx[k]] == 0.0:
                seen[idx[k]] = 2.0  # new on this row (1.0 after step 3)
        for j in range(d):
            if seen[j] != 0.0:
                zw += wbar[j]
        cdef double pw = self.confidence(zw), px = self.confidence(zx)
        # step 3: PA-I on the hinge loss, the shared part scaled by pw, the new part by px
        cdef double loss = max(0.0, 1.0 - y * score)
        cdef double sq = 0.0, tau
        for k in range(n):
            sq += val[k] * val[k]
        sq = bias_sq(self.fit_intercept, sq)
        if self.rule == RULE_PACKAGE:
            tau = min(self.C, loss / (sq + EPS))
        else:
            tau = min(self.C, loss / sq) if sq > 0.0 else 0.0
        for k in range(n):
            j = idx[k]
            if seen[j] == 1.0:
                w[j] += pw * tau * y * val[k]
            else:
                w[j] = px * tau * y * val[k]
                seen[j] = 1.0
                self.n_seen += 1
        bias_add(self.fit_intercept, &self.intercept, pw * tau * y)
        # steps 4-5: the projection and the sparsity step of both classifiers
        self.shrink()
        if self.B < 1.0:
            self.truncate(self.w)
            self.truncate(self.wbar)
        return loss
