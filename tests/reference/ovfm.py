"""OVFM in plain NumPy: the reference of :mod:`evofeat.haphazard.ovfm`."""

from __future__ import annotations

import numpy as np

from reference.copula import copula_reference

__all__ = ["ovfm_reference"]

_DECAYS = {
    0: lambda t: 1.0 - 1.0 / np.cbrt(t),
    1: lambda t: 1.0 - 1.0 / np.sqrt(t),
    2: lambda t: (t - 1.0) / t,
    3: lambda t: t / (t + 1.0),
    4: lambda t: 1.0 - np.log(t) / (2.0 * t),
}


def ovfm_reference(
    X: np.ndarray,
    y: np.ndarray,
    decay_choice: int = 4,
    contribute_error_rate: float = 0.001,
    window: int = 100,
    learn: bool = True,
    forget: float = 0.01,
    ridge: float = 1e-6,
) -> tuple[np.ndarray, np.ndarray]:
    """OVFM in plain NumPy over a dense stream (NaN: absent), labels ``y`` in {-1, +1}: its
    labels and scores. Row ``k`` of each array below is classifier ``k`` (0: observed, 1: latent).

    >>> ovfm_reference(np.array([[1.0], [2.0], [1.5]]), np.array([1.0, 1.0, -1.0]))[0].tolist()
    [-1.0, 1.0, 1.0]
    """
    n, d = X.shape
    latent = copula_reference(X, window, forget, ridge, learn)
    v, h, z = np.zeros((2, d + 1)), np.zeros((2, d + 1)), np.zeros((2, d + 1))
    r = np.ones(2)
    # per classifier: times, fails, times_warn, fails_warn, p_min, s_min
    det = np.array([[0.0, 0.0, 0.0, 0.0, 1.0, 10.0]] * 2)
    lam, cum = 0.5, np.zeros(2)
    labels, scores = np.empty(n), np.empty(n)
    for t in range(n):
        rows = np.nan_to_num(np.vstack([X[t], latent[t]]), nan=0.0)
        rows = np.hstack([np.ones((2, 1)), rows])
        w = -z / r[:, None]
        f = np.einsum("kj,kj->k", w, rows)
        scores[t] = lam * f[0] + (1.0 - lam) * f[1]
        labels[t] = 1.0 if scores[t] > 0 else -1.0
        target = 1.0 if y[t] > 0 else 0.0
        p = 1.0 / (1.0 + np.exp(-f))
        cum += np.maximum(f, 0.0) - target * f + np.log1p(np.exp(-np.abs(f)))
        decay = np.empty(2)
        for k in range(2):
            wrong = float(abs(target - p[k]) > 0.5)
            det[k, 0] += 1.0
            det[k, 1] += wrong
            decay[k] = _DECAYS[decay_choice](det[k, 0])
            if det[k, 0] > 30:
                rate = det[k, 1] / det[k, 0]
                spread = np.sqrt(rate * (1.0 - rate) / det[k, 0])
                decay[k] = decay[k] * (1.0 - contribute_error_rate) + contribute_error_rate * rate
                if rate + spread < det[k, 4] + det[k, 5]:
                    det[k, 4:] = rate, spread
                if rate + spread < det[k, 4] + 2.0 * det[k, 5]:
                    det[k, 2:4] = 0.0
                else:
                    det[k, 2:4] += 1.0, wrong
                    if rate + spread > det[k, 4] + 3.0 * det[k, 5]:
                        det[k] = [det[k, 2], det[k, 3], det[k, 2], det[k, 3], 1.0, 10.0]
        v += (p - target)[:, None] * rows
        h = decay[:, None] * h + w
        z = v - h
        r = 1.0 + decay * r
        ex, ez = np.exp(-0.001 * cum)
        if ex + ez != 0.0:
            lam = ex / (ex + ez)
    return labels, scores
