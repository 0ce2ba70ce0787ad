"""The bias (``fit_intercept``) of STSD's and OFS's families, the multiclass and the regression learners.

The bias is the shared compiled part ``_core/bias.pxd``: the weight of a
constant input 1, stepped by each learner's own rule, outside budgets,
balls and ``coef_``. Its math is checked row by row against the oracle in
tests/_core/test_oracle_parity.py (both paths); here: that it is off by default
and refused when malformed, that it is what a stream with a shifted decision
boundary needs, and that model files, copies and pickles carry it.
"""

from __future__ import annotations

import copy
import math
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import reference
from evofeat import io
from evofeat.base import InputError
from evofeat.evaluate import prequential
from evofeat.registry import ONLINE, make
from evofeat.streams import Stream, haphazard, trapezoidal

#: every online learner whose bias came with the shared part (the others: tests/base/test_intercept.py)
NAMES = sorted(n for n in ONLINE if n.startswith(("stsd", "ofs", "pe-trun", "rand", "pa-")))
NAMES = [n for n in NAMES if n not in ("pa-i", "pa-ii")] + ["olvf", "ocds"]
#: the online learners without a bias, each with the reason its docstring gives
NO_BIAS = {"dynfo": "a vote of decision stumps: no linear score for a bias to shift"}


def _stream(name: str, n: int = 2000, seed: int = 0, rows: slice = slice(None)) -> Stream:
    """Rows ``rows`` of a trapezoidal stream of centred features; the decision boundary is shifted: 85 % of the labels are -1.

    Multiclass: classes 0 / 1 / 2 for 70 / 15 / 15 % of the rows; regression:
    the target has an offset of 10.
    """
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 8))
    f = X[:, 0] - 0.8 * X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.standard_normal(n)
    task = make(name).task
    if task == "multiclass":
        y: np.ndarray = np.digitize(f, np.quantile(f, [0.7, 0.85]))
    elif task == "regression":
        y = f + 10.0
    else:
        y = np.where(f > np.quantile(f, 0.85), 1, -1)
    return trapezoidal(X[rows], y[rows], task=task)


@pytest.mark.parametrize("name", NAMES)
def test_off_by_default(name: str) -> None:
    """The papers' methods have no bias: off, 0, and absent from the repr."""
    model = make(name)
    assert model.get_params()["fit_intercept"] is False
    assert "fit_intercept" not in repr(model)
    prequential(model, _stream(name, n=200))
    assert not np.any(model.intercept_) and not model._state.fit_intercept
    assert "fit_intercept=True" in repr(make(name, fit_intercept=True))


@pytest.mark.parametrize("name", NAMES)
def test_a_shifted_boundary_needs_the_bias(name: str) -> None:
    """Without a bias the boundary must pass through the origin: about a coin (0.50-0.63
    measured); with it each classifier gains at least 0.15 and comes within 0.05 of the
    majority rate (0.85; multiclass 0.70) or above; a regressor's mean loss falls 10-fold."""
    stream = _stream(name)
    res = {on: prequential(make(name, fit_intercept=on), stream) for on in (False, True)}
    if make(name).task == "regression":
        loss = {on: r.cumulative_loss / r.n_rows for on, r in res.items()}
        assert loss[True] < 0.1 * loss[False], loss
        return
    acc = {on: r.accuracy for on, r in res.items()}
    majority = 0.7 if make(name).task == "multiclass" else 0.85
    assert acc[True] >= acc[False] + 0.15, acc
    assert acc[True] >= majority - 0.05, acc


@pytest.mark.parametrize("name", NAMES)
def test_the_bias_is_not_a_feature(name: str) -> None:
    """Not in coef_, the feature index nor the selected features; an empty row scores the bias."""
    stream = _stream(name, n=300)
    model = make(name, fit_intercept=True)
    prequential(model, stream)
    b = model.intercept_
    assert np.all(np.isfinite(b)) and np.any(b != 0.0)
    assert list(model.coef_) == model.feature_index_.names == stream.feature_names
    assert set(getattr(model, "selected_features_", [])) <= set(stream.feature_names)
    if model.task == "binary" and name != "ofs-p":  # OFS_P scores the attributes it draws
        assert model.decision_one({}) == pytest.approx(float(b), abs=0.0)


@pytest.mark.parametrize("name", NAMES)
def test_model_files_copies_and_pickles_carry_the_bias(name: str, tmp_path: Path) -> None:
    first, rest = _stream(name, 400, rows=slice(0, 250)), _stream(name, 400, rows=slice(250, None))
    model = make(name, fit_intercept=True)
    prequential(model, first)
    loaded = io.load(io.save(model, tmp_path / "m.npz"), expected=name)
    copies = [loaded, copy.deepcopy(model), pickle.loads(pickle.dumps(model)), copy.copy(model)]
    for other in copies:
        assert other.get_params() == model.get_params()
        np.testing.assert_array_equal(other.intercept_, model.intercept_)
    ref = copy.deepcopy(model)
    expected = prequential(ref, rest, keep_predictions=True)
    for other in copies:
        got = prequential(other, rest, keep_predictions=True)
        assert got.labels is not None and expected.labels is not None
        np.testing.assert_array_equal(got.labels, expected.labels)
        np.testing.assert_array_equal(other.intercept_, ref.intercept_)


