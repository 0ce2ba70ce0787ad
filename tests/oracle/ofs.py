"""OFS, PE_trun and RAND (Hoi et al. 2012; Wang et al., TKDE 2014), and OFS_P (partial inputs).

Written from the papers (Algorithms 1-3 of the BigMine paper, Algorithm 3
"learning with partial inputs" of the TKDE paper) with an explicit weight
vector, and from the choices :mod:`evofeat.linear.ofs` documents where the
papers are silent: the budget ``B = max(1, round(budget d))`` (halves up,
``d`` the features seen so far, recomputed when the visible set changes) or
a fixed count; truncation ties keep the lower column; a score of 0 is "no
decision" (label 0) unless ``zero_score="negative"``; RAND's draws and
OFS_P's draws by the counter-based SplitMix64 :func:`oracle.counter_uniform`.

``step="adagrad"`` (OFS and OFS_P; not the papers': Duchi, Hazan & Singer
2011, diagonal AdaGrad, as :class:`evofeat.linear.OFS` documents it): the step
``lr y x_i`` of each feature of the row with ``x_i != 0`` becomes
``-lr g_i / sqrt(eps + G_i)`` after ``G_i += g_i^2``, ``g = -y x`` (OFS_P: the
importance-weighted ``x``); decay, projection and truncation unchanged.
``truncate_by="sum"`` / ``"metric"`` (with AdaGrad) keeps the B largest
``|w_i| (eps + G_i)^p`` instead of ``|w_i|``, p = 1/2 / 1/4.

``fit_intercept`` (the learners' documented option, not the papers'): every
row also has a constant input 1, always observed, whose weight ``b`` is added
after the features' sum and takes the learner's own step on that input (OFS,
OFS_P: ``lr y`` when ``y f <= 1``, or AdaGrad's with its own ``G_b``; PE_trun,
RAND: ``y`` on a mistake); it is not a feature: no decay, no L2 ball, no
truncation.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from oracle import counter_uniform, dot, rows
from oracle.stsd import keep_largest

__all__ = ["ofs", "ofs_budget", "ofs_partial", "pe_trun", "rand"]


def ofs_budget(budget: float, d: int, budget_count: int | None = None) -> int:
    """B: ``budget_count``, else ``max(1, round(budget d))`` with halves rounded up (MATLAB).

    >>> ofs_budget(0.1, 24), ofs_budget(0.1, 25), ofs_budget(0.1, 3), ofs_budget(0.5, 9, 2)
    (2, 3, 1, 2)
    """
    if budget_count is not None:
        return int(budget_count)
    return max(1, int(Decimal(budget * d).to_integral_value(rounding=ROUND_HALF_UP)))


class _Trace:
    """What a run records: each row's label and score, and ``w`` after it."""

    def __init__(self, n: int, zero_score: str) -> None:
        self.labels, self.scores = np.empty(n), np.empty(n)
        self.history: list[np.ndarray] = []
        self.zero_score = zero_score

    def predict(self, t: int, f: float) -> None:
        self.scores[t] = f
        self.labels[t] = (
            1.0 if f > 0 else (0.0 if f == 0 and self.zero_score == "mistake" else -1.0)
        )

    def result(self) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
        return self.labels, self.scores, self.history


def _budgeted(
    X: np.ndarray, budget: float, budget_count: int | None
) -> Iterator[tuple[int, np.ndarray, np.ndarray, bool, int]]:
    """:func:`oracle.rows` with B, recomputed from the features seen when the visible set changes."""
    seen, B = np.zeros(X.shape[1], bool), 0
    for t, cols, x, changed in rows(X):
        if changed:
            seen[cols] = True
            B = ofs_budget(budget, int(seen.sum()), budget_count)
        yield t, cols, x, changed, B


def _project_l2(w: np.ndarray, radius: float) -> None:
    """``w <- min(1, radius / ||w||_2) w``, in place."""
    norm = math.sqrt(float(np.sum(w * w)))
    if norm > radius:
        w *= radius / norm


def _adagrad(G: np.ndarray, c: int, g: float, lr: float, eps: float) -> float:
    """AdaGrad's step of coordinate ``c`` for the subgradient ``g`` (``G[c] += g^2`` first)."""
    G[c] += g * g
    return -lr * g / math.sqrt(eps + G[c])


