"""OCDS (He, Wu, Wu, Beyazit, Chen, Wu, IJCAI 2019), and the rule of the ``haphazard`` package's OCDS.

A classifier ``w`` on the universal feature space ``U`` (every feature seen)
and a non-negative graph ``G`` on ``U`` that reconstructs the space from the
row's present features, ``psi = (1/d_t) G_obs^T x``. Prediction: ``p`` times
the observed part ``w_obs . x`` plus ``1 - p`` times the reconstructed part
``w_rec . psi_rec``, ``p`` the exponential weights (``eta = 8 sqrt(1/ln t)``)
of the two parts' cumulative base-2 logistic losses. Learning, step
``1/sqrt(t)``: ``w`` descends ``(y - w . psi)^2 + beta1 ||w||_1 + beta2 w^T L
w`` (``L`` the Laplacian of ``(G + G^T)/2``); ``G``'s present rows descend the
squared loss and ``alpha ||x - psi_obs||^2``, projected on ``G >= 0``, with
the ``w`` before its step; ``gamma < 1`` keeps the ``ceil(gamma |U|)``
largest ``|w|``.

Choices the learner documents: a new feature's edges are uniform draws
(``G[i, j]`` the ``j``-th counter-based SplitMix64 draw of stream ``i``); at
``t = 1`` all weight goes to the smaller loss. ``rule="package"`` is the
package's arithmetic (``haphazard/models/model_zoo/ocds/ocds.py``, 1.2.8) on
the features seen so far. Sums run in column order.
"""

from __future__ import annotations

import math

import numpy as np

from oracle import counter_uniform, rows

__all__ = ["ocds"]


def _log2_loss(m: float) -> float:
    return (
        (-m + math.log1p(math.exp(m))) / math.log(2)
        if m < 0
        else math.log1p(math.exp(-m)) / math.log(2)
    )


def _sum(values: np.ndarray) -> float:
    s = 0.0
    for v in values.tolist():
        s += v
    return s


def _parts(
    G: np.ndarray, w: np.ndarray, U: np.ndarray, cols: np.ndarray, x: np.ndarray
) -> tuple[np.ndarray, float, float]:
    """``psi`` (from the present features already in ``U``: a new one has no edges), the
    observed part and the reconstructed part of the score."""
    d = w.size
    psi = np.zeros(d)
    known = int(U[cols].sum())
    for j in np.flatnonzero(U) if known else []:
        s = 0.0
        for k in cols.tolist():
            s += G[k, j] * x[k]
        psi[j] = s / known
    so = _sum(w[cols] * x[cols])
    rec = np.flatnonzero(U & ~np.isin(np.arange(d), cols))
    return psi, so, _sum(w[rec] * psi[rec])


def _graph(
    wg: np.ndarray,
    G: np.ndarray,
    cols: np.ndarray,
    U: np.ndarray,
    x: np.ndarray,
    psi: np.ndarray,
    r: float,
    dt: int,
    alpha: float,
    step: float,
    pkg: bool,
) -> None:
    """The graph's step, entry by entry, on the present rows and the seen columns."""
    for k in cols.tolist():
        for j in U.tolist():
            g = (-2.0 / dt) * r * x[k] * wg[j]
            if j in cols:
                g += (-2.0 * alpha / dt) * x[k] * (x[j] - psi[j])
            if pkg:
                g = min(max(g, -1e3), 1e3)
                ratio = (max(-g, 0) + 1e-12) / (max(g, 0) + 1e-12)
                G[k, j] = min(max(G[k, j] * min(max(ratio, 1e-3), 1e3), 0.0), 1e6)
            else:
                G[k, j] = max(0.0, G[k, j] - step * g)
        if pkg and math.sqrt(float(G[k, U] @ G[k, U])) + 1e-12 < 1e-8:
            G[k, U] += 1e-8


