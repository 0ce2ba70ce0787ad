"""NAG in plain NumPy: the reference of :class:`evofeat.linear.NAG`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from reference.ftrl import run_reference
from reference.ogd import loss_reference
from reference.safe import MAX, dot_reference

__all__ = ["invariant_shrink_reference", "nag_reference"]


def nag_reference(
    X: np.ndarray,
    y: np.ndarray,
    lr: float = 0.5,
    loss: str = "logistic",
    intercept_lr: float | None = None,
    invariant: bool = False,
) -> np.ndarray:
    """Plain-NumPy NAG over a dense stream (NaN = absent); returns the predictions.

    ``intercept_lr``: learn a bias with this step scale, its own accumulator
    and scale 1 (``None``: no bias). ``invariant``: the steps shrunk by
    :func:`invariant_shrink_reference`.

    >>> nag_reference(np.array([[2.0, np.nan], [1.0, 4.0], [4.0, 1.0]]), np.array([1, -1, 1]))
    array([-1.,  1.,  1.])
    """
    d = X.shape[1]
    w, s, G, step = np.zeros(d), np.zeros(d), np.zeros(d), np.zeros(d)
    b, Gb, tN = np.zeros(1), np.zeros(1), np.zeros(2)  # tN: t and N
    rows = zip(np.nan_to_num(X), y.astype(float), strict=True)  # weights(): once per row, in order
    cur: dict[str, Any] = {}  # the row: its values, label and rescaled weights

    def rescaled(vis: np.ndarray) -> np.ndarray:
        a = np.abs(cur["x"][vis])
        grow = (a > s[vis]) & (s[vis] > 0.0)
        return np.where(grow, w[vis] * (s[vis] / np.where(grow, a, 1.0)), w[vis])

    def weights(vis: np.ndarray) -> np.ndarray:
        cur["x"], cur["y"] = next(rows)
        cur["w"] = rescaled(vis)
        return cur["w"]

    def ratio(g: np.ndarray, acc: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            r = np.where(acc > 0.0, g / np.sqrt(acc), np.sign(g))
        return np.clip(np.where(g == 0.0, 0.0, r), -1.0, 1.0)

    def update(vis: np.ndarray, _: np.ndarray, g: np.ndarray) -> None:
        x = cur["x"][vis]
        f = dot_reference(cur["w"], x)  # the score again, as run_reference computed it
        if intercept_lr is not None:
            f = min(max(f + float(b[0]), -MAX), MAX)
        slope = loss_reference(loss, f, cur["y"])[1]
        w[vis] = cur["w"]
        s[vis] = np.maximum(s[vis], np.abs(x))
        sv = s[vis]
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(sv > 0.0, (np.abs(x) / np.where(sv > 0.0, sv, 1.0)) ** 2, 0.0)
        tN[0] += 1.0
        tN[1] = min(tN[1] + (float(sum(terms.tolist())) + (intercept_lr is not None)), MAX)
        if not tN[1] > 0.0:
            return
        q = np.sqrt(tN[0] / tN[1])
        on = g != 0.0
        cols = np.flatnonzero(vis)[on]
        G[cols] = np.clip(G[cols] + g[on] * g[on], -MAX, MAX)
        step[:] = 0.0
        step[cols] = np.clip(lr * q * ratio(g[on], G[cols]) / s[cols], -MAX, MAX)
        db = 0.0
        if intercept_lr is not None and slope != 0.0:
            Gb[:] = np.clip(Gb + slope * slope, -MAX, MAX)
            db = float(intercept_lr * q * ratio(np.array([slope]), Gb)[0])
        shrink = 1.0
        if invariant:
            D = 0.0
            for dk, v in zip(step[vis].tolist(), x.tolist(), strict=True):  # left to right
                D = min(max(D + dk * v, -MAX), MAX)
            D = min(max(D + db, -MAX), MAX)
            shrink = invariant_shrink_reference(loss, D, slope, f, cur["y"])
        w[cols] = np.clip(w[cols] - shrink * step[cols], -MAX, MAX)
        b[:] = np.clip(b - shrink * db, -MAX, MAX)

    intercept = None if intercept_lr is None else (lambda: float(b[0]), lambda _: None)
    return run_reference(X, y, loss, weights, update, intercept)


def invariant_shrink_reference(loss: str, D: float, slope: float, f: float, y: float) -> float:
    """The factor that turns a gradient step into its importance-invariant version (see :class:`NAG`).

    ``D``: how far the gradient step moves the score (down); ``slope``:
    ``dl/df`` at the score ``f`` of label ``y``. The same operations in the
    same order as the compiled core.

    >>> round(invariant_shrink_reference("square", -0.5, -1.0, 0.0, 1.0), 6)  # a = 0.5
    0.632121
    >>> round(invariant_shrink_reference("logistic", -4.0, -0.5, 0.0, 1.0), 6)  # a = 8
    0.488163
    >>> invariant_shrink_reference("logistic", 0.0, -0.5, 0.0, 1.0)  # no step
    1.0
    """
    if D == 0.0 or slope == 0.0:
        return 1.0
    a = D / slope
    if not (0.0 < a <= MAX):
        return 1.0
    if loss == "square":
        return -math.expm1(-2.0 * a) / (2.0 * a)
    try:
        E = math.exp(y * f)
    except OverflowError:
        E = math.inf
    d1 = a / (1.0 + E)
    if not d1 > 0.0:
        return 1.0
    d = min(d1, math.log1p(a / E) if E > 0.0 else a)
    for _ in range(100):
        r = d + E * math.expm1(d) - a
        if not r > 0.0:
            break
        nxt = d - r / (1.0 + E * math.exp(d))
        if not nxt < d:
            break
        d = nxt
    return d / d1