class _Bias:
    """The bias ``b`` on the constant input 1 (0 and never moved unless ``on``)."""

    def __init__(self, on: bool) -> None:
        self.on, self.b, self.G = on, 0.0, np.zeros(1)

    def score(self, f: float) -> float:
        return f + self.b if self.on else f

    def step(self, a: float) -> None:
        if self.on:
            self.b += a

    def step_ofs(self, y: float, lr: float, step: str, eps: float) -> None:
        """OFS's step on the input 1: ``lr y``, or AdaGrad's with the subgradient ``-y``."""
        self.step(lr * y if step == "paper" else _adagrad(self.G, 0, -y, lr, eps))


def _truncate(w: np.ndarray, B: int, G: np.ndarray, eps: float, truncate_by: str) -> None:
    """Keep the B largest ``|w_i|`` (``"weight"``) or ``|w_i| (eps + G_i)^p``, p = 1/2 for
    ``"sum"``, 1/4 for ``"metric"``; ties: the lower column."""
    if truncate_by == "weight":
        keep_largest(w, B)
        return
    p = {"sum": 0.5, "metric": 0.25}[truncate_by]
    support = [c for c in range(w.size) if w[c] != 0.0]
    for c in sorted(support, key=lambda c: (-abs(w[c]) * (eps + G[c]) ** p, c))[B:]:
        w[c] = 0.0


def _radius(l2: float, radius: float | None) -> float:
    if radius is not None:
        return radius
    return 1.0 / math.sqrt(l2) if l2 > 0 else math.inf


