"""Numerical extremes for the perceptron and PA (OGD and FESL: tests/ensemble/test_fesl.py).

Rows of norm 1e300 and 1e-300 (and both, and zero rows) through the dict
path, the array path and the NumPy reference: no NaN, a finite state, the
same labels on all three, and the mistake-driven learners stay
scale-invariant (the rules of ``evofeat/_core/safe.pxd``).
"""

from __future__ import annotations

import numpy as np
import pytest
from evofeat._core.helpers import safe_axpy, safe_dot

import reference
from evofeat.base import FeatureIndex
from evofeat.evaluate import prequential
from evofeat.registry import make
from evofeat.streams import Stream, full, haphazard, trapezoidal
from reference.safe import MAX, TINY, dot_reference

NAMES = ("perceptron", "pa", "pa-i", "pa-ii")

#: rows built to be extreme: a learner may diverge on them (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("divergence_expected")


def _extreme(kind: str, n: int = 240, d: int = 8, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] - 0.8 * X[:, 1] + 0.5 * X[:, 2] > 0, 1, -1)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    scale = {
        "unit": np.ones(n),
        "huge": np.full(n, 1e300),
        "tiny": np.full(n, 1e-300),
        "mixed": 10.0 ** rng.uniform(-300, 300, n),
        "zero-rows": np.where(rng.random(n) < 0.3, 0.0, 1.0),
    }[kind]
    return X * scale[:, None], y


def _reference_dense(stream: Stream) -> np.ndarray:
    col_map, _ = stream.internal_columns(FeatureIndex())
    out = np.full((stream.n_rows, int(col_map.max()) + 1), np.nan)
    out[:, col_map[col_map >= 0]] = stream.to_dense()[:, col_map >= 0]
    return out


def _streams(X: np.ndarray, y: np.ndarray) -> dict[str, Stream]:
    return {
        "full": full(X, y),
        "trapezoidal": trapezoidal(X, y),
        "haphazard": haphazard(X, y, p=0.6, seed=2),
    }


@pytest.mark.parametrize("scenario", ["full", "trapezoidal", "haphazard"])
@pytest.mark.parametrize("kind", ["huge", "tiny", "mixed", "zero-rows"])
@pytest.mark.parametrize("name", NAMES)
def test_extreme_rows_dict_array_reference(name: str, kind: str, scenario: str) -> None:
    stream = _streams(*_extreme(kind))[scenario]
    model = make(name)
    res = prequential(model, stream, keep_predictions=True)
    assert res.labels is not None and res.scores is not None
    assert not np.isnan(res.scores).any()
    assert all(np.isfinite(np.asarray(a, dtype=float)).all() for a in model._state)
    by_dict = make(name)
    labels = []
    for x, t in stream.to_dicts():
        p = by_dict.predict_one(x)
        labels.append(np.nan if p is None else float(p))
        by_dict.learn_one(x, t)
    arr = res.labels.copy()
    arr[arr == 0] = -1
    np.testing.assert_array_equal(np.asarray(labels)[1:], arr[1:])
    ref = reference.predictions(model, _reference_dense(stream), stream.y.astype(float))
    np.testing.assert_array_equal(ref, res.labels)


@pytest.mark.parametrize("kind", ["huge", "tiny"])
@pytest.mark.parametrize("name", ["perceptron", "pa"])
def test_mistake_driven_learners_are_scale_invariant(name: str, kind: str) -> None:
    """Rows scaled by 1e300 or 1e-300 give the labels of the unit rows (the steps are rescaled).

    PA-I and PA-II are not scale-invariant (``C`` is compared with ``loss / ||x||^2``).
    """
    unit = prequential(make(name), full(*_extreme("unit")), keep_predictions=True)
    scaled = prequential(make(name), full(*_extreme(kind)), keep_predictions=True)
    assert unit.labels is not None and scaled.labels is not None
    if name == "perceptron":  # w is a sum of rows: every score is the unit score times 1e+-600
        np.testing.assert_array_equal(scaled.labels, unit.labels)
    else:  # PA's step is computed on the rescaled row: the same up to rounding
        assert abs(scaled.mistakes - unit.mistakes) <= 2


@pytest.mark.parametrize("name", NAMES)
def test_a_zero_row_changes_no_weight(name: str) -> None:
    model = make(name)
    for x, t in full(*_extreme("unit", n=30)).to_dicts():
        model.learn_one(x, t)
    before = model._state.w.copy()
    model.learn_one({f"x{j}": 0.0 for j in range(8)}, 1)
    model.learn_one({}, -1)
    np.testing.assert_array_equal(model._state.w, before)


def test_safe_dot_and_axpy() -> None:
    idx = np.array([0, 1])
    # overflow: recomputed rescaled, never inf - inf = NaN
    assert safe_dot(np.array([1e300, -1e300]), idx, np.array([1e300, 1e300])) == 0.0
    assert safe_dot(np.array([1e300, 1e300]), idx, np.array([1e300, -2e300])) == -MAX
    assert (
        safe_dot(np.array([1e-300, 0.0]), idx, np.array([-1e-300, 0.0])) == -TINY
    )  # keeps its sign
    assert safe_dot(np.array([2.0, 3.0]), idx, np.array([0.5, 1.0])) == 4.0
    assert dot_reference(np.array([1e300, 1e300]), np.array([1e300, -2e300])) == -MAX
    w = np.array([1e308, 1.0])
    assert safe_axpy(w, 1e10, idx, np.array([1e300, 1.0]))
    assert w.tolist() == [MAX, 1e10 + 1.0]
    assert not safe_axpy(w, np.inf, idx, np.array([1.0, 1.0])) and w.tolist() == [MAX, 1e10 + 1.0]
