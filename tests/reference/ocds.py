"""OCDS in plain NumPy: the reference of :mod:`evofeat.haphazard.ocds`."""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from reference.splitmix import draw_uniform

__all__ = ["ocds_reference"]


def _graph_step(
    G: np.ndarray,
    w: np.ndarray,
    m: np.ndarray,
    U: np.ndarray,
    x: np.ndarray,
    psi: np.ndarray,
    r: float,
    dt: int,
    alpha: float,
    step: float,
    pkg: bool,
) -> None:
    """The graph's step on its rows ``m`` (present) and columns ``U`` (see :class:`OCDS`)."""
    g = (-2 / dt) * r * np.outer(x[m], w[U])
    g[:, m[U]] += (-2 * alpha / dt) * np.outer(x[m], x[m] - psi[m])
    block = G[np.ix_(m, U)]
    if pkg:
        g = np.clip(g, -1e3, 1e3)
        ratio = np.clip((np.maximum(-g, 0) + 1e-12) / (np.maximum(g, 0) + 1e-12), 1e-3, 1e3)
        block = np.clip(block * ratio, 0.0, 1e6)
        block[np.linalg.norm(block, axis=1) + 1e-12 < 1e-8] += 1e-8
    else:
        block = np.maximum(0.0, block - step * g)
    G[np.ix_(m, U)] = block


def ocds_reference(
    X: np.ndarray,
    y: np.ndarray,
    alpha: float = 0.01,
    beta1: float = 0.0001,
    beta2: float = 0.01,
    gamma: float = 1.0,
    tau: float | None = None,
    seed: int = 0,
    rule: str = "paper",
) -> np.ndarray:
    """Plain-NumPy OCDS over a dense stream (NaN = absent); returns the predicted labels.

    >>> ocds_reference(np.array([[1.0, np.nan], [1.0, 2.0]]), np.array([1, -1]))
    array([-1.,  1.])
    """
    pkg, n, d = rule == "package", X.shape[0], X.shape[1]
    w, G, U = np.zeros(d), np.zeros((d, d)), np.zeros(d, dtype=bool)
    p, losses, out = 0.5, np.zeros(2), np.empty(n)

    def reconstruct(m: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, float, float]:
        known = int((m & U).sum())
        psi = np.where(U, G[m].T @ x[m] / max(known, 1), 0.0) if known else np.zeros(d)
        return psi, float(w[m] @ x[m]), float(w[U & ~m] @ psi[U & ~m])

    for t in range(n):
        m = ~np.isnan(X[t])
        x = np.where(m, X[t], 0.0)
        psi, so, sr = reconstruct(m, x)
        out[t] = 1.0 if p * so + (1 - p) * sr > 0 else -1.0
        if not m.any():
            continue
        for i in np.flatnonzero(m & ~U):
            U[i] = True
            for j in np.flatnonzero(U):
                G[i, j], G[j, i] = (
                    draw_uniform(seed, int(i), int(j)),
                    draw_uniform(seed, int(j), int(i)),
                )
        psi, so, sr = reconstruct(m, x)
        losses += np.logaddexp(0.0, -y[t] * np.array([so, sr])) / np.log(2.0)
        T = t + 1 - int(np.isnan(X[: t + 1]).all(axis=1).sum())  # rows learned
        if pkg:
            eta = 8 * np.sqrt(1 / max(np.log(T), 1e-12))
            e = np.exp(np.clip(-eta * losses, -50, 50))
            p = float(e[0] / (e.sum() + 1e-12))
        elif T < 2:
            p = 0.5 if losses[0] == losses[1] else float(losses[0] < losses[1])
        else:
            p = float(expit(8 * np.sqrt(1 / np.log(T)) * (losses[1] - losses[0])))
        dt, step = int(m.sum()), tau if tau is not None else 1 / np.sqrt(T)
        r = float(y[t] - w[U] @ psi[U])
        A = 0.5 * (G + G.T)[np.ix_(U, U)]
        gw = np.zeros(d)
        l1 = beta1 + beta2 / 2 if pkg else beta1
        gw[U] = (-2 / dt if pkg else -2) * r * psi[U] + l1 * np.sign(w[U])
        gw[U] += 2 * beta2 * (A.sum(axis=1) * w[U] - A @ w[U])

        grad = (m, U, x, psi, r, dt, alpha, step, pkg)
        if not pkg:
            _graph_step(G, w, *grad)
        w = w - step * (np.clip(gw, -1e3, 1e3) if pkg else gw)
        if pkg:
            norm = np.linalg.norm(w)
            if not np.isfinite(norm) or norm < 1e-8:
                w = np.sign(w) * 1e-8
            _graph_step(G, w, *grad)
        if gamma < 1:
            cols = np.flatnonzero(U)
            keep = max(1, int(np.ceil(gamma * cols.size)))
            if keep < cols.size:
                key = np.abs(w[cols])
                order = np.lexsort((cols, -key))
                drop = order[keep:]
                if pkg:
                    drop = drop[key[drop] < key[order[keep - 1]]]
                w[cols[drop]] = 0.0
    return out
