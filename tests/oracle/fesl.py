"""OGD and FESL-c, FESL-s, NOGD, ROGD-u, ROGD-f (Hou, Zhang, Zhou, NIPS 2017).

Written from the paper (the formulas lost from the text are restated in
../shared/papers/README.md) with explicit vectors and an explicit map matrix,
plus the stream-driving rules :class:`evofeat.ensemble.FESL` documents
(features join a space when first visible; an overlap row shows the current
and the next space; the switch comes with the first row that shows the next
space and none of the current one; a row with values only in the next space
is predicted as after the switch; several cycles S1 -> S2 -> S3 ...).

- OGD (Eq. 1): ``w <- w - tau_t dl(w . x, y)/df x``, ``tau_t = lr / sqrt(t)``.
- Map (Algorithm 1): ``M = argmin ||X1 - X2 M||^2``, the minimum-norm least
  squares solution over the kept overlap rows; ``psi(x2) = M^T x2``.
- After a switch: ``f1 = w1 . psi(x2)`` (``w1`` updated by OGD on ``psi(x2)``,
  Eq. 4), ``f2 = w2 . x2`` (OGD from 0). FESL-c predicts ``a1 f1 + a2 f2``,
  ``a_i ~ exp(-eta L_i)``, ``eta = sqrt(8 ln 2 / T2)`` (Eq. 2-3); FESL-s
  predicts ``f_i`` with probability ``a_i`` and tracks ``a`` by fixed share
  (Eq. 7-8). ``T2 = horizon``, or the running count when ``horizon`` is None.

Not the paper's, as FESL documents them: ``base="adagrad"`` steps the model of
the current space by diagonal AdaGrad (``G_i += g_i^2``, ``w_i -= lr g_i /
sqrt(eps + G_i)``, ``G`` from 0 with each new model; the recovered model keeps
OGD); ``fit_intercept`` gives each of the two models a bias on a constant
input 1, not part of the map: ``f2 = w2 . x2 + b2`` with ``b2`` stepped by the
model's own rule on the input 1 (OGD: ``b2 -= tau g``; AdaGrad: its own
accumulator), ``f1 = w1 . psi(x2) + b1`` with ``b1 -= tau g1`` as ``w1``; at a
switch the next old model is the predictor on the vanishing space, so its
bias is ``a1 b1 + a2 b2``, and the new model's bias (and state) starts at 0.
"""

from __future__ import annotations

import math

import numpy as np

from oracle import SplitMix64, dot, rows

__all__ = ["METHODS", "fesl", "logistic", "ogd", "square"]

METHODS = ("fesl-c", "fesl-s", "nogd", "rogd-u", "rogd-f")


def logistic(f: float, y: float) -> tuple[float, float]:
    """``ln(1 + exp(-y f))`` and its derivative in ``f``, ``-y / (1 + exp(y f))``, computed stably."""
    m = -y * f
    loss = m + math.log1p(math.exp(-m)) if m > 0 else math.log1p(math.exp(m))
    sig = 1.0 / (1.0 + math.exp(-m)) if m >= 0 else math.exp(m) / (1.0 + math.exp(m))
    return loss, -y * sig


def square(f: float, y: float) -> tuple[float, float]:
    """``(y - f)^2`` and ``-2 (y - f)``."""
    return (y - f) ** 2, -2.0 * (y - f)


_LOSS = {"logistic": logistic, "square": square}


def _label(f: float, loss: str) -> float:
    return f if loss == "square" else (1.0 if f > 0 else -1.0)


