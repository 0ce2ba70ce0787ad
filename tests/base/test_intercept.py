"""The intercept option (``fit_intercept``) of the linear online learners.

The bias is the weight of a constant input 1 that every row has: always
visible, never a feature (not in the feature index nor in ``coef_``), named
compiled state saved by model files, the same on the dict and the array
path. The oracle parity of each learner with and without it is in
tests/_core/test_oracle_parity.py; here: what the option means, its defaults, its
state, its extremes, and that it learns the class prior the plain learners
cannot.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import reference
from evofeat import io
from evofeat.base import FeatureIndex, InputError, OnlineLearner
from evofeat.evaluate import prequential
from evofeat.linear.ftrl import FTRL
from evofeat.registry import make
from evofeat.streams import Stream, full, haphazard, trapezoidal

#: learner -> its default (the papers' methods and baselines: the paper's rule, no bias).
DEFAULTS = {
    "perceptron": False,
    "pa": False,
    "pa-i": False,
    "pa-ii": False,
    "ogd": False,
    "ftrl": True,
    "adagrad": True,
    "nag": True,
}
NAMES = list(DEFAULTS)
ON: dict[str, Any] = {"fit_intercept": True}


def _data(n: int = 300, d: int = 6, prior: float = 0.5, seed: int = 0) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    f = X[:, 0] - 0.8 * X[:, 1] + 0.3 * rng.standard_normal(n)
    y = np.where(f > np.quantile(f, prior), 1, -1)  # 1 - prior of the rows positive
    return X, y


def _dense(stream: Stream) -> np.ndarray:
    col_map, _ = stream.internal_columns(FeatureIndex())
    out = np.full((stream.n_rows, int(col_map.max()) + 1), np.nan)
    out[:, col_map[col_map >= 0]] = stream.to_dense()[:, col_map >= 0]
    return out


def _by_dict(model: OnlineLearner, stream: Stream) -> list[Any]:
    out = []
    for x, t in stream.to_dicts():
        out.append((model.predict_one(x), model.decision_one(x)))
        model.learn_one(x, t)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_defaults(name: str) -> None:
    """A bias by default only where no paper fixes the rule (FTRL, AdaGrad, NAG: as River and VW)."""
    model = make(name)
    assert model.get_params()["fit_intercept"] is DEFAULTS[name]
    assert model.intercept_ == 0.0 and "fit_intercept" not in repr(model)


@pytest.mark.parametrize("name", NAMES)
def test_bias_is_not_a_feature_and_paths_agree(name: str) -> None:
    """Same scores and bias on the dict and array paths; the bias is in no feature list."""
    X, y = _data(prior=0.75)
    stream = trapezoidal(X, y, feature_names=[f"f{j}" for j in range(X.shape[1])])
    arr = make(name, **ON)
    res = prequential(arr, stream, keep_predictions=True)
    dic = make(name, **ON)
    got = _by_dict(dic, stream)
    assert res.scores is not None
    np.testing.assert_array_equal([s for _, s in got[1:]], res.scores[1:])
    assert arr.intercept_ == dic.intercept_ != 0.0
    assert arr.feature_index_.names == dic.feature_index_.names == stream.feature_names
    assert list(arr.coef_) == stream.feature_names, "the bias is not in coef_"
    for field in arr.per_feature:
        assert arr._weights(field).shape[0] == len(stream.feature_names)
    # an empty row is scored by the bias alone
    assert arr.decision_one({}) == pytest.approx(arr.intercept_, abs=0.0)
    assert math.isfinite(arr.intercept_)


@pytest.mark.parametrize("name", NAMES)
def test_off_is_the_learner_without_a_bias(name: str) -> None:
    """``fit_intercept=False`` never moves the bias, and the option changes predictions."""
    X, y = _data(prior=0.75)
    stream = haphazard(X, y, p=0.6, seed=1)
    off = make(name, fit_intercept=False)
    a = prequential(off, stream, keep_predictions=True)
    b = prequential(make(name, **ON), stream, keep_predictions=True)
    assert off.intercept_ == 0.0 and not off._state.fit_intercept
    assert a.labels is not None and b.labels is not None
    assert (a.labels != b.labels).sum() >= 3


@pytest.mark.parametrize("name", NAMES)
def test_the_bias_learns_the_class_prior(name: str) -> None:
    """Labels independent of the features, 80 % positive: only a bias can beat a coin.

    Without a bias every learner stays near 0.5 (measured 0.51-0.54); with
    it, each gains at least 0.15 (the mistake-driven ones, which keep moving
    their noise weights, measured 0.70; the logistic ones reach the majority
    rate, 0.80 of 0.808).
    """
    rng = np.random.default_rng(3)
    X = rng.standard_normal((1000, 5))
    y = np.where(rng.random(1000) < 0.8, 1, -1)
    acc = {
        on: prequential(make(name, fit_intercept=on), full(X, y)).accuracy for on in (False, True)
    }
    assert acc[False] < 0.6 and acc[True] >= acc[False] + 0.15, acc
    if name in ("ogd", "ftrl", "adagrad", "nag"):
        assert acc[True] >= np.mean(y > 0) - 0.02, acc


@pytest.mark.parametrize("name", NAMES)
def test_model_file_keeps_the_bias(name: str, tmp_path: Path) -> None:
    X, y = _data(n=200, prior=0.7)
    model = make(name, **ON)
    prequential(model, trapezoidal(X[:120], y[:120]))
    loaded = io.load(io.save(model, tmp_path / "m.npz"), expected=name)
    assert loaded.get_params() == model.get_params()
    assert loaded.intercept_ == model.intercept_ != 0.0
    rest = trapezoidal(X[120:], y[120:])
    a = prequential(loaded, rest, keep_predictions=True)
    b = prequential(model, rest, keep_predictions=True)
    assert a.scores is not None and b.scores is not None
    np.testing.assert_array_equal(a.scores, b.scores)
    assert loaded.intercept_ == model.intercept_


@pytest.mark.parametrize("name", ["perceptron", "ogd", "ftrl", "adagrad", "nag"])
def test_intercept_lr_is_the_bias_rate(name: str) -> None:
    """``intercept_lr`` moves only the bias's steps; ``None`` is the learner's own rate."""
    X, y = _data(prior=0.7)
    stream = full(X, y)
    own = {"ftrl": "alpha"}.get(name, "lr")
    rate = make(name).get_params()[own]
    same = prequential(make(name, **ON, intercept_lr=rate), stream, keep_predictions=True)
    default = prequential(make(name, **ON), stream, keep_predictions=True)
    slow = make(name, **ON, intercept_lr=rate / 100)
    other = prequential(slow, stream, keep_predictions=True)
    assert same.scores is not None and default.scores is not None and other.scores is not None
    np.testing.assert_array_equal(same.scores, default.scores)
    assert not np.array_equal(other.scores, default.scores)


def test_ftrl_bias_has_no_l1_or_l2() -> None:
    """With an L1 that zeroes every feature, the bias still learns: ``b = -z_b / ((beta + sqrt(n_b)) / alpha_b)``."""
    X, y = _data(prior=0.8)
    model = FTRL(l1=1e6, l2=1e6, intercept_lr=0.3)
    res = prequential(model, full(X, y), keep_predictions=True)
    assert not any(model.coef_.values())
    st = model._state
    b = -st.intercept_z / ((model.beta + math.sqrt(st.intercept_n)) / 0.3)
    assert model.intercept_ == pytest.approx(b, rel=1e-15) and b < 0.0 < -b
    assert res.scores is not None and res.labels is not None
    assert len(set(res.scores[1:].tolist())) > 10, "the score is the bias, which moves"
    assert res.accuracy >= 0.75  # the majority class (80 %), learned from the bias alone


@pytest.mark.usefixtures("divergence_expected")
@pytest.mark.parametrize("kind", ["huge", "tiny", "zero-rows"])
@pytest.mark.parametrize("name", NAMES)
def test_extreme_rows_with_a_bias(name: str, kind: str) -> None:
    """Rows of norm 1e300 / 1e-300 / zero: finite state, dict == array == reference labels."""
    rng = np.random.default_rng(5)
    X, y = _data(n=200)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    scale = {
        "huge": np.full(len(y), 1e300),
        "tiny": np.full(len(y), 1e-300),
        "zero-rows": np.where(rng.random(len(y)) < 0.3, 0.0, 1.0),
    }[kind]
    stream = haphazard(X * scale[:, None], y, p=0.6, seed=2)
    model = make(name, **ON)
    res = prequential(model, stream, keep_predictions=True)
    assert res.labels is not None and res.scores is not None
    assert not np.isnan(res.scores).any()
    assert all(np.isfinite(np.asarray(a, dtype=float)).all() for a in model._state)
    labels = np.array([np.nan if p is None else p for p, _ in _by_dict(make(name, **ON), stream)])
    np.testing.assert_array_equal(labels[1:], np.where(res.labels == 0, -1, res.labels)[1:])
    ref = reference.predictions(model, _dense(stream), stream.y.astype(float))
    np.testing.assert_array_equal(ref, res.labels)


def test_pa_learns_a_zero_row_through_its_bias() -> None:
    """PA's squared norm counts the input 1: a zero row has ``||x||^2 = 1`` and moves the bias by ``tau y``."""
    model = make("pa", **ON)
    model.learn_one({"a": 0.0}, 1)  # loss 1, ||(0, 1)||^2 = 1: tau = 1
    assert model.intercept_ == 1.0 and model.coef_ == {"a": 0.0}
    plain = make("pa").learn_one({"a": 0.0}, 1)
    assert plain.intercept_ == 0.0 and plain.coef_ == {"a": 0.0}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"fit_intercept": "yes"}, "fit_intercept"),
        ({"fit_intercept": 1}, "fit_intercept"),
        ({"intercept_lr": 0.0}, "intercept_lr"),
        ({"intercept_lr": math.nan}, "intercept_lr"),
        ({"intercept_lr": True}, "intercept_lr"),
    ],
)
@pytest.mark.parametrize("name", ["perceptron", "ogd", "ftrl", "adagrad", "nag"])
def test_bad_parameters_are_named(name: str, params: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError, match=field):
        make(name, **params).learn_one({"a": 1.0}, 1)


def test_pa_has_no_intercept_lr() -> None:
    """PA has no learning rate (its step is ``tau``), so no rate for the bias either."""
    assert "intercept_lr" not in make("pa-i").get_params()
    with pytest.raises(InputError, match="unknown parameter 'intercept_lr'"):
        make("pa-i").set_params(intercept_lr=0.1)
