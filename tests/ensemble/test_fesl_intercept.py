"""FESL's biases (``fit_intercept=True``, not the paper's): paths, reference, state, model files, checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evofeat import io
from evofeat.base import InputError
from evofeat.ensemble.fesl import BASES, FESL, METHODS
from evofeat.evaluate import prequential
from evofeat.streams import Stream, evolvable, haphazard
from reference.fesl import fesl_reference
from tests.ensemble.test_fesl import _reference_dense  # the stream as a dense array, NaN = absent


def _data(n: int = 300, d: int = 8, shift: float = 0.8, seed: int = 0) -> tuple[np.ndarray, Any]:
    """Labels of a linear rule plus ``shift``: about 3/4 of them +1, so a bias matters."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    f = X[:, 0] - 0.8 * X[:, 1] + 0.5 * X[:, 2] + shift + 0.3 * rng.standard_normal(n)
    return X, np.where(f > 0, 1, -1)


def _streams() -> dict[str, Stream]:
    X, y = _data()
    return {
        "evolvable-2": evolvable(X, y, d2=6, overlap=8, cycles=2, seed=4),
        "haphazard": haphazard(X, y, p=0.6, seed=2),
    }


STREAMS = _streams()


def _params(method: str, base: str, **kw: Any) -> dict[str, Any]:
    lr = {"ogd": 0.3, "adagrad": 0.3, "ftrl": 0.1, "nag": 0.5}[base]
    return {"method": method, "base": base, "lr": lr, "overlap": 6, "seed": 3, "l1": 0.1, **kw}


@pytest.mark.parametrize("scenario", list(STREAMS))
@pytest.mark.parametrize("base", list(BASES))
@pytest.mark.parametrize("method", list(METHODS))
def test_biased_paths_and_reference_agree(method: str, base: str, scenario: str) -> None:
    """Array path, dict path and the NumPy reference agree, and the bias changes the scores."""
    stream = STREAMS[scenario]
    params = _params(method, base, fit_intercept=True)
    model = FESL(**params)
    res = prequential(model, stream, keep_predictions=True)
    assert res.labels is not None and res.scores is not None
    _, ref, _ = fesl_reference(_reference_dense(stream), stream.y.astype(float), True, **params)
    err = np.abs(res.scores - ref) / np.maximum(1.0, np.abs(ref))
    assert err.max() <= 1e-9, f"scores differ by {err.max():.3g}"
    twin = FESL(**params)  # the dict path, one row at a time: the same scores, bit for bit
    scores = []
    for x, t in stream.to_dicts():
        scores.append(twin.decision_one(x))
        twin.learn_one(x, t)
    np.testing.assert_array_equal(np.asarray(scores, dtype=float)[1:], res.scores[1:])
    for field in ("intercept", "intercept_G", "intercept_z", "intercept_old"):
        assert getattr(model._state, field) == getattr(twin._state, field), field
    for field in model.per_feature:
        np.testing.assert_array_equal(model._weights(field), twin._weights(field))
    plain = prequential(FESL(**{**params, "fit_intercept": False}), stream, keep_predictions=True)
    assert np.abs(plain.scores - res.scores).max() > 0.05


def test_the_bias_learns_the_majority_and_helps_on_an_imbalanced_stream() -> None:
    """Labels +1 on 85% of the rows, independent of the features: with the biases every method
    scores above 0.75 after the switch (without them, about 0.5); both biases end positive."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((600, 8))
    y = np.where(rng.random(600) < 0.85, 1, -1)
    stream = evolvable(X, y, d2=5, overlap=10, seed=1)
    for base in BASES:
        for method in METHODS:
            params = _params(method, base)
            biased = FESL(**params, fit_intercept=True)
            acc = prequential(biased, stream, keep_predictions=True).accuracy
            plain = prequential(FESL(**params), stream).accuracy
            assert acc > 0.75 and acc > plain + 0.2, (base, method, acc, plain)
            assert biased.intercept_ == biased._state.intercept
            if method != "nogd":  # NOGD never uses the old model
                assert biased._state.intercept_old > 0.0, (base, method)
            if method != "rogd-f" and method != "rogd-u":  # the new model learns
                assert biased.intercept_ > 0.0, (base, method)


def test_at_the_switch_the_old_model_takes_the_predictors_bias() -> None:
    """First cycle: the predictor is the model of S1 (a1 = 0), so the old model of S2 starts with
    its bias, and the new model's bias starts at 0."""
    X, y = _data(200)
    stream = evolvable(X, y, d2=6, overlap=8, seed=1)
    rows = list(stream.to_dicts())
    switch = stream.info["switch_rows"][0]
    model = FESL(method="rogd-f", lr=0.3, overlap=8, fit_intercept=True)  # frozen: no later step
    for x, t in rows[:switch]:
        model.learn_one(x, t)
    b1 = model.intercept_
    assert b1 != 0.0 and model.n_switches_ == 0
    model.learn_one(*rows[switch])
    assert model.n_switches_ == 1
    assert model._state.intercept_old == b1
    assert model.intercept_ == 0.0  # ROGD-f never steps the new model


def test_default_is_the_paper_and_keeps_its_repr() -> None:
    assert FESL().fit_intercept is False
    assert "fit_intercept" not in repr(FESL())
    assert "fit_intercept=True" in repr(FESL(fit_intercept=True))
    model = FESL(lr=0.3, overlap=6)
    prequential(model, STREAMS["evolvable-2"])
    assert model.intercept_ == 0.0 and model._state.intercept == model._state.intercept_old == 0.0


@pytest.mark.parametrize("bad", [1, 0, "yes", None, np.bool_(True)])
def test_bad_fit_intercept_is_rejected(bad: Any) -> None:
    with pytest.raises(InputError, match="fit_intercept must be a bool"):
        prequential(FESL(fit_intercept=bad), STREAMS["haphazard"])


@pytest.mark.parametrize("base", list(BASES))
def test_saved_biased_learner_continues_identically(base: str, tmp_path: Path) -> None:
    stream = STREAMS["evolvable-2"]
    rows = list(stream.to_dicts())
    model = FESL(**_params("fesl-c", base, fit_intercept=True))
    for x, t in rows[:200]:  # past the first switch
        model.learn_one(x, t)
    assert model.n_switches_ >= 1 and model._state.intercept_old != 0.0
    loaded = io.load(io.save(model, tmp_path / "m.npz"), expected="fesl-c")
    assert loaded.get_params() == model.get_params()
    for field in model._state._fields:
        np.testing.assert_array_equal(getattr(loaded._state, field), getattr(model._state, field))
    for x, t in rows[200:]:
        assert loaded.decision_one(x) == model.decision_one(x)
        loaded.learn_one(x, t)
        model.learn_one(x, t)
    assert loaded.intercept_ == model.intercept_
