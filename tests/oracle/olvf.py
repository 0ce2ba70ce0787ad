"""OLVF (Beyazit, Alagurajah, Wu, AAAI 2019), and the rule of the ``haphazard`` package's OLVF.

Two classifiers over the features seen so far: the instance classifier
``w`` (predict ``sign(w . x)`` over the row's seen features) and the
feature-space classifier ``wbar`` over feature indicators, whose label is
whether the prediction was right. Per row: a PA-I step of ``wbar`` on the
logistic loss; the projection confidences ``sigma(wbar . r)`` of the
classifier's space (every feature seen, this row's included) and of the
row's; a PA-I step of ``w`` on the hinge loss, weighted by the classifier's
confidence on shared features and by the row's on new ones (which it sets);
the projection ``w *= min(1, reg / (wbar . w))``; the sparsity step keeping a
fraction ``B`` of the seen features' entries of each classifier.

Choices the learner documents: the projection is applied only when it
shrinks (``wbar . w > reg``); truncation keeps the largest magnitudes, ties
by lower column. ``rule="package"`` is the package's arithmetic (read from
``haphazard/models/model_zoo/olvf/olvf.py``, 1.2.8). Sums run in column
order, as :func:`oracle.dot`.
"""

from __future__ import annotations

import math

import numpy as np

from oracle import dot, rows, sq_norm

__all__ = ["olvf"]

EPS = float(np.finfo(float).eps)


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def _truncate(v: np.ndarray, seen: np.ndarray, B: float, package: bool) -> None:
    cols = np.flatnonzero(seen)
    keep = max(1, math.floor(B * cols.size))
    if cols.size <= keep:
        return
    key = v[cols] if package else np.abs(v[cols])
    order = sorted(range(cols.size), key=lambda i: (-key[i], cols[i]))
    drop = order[:keep] if package else order[keep:]
    v[cols[drop]] = 0.0


def olvf(
    X: np.ndarray,
    y: np.ndarray,
    C: float = 0.01,
    C_bar: float = 0.0001,
    B: float = 1.0,
    reg: float = 0.0001,
    rule: str = "paper",
    fit_intercept: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Predicted labels and scores of OLVF over ``X`` (NaN: absent).

    ``fit_intercept``: a bias ``b``, the weight of an input 1 in every row,
    always shared: ``f = w . x + b``, ``||x||^2 + 1`` in ``tau``, ``b +=
    p_w tau y``; not in ``wbar``, the projection nor the sparsity step.

    >>> olvf(np.array([[1.0, np.nan], [1.0, 2.0], [np.nan, 1.0]]), np.array([1, -1, 1]), C=1.0)[0]
    array([-1.,  1., -1.])
    """
    package = rule == "package"
    n, d = X.shape
    w, wbar, seen = np.zeros(d), np.zeros(d), np.zeros(d, dtype=bool)
    labels, scores = np.empty(n), np.empty(n)
    b = 0.0
    for t, cols, x, _ in rows(X):
        f = dot(w, x, cols) + b
        scores[t], labels[t] = f, (1.0 if f > 0 else -1.0)
        if cols.size == 0:
            continue
        new = cols[~seen[cols]]
        shared = cols[seen[cols]]
        right = 1.0 if labels[t] == y[t] else 0.0
        ones = np.ones(d)
        s = dot(wbar, ones, cols)
        # 1. the feature-space classifier
        if package:
            e = math.exp(-right * s)
            g = -(math.log(e) / math.log(1.0 + e)) * right
            gg = cols.size * g * g
            tb = C_bar if gg == 0.0 else min(C_bar, -math.log(1.0 + e) / gg)
            wbar[shared] += tb * g
            wbar[new] = -tb * g
        else:
            g = -right * _sigmoid(-right * s)
            if g != 0.0:
                loss_bar = math.log1p(math.exp(-right * s))
                wbar[cols] -= min(C_bar, loss_bar / (cols.size * g * g)) * g
        # 2. the projection confidences
        seen_now = seen.copy()
        seen_now[cols] = True
        zw = dot(wbar, ones, np.flatnonzero(seen_now))
        zx = dot(wbar, ones, cols)
        sig = (lambda z: _sigmoid(-z)) if package else _sigmoid
        pw, px = sig(zw), sig(zx)
        # 3. the instance classifier
        loss = max(0.0, 1.0 - y[t] * f)
        sq = sq_norm(x, cols) + (1.0 if fit_intercept else 0.0)
        if package:
            tau = min(C, loss / (sq + EPS))
        else:
            tau = min(C, loss / sq) if sq > 0 else 0.0
        w[shared] = w[shared] + pw * tau * y[t] * x[shared]
        w[new] = px * tau * y[t] * x[new]
        if fit_intercept:
            b += pw * tau * y[t]
        seen = seen_now
        # 4. the projection
        ip = dot(wbar, w, np.arange(d))
        if package:
            w *= min(1.0, reg / (ip + EPS))
        elif ip > reg:
            w *= reg / ip
        # 5. the sparsity step
        if B < 1.0:
            _truncate(w, seen, B, package)
            _truncate(wbar, seen, B, package)
    return labels, scores