def ocds(
    X: np.ndarray,
    y: np.ndarray,
    alpha: float = 0.01,
    beta1: float = 0.0001,
    beta2: float = 0.01,
    gamma: float = 1.0,
    tau: float | None = None,
    seed: int = 0,
    rule: str = "paper",
    fit_intercept: bool = False,
    intercept_lr: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Predicted labels and scores of OCDS over ``X`` (NaN: absent).

    ``fit_intercept`` (the paper's rule): a bias ``b``, the weight of an
    input 1 in every row, added to both parts' scores (and losses) and to
    ``w . psi`` in the residual ``r``; ``b += step_b 2 r`` (the squared
    loss's gradient on the input 1), ``step_b`` = ``intercept_lr`` or the
    classifier's step. No L1, graph term or truncation acts on it.

    >>> ocds(np.array([[1.0, np.nan], [1.0, 2.0], [np.nan, 1.0]]), np.array([1, -1, 1]))[0]
    array([-1.,  1., -1.])
    """
    pkg = rule == "package"
    n, d = X.shape
    w, G, seen = np.zeros(d), np.zeros((d, d)), np.zeros(d, dtype=bool)
    p, L_obs, L_rec, T = 0.5, 0.0, 0.0, 0
    labels, scores = np.empty(n), np.empty(n)
    b = 0.0
    for t, cols, x, _ in rows(X):
        if cols.size == 0:
            scores[t], labels[t] = b, (1.0 if b > 0 else -1.0)
            continue
        dt = cols.size

        _, so, sr = _parts(G, w, seen, cols, x)
        f = p * so + (1 - p) * sr + b
        scores[t], labels[t] = f, (1.0 if f > 0 else -1.0)
        # learn
        T += 1
        for i in cols[~seen[cols]].tolist():
            seen[i] = True
            for j in np.flatnonzero(seen).tolist():
                G[i, j] = counter_uniform(seed, i, j)
                G[j, i] = counter_uniform(seed, j, i)
        psi, so, sr = _parts(G, w, seen, cols, x)
        L_obs += _log2_loss(y[t] * (so + b))
        L_rec += _log2_loss(y[t] * (sr + b))
        if pkg:
            eta = 8 * math.sqrt(1 / max(math.log(T), 1e-12))
            eo = math.exp(min(max(-eta * L_obs, -50), 50))
            er = math.exp(min(max(-eta * L_rec, -50), 50))
            p = eo / (eo + er + 1e-12)
        elif T < 2:
            p = 1.0 if L_obs < L_rec else (0.0 if L_obs > L_rec else 0.5)
        else:
            z = 8 * math.sqrt(1 / math.log(T)) * (L_rec - L_obs)
            p = 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))
        U = np.flatnonzero(seen)
        r = float(y[t])
        for j in U.tolist():
            r -= w[j] * psi[j]
        r -= b
        step = tau if tau is not None else 1 / math.sqrt(T)
        if fit_intercept:
            b += (step if intercept_lr is None else intercept_lr) * 2.0 * r
        c = -2.0 / dt if pkg else -2.0
        l1 = beta1 + beta2 / 2 if pkg else beta1
        A = 0.5 * (G + G.T)
        gw = np.zeros(d)
        for j in U.tolist():
            deg = lw = 0.0
            for i in U.tolist():
                deg += A[j, i]
                lw += A[j, i] * w[i]
            g = c * r * psi[j] + l1 * np.sign(w[j]) + 2 * beta2 * (deg * w[j] - lw)
            gw[j] = min(max(g, -1e3), 1e3) if pkg else g

        args = (G, cols, U, x, psi, r, dt, alpha, step, pkg)
        if not pkg:
            _graph(w, *args)
        w = w - step * gw
        if pkg:
            norm = math.sqrt(float(w @ w))
            if not math.isfinite(norm) or norm < 1e-8:
                w = np.sign(w) * 1e-8
            _graph(w, *args)
        if gamma < 1:
            keep = max(1, math.ceil(gamma * U.size))
            if keep < U.size:
                key = np.abs(w[U])
                order = sorted(range(U.size), key=lambda i: (-key[i], U[i]))
                thr = key[order[keep - 1]]
                for i in order[keep:]:
                    if not pkg or key[i] < thr:
                        w[U[i]] = 0.0
    return labels, scores
