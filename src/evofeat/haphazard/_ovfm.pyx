# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""OVFM's math (He, Yuan and Wu, ICDM 2021): two adaptive FTRL classifiers and their ensemble.

:class:`OVFMCore` is a :class:`~evofeat._core.copula.CopulaCore` (running
normal scores, the online copula ``sigma``, the absent features' conditional
means: the latent row) that scores each row with two classifiers, one on the
observed space (the raw values, an absent one as 0, and a bias) and one on the
latent space (the completed latent row and a bias), mixed as
``lam f_x + (1 - lam) f_z``; ``lam`` is the exponential-weights share of the
observed classifier, ``exp(-eta L_x) / (exp(-eta L_x) + exp(-eta L_z))`` with
``L`` each classifier's cumulative logistic loss and ``eta = 0.001``.

Each classifier is the authors' ``FTRL_ADP`` with ``L1 = L2 = 0``, ``LP = 1``:
weights ``w = -z / r``; on a row, ``p = sigmoid(w . x)``, the decay from
``decay_choice`` and the running error rate (its drift detector over
``times``, ``fails``, ``p_min``, ``s_min``), then ``v += (p - y) x``,
``h <- decay h + w``, ``z = v - h``, ``r <- 1 + decay r`` over every feature
seen (``h`` decays for the absent ones too). Per classifier the per-feature
state is ``(v, h, z)`` (``wx``, ``wz``; the bias's in ``bx``, ``bz``) and its
scalars ``ax`` / ``az`` = ``(r, decay, times, fails, times_warn, fails_warn,
p_min, s_min)``; ``mix`` = ``(lam, L_x, L_z)``. With ``fit_intercept`` 0 (not the
authors') the biases stay 0: neither classifier learns one. Sums and updates saturate at
the largest double (a value of 1e300 keeps every score and state finite).
"""

from libc.math cimport cbrt, exp, fabs, log, log1p, sqrt
from libc.stdint cimport int64_t

from evofeat._core.copula cimport CopulaCore
from evofeat._core.safe cimport saturate


cdef inline double _sigmoid(double f) noexcept nogil:
    if f >= 0.0:
        return 1.0 / (1.0 + exp(-f))
    return exp(f) / (1.0 + exp(f))


cdef inline double _score(double[:, ::1] w, double[::1] b, double r, const int64_t* idx,
                          const double* val, Py_ssize_t n) noexcept:
    """``w . x`` with ``w = -z / r`` and the bias (the classifier's score before its update)."""
    cdef double f = -b[2] / r
    cdef Py_ssize_t k
    for k in range(n):
        f = saturate(f + saturate((-w[idx[k], 2] / r) * val[k]))
    return f


cdef double _fit(double[:, ::1] w, double[::1] b, double[::1] a, const int64_t* idx,
                 const double* val, Py_ssize_t n, double y, int64_t choice, double rate,
                 bint bias, double* loss) noexcept:
    """One ``FTRL_ADP.fit`` step on the row (labels ``y`` in {0, 1}); its score before. The
    bias (the weight of the input 1) learns when ``bias``, else stays 0."""
    cdef double r = a[0], decay = a[1], t, fails, p_i, s_i, ps, wj, g
    cdef double f = _score(w, b, r, idx, val, n)
    cdef double p = _sigmoid(f)
    cdef bint wrong = fabs(y - p) > 0.5
    cdef Py_ssize_t k, j, d = w.shape[0]
    loss[0] = (f if f > 0.0 else 0.0) - y * f + log1p(exp(-fabs(f)))
    a[2] += 1.0
    a[3] += wrong
    t = a[2]
    if choice == 0:
        decay = (cbrt(t) - 1.0) / cbrt(t)
    elif choice == 1:
        decay = (sqrt(t) - 1.0) / sqrt(t)
    elif choice == 2:
        decay = (t - 1.0) / t
    elif choice == 3:
        decay = t / (t + 1.0)
    elif choice == 4:
        decay = 1.0 - log(t) / (2.0 * t)
    if t > 30.0:
        p_i = a[3] / t
        s_i = sqrt(p_i * (1.0 - p_i) / t)
        ps = p_i + s_i
        decay = decay * (1.0 - rate) + rate * p_i
        if ps < a[6] + a[7]:
            a[6] = p_i
            a[7] = s_i
        if ps < a[6] + 2.0 * a[7]:
            a[4] = 0.0
            a[5] = 0.0
        else:
            a[4] += 1.0
            a[5] += wrong
            if ps > a[6] + 3.0 * a[7]:
                a[2] = a[4]
                a[3] = a[5]
                a[6] = 1.0
                a[7] = 10.0
    a[1] = decay
    g = p - y
    for k in range(n):  # saturated: a value of 1e300 keeps the state finite
        w[idx[k], 0] = saturate(w[idx[k], 0] + saturate(g * val[k]))
    for j in range(d):  # every coordinate: h decays where the row is absent too
        wj = -w[j, 2] / r
        w[j, 1] = saturate(decay * w[j, 1] + wj)
        w[j, 2] = saturate(w[j, 0] - w[j, 1])
    if bias:
        wj = -b[2] / r
        b[0] += g
        b[1] = saturate(decay * b[1] + wj)
        b[2] = saturate(b[0] - b[1])
    a[0] = 1.0 + decay * r
    return f


cdef class OVFMCore(CopulaCore):
    """OVFM's state: the copula's (marginals, ``sigma``), both classifiers' and the mixture's."""

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        cdef double* z = self.scaled(idx, val, n)
        cdef double fx = _score(self.wx, self.bx, self.ax[0], idx, val, n), fz, lam = self.mix[0]
        cdef Py_ssize_t m = -1
        if z != NULL:
            m = self.extend(idx, z, n, False)
        if m >= 0:
            fz = _score(self.wz, self.bz, self.az[0], self.xidx, self.xval, m)
        elif z != NULL:
            fz = _score(self.wz, self.bz, self.az[0], idx, z, n)
        else:
            fz = _score(self.wz, self.bz, self.az[0], idx, val, 0)
        fx = lam * fx + (1.0 - lam) * fz
        label[0] = 1.0 if fx > 0.0 else -1.0  # the authors': int(sigmoid > 0.5)
        return fx

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        cdef double* z = self.scaled(idx, val, n)
        cdef double y01 = 1.0 if y > 0.0 else 0.0, lx, lz, ex, ez
        cdef Py_ssize_t m = -1
        cdef int64_t choice = self.decay_choice
        cdef bint on = self.fit_intercept
        _fit(self.wx, self.bx, self.ax, idx, val, n, y01, choice, self.rate, on, &lx)
        if z != NULL:
            m = self.extend(idx, z, n, self.learn_sigma != 0)
        if m >= 0:
            _fit(self.wz, self.bz, self.az, self.xidx, self.xval, m, y01, choice, self.rate, on,
                 &lz)
        elif z != NULL:
            _fit(self.wz, self.bz, self.az, idx, z, n, y01, choice, self.rate, on, &lz)
        else:
            _fit(self.wz, self.bz, self.az, idx, val, 0, y01, choice, self.rate, on, &lz)
        self.mix[1] = saturate(self.mix[1] + lx)
        self.mix[2] = saturate(self.mix[2] + lz)
        ex = exp(-self.eta * self.mix[1])
        ez = exp(-self.eta * self.mix[2])
        if ex + ez != 0.0:
            self.mix[0] = ex / (ex + ez)
        if m >= 0 and self.learn_sigma != 0:
            self.em_step(m)
        self.update(idx, val, n)
        self.rows += 1
        self.tlen = -1
        return (lx + lz) / 2.0
