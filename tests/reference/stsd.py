"""STSD and its variants in plain NumPy: the reference of :class:`evofeat.linear.STSD`."""

from __future__ import annotations

import math

import numpy as np

from evofeat.linear.stsd import _projects, _select, budget_limit
from reference.adagrad_step import adagrad_delta
from reference.safe import MAX
from reference.splitmix import uniform

__all__ = ["running_sum", "step_size", "stsd_reference"]

_TINY_SCALE = 1e-120  # below this, the scale is folded into v (as on the compiled path)


def running_sum(total: float, terms: np.ndarray) -> float:
    """``total + terms[0] + terms[1] + ...``, left to right (the order of the compiled loops)."""
    for term in terms.tolist():
        total += term
    return total


def step_size(rule: str, C: float, loss: float, sq: float, margin: float, original: bool) -> float:
    """The step ``tau`` (Alg. 2, Eq. 5, 7, 8); the original code divides by ``||x||``, not ``||x||^2``."""
    if rule == "perceptron":
        return 1.0
    nrm = math.sqrt(sq) if original else sq
    if rule == "pa":
        return loss / nrm
    if rule == "pa-i":
        return min(C, loss / nrm)
    if original:
        return 1.0 - margin / (nrm + 1.0 / (2.0 * C))  # the bracket as the authors coded it
    return loss / (nrm + 1.0 / (2.0 * C))


def stsd_reference(
    X: np.ndarray,
    y: np.ndarray,
    mode: str = "stsd-i",
    C: float = 0.1,
    radius: float = 30.0,
    budget: float = 0.5,
    variant: str = "paper",
    project: bool | None = None,
    seed: int = 0,
    task: str = "binary",
    epsilon: float = 0.0,
    step: str = "paper",
    lr: float = 1.0,
    eps: float = 1e-8,
    rand_mask: str = "over-budget",
) -> np.ndarray:
    """Plain-NumPy STSD over a dense stream (NaN = absent); returns the predictions.

    Alg. 1-3 step by step, one row at a time, with columns numbered in order
    of first appearance (the learners' internal columns). The weights are
    kept as ``scale * v`` and every sum is taken left to right in column
    order, as on the compiled path, so the two agree to the last bit: on
    binary data, where many weights are equal, a different rounding would
    break ties (and exact cancellations) differently.

    >>> X = np.array([[1.0, np.nan], [1.0, 1.0], [np.nan, 1.0]])
    >>> stsd_reference(X, np.array([1.0, -1.0, -1.0]), mode="stsd")
    array([ 0.,  1., -1.])
    """
    n, d = X.shape
    rule, select = _select(mode, rand_mask)
    original = variant == "original-code"
    proj = _projects(project, variant, select)
    v, G = np.zeros(d), np.zeros(d)
    scale, l1, last_tau = 1.0, 0.0, 0.0
    seen = np.zeros(d, dtype=bool)
    rng = np.array([seed], dtype=np.uint64)
    out = np.empty(n)

    def add(cols: np.ndarray, x: np.ndarray, a: float) -> None:  # w[cols] += a x
        nonlocal l1
        old = v[cols]
        v[cols] = old + (a / scale) * x
        l1 = running_sum(l1, np.abs(v[cols]) - np.abs(old))

    def add_adagrad(cols: np.ndarray, x: np.ndarray, direction: float) -> None:
        nonlocal l1
        old = v[cols]
        v[cols] = old + adagrad_delta(G, cols, -direction * x, lr, eps) / scale
        l1 = running_sum(l1, np.abs(v[cols]) - np.abs(old))

    for t in range(n):
        cols = np.flatnonzero(~np.isnan(X[t]))
        x = X[t, cols]
        d_before = int(seen.sum())
        seen[cols] = True
        dim = int(seen.sum())
        new_stage = original and 0 < d_before < dim
        f = scale * running_sum(0.0, v[cols] * x)
        margin = y[t] * f
        if task == "regression":
            out[t] = f
            loss = max(0.0, abs(y[t] - f) - epsilon)
            direction, update = (1.0 if y[t] > f else -1.0), loss > 0
        else:
            out[t] = np.sign(f)
            loss = max(0.0, 1.0 - margin)
            direction = y[t]
            update = (
                margin <= 1 if original else (margin <= 0 if rule == "perceptron" else loss > 0)
            )
        sq = running_sum(0.0, x * x)
        stepped = update and 0 < sq < np.inf
        if stepped:
            tau = step_size(rule, C, loss, sq, margin, original)
            last_tau = tau
        nz = x != 0
        if new_stage:  # the original code's first round of a stage
            old, new = nz & (cols < d_before), nz & (cols >= d_before)
            if stepped:
                add(cols[old], x[old], tau * direction)
            add(cols[new], x[new], (1.0 if rule == "perceptron" else last_tau) * direction)
        elif stepped and step == "adagrad":
            add_adagrad(cols[nz], x[nz], direction)
        elif stepped and step == "adagrad-tau":  # tau with ||x||^2 in diag(1 / sqrt(eps + G))
            G[cols[nz]] = np.clip(G[cols[nz]] + x[nz] * x[nz], -MAX, MAX)
            root = np.sqrt(eps + G[cols[nz]])
            sq_m = running_sum(0.0, x[nz] * x[nz] / root)
            if 0 < sq_m < np.inf:
                tau = step_size(rule, C, loss, sq_m, margin, False)
                add(cols[nz], x[nz] / root, tau * direction)
        elif stepped:
            add(cols[nz], x[nz], tau * direction)
        elif original:
            continue
        if proj and scale * l1 > radius:  # w <- (radius / ||w||_1) w
            scale *= radius / (scale * l1)
            if scale < _TINY_SCALE:
                v *= scale
                l1 *= scale
                scale = 1.0
        k = budget_limit(select, budget, dim, original)
        support = np.flatnonzero(v)
        always = select == "random-always" and support.size > 0
        if select != "all" and (support.size > k or always):
            # evict the smallest |w| first, the higher column first among ties
            if select == "largest":
                drop = support[np.lexsort((-support, np.abs(v[support])))[: support.size - k]]
            else:  # a uniform k-subset of `total` coordinates, the support first, by column
                total, kept, dropped = (dim if original else support.size), 0, []
                for j, c in enumerate(support.tolist()):
                    if kept < k and uniform(rng) * (total - j) < k - kept:
                        kept += 1
                    else:
                        dropped.append(c)
                drop = np.array(dropped, dtype=np.int64)
            l1 = running_sum(l1, -np.abs(v[drop]))
            v[drop] = 0.0
        if not v.any():
            l1 = 0.0
    return out
