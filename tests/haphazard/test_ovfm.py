"""OVFM as a registered learner (evofeat.haphazard.OVFM, evofeat.haphazard._ovfm).

The oracle parity (``tests/_core/test_oracle_parity.py``, ``oracle.ovfm``) checks its
scores on both paths; here the generic suite, its parameters, the copula
choice, and the parts the learner is made of.
"""

from __future__ import annotations

import numpy as np
import pytest

from evofeat import io
from evofeat.base import InputError
from evofeat.evaluate import prequential
from evofeat.haphazard import OVFM
from evofeat.registry import make
from evofeat.streams import Stream
from evofeat.testing import check_learner, synthetic_stream_data
from oracle import ovfm as oovfm


@pytest.mark.parametrize(
    "params",
    [{}, {"copula": "identity", "decay_choice": 0, "window": 5}, {"fit_intercept": False}],
)
def test_the_generic_suite_passes(params):
    report = check_learner(OVFM(**params))
    assert not report.failed, str(report)


def _haphazard(seed: int = 0, n: int = 300, d: int = 6, p: float = 0.5):
    X, y = synthetic_stream_data("binary", n=n, d=d)
    rng = np.random.default_rng(seed)
    X = X * np.logspace(-1, 2, d)
    X[rng.random(X.shape) > p] = np.nan
    return X, y


@pytest.mark.parametrize("choice", [0, 1, 2, 3, 4])
def test_every_decay_rule_matches_the_oracle(choice):
    X, y = _haphazard(choice)
    res = prequential(
        OVFM(decay_choice=choice, contribute_error_rate=0.05),
        Stream.from_dense(X, y),
        keep_predictions=True,
    )
    labels, scores = oovfm.ovfm(X, y.astype(float), choice, 0.05)
    np.testing.assert_array_equal(res.labels, labels)
    np.testing.assert_allclose(res.scores, scores, rtol=1e-10, atol=1e-12)


def test_the_identity_copula_imputes_zero_and_the_learned_one_does_not():
    rng = np.random.default_rng(0)
    n = 1500
    a, c = rng.normal(size=n), rng.normal(size=n)
    X = np.column_stack([a, 3.0 * a + 0.01 * rng.normal(size=n), c])
    X[rng.random(n) < 0.5, 1] = np.nan  # b absent half the time: imputed from a
    y = np.where(a + c > 0, 1, -1)
    frozen, learned = OVFM(copula="identity"), OVFM()
    for model in (frozen, learned):
        prequential(model, Stream.from_dense(X, y, list("abc")))
    assert np.array_equal(np.asarray(frozen._state.sigma)[:3, :3], np.eye(3))
    rho = learned.correlation()
    assert rho["a"]["b"] > 0.9 and abs(rho["a"]["c"]) < 0.1
    frozen_rows = oovfm.copula(X, learn=False)[0]
    learned_rows = oovfm.copula(X)[0]
    absent = np.isnan(X[:, 1]) & (np.arange(n) > 0)
    assert np.all(frozen_rows[absent, 1] == 0.0)
    assert np.corrcoef(learned_rows[absent, 1], learned_rows[absent, 0])[0, 1] > 0.99


def test_the_mixture_weight_follows_the_losses():
    X, y = _haphazard(3, n=500, p=0.9)
    model = OVFM()
    prequential(model, Stream.from_dense(X, y))
    lam, lx, lz = np.asarray(model._state.mix)
    assert lam == pytest.approx(1.0 / (1.0 + np.exp(-0.001 * (lz - lx))), rel=1e-12)
    assert lx > 0 and lz > 0


def test_registered_with_the_defaults():
    model = make("ovfm")
    assert isinstance(model, OVFM) and model.get_params() == OVFM().get_params()
    assert make("ovfm", decay_choice=2).decay_choice == 2


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"decay_choice": 5}, "decay_choice must be"),
        ({"contribute_error_rate": -0.1}, "contribute_error_rate must be"),
        ({"copula": "gaussian"}, "unknown copula"),
        ({"window": 0}, "window must be"),
        ({"forget": 3.0}, "forget must be"),
    ],
)
def test_bad_parameters_say_what_to_do(params, says):
    with pytest.raises(InputError, match=says):
        OVFM(**params).learn_one({"a": 1.0}, 1)


def test_the_bias_is_the_authors_and_can_be_turned_off(tmp_path) -> None:
    """On by default (the authors' classifiers have one); ``fit_intercept=False`` keeps both
    biases at 0 and changes the predictions; model files keep the choice."""
    X, y = _haphazard(seed=2)
    stream = Stream.from_dense(X, y)
    on, off = OVFM(), OVFM(fit_intercept=False)
    a = prequential(on, stream, keep_predictions=True)
    b = prequential(off, stream, keep_predictions=True)
    assert on.fit_intercept is True and "fit_intercept" not in repr(on)
    assert on.intercept_ != 0.0 and off.intercept_ == 0.0
    assert not np.any(off._state.bx) and not np.any(off._state.bz)
    assert a.labels is not None and b.labels is not None
    assert (a.labels != b.labels).sum() >= 3
    loaded = io.load(io.save(off, tmp_path / "m.evofeat"), expected="ovfm")
    assert loaded.get_params() == off.get_params() and loaded._state.fit_intercept == 0