@pytest.mark.parametrize("name", ["stsd-i", "ofs", "rand", "stsd-multiclass"])
def test_the_ball_and_the_budget_leave_the_bias_alone(name: str) -> None:
    """A tiny ball and budget bind the feature weights only: the bias grows past them."""
    params: dict[str, Any] = {"fit_intercept": True}
    if name in ("stsd-i", "stsd-multiclass"):
        params.update(radius=0.05, budget=0.2)
    elif name == "ofs":
        params.update(radius=0.05, budget=0.2)
    else:
        params.update(budget=0.2)
    model = make(name, **params)
    prequential(model, _stream(name, n=600))
    w = np.asarray(list(model.coef_.values()), dtype=float)
    if "radius" in params:
        norm = np.abs(w).sum() if name.startswith("stsd") else np.sqrt((w * w).sum())
        assert norm <= params["radius"] * (1 + 1e-12)
        assert np.abs(model.intercept_).max() > 2 * params["radius"]
    assert np.count_nonzero(np.abs(w).sum(axis=-1) if w.ndim > 1 else w) <= model.budget_limit_


def test_multiclass_has_one_bias_per_class() -> None:
    """The step moves the true class's bias up and the rival's down by the same tau."""
    model = make("pa-multiclass", n_classes=3, fit_intercept=True)
    assert model.intercept_.tolist() == [0.0, 0.0, 0.0]
    model.learn_one({"a": 0.0}, 2)  # scores all 0: rival class 0, loss 1, ||(0, 1)||^2 = 1
    tau = min(0.1, 1.0 / 2.0)  # PA-I on 2 (||x||^2 + 1)
    assert model.intercept_.tolist() == [-tau, 0.0, tau]
    assert model.predict_one({"a": 0.0}) == 2


@pytest.mark.parametrize(
    "name", ["stsd", "ofs", "pe-trun", "rand", "ofs-p", "stsd-regressor", "olvf", "ocds"]
)
def test_a_zero_row_moves_only_the_bias(name: str) -> None:
    """The input 1 is in every row: a zero row still steps the bias (STSD: ``||x||^2 = 1``)."""
    model = make(name, fit_intercept=True)
    model.learn_one({"a": 0.0}, 1)
    assert model.coef_ == {"a": 0.0} and model.intercept_ > 0.0
    plain = make(name).learn_one({"a": 0.0}, 1)
    assert plain.intercept_ == 0.0


@pytest.mark.parametrize("bad", ["yes", 1, None, np.float64(1.0)])
@pytest.mark.parametrize("name", NAMES)
def test_bad_fit_intercept_is_refused(name: str, bad: Any) -> None:
    with pytest.raises(InputError, match="fit_intercept"):
        make(name, fit_intercept=bad).learn_one({"a": 1.0}, 1)


@pytest.mark.parametrize("name", ["stsd-i", "ofs", "stsd-multiclass"])
def test_the_numpy_reference_says_it_has_no_bias(name: str) -> None:
    model = make(name, fit_intercept=True)
    with pytest.raises(NotImplementedError, match="tests/oracle"):
        reference.predictions(model, np.ones((2, 2)), np.array([1.0, -1.0]))


@pytest.mark.usefixtures("divergence_expected")
@pytest.mark.parametrize("name", ["stsd-i", "ofs", "pe-trun", "olvf", "ocds", "ovfm"])
def test_huge_and_tiny_rows_keep_the_bias_finite(name: str) -> None:
    rng = np.random.default_rng(5)
    X = rng.standard_normal((300, 6))
    y = np.where(X[:, 0] > 0.8, 1, -1)
    for scale in (1e300, 1e-300):
        model = make(name, fit_intercept=True)
        res = prequential(model, haphazard(X * scale, y, p=0.6, seed=2), keep_predictions=True)
        assert res.scores is not None and not np.isnan(res.scores).any()
        assert math.isfinite(model.intercept_)


@pytest.mark.parametrize(
    ("name", "params"),
    [("pe-trun", {}), ("rand", {}), ("rand", {"draw": "per-mistake"}), ("stsd-i-per", {})],
)
def test_mistake_driven_bias_sums_the_labels_of_the_mistakes(
    name: str, params: dict[str, Any]
) -> None:
    """PE_trun, RAND (both draws) and STSD-I-per step the bias by ``y`` on each mistake (``y f <= 0``)."""
    stream = _stream(name, n=500)
    model = make(name, fit_intercept=True, **params)
    res = prequential(model, stream, keep_predictions=True)
    assert res.scores is not None
    y = stream.y.astype(float)
    mistakes = y * res.scores <= 0
    assert 0 < mistakes.sum() < len(y)
    assert model.intercept_ == float(np.sum(y[mistakes]))


@pytest.mark.parametrize("name", sorted(ONLINE))
def test_every_online_learner_takes_fit_intercept(name: str) -> None:
    """Every online learner takes ``fit_intercept``; the ones in ``NO_BIAS`` refuse ``True``
    and say why (the others are listed here or in tests/test_intercept.py)."""
    assert "fit_intercept" in make(name).get_params()
    if name in NO_BIAS:
        with pytest.raises(InputError, match="no bias"):
            make(name, fit_intercept=True)
    else:
        make(name, fit_intercept=True)
