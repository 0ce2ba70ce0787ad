"""OVFM (He, Yuan and Wu, "Online learning in variable feature spaces with mixed data", ICDM 2021).

Written from the paper, the authors' code (``FTRL_ADP``, the ensemble) and
the choices evofeat documents:

- the latent row (:func:`copula`): each present value's normal score
  (:func:`oracle.scaling.quantile`, the rows before it); each feature seen
  before and absent now as its conditional mean ``sigma_MO (sigma_OO + ridge
  I)^-1 z_O`` (0 when no feature is present); a feature never seen is absent;
  after the row, ``sigma`` over the features seen moves by one online EM step
  ``(1 - g) sigma + g (zh zh^T + C)``, ``C`` the imputed block's conditional
  covariance, ``g = max(1 / (t + 2), forget)`` after ``t`` rows, then back to
  unit diagonal (``learn=False``: ``sigma`` stays the identity);
- two ``FTRL_ADP`` classifiers (``L1 = L2 = 0``, ``LP = 1``; weights ``-z /
  r``), one on ``[1, x]`` (absent as 0), one on ``[1, latent]``; each fits
  as the authors' ``fit`` (decay rule, error-rate drift detector, ``v, h, z,
  r`` updated on every coordinate);
- the score ``lam f_x + (1 - lam) f_z`` with the weights before the row,
  label ``+1`` if positive; ``lam = e^{-eta L_x} / (e^{-eta L_x} + e^{-eta
  L_z})`` from the cumulative logistic losses, ``eta = 0.001``, 1/2 at first.
"""

from __future__ import annotations

import numpy as np

from oracle import scaling

__all__ = ["copula", "ovfm"]


def copula(
    X: np.ndarray, window: int = 100, forget: float = 0.01, ridge: float = 1e-6, learn: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """The latent rows (NaN: a feature never seen) and the final ``sigma``."""
    n, d = X.shape
    Z = scaling.quantile(X, window)
    sigma = np.eye(d)
    seen = np.zeros(d, dtype=bool)
    out = np.full(X.shape, np.nan)
    for t in range(n):
        o = np.flatnonzero(~np.isnan(X[t]))
        m = np.flatnonzero(np.isnan(X[t]) & seen)
        z = Z[t, o]
        zh = np.zeros(d)
        zh[o] = z
        C = np.zeros((d, d))
        if m.size and o.size:
            B = np.linalg.solve(sigma[np.ix_(o, o)] + ridge * np.eye(o.size), sigma[np.ix_(o, m)])
            zh[m] = B.T @ z
            C[np.ix_(m, m)] = sigma[np.ix_(m, m)] - sigma[np.ix_(m, o)] @ B
        elif m.size:
            C[np.ix_(m, m)] = sigma[np.ix_(m, m)]
        u = np.union1d(o, m)
        out[t, u] = zh[u]
        if learn:
            g = max(1.0 / (t + 2.0), forget)
            block = np.ix_(u, u)
            sigma[block] = (1 - g) * sigma[block] + g * (np.outer(zh, zh) + C)[block]
            s = 1.0 / np.sqrt(np.diag(sigma)[u])
            sigma[block] = sigma[block] * np.outer(s, s)
            sigma[u, u] = 1.0
        seen[o] = True
    return out, sigma


class _FTRLADP:
    """The authors' ``FTRL_ADP`` with ``L1 = L2 = 0``, ``LP = 1``, ``adaptive=True``."""

    def __init__(self, d: int, choice: int, rate: float) -> None:
        self.v, self.h, self.z = np.zeros(d), np.zeros(d), np.zeros(d)
        self.r, self.decay, self.choice, self.rate = 1.0, 1.0, choice, rate
        self.times = self.fails = self.times_warn = self.fails_warn = 0
        self.p_min, self.s_min = 1.0, 10.0

    def score(self, x: np.ndarray) -> float:
        return float(np.dot(-self.z / self.r, x))

    def fit(self, x: np.ndarray, y: float) -> float:
        """One step on ``x`` with ``y`` in {0, 1}; the logistic loss of the score before."""
        w = -self.z / self.r
        f = float(np.dot(w, x))
        p = 1.0 / (1.0 + np.exp(-f)) if f >= 0 else np.exp(f) / (1.0 + np.exp(f))
        loss = max(f, 0.0) - y * f + np.log1p(np.exp(-abs(f)))
        wrong = int(abs(y - p) > 0.5)
        self.times += 1
        self.fails += wrong
        t = float(self.times)
        rules = {
            0: lambda: (np.cbrt(t) - 1) / np.cbrt(t),
            1: lambda: (np.sqrt(t) - 1) / np.sqrt(t),
            2: lambda: (t - 1) / t,
            3: lambda: t / (t + 1),
            4: lambda: 1.0 - np.log(t) / (2 * t),
        }
        self.decay = rules[self.choice]()
        if self.times > 30:
            p_i = self.fails / self.times
            s_i = np.sqrt(p_i * (1 - p_i) / self.times)
            ps = p_i + s_i
            self.decay = self.decay * (1.0 - self.rate) + self.rate * p_i
            if ps < self.p_min + self.s_min:
                self.p_min, self.s_min = p_i, s_i
            if ps < self.p_min + 2 * self.s_min:
                self.times_warn = self.fails_warn = 0
            else:
                self.times_warn += 1
                self.fails_warn += wrong
                if ps > self.p_min + 3 * self.s_min:
                    self.times, self.fails = self.times_warn, self.fails_warn
                    self.p_min, self.s_min = 1.0, 10.0
        self.v = self.v + (p - y) * x
        self.h = self.decay * self.h + w
        self.z = self.v - self.h
        self.r = 1.0 + self.decay * self.r
        return float(loss)


def ovfm(
    X: np.ndarray,
    y: np.ndarray,
    decay_choice: int = 4,
    rate: float = 0.001,
    window: int = 100,
    learn: bool = True,
    forget: float = 0.01,
    ridge: float = 1e-6,
    fit_intercept: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Labels and scores of OVFM over ``X`` (NaN: absent), labels ``y`` in {-1, +1}.

    The bias is the weight of the constant first input; without
    ``fit_intercept`` that input is 0, so its weight stays 0.
    """
    n, d = X.shape
    latent = copula(X, window, forget, ridge, learn)[0]
    cx, cz = _FTRLADP(d + 1, decay_choice, rate), _FTRLADP(d + 1, decay_choice, rate)
    lam, lx_sum, lz_sum, eta = 0.5, 0.0, 0.0, 0.001
    labels, scores = np.empty(n), np.empty(n)
    for t in range(n):
        one = [1.0 if fit_intercept else 0.0]
        x = np.concatenate((one, np.nan_to_num(X[t], nan=0.0)))
        z = np.concatenate((one, np.nan_to_num(latent[t], nan=0.0)))
        s = lam * cx.score(x) + (1 - lam) * cz.score(z)
        scores[t], labels[t] = s, 1.0 if s > 0 else -1.0
        y01 = 1.0 if y[t] > 0 else 0.0
        lx_sum += cx.fit(x, y01)
        lz_sum += cz.fit(z, y01)
        ex, ez = np.exp(-eta * lx_sum), np.exp(-eta * lz_sum)
        if ex + ez != 0:
            lam = ex / (ex + ez)
    return labels, scores