def ogd(
    X: np.ndarray,
    y: np.ndarray,
    lr: float = 1.0,
    loss: str = "logistic",
    fit_intercept: bool = False,
    intercept_lr: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """OGD on all visible features: labels (the score for the square loss) and scores.

    With ``fit_intercept``, a bias ``b`` (the weight of a constant input 1)
    is added to the score after the features' sum and stepped as they are:
    ``b -= intercept_lr / sqrt(t) g`` (``intercept_lr`` defaults to ``lr``).

    >>> ogd(np.array([[1.0, np.nan], [1.0, 2.0]]), np.array([1, -1]))[0]
    array([-1.,  1.])
    """
    w = np.zeros(X.shape[1])
    b, rate = 0.0, lr if intercept_lr is None else intercept_lr
    labels, scores = np.empty(len(y)), np.empty(len(y))
    for t, cols, x, _ in rows(X):
        f = dot(w, x, cols)
        if fit_intercept:
            f += b
        scores[t], labels[t] = f, _label(f, loss)
        g = _LOSS[loss](f, float(y[t]))[1]
        w[cols] -= (lr / math.sqrt(t + 1) * g) * x[cols]
        if fit_intercept:
            b -= rate / math.sqrt(t + 1) * g
    return labels, scores


def least_squares_map(P: np.ndarray, old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """``M`` (``d x d``, non-zero on ``new x old``): ``argmin ||X1 - X2 M||`` of minimum norm.

    ``X1``, ``X2``: the old-space and new-space parts of the kept overlap rows ``P``.
    """
    d = P.shape[1]
    M = np.zeros((d, d))
    if len(P) and old.any() and new.any():
        sol = np.linalg.lstsq(P[:, new], P[:, old], rcond=None)[0]
        M[np.ix_(np.flatnonzero(new), np.flatnonzero(old))] = sol
    return M


def entropy(p: float) -> float:
    """The binary entropy in nats (0 at 0 and 1)."""
    return 0.0 if p <= 0 or p >= 1 else -p * math.log(p) - (1 - p) * math.log(1 - p)


def fesl(
    X: np.ndarray,
    y: np.ndarray,
    method: str = "fesl-c",
    lr: float = 1.0,
    loss: str = "logistic",
    overlap: int = 10,
    horizon: int | None = None,
    clock: str = "global",
    seed: int = 0,
    base: str = "ogd",
    eps: float = 1e-8,
    fit_intercept: bool = False,
) -> dict[str, np.ndarray]:
    """FESL and its baselines over a dense stream (NaN = absent).

    Returns ``labels``, ``scores`` and ``a1`` (the old model's weight for the
    next row, after each row; 0 before the first switch), per row.

    >>> X = np.array([[1.0, np.nan], [1.0, 2.0], [np.nan, 2.0], [np.nan, -2.0]])
    >>> fesl(X, np.array([1, 1, 1, -1]), overlap=1)["labels"]
    array([-1.,  1.,  1., -1.])
    """
    lossf = _LOSS[loss]
    n, d = X.shape
    space = np.zeros(d, dtype=np.int64)  # 0: not seen yet; k: the space S_k
    cur = switches = t = tp = 0
    rng = SplitMix64(seed)
    w = np.zeros(d)  # OGD on the current space (before the first switch: the only model)
    G = np.zeros(d)  # its AdaGrad accumulators (base="adagrad")
    b = Gb = 0.0  # its bias and the bias's accumulator (fit_intercept)
    w_old = np.zeros(d)  # the old model, on the previous space
    b_old = 0.0  # its bias
    M = np.zeros((d, d))  # psi(x) = M^T x: the current space back to the previous one
    kept: list[np.ndarray] = []  # overlap rows kept for the next map
    alpha = np.array([0.5, 0.5])  # FESL-s
    L = np.zeros(2)  # FESL-c: cumulative losses since the switch
    out = {k: np.empty(n) for k in ("labels", "scores", "a1")}
    both = False  # the last visible set shows the current and the next space

    def weights() -> tuple[float, float]:
        if switches == 0 or method == "nogd":
            return 0.0, 1.0
        if method in ("rogd-u", "rogd-f"):
            return 1.0, 0.0
        if method == "fesl-c":
            eta = math.sqrt(8 * math.log(2) / (horizon or tp + 1))
            e1, e2 = math.exp(-eta * (L[0] - L.min())), math.exp(-eta * (L[1] - L.min()))
            return e1 / (e1 + e2), e2 / (e1 + e2)
        return alpha[0] / alpha.sum(), alpha[1] / alpha.sum()

    def combine(f1: float, f2: float, a1: float, a2: float) -> float:
        if method == "fesl-c":
            return a1 * f1 + a2 * f2
        if method == "fesl-s":
            return f1 if rng.peek() < a1 else f2
        return f1 if a1 > 0 else f2

    def next_cycle() -> tuple[np.ndarray, np.ndarray, float]:
        """The next map and the next old model (weights, bias): the predictor now used on the current space."""
        a1, a2 = weights()
        model = a2 * w + a1 * (M @ w_old)
        P = np.array(kept).reshape(-1, d)
        return (
            least_squares_map(P, space == cur, space == cur + 1),
            np.where(space == cur, model, 0.0),
            a1 * b_old + a2 * b,
        )

    def step(
        w: np.ndarray, G: np.ndarray, b: float, Gb: float, rate: float, g: float, x: np.ndarray
    ) -> tuple[np.ndarray, float, float]:
        """The current model's step on the row ``x`` (and the input 1): OGD at ``rate``, or AdaGrad."""
        if base == "adagrad":
            G += (g * x) ** 2
            w -= lr * (g * x) / np.sqrt(eps + G)
            if fit_intercept:
                Gb += g * g
                b -= lr * g / math.sqrt(eps + Gb)
            return w, b, Gb
        w -= (rate * g) * x
        if fit_intercept:
            b -= rate * g
        return w, b, Gb

    for i, cols, x, changed in rows(X):
        yi = float(y[i])
        xc = np.where(space == cur, x, 0.0) if cur else np.zeros(d)
        xn = np.where(space == cur + 1, x, 0.0)
        if cur == 0:
            s = 0.0
        elif kept and not xc.any() and xn.any():  # as after the coming switch: new model at 0
            M_next, w_next, b_next = next_cycle()
            f1 = float(w_next @ (M_next.T @ xn)) + (b_next if fit_intercept else 0.0)
            s = (
                0.0
                if method == "nogd"
                else combine(f1, 0.0, *((0.5, 0.5) if method.startswith("fesl") else (1.0, 0.0)))
            )
        else:
            a1, a2 = weights()
            s = combine(
                float(w_old @ (M.T @ xc)) + (b_old if fit_intercept else 0.0),
                dot(w, xc, cols) + (b if fit_intercept else 0.0),
                a1,
                a2,
            )
        out["scores"][i], out["labels"][i] = s, _label(s, loss)
        if changed:  # the learner is told the visible set
            space[cols[space[cols] == 0]] = cur + 1 if (space > 0).any() else 1
            cur = max(cur, 1)
            if (space[cols] == cur + 1).any() and not (space[cols] == cur).any():  # the switch
                M, w_old, b_old = next_cycle()
                kept, w, G, b, Gb = [], np.zeros(d), np.zeros(d), 0.0, 0.0
                cur, switches, tp = cur + 1, switches + 1, 0
                alpha, L = np.array([0.5, 0.5]), np.zeros(2)
            both = (space[cols] == cur).any() and (space[cols] == cur + 1).any()
        t += 1
        xc = np.where(space == cur, x, 0.0)
        if both and len(kept) < overlap:
            kept.append(np.where(space[np.arange(d)] >= cur, x, 0.0))
        tau = lr / math.sqrt(t)
        if switches == 0:
            g = lossf(dot(w, xc, cols) + (b if fit_intercept else 0.0), yi)[1]
            w, b, Gb = step(w, G, b, Gb, tau, g, xc)
        else:
            tp += 1
            xr = M.T @ xc  # the recovered old-space row
            f1, f2 = float(w_old @ xr), dot(w, xc, cols)
            if fit_intercept:
                f1, f2 = f1 + b_old, f2 + b
            (l1, g1), (l2, g2) = lossf(f1, yi), lossf(f2, yi)
            if method == "fesl-c":
                L += [l1, l2]
            elif method == "fesl-s":  # fixed share over n = 2 models
                T = horizon or tp + 1
                delta = 1.0 / (T - 1)
                eta = math.sqrt(8.0 / T * (2 * math.log(2) + (T - 1) * entropy(delta)))
                v = alpha * np.exp(-eta * (np.array([l1, l2]) - min(l1, l2)))
                alpha = delta * v.sum() + (1 - delta) * v
                alpha = alpha / alpha.sum()
                rng.advance()
            if method in ("rogd-u", "fesl-c", "fesl-s"):
                w_old -= (tau * g1) * xr
                if fit_intercept:
                    b_old -= tau * g1
            if method in ("nogd", "fesl-c", "fesl-s"):
                rate = tau if clock == "global" else lr / math.sqrt(tp)
                w, b, Gb = step(w, G, b, Gb, rate, g2, xc)
        out["a1"][i] = weights()[0]
    return out
