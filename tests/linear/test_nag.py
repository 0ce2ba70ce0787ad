"""NAG (normalised adaptive gradient): scale invariance, the rescaling, evolving features, first steps.

Parity of the dict path, the array path and the NumPy reference (both losses,
extreme rows) is in tests/linear/test_adaptive.py; the independent oracle from the
paper in tests/_core/test_oracle_parity.py; the generic checks cross every learner.
"""

from __future__ import annotations

import math
from collections.abc import Hashable

import numpy as np
import pytest

from evofeat.base import InputError
from evofeat.evaluate import prequential
from evofeat.linear.adagrad import AdaGrad
from evofeat.linear.nag import NAG
from evofeat.streams import haphazard, trapezoidal


def _data(n: int = 300, d: int = 6, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    f = X[:, 0] - 0.8 * X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.standard_normal(n)
    return X, np.where(f > 0, 1, -1)


def _state(model: NAG, feature: str) -> tuple[float, float, float]:
    col = list(model.feature_index_.names).index(feature)
    w, s, G = (float(model._weights(f)[col]) for f in ("w", "s", "G"))
    return w, s, G


@pytest.mark.parametrize("scenario", ["trapezoidal", "haphazard"])
def test_rescaling_a_feature_changes_nothing_but_its_weight(scenario: str) -> None:
    """The point of NAG: features scaled by 1e-3 ... 1e4 give the same predictions (AdaGrad's change).

    Not on an evolvable stream: its new features mix the old columns, so a
    column's scale does not carry over to one new feature.
    """
    X, y = _data()
    c = np.array([1e-3, 1.0, 50.0, 1e4, 0.2, 7.0])
    make = {
        "trapezoidal": lambda A: trapezoidal(A, y),
        "haphazard": lambda A: haphazard(A, y, p=0.6, seed=2),
    }[scenario]
    runs = {}
    for name, A in (("plain", X), ("scaled", X * c)):
        model = NAG()
        res = prequential(model, make(A), keep_predictions=True)
        assert res.scores is not None
        runs[name] = (res.scores, model)
    np.testing.assert_allclose(runs["scaled"][0], runs["plain"][0], rtol=1e-9, atol=1e-12)
    plain, scaled = runs["plain"][1], runs["scaled"][1]
    assert list(plain.coef_) == list(scaled.coef_)
    cols = [int(str(k).removeprefix("x")) for k in plain.coef_]  # names x0, x1, ...
    w0, w1 = np.array(list(plain.coef_.values())), np.array(list(scaled.coef_.values()))
    np.testing.assert_allclose(w1 * c[cols], w0, rtol=1e-9)  # the weight takes the scale
    ada = [prequential(AdaGrad(), make(A), keep_predictions=True).labels for A in (X, X * c)]
    assert ada[0] is not None and ada[1] is not None
    assert (ada[0] != ada[1]).sum() >= 5, "the control (AdaGrad) is not scale-free here"


def test_a_larger_value_rescales_the_weight_before_predicting() -> None:
    """Lines 5-9: ``|x| > s`` sets ``w <- w s / |x|``, ``s <- |x|`` and the score uses the new weight."""
    model = NAG(fit_intercept=False)
    for _ in range(5):
        model.learn_one({"a": 1.0}, 1)
    w, s, _ = _state(model, "a")
    assert s == 1.0 and w > 0.0
    assert model.predict_proba_one({"a": 4.0})[1] == pytest.approx(  # type: ignore[index]
        1.0 / (1.0 + math.exp(-(w * (1.0 / 4.0)) * 4.0)), rel=1e-12
    )
    assert _state(model, "a") == (w, s, _state(model, "a")[2]), "predicting changed the state"
    model.learn_one({"a": 4.0}, 1)
    w2, s2, _ = _state(model, "a")
    assert s2 == 4.0 and 0.0 < w2 * 4.0 and w2 < w  # rescaled to w / 4, then stepped up
    model.learn_one({"a": 0.5}, 1)  # a smaller value leaves the scale alone
    assert _state(model, "a")[1] == 4.0


def test_first_step_and_normaliser_in_closed_form() -> None:
    """Row 1 from zero state: ``s = |x|``, ``N = 1 + 1`` (the feature and the bias), full steps."""
    model = NAG(lr=0.3)
    model.learn_one({"a": -2.5}, 1)  # f = 0, slope = -1/2
    w, s, G = _state(model, "a")
    q = math.sqrt(1 / 2)  # t = 1, N = (2.5 / 2.5)^2 + 1
    g = -0.5 * -2.5
    assert (s, G) == (2.5, g * g)
    assert w == pytest.approx(-0.3 * q * 1.0 / 2.5, rel=1e-12)  # g / sqrt(G) = 1
    assert model.intercept_ == pytest.approx(0.3 * q, rel=1e-12)
    assert model._state.t == 1.0 and model._state.N == 2.0


def test_absent_feature_keeps_its_state_and_new_feature_starts_fresh() -> None:
    rng = np.random.default_rng(0)
    model = NAG()
    for _ in range(30):
        a, b = rng.standard_normal(2)
        model.learn_one({"a": a, "b": b}, 1 if a + b > 0 else -1)
    before_a = _state(model, "a")
    N = model._state.N
    for _ in range(30):  # "a" absent: no update, no rescale, nothing added to N for it
        b = rng.standard_normal()
        model.learn_one({"b": b}, 1 if b > 0 else -1)
    assert _state(model, "a") == before_a
    assert model._state.N <= N + 30 * 2  # at most b's term (<= 1) and the bias's 1 per row
    x: dict[Hashable, float] = {"a": 0.1, "b": 0.2, "new": 3.0}
    t, N = model._state.t, model._state.N
    f = model.coef_["a"] * 0.1 + model.coef_["b"] * 0.2 + model.intercept_
    model.learn_one(x, -1)
    w, s, G = _state(model, "new")
    slope = 1.0 / (1.0 + math.exp(-f))
    n_new = model._state.N - N
    assert model._state.t == t + 1 and 2.0 <= n_new <= 3.0 + 1e-12  # new and bias: exactly 1 each
    assert (s, G) == (3.0, (slope * 3.0) ** 2)
    assert w == pytest.approx(-0.5 * math.sqrt((t + 1) / (N + n_new)) / 3.0, rel=1e-12)


def test_zero_value_is_a_value_with_no_step() -> None:
    model = NAG()
    model.learn_one({"a": 1.0, "z": 0.0}, 1)
    assert _state(model, "z") == (0.0, 0.0, 0.0)
    assert "z" in model.coef_  # seen (visible), unlike an absent feature


@pytest.mark.parametrize(
    ("params", "field"),
    [({"lr": 0.0}, "lr"), ({"lr": math.nan}, "lr"), ({"loss": "hinge"}, "loss"),
     ({"intercept_lr": -1.0}, "intercept_lr"), ({"fit_intercept": 1}, "fit_intercept")],
)  # fmt: skip
def test_bad_parameters_are_named(params: dict, field: str) -> None:
    with pytest.raises(InputError, match=field):
        NAG(**params).learn_one({"a": 1.0}, 1)


@pytest.mark.parametrize("loss", ["square", "logistic"])
def test_invariant_step_never_passes_the_label(loss: str) -> None:
    """``invariant=True``: a huge rate moves the score toward the label, never past it (the gradient step does)."""
    x: dict[Hashable, float] = {"a": 1.0, "b": -2.0}
    target = 1.0 if loss == "logistic" else 3.0
    after: dict[bool, float] = {}
    for invariant in (False, True):
        model = NAG(lr=50.0, loss=loss, invariant=invariant)
        model.learn_one(x, 1 if loss == "logistic" else target)  # from the score 0
        score = model.decision_one(x)
        assert score is not None
        after[invariant] = score
    assert 0.0 < after[True] < after[False]  # toward the label, less far
    if loss == "square":
        assert after[True] < target < after[False]  # the gradient step overshoots


def test_invariant_is_a_bool() -> None:
    with pytest.raises(InputError, match="invariant"):
        NAG(invariant=1).learn_one({"a": 1.0}, 1)  # type: ignore[arg-type]
