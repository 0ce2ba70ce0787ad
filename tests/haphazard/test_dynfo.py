"""DynFo: its rules, its bounds, its parameters (its parity with the plain-Python oracle,
``tests/oracle/dynfo.py``, on both paths and both relearn rules: tests/_core/test_oracle_parity.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from evofeat.base import InputError
from evofeat.evaluate import prequential
from evofeat.haphazard import DynFo
from evofeat.streams import Stream, haphazard
from evofeat.testing import check_learner, synthetic_stream_data

#: the oracle parity case's setting (tests/_core/test_oracle_parity.py): every rule fires there.
SMALL: dict[str, Any] = {"M": 30, "N": 15, "delta": 0.3, "beta": 0.5, "alpha": 0.5, "gamma": 0.4}


def _streams() -> dict[str, Stream]:
    X, y = synthetic_stream_data("binary", n=200, d=8)
    return {"haphazard": haphazard(X, y, p=0.5, seed=4, task="binary")}


def test_the_rules_fire_on_the_oracle_cases() -> None:
    """The parity above is not vacuous: stumps are relearned, dropped and grown beyond M."""
    stream = _streams()["haphazard"]
    model = DynFo(**SMALL, seed=3)
    counts = []
    for x, y in stream.to_dicts():
        model.learn_one(x, y)
        counts.append(model.n_learners_)
    assert max(counts) > SMALL["M"]  # grown on a poor window
    assert min(counts[1:]) < max(counts)  # dropped
    assert sum(model.coef_.values()) > 0


def test_max_learners_bounds_the_forest() -> None:
    X, y = synthetic_stream_data("binary", n=150, d=6)
    model = DynFo(M=10, N=10, gamma=0.0, theta1=0.0, max_learners=14)  # grows on every error
    prequential(model, haphazard(X, y, p=0.7, seed=1, task="binary"))
    assert model.n_learners_ == 14


def test_scale_free() -> None:
    """A strictly increasing map of every feature changes no prediction (splits are on order)."""
    X, y = synthetic_stream_data("binary", n=200, d=6)
    a = prequential(DynFo(**SMALL), haphazard(X, y, p=0.6, seed=2), keep_predictions=True)
    b = prequential(
        DynFo(**SMALL), haphazard(np.exp(3 * X) + 1e3, y, p=0.6, seed=2), keep_predictions=True
    )
    np.testing.assert_array_equal(a.labels, b.labels)


def test_learns_a_threshold_concept() -> None:
    """A label that is one feature's threshold, among noise features, each seen half the time:
    on the rows where that feature is present the forest is right well above the majority rate."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 5))
    y = np.where(X[:, 2] > 0.3, 1, -1)  # -1 in 62 % of the rows
    stream = haphazard(X, y, p=0.5, seed=3)
    res = prequential(DynFo(seed=1), stream, keep_predictions=True)
    rows = ~np.isnan(stream.to_dense()[:, 2]) & (np.arange(1500) >= 500)
    assert np.mean(y[rows] == -1) < 0.65
    assert np.mean(res.labels[rows] == y[rows]) > 0.75


def test_predicts_the_majority_side_before_any_split() -> None:
    """Before learning anything the forest abstains (-1 on the dict path, label 0 in the loop)."""
    model = DynFo(M=3)
    assert model.predict_one({"a": 1.0}) is None
    model.learn_one({"a": 1.0}, 1)  # grows three stumps from the one row: x <= 1 -> +1
    assert model.n_learners_ == 3
    assert model.predict_one({"a": 0.5}) == 1
    assert model.predict_one({"b": 0.5}) == -1  # no stump's feature present: a tie


@pytest.mark.parametrize(
    "params, word",
    [
        ({"beta": 1.5}, "share"),
        ({"alpha": 0.0}, "> 0"),
        ({"M": 0}, "integer"),
        ({"max_learners": 5, "M": 10}, "below M"),
        ({"relearn": "again"}, "relearn"),
        ({"gamma": float("nan")}, "finite"),
    ],
)
def test_bad_parameters_are_refused(params: dict[str, Any], word: str) -> None:
    with pytest.raises(InputError, match=word):
        DynFo(**params).learn_one({"a": 1.0}, 1)


def test_generic_checks_with_small_forest() -> None:
    report = check_learner(DynFo(**SMALL, seed=2))
    assert report.ok, str(report)


def test_no_bias_and_the_reason() -> None:
    """A vote of stumps has no linear score to shift: ``fit_intercept`` is ``False`` only."""
    assert DynFo().get_params()["fit_intercept"] is False
    assert "fit_intercept" not in repr(DynFo())
    with pytest.raises(InputError, match="DynFo learns no bias: its score is a vote"):
        DynFo(fit_intercept=True).learn_one({"a": 1.0}, 1)
    with pytest.raises(InputError, match="fit_intercept must be a bool"):
        DynFo(fit_intercept="no").learn_one({"a": 1.0}, 1)
