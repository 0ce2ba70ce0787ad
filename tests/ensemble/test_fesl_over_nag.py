"""FESL over NAG (``base="nag"``, not the paper's): array path, dict path and NumPy reference agree."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import reference
from evofeat.ensemble.fesl import FESL
from evofeat.evaluate import prequential
from evofeat.streams import Stream, evolvable, haphazard, trapezoidal


def _stream(scenario: str, scale: bool = False) -> Stream:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((240, 8))
    y = np.where(
        X[:, 0] - 0.8 * X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.standard_normal(240) > 0, 1, -1
    )
    if scale:  # features of very different scales, growing along the stream: NAG rescales
        X = X * np.logspace(-2, 3, 8) * np.linspace(0.5, 4.0, 240)[:, None]
    return {
        "trapezoidal": lambda: trapezoidal(X, y),
        "evolvable": lambda: evolvable(X, y, d2=5, overlap=10, seed=1),
        "haphazard": lambda: haphazard(X, y, p=0.6, seed=2),
    }[scenario]()


@pytest.mark.parametrize("scale", [False, True])
@pytest.mark.parametrize("scenario", ["trapezoidal", "evolvable", "haphazard"])
@pytest.mark.parametrize("method", ["fesl-c", "fesl-s", "nogd", "rogd-u"])
def test_fesl_nag_paths_and_reference_agree(method: str, scenario: str, scale: bool) -> None:
    stream = _stream(scenario, scale)
    params: dict[str, Any] = {"method": method, "base": "nag", "lr": 0.5, "overlap": 5}
    model = FESL(**params)
    res = prequential(model, stream, keep_predictions=True)
    assert res.labels is not None and res.scores is not None
    assert np.isfinite(res.scores).all()
    twin = FESL(**params)
    preds = []
    for x, t in stream.to_dicts():
        p = twin.predict_one(x)
        preds.append(np.nan if p is None else float(p))
        twin.learn_one(x, t)
    labels = np.where(res.labels == 0, -1, res.labels)
    np.testing.assert_array_equal(np.asarray(preds)[1:], labels[1:])
    for field in model.per_feature:
        np.testing.assert_array_equal(model._weights(field), twin._weights(field))
    X = stream.to_dense()
    np.testing.assert_array_equal(
        reference.predictions(model, X, stream.y.astype(float)), res.labels
    )


def test_fesl_nag_is_not_adagrad_and_scale_free() -> None:
    """NAG's steps differ from AdaGrad's; scaling a feature by 1000 changes no prediction of
    NOGD over NAG before the switch's overlap (only the weight, by 1/1000), where AdaGrad's do."""
    stream = _stream("evolvable", scale=True)
    base = {"method": "nogd", "lr": 0.5, "overlap": 5}
    nag = prequential(FESL(**base, base="nag"), stream, keep_predictions=True)
    ada = prequential(FESL(**base, base="adagrad"), stream, keep_predictions=True)
    assert nag.labels is not None and ada.labels is not None
    assert (nag.labels != ada.labels).sum() >= 3
    X, y = stream.to_dense().copy(), stream.y.astype(float)
    X[:, 0] *= 1000.0
    first = stream.info["eval_from"]  # the first space's rows, before the switch
    scaled = reference.predictions(FESL(**base, base="nag"), X, y)
    np.testing.assert_array_equal(scaled[:first], nag.labels[:first])
    ada_scaled = reference.predictions(FESL(**base, base="adagrad"), X, y)
    assert (ada_scaled[:first] != ada.labels[:first]).sum() >= 10


@pytest.mark.parametrize("kind", ["huge", "tiny", "mixed", "zero-rows"])
@pytest.mark.parametrize("method", ["fesl-c", "nogd"])
def test_fesl_nag_extreme_rows_stay_finite_and_match_the_reference(method: str, kind: str) -> None:
    """Rows of norm 1e300 / 1e-300 / both through a switch: no NaN, finite state, as the reference."""
    from tests.ensemble.test_fesl import _extreme, _finite_state, _reference_dense

    X, y = _extreme(kind)
    stream = evolvable(X, y, d2=5, overlap=10, seed=1)
    model = FESL(method=method, base="nag", lr=0.5)
    res = prequential(model, stream, keep_predictions=True)
    assert res.scores is not None and not np.isnan(res.scores).any() and _finite_state(model)
    assert model.n_switches_ == 1
    ref = reference.predictions(model, _reference_dense(stream), stream.y.astype(float))
    np.testing.assert_array_equal(ref, res.labels)
