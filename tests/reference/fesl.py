"""FESL-c, FESL-s and the baselines NOGD, ROGD-u, ROGD-f in plain NumPy: the reference of :class:`evofeat.ensemble.FESL`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import expit

from evofeat.ensemble.fesl import FESL, METHODS
from evofeat.linear.ogd import LOSSES
from reference import ftrl
from reference.mapping import gram_pinv, recover
from reference.ogd import loss_reference, step_reference
from reference.safe import MAX, dot_reference, saturate_reference, unscale_reference

__all__ = ["fesl_reference"]

_LN2 = math.log(2.0)
#: an overlap row whose largest value lies outside [_SMALL, _BIG] is stored rescaled.
_BIG, _SMALL = 2.0**100, 2.0**-100
#: a loss entering the ensemble weights is capped here; cumulative losses are kept below 2 _LCAP.
_LCAP = 2.0**1000


def _splitmix_uniform(s: int) -> tuple[int, float]:
    """Plain-Python SplitMix64: the next state and its uniform in [0, 1)."""
    mask = (1 << 64) - 1
    s = (s + 0x9E3779B97F4A7C15) & mask
    z = s
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    z ^= z >> 31
    return s, (z >> 11) / 2.0**53


def fesl_reference(X: np.ndarray, y: np.ndarray, return_scores: bool = False, **params: Any) -> Any:
    """Plain-NumPy FESL over a dense stream (NaN = absent); returns the predictions.

    Written from the paper with explicit vectors: ``w1`` of the old space,
    the overlap rows ``X1``, ``X2`` as matrices, ``psi`` by
    :func:`~evofeat.ensemble.mapping.recover`. It follows the same rules as
    :class:`FESL` for assigning features to spaces and detecting switches.
    ``params`` are :class:`FESL`'s; ``return_scores=True`` also returns the
    scores and the losses.

    >>> X = np.array([[1.0, np.nan], [1.0, 2.0], [np.nan, 2.0], [np.nan, -2.0]])
    >>> fesl_reference(X, np.array([1, 1, 1, -1]), overlap=1)
    array([-1.,  1.,  1., -1.])
    """
    p = FESL(**params).get_params()
    fit = p["fit_intercept"]
    # the biases (fit_intercept): the current model's b, its state bG (AdaGrad's / NAG's G, FTRL's
    # n) and bz (FTRL's z), and the old model's b_old
    bias = {"b": 0.0, "bG": 0.0, "bz": 0.0, "b_old": 0.0}

    def plus(f: float, b: float) -> float:
        """A score plus a bias (saturated), or the score without ``fit_intercept``."""
        return float(saturate_reference(f + b)) if fit else f

    def step_bias(slope: float) -> None:
        """The current model's bias: its base's step on the input 1 (gradient ``slope``)."""
        g = float(saturate_reference(slope))
        if p["base"] == "adagrad":
            bias["bG"] = float(saturate_reference(bias["bG"] + g * g))
            step = saturate_reference(-p["lr"] * (g / math.sqrt(p["eps"] + bias["bG"])))
            bias["b"] = float(saturate_reference(bias["b"] + step))
        else:  # FTRL, no L1 or L2
            zb, nb = ftrl.ftrl_step_reference(
                np.array([bias["bz"]]), np.array([bias["bG"]]), np.array([bias["b"]]),
                np.array([g]), lr,
            )  # fmt: skip
            bias["bz"], bias["bG"] = float(zb[0]), float(nb[0])
            bias["b"] = float(ftrl.ftrl_weights_reference(zb, nb, lr, p["beta"], 0.0, 0.0)[0])

    def step_model(
        w: np.ndarray, G: np.ndarray, z: np.ndarray, tau: float, slope: float, x: np.ndarray
    ) -> Any:
        """The new model's step: OGD ``w - tau slope x``, AdaGrad or FTRL (``G``, ``z`` in place)."""
        if p["base"] == "ogd":
            if fit and abs(-tau * slope) <= MAX:
                bias["b"] = float(saturate_reference(bias["b"] + -tau * slope))
            return step_reference(w, -tau * slope, x)
        if not abs(slope) <= MAX:
            return w
        if p["base"] == "nag":
            return nag_step(w, G, slope, x)
        if fit:
            step_bias(slope)
        with np.errstate(over="ignore"):
            g = saturate_reference(slope * x)
            if p["base"] == "ftrl":
                z[:], G[:] = ftrl.ftrl_step_reference(z, G, w, g, lr)
                return ftrl.ftrl_weights_reference(z, G, lr, p["beta"], p["l1"], p["l2"])
            G[:] = saturate_reference(G + g * g)
            return saturate_reference(
                w + saturate_reference(-p["lr"] * (g / np.sqrt(p["eps"] + G)))
            )

    def scored(w: np.ndarray, x: np.ndarray) -> np.ndarray:
        """The current model's weights for the row ``x``: NAG's rescaled to the new scales."""
        if p["base"] != "nag":
            return w
        a = np.abs(x)
        grow = (a > S) & (S > 0.0)
        return np.where(grow, w * (S / np.where(grow, a, 1.0)), w)

    def nag_step(w: np.ndarray, G: np.ndarray, slope: float, x: np.ndarray) -> np.ndarray:
        """NAG's row: rescale, ``t += 1``, ``N += sum (x_i / s_i)^2``, the normalised steps."""
        w = scored(w, x)
        S[:] = np.maximum(S, np.abs(x))
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(S > 0.0, (np.abs(x) / np.where(S > 0.0, S, 1.0)) ** 2, 0.0)
        tN[0] += 1.0
        tN[1] = min(tN[1] + (float(sum(terms.tolist())) + (1.0 if fit else 0.0)), MAX)
        if not tN[1] > 0.0:
            return w
        q = math.sqrt(tN[0] / tN[1])
        with np.errstate(over="ignore"):
            g = saturate_reference(slope * x)
        on = np.flatnonzero(g != 0.0)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            G[on] = saturate_reference(G[on] + g[on] * g[on])
            r = np.where(G[on] > 0.0, g[on] / np.sqrt(G[on]), np.sign(g[on]))
        step = saturate_reference(p["lr"] * q * np.clip(r, -1.0, 1.0) / S[on])
        w[on] = saturate_reference(w[on] - step)
        if fit and slope != 0.0:  # the input 1, of scale 1
            bias["bG"] = float(saturate_reference(bias["bG"] + slope * slope))
            rb = slope / math.sqrt(bias["bG"]) if bias["bG"] > 0.0 else math.copysign(1.0, slope)
            db = float(saturate_reference(p["lr"] * q * min(max(rb, -1.0), 1.0)))
            bias["b"] = float(saturate_reference(bias["b"] - db))
        return w

    loss, lr, overlap, horizon, ridge, clock = (
        p[k] for k in ("loss", "lr", "overlap", "horizon", "ridge", "clock")
    )
    kind, m = LOSSES[loss], METHODS[p["method"]]
    n, d = X.shape
    space = np.zeros(d, dtype=np.int64)
    cur = switches = t = tp = 0
    rng = p["seed"] & 0xFFFFFFFFFFFFFFFF
    w = np.zeros(d)  # the new model (the only one before the first switch)
    G = np.zeros(d)  # its AdaGrad accumulators / FTRL's n (base="adagrad" / "ftrl")
    z = np.zeros(d)  # FTRL's z (base="ftrl")
    S, tN = np.zeros(d), np.zeros(2)  # NAG's scales, and its t and N since the switch (base="nag")
    w_old = np.zeros(d)  # the old model, explicit
    X1 = X2 = np.zeros((0, d))  # overlap rows of the map in use (old part, new part)
    P: list[np.ndarray] = []  # collected overlap rows (NaN -> 0)
    alpha = np.array([0.5, 0.5])
    L = np.zeros(2)
    prev: np.ndarray | None = None
    out = np.empty((3, n))

    def weights() -> tuple[float, float]:
        if switches == 0 or m == 0:
            return 0.0, 1.0
        if m <= 2:
            return 1.0, 0.0
        if m == 3:
            eta = math.sqrt(8 * _LN2 / (horizon or tp + 1))
            a1 = float(expit(eta * (L[1] - L[0])))
            return a1, 1 - a1
        return alpha[0] / alpha.sum(), alpha[1] / alpha.sum()

    def combine(f1: float, f2: float, a1: float) -> float:
        if m == 3:
            return float(saturate_reference(a1 * f1 + (1 - a1) * f2))
        if m == 4:
            return f1 if _splitmix_uniform(rng)[1] < a1 else f2
        return f1 if a1 > 0 else f2

    def pending() -> tuple[np.ndarray, np.ndarray, float]:
        """The collected rows and the next cycle's old model (its bias): the predictor on the current space."""
        a1, a2 = weights()
        b_next = float(saturate_reference(a1 * bias["b_old"] + a2 * bias["b"]))
        v = a2 * w
        if a1 and len(X2):  # a1 psi^T w_old = a1 X2^T (X2 X2^T)^+ X1 w_old
            with np.errstate(over="ignore", invalid="ignore"):
                v = saturate_reference(v + a1 * X2.T @ (gram_pinv(X2, ridge) @ (X1 @ w_old)))
        return np.array(P).reshape(-1, d), np.where(space == cur, v, 0.0), b_next

    def recovered(X1_: np.ndarray, X2_: np.ndarray, x2: np.ndarray) -> tuple[np.ndarray, int]:
        """``psi(x2)`` as ``(xr, e)``, ``xr 2^e`` the recovered row: ``x2`` rescaled if ``X2 x2`` overflows."""
        with np.errstate(over="ignore", invalid="ignore"):
            if np.isfinite(X2_ @ x2).all():
                return recover(X1_, X2_, x2, ridge), 0
            e = int(np.frexp(np.max(np.abs(x2)))[1])
            return recover(X1_, X2_, np.ldexp(x2, -e), ridge), e

    for i in range(n):
        vis = ~np.isnan(X[i])
        x = np.where(vis, X[i], 0.0)
        xc = np.where(space == cur, x, 0.0) if cur else np.zeros(d)
        xn = np.where(space == cur + 1, x, 0.0)
        if cur == 0:
            s = 0.0
        elif P and not xc.any() and xn.any():  # predicted as after the coming switch
            R, w_next, b_next = pending()
            xr, e = recovered(R * (space == cur), R * (space == cur + 1), xn)
            f1 = plus(float(unscale_reference(dot_reference(w_next, xr), e)), b_next)
            s = 0.0 if m == 0 else combine(f1, 0.0, 0.5 if m >= 3 else 1.0)
        else:
            a1, _ = weights()
            f1 = 0.0
            if len(X2):
                xr, e = recovered(X1, X2, xc)
                f1 = float(unscale_reference(dot_reference(w_old, xr), e))
            f1 = plus(f1, bias["b_old"])
            s = combine(f1, plus(dot_reference(scored(w, xc), xc), bias["b"]), a1)
        out[0, i] = s if kind == 1 else (1.0 if s > 0 else -1.0)
        out[1, i] = s
        out[2, i] = loss_reference(loss, s, y[i])[0]
        if prev is None or not np.array_equal(vis, prev):  # the visible features changed
            new = vis & (space == 0)
            space[new] = cur + 1 if (space > 0).any() else 1
            cur = max(cur, 1)
            if (space[vis] == cur + 1).any() and not (space[vis] == cur).any():
                R, w_next, b_next = pending()
                X1, X2, w_old = R * (space == cur), R * (space == cur + 1), w_next
                bias.update(b=0.0, bG=0.0, bz=0.0, b_old=b_next if fit else 0.0)
                Kp = gram_pinv(X2, ridge)
                with np.errstate(over="ignore", invalid="ignore"):
                    h_finite = np.isfinite(Kp @ (X1 @ X1.T) @ Kp).all()
                if not h_finite:  # the map overflows: dropped, as if there were no overlap rows
                    X1 = X2 = np.zeros((0, d))
                P, w, G, z = [], np.zeros(d), np.zeros(d), np.zeros(d)
                S[:], tN[:] = 0.0, 0.0
                cur, switches, tp = cur + 1, switches + 1, 0
                alpha, L = np.array([0.5, 0.5]), np.zeros(2)
            prev = vis
        t += 1
        xc = np.where(space == cur, x, 0.0)
        both = (space[vis] == cur).any() and (space[vis] == cur + 1).any()
        if both and len(P) < overlap:
            row = np.where(vis & (space >= cur), x, 0.0)
            top = float(np.max(np.abs(row)))
            if top > _BIG or 0.0 < top < _SMALL:  # kept rescaled, as the kernel does
                row = np.ldexp(row, -int(np.frexp(top)[1]))
            P.append(row)
        tau = lr / math.sqrt(t)
        yi = float(y[i])
        if switches == 0:
            f = plus(dot_reference(scored(w, xc), xc), bias["b"])
            w = step_model(w, G, z, tau, loss_reference(loss, f, yi)[1], xc)
            continue
        tp += 1
        xr, e = (
            recovered(X1, X2, xc) if len(X2) else (np.zeros(d), 0)
        )  # the recovered old-space row
        f1 = plus(float(unscale_reference(dot_reference(w_old, xr), e)), bias["b_old"])
        f2 = plus(dot_reference(scored(w, xc), xc), bias["b"])
        (l1, g1), (l2, g2) = loss_reference(loss, f1, yi), loss_reference(loss, f2, yi)
        losses = np.minimum(np.array([l1, l2]), _LCAP)
        if m == 3:
            L += losses
            if L.max() > _LCAP:  # the weights depend on L2 - L1 only
                L = np.minimum(L - L.min(), _LCAP)
        if m == 4:
            T = horizon or tp + 1
            delta = 1 / (T - 1)
            H = 0.0 if delta >= 1 else -delta * math.log(delta) - (1 - delta) * math.log(1 - delta)
            eta = math.sqrt(8 / T * (2 * _LN2 + (T - 1) * H))
            v = alpha * np.exp(-eta * (losses - losses.min()))
            alpha = delta * v.sum() + (1 - delta) * v
            alpha /= alpha.sum()
            rng = _splitmix_uniform(rng)[0]
        if m in (1, 3, 4) and abs(tau * g1) <= MAX:
            w_old = saturate_reference(w_old - unscale_reference(tau * g1 * xr, e))
            if fit:  # its input 1
                bias["b_old"] = float(saturate_reference(bias["b_old"] - tau * g1))
        if m in (0, 3, 4):
            w = step_model(w, G, z, tau if clock == "global" else lr / math.sqrt(tp), g2, xc)
    return (out[0], out[1], out[2]) if return_scores else out[0]
