"""DynFo in plain NumPy: the reference of :mod:`evofeat.haphazard.dynfo`."""

from __future__ import annotations

from typing import Any

import numpy as np

from evofeat.haphazard import DynFo

__all__ = ["dynfo_reference"]


_NORMAL = 2.2250738585072014e-308  # the smallest normal double: each vote sum's floor
_GOLDEN, _MASK = 0x9E3779B97F4A7C15, (1 << 64) - 1


def _uniform(state: list[int]) -> float:
    """SplitMix64's next uniform in [0, 1) (``state[0]`` advanced)."""
    state[0] = (state[0] + _GOLDEN) & _MASK
    z = state[0]
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return ((z ^ (z >> 31)) >> 11) / 9007199254740992.0


def _split(win_x: np.ndarray, win_y: np.ndarray, f: int) -> np.ndarray | None:
    """Feature ``f``'s best split on the window (rows oldest first): ``[gini, threshold,
    left_neg, left_pos, right_neg, right_pos]``, or None when it is absent from every row."""
    col = win_x[:, f]
    rows = np.flatnonzero(~np.isnan(col))
    if rows.size == 0:
        return None
    order = rows[np.lexsort((rows, col[rows]))]
    v, pos = col[order], (win_y[order] > 0).astype(np.float64)
    m = v.size
    new = np.r_[True, v[1:] != v[:-1]]
    last = np.r_[new[1:], True]
    nl = np.arange(1, m + 1, dtype=np.float64)[last]
    pos_left = np.cumsum(pos)[last]
    nr = m - nl
    pl = pos_left / nl
    gl = 1.0 - (pl * pl + (1.0 - pl) * (1.0 - pl))
    with np.errstate(invalid="ignore", divide="ignore"):
        pr = np.where(nr > 0, (pos.sum() - pos_left) / nr, 0.0)
    gr = np.where(nr > 0, 1.0 - (pr * pr + (1.0 - pr) * (1.0 - pr)), 1.0)
    g = (nl / m) * gl + (nr / m) * gr
    k = np.lexsort((order[new], g))[0]  # least impurity, then the value first in the window
    return np.array(
        [g[k], v[new][k], 1.0 - pl[k], pl[k], 0.0 if nr[k] == 0 else 1.0 - pr[k], pr[k]]
    )


def dynfo_reference(X: np.ndarray, y: np.ndarray, **params: Any) -> tuple[np.ndarray, np.ndarray]:
    """Plain-NumPy DynFo over a dense stream (NaN: absent; columns in order of first appearance):
    the labels and scores, with :class:`DynFo`'s parameters.

    >>> X = np.array([[0.0], [1.0], [0.0], [1.0]])
    >>> dynfo_reference(X, np.array([-1, 1, -1, 1]), M=2)[0].tolist()
    [-1.0, -1.0, -1.0, 1.0]
    """
    p = {**DynFo().get_params(), **params}
    n, d = X.shape
    N, M, beta, delta = p["N"], p["M"], p["beta"], p["delta"]
    L = p["max_learners"] or 10 * M
    stumps = np.zeros((L, 7))  # threshold, left_neg, left_pos, right_neg, right_pos, gini, weight
    feature = np.full(L, -1)
    state, perm, n_seen, count = [int(p["seed"]) & _MASK], np.arange(d), 0, 0
    win_x, win_y, ok = np.empty((0, d)), np.empty(0), np.empty(0)
    labels, scores = np.zeros(n), np.zeros(n)

    def below(k: int) -> int:
        return min(int(_uniform(state) * k), k - 1)

    def fit(j: int) -> None:
        for i in range(min(max(int(delta * n_seen), 1), n_seen)):
            r = i + below(n_seen - i)
            perm[[i, r]] = perm[[r, i]]
            best = _split(win_x, win_y, int(perm[i]))
            if best is not None and best[0] < stumps[j, 5]:
                stumps[j, :6] = best[[1, 2, 3, 4, 5, 0]]
                feature[j] = perm[i]

    def grow() -> None:
        nonlocal count
        if count < L:
            stumps[count], feature[count] = [0, 0, 0, 0, 0, 2.0, 1.0], -1
            count += 1
            fit(count - 1)

    for t in range(n):
        x, live = X[t], slice(0, count)
        f = feature[live]
        on = (f >= 0) & ~np.isnan(x[np.maximum(f, 0)])
        left = x[np.maximum(f, 0)] <= stumps[live, 0]
        neg_pos = np.where(left[:, None], stumps[live, 1:3], stumps[live, 3:5])
        votes = (stumps[live, 6][on, None] * neg_pos[on]).sum(axis=0) if on.any() else [0, 0]
        scores[t] = np.log(max(votes[1], _NORMAL)) - np.log(max(votes[0], _NORMAL))
        labels[t] = 1.0 if scores[t] > 0 else -1.0
        seen = np.flatnonzero(~np.isnan(x))
        n_seen = max(n_seen, int(seen.max()) + 1) if seen.size else n_seen
        win_x, win_y = np.vstack([win_x, x])[-N:], np.r_[win_y, y[t]][-N:]
        if count == 0:
            for _ in range(M if n_seen else 0):
                grow()
            continue
        ok = np.r_[ok, float(labels[t] == y[t])][-N:]
        if np.mean(1.0 - ok) > p["gamma"]:
            grow()
        live = slice(0, count)
        f = feature[live]
        on = (f >= 0) & ~np.isnan(x[np.maximum(f, 0)])
        left = x[np.maximum(f, 0)] <= stumps[live, 0]
        said = np.where(left, stumps[live, 2] > stumps[live, 1], stumps[live, 4] > stumps[live, 3])
        right = (np.where(said, 1.0, -1.0) == y[t]).astype(np.float64)
        w = stumps[live, 6]
        w[:] = np.where(on, (right * 2.0 * p["alpha"] + w) / (1.0 + p["alpha"]), w - p["epsilon"])
        picks = np.flatnonzero((p["theta1"] <= w) & (w < np.quantile(w, p["theta2"])))
        for i in range(int((1.0 - beta) * picks.size)):
            r = i + below(picks.size - i)
            picks[[i, r]] = picks[[r, i]]
            if p["relearn"] == "refit":
                stumps[picks[i], 5], feature[picks[i]] = 2.0, -1
            fit(int(picks[i]))
            stumps[picks[i], 6] = 1.0
        keep = np.flatnonzero(stumps[:count, 6] >= p["theta1"])
        keep = keep if keep.size else np.array([count - 1])
        stumps[: keep.size], feature[: keep.size] = stumps[keep], feature[keep]
        count = keep.size
    return labels, scores
