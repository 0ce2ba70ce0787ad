"""OFS, PE_trun, RAND and OFS_P in plain NumPy: the reference of :mod:`evofeat.linear.ofs`."""

from __future__ import annotations

import math

import numpy as np

from evofeat.linear._ofs_base import TRUNCATE_BY
from reference.adagrad_step import adagrad_delta
from reference.splitmix import draw_uniform

__all__ = ["observed_reference", "ofs_reference"]


def _truncate_reference(w: np.ndarray, B: int, score: np.ndarray | None = None) -> None:
    """Algorithm 2: keep the B largest ``|w|`` (or ``|w| score``; ties: the lower column), in place."""
    nz = np.flatnonzero(w)
    if nz.size > B:
        key = np.abs(w[nz]) if score is None else np.abs(w[nz]) * score[nz]
        drop = nz[np.lexsort((nz, -key))[B:]]
        w[drop] = 0.0


def ofs_reference(
    X: np.ndarray,
    y: np.ndarray,
    algorithm: str = "ofs",
    *,
    lr: float = 0.2,
    l2: float = 0.01,
    budget: float = 0.1,
    budget_count: int | None = None,
    radius: float | None = None,
    epsilon: float = 0.2,
    seed: int = 0,
    zero_score: str = "mistake",
    draw: str = "once",
    step: str = "paper",
    eps: float = 1e-8,
    truncate_by: str = "weight",
) -> np.ndarray:
    """Plain-NumPy OFS, PE_trun, RAND or OFS_P over a dense stream (NaN = absent).

    Straight from the pseudo-code with ``w`` a plain vector (O(d) per row); the
    learner is told the visible set after predicting and before learning, as
    the prequential loop does. Returns the predicted labels (0: no decision).

    >>> ofs_reference(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), np.array([1, 1, -1]), budget_count=1)
    array([0., 1., 0.])
    """
    n, d = X.shape
    w, seen, in_set, G = np.zeros(d), np.zeros(d, bool), np.zeros(d, bool), np.zeros(d)
    R = radius if radius is not None else (1.0 / math.sqrt(l2) if l2 > 0 else math.inf)
    prev: np.ndarray | None = None
    cols = np.zeros(0, np.int64)
    B, draws, out = 0, 0, np.empty(n)

    def observed(t: int) -> np.ndarray:
        mask = np.ones(d, bool)
        if algorithm == "ofs-p":
            mask[:] = False
            mask[list(observed_reference(w, cols, B, epsilon, seed=seed, t=t))] = True
        return mask

    for t in range(n):
        vis = ~np.isnan(X[t])
        x = np.where(vis, X[t], 0.0)
        f = sum(w[c] * x[c] for c in np.flatnonzero(vis & observed(t)))
        out[t] = 1.0 if f > 0 else (0.0 if f == 0 and zero_score == "mistake" else -1.0)
        if prev is None or np.any(vis != prev):  # the learner is told the visible set
            prev, cols = vis, np.flatnonzero(vis)
            seen |= vis
            B = budget_count or max(1, int(np.floor(budget * seen.sum() + 0.5)))
            free = [int(c) for c in cols if not in_set[c]]
            for i in range(min(B - int(in_set.sum()), len(free)) if algorithm == "rand" else 0):
                r = i + int(draw_uniform(seed, 0, draws) * (len(free) - i))
                draws += 1
                free[i], free[r] = free[r], free[i]
                in_set[free[i]] = True
        if algorithm == "rand" and draw == "per-mistake":
            if y[t] * f <= 0:  # RND.m: update every feature, draw a new set, zero the rest
                w += y[t] * x
                pool = [int(c) for c in cols]
                for i in range(min(B, len(pool))):
                    r = i + int(draw_uniform(seed, 0, draws) * (len(pool) - i))
                    draws += 1
                    pool[i], pool[r] = pool[r], pool[i]
                in_set[:] = False
                in_set[pool[: min(B, len(pool))]] = True
                w[~in_set] = 0.0
            continue
        if algorithm in ("pe-trun", "rand"):
            if y[t] * f <= 0:
                w += y[t] * np.where(in_set, x, 0.0) if algorithm == "rand" else y[t] * x
                _truncate_reference(w, B)
            continue
        obs = observed(t)
        f = sum(w[c] * x[c] for c in np.flatnonzero(vis & obs))
        if y[t] * f <= 1:
            if algorithm == "ofs-p":
                q = epsilon * min(1.0, B / max(len(cols), 1)) + (1 - epsilon) * (w != 0)
                x = np.where(obs, x / q, 0.0)
            if step == "adagrad":
                nz = np.flatnonzero(x)
                w = (1 - lr * l2) * w
                w[nz] += adagrad_delta(G, nz, -y[t] * x[nz], lr, eps)
            else:
                w = (1 - lr * l2) * w + lr * y[t] * x
            w *= min(1.0, R / max(float(np.linalg.norm(w)), 1e-300))
            p = TRUNCATE_BY[truncate_by]
            _truncate_reference(w, B, None if p == 0 else (eps + G) ** p)
        else:
            w *= 1 - lr * l2
    return out


def observed_reference(
    w: np.ndarray, visible: np.ndarray, B: int, epsilon: float, *, seed: int, t: int
) -> set[int]:
    """The attributes OFS_P requests in row ``t`` (plain Python; ``visible`` sorted).

    Exploration (probability ``epsilon``): a uniform ``min(B, d)``-subset of
    the visible columns, drawn by Floyd's algorithm on the same numbers as
    the compiled path; otherwise the support of ``w``.
    """
    if not draw_uniform(seed, t, 0) < epsilon:
        return {int(c) for c in np.flatnonzero(w)}
    m = len(visible)
    k = min(B, m)
    chosen: set[int] = set()
    for i, j in enumerate(range(m - k, m)):
        c = int(visible[int(draw_uniform(seed, t, 1 + i) * (j + 1))])
        chosen.add(int(visible[j]) if c in chosen else c)
    return chosen
