# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Absent features imputed by their conditional mean in a Gaussian copula, in front of any core.

:class:`CopulaCore` is a :class:`~evofeat._core.scaling.QuantileCore` (its
running normal scores, the copula's marginal step, are this class's too) that
also learns the copula's correlation ``sigma`` online and hands its inner
core, in place of the row's present scores alone, the row completed: each
feature seen before and absent now gets its conditional mean given the
present ones, ``E[z_M | z_O] = sigma_MO sigma_OO^-1 z_O`` (He, Yuan and Wu,
"Online learning in variable feature spaces with mixed data", ICDM 2021,
after Zhao et al.'s online EM for the Gaussian copula).

``predict``
    scores the present values, imputes the absent ones, asks ``inner``;
``learn``
    hands ``inner`` the same completed row, then one online EM step:
    ``sigma <- (1 - g) sigma + g (zh zh^T + C)`` on the features seen,
    where ``zh`` is the completed row and ``C`` the conditional covariance of
    the imputed block, ``sigma_MM - sigma_MO sigma_OO^-1 sigma_OM``, followed
    by the projection back to a correlation matrix (unit diagonal); the step
    is ``g = max(1 / (rows + 2), forget)`` (a running mean with the identity as
    one prior row, then exponential forgetting); then the marginals take the
    raw values.

A feature never seen is neither imputed nor in ``sigma``'s update (its row
stays the identity's). The solve uses the Cholesky factor of ``sigma_OO +
ridge I``. Cost per row with ``o`` present and ``m`` imputed features
(``o + m = u``, the features seen): ``predict`` O(o^3 / 3 + o m), ``learn``
O(o^3 / 3 + o^2 m + o m^2 + u^2); memory ``d^2`` floats for ``sigma``.
"""

from libc.math cimport fabs, sqrt
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memcpy

import numpy as np

from evofeat._core.rng cimport draw_uniform
from evofeat._core.scaling cimport QuantileCore

#: co-observations a neighbour slot holds before it may be replaced by a new candidate
PATIENCE = 10
#: the largest correlation used by the neighbour imputation (keeps ``1 - rho^2`` away from 0)
RHO_MAX = 0.999


cdef inline int _grow(void** p, Py_ssize_t* cap, Py_ssize_t need, size_t size) noexcept:
    """Make ``p`` hold ``need`` items of ``size`` bytes (0, or -1 if no memory)."""
    cdef void* q
    if need <= cap[0]:
        return 0
    q = realloc(p[0], need * size)
    if q == NULL:
        return -1
    p[0] = q
    cap[0] = need
    return 0


cdef double learn_unimputed(QuantileCore core, const int64_t* idx, const double* feed,
                            Py_ssize_t nfeed, const double* val, Py_ssize_t n, double y,
                            double score) noexcept:
    """The fallback without memory to impute: ``inner`` learns ``feed`` (``nfeed`` entries: the
    row's scores, or none), the marginals the raw row."""
    cdef double loss = core.inner.learn(idx, feed, nfeed, y, score)
    core.update(idx, val, n)
    core.tlen = -1
    return loss


cdef class CopulaCore(QuantileCore):
    """Running normal scores, an online copula correlation ``sigma`` (``d x d``), and the absent
    features imputed by their conditional mean; ``forget`` the smallest EM step, ``ridge`` added to
    the observed block's diagonal, ``rows`` the rows learned."""

    def __dealloc__(self):
        free(self.xidx)
        free(self.xval)
        free(self.obs)
        free(self.mis)
        free(self.chol)
        free(self.work)
        free(self.cmm)

    cdef int reserve_work(self, Py_ssize_t d, Py_ssize_t no, Py_ssize_t nm, bint keep) noexcept:
        """Scratch for a row of ``no`` present and ``nm`` imputed features among ``d`` (-1: no memory)."""
        cdef Py_ssize_t x = self.xcap
        if d > x:
            if (_grow(<void**> &self.xidx, &x, d, sizeof(int64_t)) < 0):
                return -1
            x = self.xcap
            if (_grow(<void**> &self.xval, &x, d, sizeof(double)) < 0):
                return -1
            x = self.xcap
            if (_grow(<void**> &self.obs, &x, d, sizeof(int64_t)) < 0):
                return -1
            x = self.xcap
            if (_grow(<void**> &self.mis, &x, d, sizeof(int64_t)) < 0):
                return -1
            self.xcap = d
        if _grow(<void**> &self.chol, &self.ccap, no * no + no, sizeof(double)) < 0:
            return -1
        if _grow(<void**> &self.work, &self.wcap, (no * nm if keep else 0) + no + 1,
                 sizeof(double)) < 0:
            return -1
        if keep and _grow(<void**> &self.cmm, &self.mcap, nm * nm + 1, sizeof(double)) < 0:
            return -1
        return 0

    cdef Py_ssize_t extend(self, const int64_t* idx, const double* z, Py_ssize_t n,
                           bint keep) noexcept:
        """The row's scores ``z`` completed with the conditional mean of each feature seen and
        absent, into ``xidx`` / ``xval`` (by column); its length, or -1 if no memory. With ``keep``
        the solves ``sigma_OO^-1 sigma_OM`` are left in ``work`` (``no x nm``), for ``learn``."""
        cdef Py_ssize_t d = self.seen.shape[0], no = n, nm = 0, a, b, k, p, q
        cdef int64_t i
        cdef double s, v
        cdef double* L
        cdef double* B
        cdef double* al
        # the imputed features: seen and absent (idx is increasing)
        p = 0
        for i in range(d):
            if p < n and idx[p] == i:
                p += 1
            elif self.seen[i] > 0:
                nm += 1
        if self.reserve_work(d, no, nm, keep) < 0:
            return -1
        self.no = no
        self.nm = nm
        p = 0
        q = 0
        for i in range(d):
            if p < n and idx[p] == i:
                self.obs[p] = i
                p += 1
            elif self.seen[i] > 0:
                self.mis[q] = i
                q += 1
        L = self.chol
        al = self.work + (no * nm if keep else 0)  # sigma_OO^-1 z_O
        if nm > 0 and no > 0:
            # Cholesky factor of sigma_OO + ridge I (row-major, lower)
            for a in range(no):
                for b in range(a + 1):
                    s = self.sigma[self.obs[a], self.obs[b]]
                    if a == b:
                        s += self.ridge
                    for k in range(b):
                        s -= L[a * no + k] * L[b * no + k]
                    if a == b:
                        L[a * no + a] = sqrt(s) if s > 1e-300 else 1e-150
                    else:
                        L[a * no + b] = s / L[b * no + b]
            # al = sigma_OO^-1 z_O
            for a in range(no):
                s = z[a]
                for k in range(a):
                    s -= L[a * no + k] * al[k]
                al[a] = s / L[a * no + a]
            for a in range(no - 1, -1, -1):
                s = al[a]
                for k in range(a + 1, no):
                    s -= L[k * no + a] * al[k]
                al[a] = s / L[a * no + a]
            if keep:  # B = sigma_OO^-1 sigma_OM, column by column (B[k, b] at k * nm + b)
                B = self.work
                for b in range(nm):
                    for a in range(no):
                        s = self.sigma[self.obs[a], self.mis[b]]
                        for k in range(a):
                            s -= L[a * no + k] * B[k * nm + b]
                        B[a * nm + b] = s / L[a * no + a]
                    for a in range(no - 1, -1, -1):
                        s = B[a * nm + b]
                        for k in range(a + 1, no):
                            s -= L[k * no + a] * B[k * nm + b]
                        B[a * nm + b] = s / L[a * no + a]
        # merge: present scores and imputed means, by column
        p = 0
        q = 0
        for k in range(no + nm):
            if q >= nm or (p < no and self.obs[p] < self.mis[q]):
                self.xidx[k] = self.obs[p]
                self.xval[k] = z[p]
                p += 1
            else:
                i = self.mis[q]
                v = 0.0
                if no > 0:
                    for a in range(no):
                        v += self.sigma[i, self.obs[a]] * al[a]
                self.xidx[k] = i
                self.xval[k] = v
                q += 1
        return no + nm

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        cdef double* z = self.scaled(idx, val, n)
        cdef Py_ssize_t m
        if z == NULL:  # no memory to scale the row: score it without features
            return self.inner.predict(idx, val, 0, label)
        m = self.extend(idx, z, n, False)
        if m < 0:  # no memory to impute: the present scores alone
            return self.inner.predict(idx, z, n, label)
        return self.inner.predict(self.xidx, self.xval, m, label)

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        cdef double* z = self.scaled(idx, val, n)
        cdef double loss
        cdef Py_ssize_t m
        if z == NULL:
            return learn_unimputed(self, idx, val, 0, val, n, y, score)
        m = self.extend(idx, z, n, True)
        if m < 0:
            return learn_unimputed(self, idx, z, n, val, n, y, score)
        loss = self.inner.learn(self.xidx, self.xval, m, y, score)
        self.em_step(m)
        self.update(idx, val, n)
        self.rows += 1
        self.tlen = -1
        return loss

    cdef void em_step(self, Py_ssize_t m) noexcept:
        """One online EM step on ``sigma`` from the completed row ``xidx`` / ``xval`` (``m``
        entries) that :meth:`extend` left with ``keep`` (``xval`` is scratch afterwards)."""
        cdef double g, s, c
        cdef Py_ssize_t a, b, k, no = self.no, nm = self.nm, pa, pb
        cdef bint is_m
        cdef int64_t i, j
        cdef double* B = self.work
        cdef double* C = self.cmm
        # the imputed block's conditional covariance, with sigma as it was
        for a in range(nm):
            for b in range(a + 1):
                s = self.sigma[self.mis[a], self.mis[b]]
                for k in range(no):
                    s -= self.sigma[self.mis[a], self.obs[k]] * B[k * nm + b]
                C[a * nm + b] = s
                C[b * nm + a] = s
        # one EM step on the features seen: sigma <- (1 - g) sigma + g (zh zh^T + C)
        g = 1.0 / (self.rows + 2.0)
        if g < self.forget:
            g = self.forget
        pa = 0
        for a in range(m):
            i = self.xidx[a]
            is_m = pa < nm and self.mis[pa] == i
            pb = 0
            for b in range(a + 1):
                j = self.xidx[b]
                s = self.xval[a] * self.xval[b]
                if pb < nm and self.mis[pb] == j:
                    if is_m:
                        s += C[pa * nm + pb]
                    pb += 1
                s = (1.0 - g) * self.sigma[i, j] + g * s
                self.sigma[i, j] = s
                self.sigma[j, i] = s
            if is_m:
                pa += 1
        # back to a correlation matrix
        for a in range(m):
            c = self.sigma[self.xidx[a], self.xidx[a]]
            self.xval[a] = 1.0 / sqrt(c) if c > 1e-300 else 0.0
        for a in range(m):
            i = self.xidx[a]
            for b in range(a):
                j = self.xidx[b]
                s = self.sigma[i, j] * self.xval[a] * self.xval[b]
                self.sigma[i, j] = s
                self.sigma[j, i] = s
            self.sigma[i, i] = 1.0


cdef class NeighbourCopulaCore(QuantileCore):
    """Running normal scores and, per feature ``j``, ``k`` neighbour slots (``nbr[j]``, -1: empty)
    with the running moments of the pair's scores over the rows both were present (``cross`` of
    ``z_j z_i``, ``vj`` of ``z_j^2``, ``vi`` of ``z_i^2``; their correlation ``rho = cross /
    sqrt(vj vi)``) and their count ``cnt``; an absent feature is imputed from its present
    neighbours alone.

    Each absent feature ``j`` seen before gets the conditional mean of ``z_j``
    given its present neighbours' scores when they are independent given
    ``z_j`` (a star around ``j``):
    ``sum_i (rho_i z_i / (1 - rho_i^2)) / (1 + sum_i rho_i^2 / (1 - rho_i^2))``, which is
    ``rho z_i`` for one neighbour, in O(k). ``learn`` updates the pairs of
    each present feature with its present neighbours (step ``max(1 / (cnt +
    1), forget)``, the identity's moments as one prior row), then draws one present feature
    (SplitMix64, counter-based on ``seed``, the feature and the row) as a
    candidate neighbour: it takes an empty slot, or replaces the slot of least
    ``|rho|`` once that slot has :data:`PATIENCE` co-observations. O(k) per
    present and per absent feature; memory ``5 k`` floats per feature.
    """

    cdef double rho(self, int64_t j, Py_ssize_t s) noexcept:
        """The correlation of ``j`` and its neighbour in slot ``s``, within :data:`RHO_MAX`."""
        cdef double v = self.vj[j, s] * self.vi[j, s]
        cdef double r = self.cross[j, s] / sqrt(v) if v > 1e-300 else 0.0
        if r > RHO_MAX:
            return RHO_MAX
        if r < -RHO_MAX:
            return -RHO_MAX
        return r

    def __dealloc__(self):
        free(self.xidx)
        free(self.xval)
        free(self.mark)
        free(self.zat)

    cdef Py_ssize_t extend(self, const int64_t* idx, const double* z, Py_ssize_t n) noexcept:
        """As :meth:`CopulaCore.extend`, each absent feature from its present neighbours; marks
        the present columns with a new stamp."""
        cdef Py_ssize_t d = self.seen.shape[0], k = self.nbr.shape[1], p, s, m
        cdef Py_ssize_t x
        cdef int64_t i, j
        cdef double num, den, r, w
        if d > self.xcap:
            x = self.xcap
            if _grow(<void**> &self.xidx, &x, d, sizeof(int64_t)) < 0:
                return -1
            x = self.xcap
            if _grow(<void**> &self.xval, &x, d, sizeof(double)) < 0:
                return -1
            x = self.xcap
            if _grow(<void**> &self.zat, &x, d, sizeof(double)) < 0:
                return -1
            x = self.xcap
            if _grow(<void**> &self.mark, &x, d, sizeof(int64_t)) < 0:
                return -1
            for i in range(self.xcap, d):
                self.mark[i] = 0
            self.xcap = d
        self.stamp += 1
        for p in range(n):
            self.mark[idx[p]] = self.stamp
            self.zat[idx[p]] = z[p]
        p = 0
        m = 0
        for j in range(d):
            if p < n and idx[p] == j:
                self.xidx[m] = j
                self.xval[m] = z[p]
                p += 1
                m += 1
            elif self.seen[j] > 0:
                num = 0.0
                den = 1.0
                for s in range(k):
                    i = self.nbr[j, s]
                    if i < 0 or self.mark[i] != self.stamp or self.cnt[j, s] <= 0.0:
                        continue
                    r = self.rho(j, s)
                    w = 1.0 / (1.0 - r * r)
                    num += r * w * self.zat[i]
                    den += r * r * w
                self.xidx[m] = j
                self.xval[m] = num / den
                m += 1
        return m

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        cdef double* z = self.scaled(idx, val, n)
        cdef Py_ssize_t m
        if z == NULL:
            return self.inner.predict(idx, val, 0, label)
        m = self.extend(idx, z, n)
        if m < 0:
            return self.inner.predict(idx, z, n, label)
        return self.inner.predict(self.xidx, self.xval, m, label)

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        cdef double* z = self.scaled(idx, val, n)
        cdef double loss, g, c, zj, zi, weakest, r
        cdef Py_ssize_t m, a, s, k = self.nbr.shape[1], slot
        cdef int64_t i, j, cand
        cdef bint known
        if z == NULL:
            return learn_unimputed(self, idx, val, 0, val, n, y, score)
        m = self.extend(idx, z, n)
        if m < 0:
            return learn_unimputed(self, idx, z, n, val, n, y, score)
        loss = self.inner.learn(self.xidx, self.xval, m, y, score)
        for a in range(n):
            j = idx[a]
            zj = z[a]
            for s in range(k):  # the pairs with the present neighbours
                i = self.nbr[j, s]
                if i >= 0 and self.mark[i] == self.stamp:
                    c = self.cnt[j, s] + 1.0
                    g = 1.0 / (c + 1.0)
                    if g < self.forget:
                        g = self.forget
                    zi = self.zat[i]
                    self.cross[j, s] = (1.0 - g) * self.cross[j, s] + g * zj * zi
                    self.vj[j, s] = (1.0 - g) * self.vj[j, s] + g * zj * zj
                    self.vi[j, s] = (1.0 - g) * self.vi[j, s] + g * zi * zi
                    self.cnt[j, s] = c
            if n < 2 or k == 0:
                continue
            cand = idx[<Py_ssize_t> (draw_uniform(<uint64_t> self.seed, <uint64_t> j,
                                                  <uint64_t> self.rows) * n)]
            if cand == j:
                continue
            known = False
            slot = -1
            weakest = 2.0
            for s in range(k):
                i = self.nbr[j, s]
                if i == cand:
                    known = True
                    break
                if i < 0:
                    if weakest > -1.0:
                        slot = s
                        weakest = -1.0  # an empty slot first
                elif self.cnt[j, s] >= PATIENCE:
                    r = fabs(self.rho(j, s))
                    if r < weakest:
                        slot = s
                        weakest = r
            if known or slot < 0:
                continue
            zi = self.zat[cand]
            self.nbr[j, slot] = cand
            self.cnt[j, slot] = 1.0
            self.cross[j, slot] = 0.5 * zj * zi
            self.vj[j, slot] = 0.5 + 0.5 * zj * zj
            self.vi[j, slot] = 0.5 + 0.5 * zi * zi
        self.update(idx, val, n)
        self.rows += 1
        self.tlen = -1
        return loss


def impute_row(core, const int64_t[::1] idx, const double[::1] val):
    """The row ``val`` of the columns ``idx`` (increasing) as ``core`` hands it to its learner now:
    ``(columns, values)``, the present values as normal scores and each feature seen and absent
    as its conditional mean.

    >>> import numpy as np
    >>> from evofeat._core.core import Core
    >>> from evofeat._core.scaling import scaled_core
    >>> core = scaled_core(CopulaCore, Core(), window=4, seen=np.array([1, 1]),
    ...     recent=np.array([[0.0] * 4, [0.0] * 4]), sigma=np.array([[1.0, 0.5], [0.5, 1.0]]),
    ...     forget=0.01, ridge=0.0, rows=1)
    >>> cols, vals = impute_row(core, np.array([0]), np.array([1.0]))
    >>> cols.tolist(), vals.round(6).tolist()
    ([0, 1], [0.67449, 0.337245])
    """
    if idx.shape[0] != val.shape[0]:
        raise ValueError(f"idx and val differ in length: {idx.shape[0]} and {val.shape[0]}")
    cdef Py_ssize_t n = idx.shape[0], m
    cdef QuantileCore q = core
    cdef double* z = q.scaled(&idx[0] if n else NULL, &val[0] if n else NULL, n)
    cdef int64_t* xi
    cdef double* xv
    if z == NULL:
        raise MemoryError("no memory to scale the row")
    if isinstance(core, CopulaCore):
        m = (<CopulaCore> core).extend(&idx[0] if n else NULL, z, n, False)
        xi = (<CopulaCore> core).xidx
        xv = (<CopulaCore> core).xval
    else:
        m = (<NeighbourCopulaCore> core).extend(&idx[0] if n else NULL, z, n)
        xi = (<NeighbourCopulaCore> core).xidx
        xv = (<NeighbourCopulaCore> core).xval
    if m < 0:
        raise MemoryError("no memory to impute the row")
    cols = np.empty(m, dtype=np.int64)
    vals = np.empty(m)
    cdef int64_t[::1] c = cols
    cdef double[::1] v = vals
    if m:
        memcpy(&c[0], xi, m * sizeof(int64_t))
        memcpy(&v[0], xv, m * sizeof(double))
    return cols, vals