def ofs(
    X: np.ndarray,
    y: np.ndarray,
    lr: float = 0.2,
    l2: float = 0.01,
    budget: float = 0.1,
    budget_count: int | None = None,
    radius: float | None = None,
    zero_score: str = "mistake",
    step: str = "paper",
    eps: float = 1e-8,
    truncate_by: str = "weight",
    fit_intercept: bool = False,
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """OFS (Algorithm 3 with the truncation of Algorithm 2): labels, scores, ``w`` after each row.

    Each row: ``w <- (1 - lr l2) w``; if ``y w . x <= 1``: ``w <- w + lr y x``,
    ``w <- min(1, R / ||w||) w`` (``R``: ``radius``, default ``1 / sqrt(l2)``),
    keep the B largest ``|w|``.

    >>> ofs(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), np.array([1, 1, -1]), budget_count=1)[0]
    array([0., 1., 0.])
    """
    R = _radius(l2, radius)
    w, trace, G = np.zeros(X.shape[1]), _Trace(len(y), zero_score), np.zeros(X.shape[1])
    bias = _Bias(fit_intercept)
    for t, cols, x, _, B in _budgeted(X, budget, budget_count):
        f = bias.score(dot(w, x, cols))
        trace.predict(t, f)
        w *= 1.0 - lr * l2
        if y[t] * f <= 1.0:
            if step == "adagrad":
                for c in cols.tolist():
                    if x[c] != 0.0:
                        w[c] += _adagrad(G, c, -y[t] * x[c], lr, eps)
            else:
                w[cols] += (lr * y[t]) * x[cols]
            _project_l2(w, R)
            _truncate(w, B, G, eps, truncate_by)
            bias.step_ofs(y[t], lr, step, eps)
        trace.history.append(w.copy())
    return trace.result()


def pe_trun(
    X: np.ndarray,
    y: np.ndarray,
    budget: float = 0.1,
    budget_count: int | None = None,
    zero_score: str = "mistake",
    fit_intercept: bool = False,
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """PE_trun (Algorithm 1 with Algorithm 2): on a mistake ``w += y x``, keep the B largest ``|w|``."""
    w, trace, bias = np.zeros(X.shape[1]), _Trace(len(y), zero_score), _Bias(fit_intercept)
    for t, cols, x, _, B in _budgeted(X, budget, budget_count):
        f = bias.score(dot(w, x, cols))
        trace.predict(t, f)
        if y[t] * f <= 0:
            w[cols] += y[t] * x[cols]
            keep_largest(w, B)
            bias.step(y[t])
        trace.history.append(w.copy())
    return trace.result()


def rand(
    X: np.ndarray,
    y: np.ndarray,
    budget: float = 0.1,
    budget_count: int | None = None,
    seed: int = 0,
    zero_score: str = "mistake",
    fit_intercept: bool = False,
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """RAND: a perceptron on a random set of B features.

    When the visible set changes and B exceeds the set, the open slots are
    filled from the visible features outside the set (by increasing column)
    with a partial Fisher-Yates shuffle: the i-th slot swaps in position
    ``i + floor(u (m - i))``, ``u`` the next draw of stream 0 (draws counted
    over the whole run).
    """
    w, trace = np.zeros(X.shape[1]), _Trace(len(y), zero_score)
    chosen = np.zeros(X.shape[1], bool)
    draws, bias = 0, _Bias(fit_intercept)
    for t, cols, x, changed, B in _budgeted(X, budget, budget_count):
        f = bias.score(dot(w, x, cols))
        trace.predict(t, f)
        if changed:
            free = [int(c) for c in cols if not chosen[c]]
            for i in range(min(B - int(chosen.sum()), len(free))):
                r = i + int(counter_uniform(seed, 0, draws) * (len(free) - i))
                draws += 1
                free[i], free[r] = free[r], free[i]
                chosen[free[i]] = True
        if y[t] * f <= 0:
            mine = cols[chosen[cols]]
            w[mine] += y[t] * x[mine]
            bias.step(y[t])
        trace.history.append(w.copy())
    return trace.result()


def _floyd(visible: list[int], k: int, seed: int, t: int) -> set[int]:
    """A uniform ``k``-subset of ``visible`` by Floyd's algorithm, draws ``1..k`` of stream ``t``."""
    m = len(visible)
    picked: set[int] = set()
    for i, j in enumerate(range(m - k, m)):
        c = visible[int(counter_uniform(seed, t, 1 + i) * (j + 1))]
        picked.add(visible[j] if c in picked else c)
    return picked


def ofs_partial(
    X: np.ndarray,
    y: np.ndarray,
    lr: float = 0.2,
    l2: float = 0.01,
    budget: float = 0.1,
    budget_count: int | None = None,
    radius: float | None = None,
    epsilon: float = 0.2,
    seed: int = 0,
    zero_score: str = "mistake",
    step: str = "paper",
    eps: float = 1e-8,
    truncate_by: str = "weight",
    fit_intercept: bool = False,
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """OFS_P: labels, scores, ``w`` after each row.

    Row ``t`` explores when draw 0 of stream ``t`` is below ``epsilon``: it
    observes ``min(B, m)`` of the ``m`` visible features, drawn by Floyd's
    algorithm; otherwise the support of ``w``. The prediction uses the
    observed attributes with the visible set and B known before the row; the
    update recomputes them after the learner is told the row's visible set.
    Update (margin ``<= 1``): OFS's step on the observed row, each value
    divided by ``epsilon min(1, B/m) + (1 - epsilon) [w_i != 0]``.
    """
    R = _radius(l2, radius)
    w, trace, G = np.zeros(X.shape[1]), _Trace(len(y), zero_score), np.zeros(X.shape[1])
    B, visible = 0, list[int]()  # as known before the row: its prediction draws from these
    bias = _Bias(fit_intercept)

    def observed(t: int, cols: np.ndarray) -> tuple[bool, np.ndarray]:
        if not counter_uniform(seed, t, 0) < epsilon:
            return False, cols
        picked = _floyd(visible, min(B, len(visible)), seed, t)
        return True, np.array([c for c in cols.tolist() if c in picked], dtype=np.int64)

    for t, cols, x, changed, B_now in _budgeted(X, budget, budget_count):
        trace.predict(t, bias.score(dot(w, x, observed(t, cols)[1])))
        if changed:
            B, visible = B_now, cols.tolist()
        explore, obs = observed(t, cols)
        f = bias.score(dot(w, x, obs))
        w *= 1.0 - lr * l2
        if y[t] * f <= 1.0:
            m = len(visible)
            q_explore = epsilon * min(1.0, B / m) if m > 0 else 0.0
            held = w != 0.0
            delta = np.zeros_like(w)
            for c in (obs if explore else cols[held[cols]]).tolist():
                q = q_explore + (1.0 - epsilon) * held[c]
                if step == "paper":
                    delta[c] = lr * y[t] * x[c] / q
                elif x[c] != 0.0:
                    delta[c] = _adagrad(G, c, -y[t] * x[c] / q, lr, eps)
            w += delta
            _project_l2(w, R)
            _truncate(w, B, G, eps, truncate_by)
            bias.step_ofs(y[t], lr, step, eps)  # the input 1 is always observed
        trace.history.append(w.copy())
    return trace.result()
