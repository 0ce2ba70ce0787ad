"""FESL's ensemble weights: the closed form from hand-computed losses, and they follow the better model.

A one-feature stream: S1 = {a}, S2 = {b} with ``b = 2 a`` on the overlap rows,
so the least-squares map is ``psi(b) = b / 2`` and every model is a scalar:
the losses of both models can be followed by hand (a few lines of scalar
arithmetic below), and the weights the learner reports must be the paper's
closed form, ``a1 = e^{-eta L1} / (e^{-eta L1} + e^{-eta L2})`` with
``eta = sqrt(8 ln 2 / T2)`` for FESL-c (Eq. 3) and the fixed-share recursion
for FESL-s (Eq. 8).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from evofeat.ensemble import FESL
from evofeat.evaluate import prequential
from evofeat.streams import Stream, evolvable

A = [0.9, -1.2, 0.4, 1.5, -0.7, 1.1, -0.3, 0.8, -1.4, 0.6]  # S1-only rows
OVERLAP = [0.5, -1.0, 1.3]  # rows showing a and b = 2 a
AFTER = [(1.0, 1), (-0.6, -1), (1.8, 1), (0.4, -1), (-1.1, -1), (0.7, 1)]  # (b, y) after the switch
LR, T2 = 0.5, 10


def _rows() -> list[tuple[dict, int]]:
    first = [({"a": a}, 1 if a > 0 else -1) for a in A]
    both = [({"a": a, "b": 2 * a}, 1 if a > 0 else -1) for a in OVERLAP]
    return first + both + [({"b": b}, y) for b, y in AFTER]


def _logistic(f: float, y: int) -> tuple[float, float]:
    """``ln(1 + e^{-y f})`` and its slope ``-y / (1 + e^{y f})``."""
    return math.log1p(math.exp(-y * f)), -y / (1 + math.exp(y * f))


def _hand(method: str) -> list[tuple[float, float]]:
    """The ensemble weights (a1, a2) after each row that follows the switch, by hand."""
    w, t = 0.0, 0
    for x, y in _rows()[: len(A) + len(OVERLAP)]:  # OGD on a, tau = lr / sqrt(t)
        t += 1
        w -= LR / math.sqrt(t) * _logistic(w * x["a"], y)[1] * x["a"]
    w_old, w_new = w, 0.0  # at the switch: psi(b) = b / 2, the new model starts at 0
    eta_c = math.sqrt(8 * math.log(2) / T2)
    delta = 1 / (T2 - 1)
    h = -delta * math.log(delta) - (1 - delta) * math.log(1 - delta)
    eta_s = math.sqrt(8 / T2 * (2 * math.log(2) + (T2 - 1) * h))
    L = [0.0, 0.0]
    alpha = [0.5, 0.5]
    out = []
    for b, y in AFTER:
        t += 1
        tau = LR / math.sqrt(t)
        (l1, g1), (l2, g2) = _logistic(w_old * b / 2, y), _logistic(w_new * b, y)
        L = [L[0] + l1, L[1] + l2]
        if method == "fesl-c":
            e1, e2 = math.exp(-eta_c * L[0]), math.exp(-eta_c * L[1])
            out.append((e1 / (e1 + e2), e2 / (e1 + e2)))
        else:
            v = [alpha[0] * math.exp(-eta_s * l1), alpha[1] * math.exp(-eta_s * l2)]
            alpha = [delta * sum(v) + (1 - delta) * v[0], delta * sum(v) + (1 - delta) * v[1]]
            alpha = [alpha[0] / sum(alpha), alpha[1] / sum(alpha)]
            out.append((alpha[0], alpha[1]))
        w_old -= tau * g1 * b / 2
        w_new -= tau * g2 * b
    return out


@pytest.mark.parametrize("method", ["fesl-c", "fesl-s"])
def test_weights_are_the_closed_form_of_the_losses(method: str) -> None:
    model = FESL(method=method, lr=LR, overlap=len(OVERLAP), horizon=T2)
    rows = _rows()
    got = []
    for i, (x, y) in enumerate(rows):
        model.learn_one(x, y)
        if i >= len(A) + len(OVERLAP):
            got.append(model.weights_)
    assert model.n_switches_ == 1
    expected = _hand(method)
    np.testing.assert_allclose(got, expected, rtol=1e-9)
    assert max(abs(a - 0.5) for a, _ in expected) > 0.05  # the weights did move


def _stream(old_is_better: bool, n: int = 600, seed: int = 0) -> Stream:
    """S2 = S1 G: with labels from S1 the recovered old model is clearly better (it learned for
    n / 2 rows); with labels from S2 alone (independent noise features) the new model is."""
    rng = np.random.default_rng(seed)
    X1 = rng.standard_normal((n, 4))
    X2 = rng.standard_normal((n, 3))
    if old_is_better:
        y = np.where(X1 @ [1.0, -1.0, 0.5, 0.0] > 0, 1, -1)
        return evolvable(X1, y, d2=3, overlap=10, seed=seed)
    y = np.where(
        np.arange(n) < n // 2, np.where(X1[:, 0] > 0, 1, -1), np.where(X2[:, 0] > 0, 1, -1)
    )
    return evolvable(X1, y, views=[X2], overlap=10)


@pytest.mark.parametrize("method", ["fesl-c", "fesl-s"])
def test_weight_follows_the_better_model(method: str) -> None:
    good = FESL(method=method, lr=0.5)
    prequential(good, _stream(old_is_better=True))
    assert good.weights_[0] > 0.9, f"old model clearly better, yet a1 = {good.weights_[0]:.3f}"
    bad = FESL(method=method, lr=0.5)
    prequential(bad, _stream(old_is_better=False))
    assert bad.weights_[0] < 0.1, f"new model clearly better, yet a1 = {bad.weights_[0]:.3f}"
