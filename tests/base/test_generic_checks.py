"""The generic check suite: every registered online learner crossed with every check.

The checks live in :mod:`evofeat.testing` (``check_learner``, the suite a
learner's author runs); here each one runs on each registered learner, plus
what the package cannot check by itself: parity with each learner's plain
NumPy reference. A new learner only registers and passes.
"""

from __future__ import annotations

import numpy as np
import pytest

import reference
from evofeat.base import FeatureIndex, OnlineLearner
from evofeat.evaluate import prequential
from evofeat.linear.pa import PA
from evofeat.registry import ONLINE, make
from evofeat.streams import Stream, evolvable, haphazard, trapezoidal
from evofeat.testing import CHECKS, check_learner, synthetic_stream_data

NAMES = list(ONLINE)  # every registered online learner


def _learner(name: str) -> OnlineLearner:
    model = make(name)
    assert isinstance(model, OnlineLearner)
    if model.task == "multiclass" and getattr(model, "n_classes", 0) is None:
        model.set_params(n_classes=3)
    return model


def test_every_registered_learner_is_importable() -> None:
    for name in NAMES:
        assert isinstance(make(name), OnlineLearner), name


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("name", NAMES)
def test_generic_check(name: str, check: str) -> None:
    CHECKS[check](_learner(name))


class Forgetful(PA):
    """A PA whose pickled copy forgets what it learned (for the test below)."""

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._reset()


def test_check_learner_reports_a_broken_learner() -> None:
    """check_learner names the failing check and what is still needed."""
    report = check_learner(Forgetful(), checks=["contract", "key_order"])
    assert report.passed == ["key_order"]
    assert "pickled copy" in report.failed["contract"]
    assert "oracle" in str(report)
    with pytest.raises(AssertionError, match="contract"):
        check_learner(Forgetful(), checks=["contract"], raise_on_failure=True)


# ---------------------------------------------------------------------------- reference parity
def _reference_order(stream: Stream) -> np.ndarray:
    """Dense values (NaN = absent) with columns in the learners' internal order."""
    col_map, _ = stream.internal_columns(FeatureIndex())
    dense = stream.to_dense()
    out = np.full((stream.n_rows, int(col_map.max()) + 1), np.nan)
    keep = col_map >= 0
    out[:, col_map[keep]] = dense[:, keep]
    return out


@pytest.mark.parametrize("scenario", ["trapezoidal", "evolvable", "haphazard"])
@pytest.mark.parametrize("name", NAMES)
def test_parity_array_reference(name: str, scenario: str) -> None:
    task = _learner(name).task
    X, y = synthetic_stream_data(task, n=200)
    stream = {
        "trapezoidal": trapezoidal(X, y, task=task),
        "evolvable": evolvable(X, y, d2=5, overlap=10, seed=1, task=task),
        "haphazard": haphazard(X, y, p=0.6, seed=2, task=task),
    }[scenario]
    arr = prequential(_learner(name), stream, keep_predictions=True)
    ref = reference.predictions(_learner(name), _reference_order(stream), stream.y.astype(float))
    if task == "regression":
        np.testing.assert_allclose(ref, arr.labels, rtol=1e-7, atol=1e-9)
    else:
        np.testing.assert_array_equal(ref, arr.labels)
