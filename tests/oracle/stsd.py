"""STSD, STSD-I, STSD-II and the baselines -all, -rand, -per (Zhang et al., ICDM 2015).

Written from the paper (Alg. 1-3, Eq. 2-8; ../shared/papers/README.md restates
them) with an explicit weight vector ``w``, and, separately, from the rules of
the authors' MATLAB code as :class:`evofeat.linear.STSD`'s docstring states
them (``variant="original-code"``).

The paper, one round: predict ``sign(w . x~)`` (0: no decision); hinge loss
``l = max(0, 1 - y w . x~)``; if ``l > 0`` (perceptron rule: ``y w . x <= 0``)
``w <- [w + tau y x~, tau y x^]`` with ``tau`` of Eq. 5, 7 or 8 (``||x||`` of
the whole row); then, every round, scale onto the L1 ball
``w <- min(1, lambda / ||w||_1) w`` and keep the ``max(1, floor(B d))``
largest ``|w|`` (``d``: features seen so far; ties keep the lower column).

``step="adagrad"`` (not the paper's; Duchi, Hazan & Singer 2011, diagonal
AdaGrad, as :class:`evofeat.linear.STSD` documents it): on the same rows the
step ``tau y x`` is replaced, per feature ``i`` of the row with ``x_i != 0``,
by ``G_i += g_i^2``, ``w_i -= lr g_i / sqrt(eps + G_i)`` with ``g = -y x`` the
hinge's (or the perceptron loss's) subgradient; scaling and truncation as
before. ``step="adagrad-tau"`` (not the paper's): on those rows ``G_i +=
x_i^2`` first, then ``w_i += tau y x_i / sqrt(eps + G_i)`` with the paper's
``tau`` (Eq. 5, 7, 8) of ``sum_i x_i^2 / sqrt(eps + G_i)`` in place of
``||x||^2``: the PA step in the metric ``diag(1 / sqrt(eps + G))``.

``fit_intercept`` (the learners' documented option, not the paper's): every
row also has a constant input 1 whose weight, the bias ``b``, is added after
the features' sum and counts in ``||x||^2`` (``+ 1``); ``b`` takes the row's
step on that input (``tau y``; AdaGrad's with its own ``G_b``; adagrad-tau's
``tau y / sqrt(eps + G_b)`` after ``G_b += 1``) and is never scaled onto the
L1 ball nor truncated (it is not a feature). The multiclass learner has one
bias per class, ``b_y += tau``, ``b_r -= tau`` with ``tau`` on ``2 (||x||^2 + 1)``.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import numpy as np

from oracle import SplitMix64, dot, rows, sq_norm

__all__ = ["budget_of", "keep_largest", "keep_random", "stsd"]

_RULES = {
    "stsd": "pa",
    "stsd-i": "pa-i",
    "stsd-ii": "pa-ii",
    "stsd-i-all": "pa-i",
    "stsd-i-rand": "pa-i",
    "stsd-i-per": "perceptron",
}
_SELECT = {"stsd-i-all": "none", "stsd-i-rand": "random"}


def budget_of(budget: float, d: int, original: bool = False) -> int:
    """How many weights truncation keeps at dimension ``d``.

    The paper: ``max(1, floor(B d))`` with ``B`` read as the decimal it was
    written as (so 0.29 of 100 keeps 29, not 28 from ``0.29 * 100 =
    28.999...``), and, as :class:`evofeat.linear.STSD` documents, a
    tolerance of 1e-9 (a budget of ``1 - 1e-16`` keeps all). The authors'
    code: MATLAB's ``round(B d)`` (halves up), no minimum.

    >>> budget_of(0.5, 7), budget_of(0.29, 100), budget_of(0.5, 7, original=True), budget_of(0.1, 4, True)
    (3, 29, 4, 0)
    >>> budget_of(0.9999999999999999, 2)
    2
    """
    if original:
        return int(Decimal(budget * d).to_integral_value(rounding=ROUND_HALF_UP))
    return max(1, math.floor(Fraction(repr(float(budget))) * d + Fraction(1, 10**9)))


def keep_largest(w: np.ndarray, k: int) -> None:
    """Zero all but the ``k`` largest ``|w|``, in place; among equal ``|w|`` the lower column stays."""
    support = [c for c in range(w.size) if w[c] != 0.0]
    if len(support) <= k:
        return
    ranked = sorted(support, key=lambda c: (-abs(w[c]), c))
    for c in ranked[k:]:
        w[c] = 0.0


def keep_random(w: np.ndarray, k: int, total: int, rng: SplitMix64, always: bool = False) -> None:
    """Keep a uniform ``k``-subset of ``total`` coordinates by selection sampling (Knuth's Algorithm S).

    The candidates are the support, by increasing column, then the zero
    coordinates (keeping a zero changes nothing, so they need no draw): the
    j-th candidate is kept if ``u (total - j) < k - kept``; no draw once
    ``k`` are kept. Without ``always`` a support of at most ``k`` is left
    alone; with it (``STSD_rand.m``, which masks ``w`` after every update)
    it is drawn from as well.
    """
    support = [c for c in range(w.size) if w[c] != 0.0]
    if len(support) <= k and not (always and support):
        return
    kept = 0
    for j, c in enumerate(support):
        if kept < k and rng.uniform() * (total - j) < k - kept:
            kept += 1
        else:
            w[c] = 0.0


def _tau(rule: str, C: float, loss: float, sq: float, margin: float, original: bool) -> float:
    if rule == "perceptron":
        return 1.0
    if (
        original
    ):  # the authors' code divides by ||x||, and writes STSD-II's bracket as 1 - y f / (.)
        nrm = math.sqrt(sq)
        if rule == "pa-ii":
            return 1.0 - margin / (nrm + 1.0 / (2.0 * C))
    else:
        nrm = sq
        if rule == "pa-ii":  # Eq. 8
            return loss / (nrm + 1.0 / (2.0 * C))
    if rule == "pa":  # Eq. 5
        return loss / nrm
    return min(C, loss / nrm)  # Eq. 7


def stsd(
    X: np.ndarray,
    y: np.ndarray,
    mode: str = "stsd-i",
    C: float = 0.1,
    radius: float = 30.0,
    budget: float = 0.5,
    variant: str = "paper",
    project: bool | None = None,
    seed: int = 0,
    step: str = "paper",
    lr: float = 1.0,
    eps: float = 1e-8,
    rand_mask: str = "over-budget",
    fit_intercept: bool = False,
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Predicted labels (0: no decision), scores, and ``w`` after each row.

    ``variant="original-code"``: an update whenever ``y f <= 1``; ``tau``
    divides by ``||x||``; on the first row of a new stage (the dimension
    grew) the old coordinates take the step and the new ones are set to
    ``tau' y x^`` with ``tau'`` the tau of the last update (``y x^`` for the
    perceptron rule), then scaling and truncation; on other rows scaling and
    truncation follow an update only; ``round(B d)`` weights are kept; the
    L1 scaling is skipped by -all and -rand; -rand keeps a uniform subset of
    all ``d`` coordinates (``rand_mask="always"``: whatever the support's
    size, as ``STSD_rand.m``). ``project`` overrides the scaling rule.
    STSD-I-rand draws from :class:`~oracle.SplitMix64` seeded with ``seed``.

    >>> X = np.array([[1.0, np.nan], [1.0, 1.0], [np.nan, 1.0]])
    >>> stsd(X, np.array([1.0, -1.0, -1.0]), mode="stsd")[0]
    array([ 0.,  1., -1.])
    """
    rule = _RULES[mode]
    select = _SELECT.get(mode, "largest")
    original = variant == "original-code"
    if project is None:
        project = not original or select == "largest"
    n, d_all = X.shape
    w, G = np.zeros(d_all), np.zeros(d_all)
    seen = np.zeros(d_all, dtype=bool)
    rng = SplitMix64(seed)
    last_tau, b, Gb = 0.0, 0.0, 0.0
    labels, scores, history = np.empty(n), np.empty(n), []
    for t, cols, x, _ in rows(X):
        d_before = int(seen.sum())
        seen[cols] = True
        d = int(seen.sum())
        f = dot(w, x, cols) + (b if fit_intercept else 0.0)
        scores[t], labels[t] = f, (1.0 if f > 0 else (-1.0 if f < 0 else 0.0))
        margin = y[t] * f
        loss = max(0.0, 1.0 - margin)
        if original:
            update = margin <= 1.0
        else:
            update = margin <= 0.0 if rule == "perceptron" else loss > 0.0
        sq = sq_norm(x, cols) + (1.0 if fit_intercept else 0.0)
        stepped = update and 0.0 < sq < math.inf
        tau = 0.0
        if stepped:
            tau = _tau(rule, C, loss, sq, margin, original)
            last_tau = tau
        if original and 0 < d_before < d:  # the first row of a new stage
            old, new = cols[cols < d_before], cols[cols >= d_before]
            if stepped:
                w[old] += (tau * y[t]) * x[old]
                b += tau * y[t]
            w[new] += ((1.0 if rule == "perceptron" else last_tau) * y[t]) * x[new]
        elif stepped and step == "adagrad-tau":
            nz = [c for c in cols.tolist() if x[c] != 0.0]
            for c in nz:
                G[c] += x[c] * x[c]
            sq_m = sum(x[c] * x[c] / math.sqrt(eps + G[c]) for c in nz)
            if fit_intercept:
                Gb += 1.0
                sq_m += 1.0 / math.sqrt(eps + Gb)
            if 0.0 < sq_m < math.inf:
                a = _tau(rule, C, loss, sq_m, margin, False) * y[t]
                for c in nz:
                    w[c] += a * x[c] / math.sqrt(eps + G[c])
                b += a / math.sqrt(eps + Gb)
        elif stepped and step == "adagrad":
            for c in cols.tolist():
                if x[c] != 0.0:
                    g = -y[t] * x[c]
                    G[c] += g * g
                    w[c] -= lr * g / math.sqrt(eps + G[c])
            if fit_intercept:  # the input 1's subgradient is -y
                Gb += 1.0
                b += lr * y[t] / math.sqrt(eps + Gb)
        elif stepped:
            w[cols] += (tau * y[t]) * x[cols]
            b += tau * y[t]
        elif original:
            history.append(w.copy())
            continue
        if project:
            l1 = float(np.sum(np.abs(w)))
            if l1 > radius:
                w *= radius / l1
        if select != "none":
            k = budget_of(budget, d, original)
            if select == "largest":
                keep_largest(w, k)
            else:
                support = int(np.count_nonzero(w))
                always = rand_mask == "always"
                keep_random(w, k, d if original else support, rng, always)
        history.append(w.copy())
    return labels, scores, history


def _pa_tau(rule: str, C: float, loss: float, denom: float) -> float:
    """tau of PA / PA-I / PA-II with ``denom`` in place of ``||x||^2``."""
    if rule == "pa":
        return loss / denom
    if rule == "pa-i":
        return min(C, loss / denom)
    return loss / (denom + 1.0 / (2.0 * C))


def stsd_regression(
    X: np.ndarray,
    y: np.ndarray,
    mode: str = "stsd-i",
    C: float = 0.1,
    epsilon: float = 0.1,
    radius: float = 30.0,
    budget: float = 0.5,
    fit_intercept: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """The paper's STSD round with PA regression's epsilon-insensitive loss (Crammer et al. Sec. 6).

    Predict ``f = w . x~``; ``l = max(0, |y - f| - epsilon)``; if ``l > 0``:
    ``w <- [w + tau s x~, tau s x^]``, ``s = sign(y - f)``; then the L1 ball and
    the ``max(1, floor(B d))`` largest ``|w|``, every row. Returns (predictions, predictions).
    """
    rule = _RULES[mode]
    w, seen = np.zeros(X.shape[1]), np.zeros(X.shape[1], dtype=bool)
    out, b = np.empty(len(y)), 0.0
    for t, cols, x, _ in rows(X):
        seen[cols] = True
        f = dot(w, x, cols) + (b if fit_intercept else 0.0)
        out[t] = f
        loss = max(0.0, abs(y[t] - f) - epsilon)
        sq = sq_norm(x, cols) + (1.0 if fit_intercept else 0.0)
        if loss > 0 and 0 < sq < math.inf:
            a = _pa_tau(rule, C, loss, sq) * (1.0 if y[t] > f else -1.0)
            w[cols] += a * x[cols]
            b += a
        l1 = float(np.sum(np.abs(w)))
        if l1 > radius:
            w *= radius / l1
        keep_largest(w, budget_of(budget, int(seen.sum())))
    return out, out


def stsd_multiclass(
    X: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    mode: str = "stsd-i",
    C: float = 0.1,
    radius: float = 30.0,
    budget: float = 0.5,
    fit_intercept: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Multiclass STSD: one weight vector per class, the max-loss multiclass PA step (Sec. 7).

    Predict the class of highest score (the lowest among ties); ``r`` the
    best-scoring wrong class; ``l = max(0, 1 - (s_y - s_r))``; step
    ``W_y += tau x``, ``W_r -= tau x`` with ``tau`` of PA / PA-I / PA-II on
    ``2 ||x||^2``; scale onto ``sum |W| <= radius``; keep the
    ``max(1, floor(B d))`` features whose weight row has the largest L1 norm.
    Returns (labels, the predicted class's score).
    """
    rule = _RULES[mode]
    W, seen = np.zeros((X.shape[1], n_classes)), np.zeros(X.shape[1], dtype=bool)
    labels, scores = np.empty(len(y)), np.empty(len(y))
    b = np.zeros(n_classes)
    for t, cols, x, _ in rows(X):
        seen[cols] = True
        s = [dot(W[:, c], x, cols) + (b[c] if fit_intercept else 0.0) for c in range(n_classes)]
        best = max(range(n_classes), key=lambda c: (s[c], -c))
        labels[t], scores[t] = best, s[best]
        yt = int(y[t])
        r = max((c for c in range(n_classes) if c != yt), key=lambda c: (s[c], -c))
        loss = max(0.0, 1.0 - (s[yt] - s[r]))
        sq = sq_norm(x, cols) + (1.0 if fit_intercept else 0.0)
        if loss > 0 and 0 < sq < math.inf:
            tau = _pa_tau(rule, C, loss, 2.0 * sq)
            W[cols, yt] += tau * x[cols]
            W[cols, r] -= tau * x[cols]
            b[yt] += tau
            b[r] -= tau
        l1 = float(np.sum(np.abs(W)))
        if l1 > radius:
            W *= radius / l1
        norms = np.abs(W).sum(axis=1)
        keep_largest(norms, budget_of(budget, int(seen.sum())))
        W[norms == 0.0] = 0.0
    return labels, scores
