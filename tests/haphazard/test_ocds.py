"""OCDS: its oracle on both paths, the graph and the mixing weight, model files, bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evofeat.base import InputError
from evofeat.evaluate import prequential
from evofeat.haphazard import OCDS
from evofeat.streams import Stream, haphazard
from evofeat.testing import check_learner
from oracle import counter_uniform
from oracle.ocds import ocds as oracle_ocds
from tests._core.test_oracle_parity import dense
from tests.haphazard.test_olvf import continues_identically


def _stream(n: int = 150, d: int = 8, p: float = 0.5, seed: int = 5) -> Stream:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 2))
    X = z @ rng.normal(size=(2, d)) + 0.1 * rng.normal(size=(n, d))  # correlated features
    y = np.where(z[:, 0] > 0, 1, -1)
    return haphazard(X, y, p=p, seed=seed)


PARAMS: list[dict[str, Any]] = [
    {},
    {"alpha": 0.1, "beta1": 0.01, "beta2": 0.0001, "tau": 0.05, "seed": 7},
    {"gamma": 0.4, "tau": 0.05},
    {"rule": "package"},
    {"alpha": 1.0, "beta1": 0.01, "beta2": 0.01, "gamma": 0.5, "rule": "package"},
]


@pytest.mark.parametrize("params", PARAMS, ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items()))
def test_array_and_dict_paths_match_the_oracle(params: dict[str, Any]) -> None:
    stream = _stream()
    labels, scores = oracle_ocds(dense(stream), stream.y.astype(float), **params)
    res = prequential(OCDS(**params), stream, keep_predictions=True)
    np.testing.assert_array_equal(res.labels, labels)
    np.testing.assert_allclose(res.scores, scores, rtol=1e-9, atol=1e-12)
    model, got = OCDS(**params), []
    for x, y in stream.to_dicts():
        got.append(model.decision_one(x))
        model.learn_one(x, y)
    np.testing.assert_allclose(np.array(got[1:], dtype=float), scores[1:], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("rule", ["paper", "package"])
def test_graph_stays_non_negative_and_covers_the_seen_features(rule: str) -> None:
    model = OCDS(alpha=0.1, rule=rule)
    prequential(model, _stream())
    st, m = model._state, len(model.feature_index_)
    G = np.asarray(st.G)
    assert G.shape == (model._capacity, model._capacity)
    assert np.all(G >= 0) and not np.any(G[m:, :]) and not np.any(G[:, m:])
    if rule == "package":  # multiplicative steps and the row guard keep every edge positive
        assert np.all(G[:m, :m] > 0)
    assert 0.0 <= st.p <= 1.0 and st.T == 150


def _reconstruction_error(G: np.ndarray, X: np.ndarray) -> float:
    """Mean squared error of ``psi_obs = (1/d_t) G_obs^T x`` on the present features of ``X``."""
    err = []
    for row in X:
        obs = np.flatnonzero(~np.isnan(row))
        psi = G[np.ix_(obs, obs)].T @ row[obs] / obs.size
        err.append(np.mean((row[obs] - psi) ** 2))
    return float(np.mean(err))


def test_graph_learns_to_reconstruct_the_present_features() -> None:
    stream = _stream(n=400)
    X = dense(stream)
    model = OCDS(alpha=1.0, beta1=0.0, beta2=0.0, tau=0.01, seed=3)
    prequential(model, stream)
    d = X.shape[1]
    G0 = np.array([[counter_uniform(3, i, j) for j in range(d)] for i in range(d)])
    G = np.asarray(model._state.G)[:d, :d]
    assert _reconstruction_error(G, X[300:]) < 0.5 * _reconstruction_error(G0, X[300:])


def test_seed_changes_the_graph_and_is_repeatable() -> None:
    runs = [prequential(OCDS(seed=s), _stream(), keep_predictions=True).scores for s in (1, 1, 2)]
    np.testing.assert_array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0], runs[2])


@pytest.mark.parametrize("rule", ["paper", "package"])
def test_generic_checks(rule: str) -> None:
    report = check_learner(OCDS(alpha=0.1, gamma=0.5, rule=rule))
    assert not report.failed, report


@pytest.mark.parametrize("rule", ["paper", "package"])
def test_model_file_and_pickle_continue_identically(rule: str, tmp_path: Path) -> None:
    rows = list(_stream(n=120).to_dicts())
    continues_identically(OCDS(gamma=0.5, rule=rule), rows, tmp_path / "ocds.evofeat")


@pytest.mark.parametrize(
    "params",
    [{"alpha": -1.0}, {"gamma": 0.0}, {"gamma": 2.0}, {"tau": 0.0}, {"seed": -3}, {"rule": "x"}],
)
def test_bad_parameters_say_what_to_pass(params: dict[str, Any]) -> None:
    with pytest.raises(InputError, match="fix: pass"):
        OCDS(**params).learn_one({"a": 1.0}, 1)


@pytest.mark.parametrize("params", [{}, {"gamma": 0.5, "tau": 0.05, "intercept_lr": 0.2}])
def test_generic_checks_with_a_bias(params: dict[str, Any]) -> None:
    report = check_learner(OCDS(fit_intercept=True, **params))
    assert not report.failed, report


def test_the_bias_steps_on_the_residual_with_its_own_rate() -> None:
    """A zero row: ``psi = 0``, ``r = y - b``; ``b += step_b 2 r`` (``step_b``: ``intercept_lr``,
    else the classifier's ``1 / sqrt(t)``), nothing else moves."""
    model = OCDS(fit_intercept=True)
    model.learn_one({"a": 0.0}, 1)
    assert model.intercept_ == 2.0 and model.coef_ == {"a": 0.0}
    model.learn_one({"a": 0.0}, 1)  # r = 1 - 2 = -1, step 1 / sqrt(2)
    assert model.intercept_ == pytest.approx(2.0 - 2.0 / np.sqrt(2.0), rel=1e-15)
    slow = OCDS(fit_intercept=True, intercept_lr=0.1).learn_one({"a": 0.0}, 1)
    assert slow.intercept_ == pytest.approx(0.2, rel=1e-15)


def test_the_package_rule_takes_no_bias() -> None:
    with pytest.raises(InputError, match="rule='package' takes no bias"):
        OCDS(rule="package", fit_intercept=True).learn_one({"a": 1.0}, 1)
    with pytest.raises(InputError, match="intercept_lr"):
        OCDS(fit_intercept=True, intercept_lr=0.0).learn_one({"a": 1.0}, 1)
