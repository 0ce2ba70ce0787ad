"""OLVF: its oracle on both paths, the package's rule, the sparsity step, model files, bad input."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evofeat import io
from evofeat.base import InputError
from evofeat.evaluate import prequential
from evofeat.haphazard import OLVF
from evofeat.streams import Stream, haphazard
from evofeat.testing import check_learner
from oracle.olvf import olvf as oracle_olvf
from tests._core.test_oracle_parity import dense


def _stream(n: int = 300, d: int = 12, p: float = 0.5, seed: int = 3, scale: bool = True) -> Stream:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.uniform(0.1, 50.0, size=d) if scale else 1.0)
    y = np.where(X[:, :3].sum(axis=1) + 0.3 * rng.normal(size=n) > 0, 1, -1)
    return haphazard(X, y, p=p, seed=seed)


PARAMS: list[dict[str, Any]] = [
    {},
    {"C": 1.0, "C_bar": 1.0},
    {"C": 0.5, "C_bar": 0.1, "B": 0.3, "reg": 0.5},
    {"C": 1.0, "rule": "package"},
    {"C": 0.01, "C_bar": 0.0001, "B": 0.3, "rule": "package"},
    {"C": 1.0, "B": 0.01, "reg": 1e-4, "rule": "package"},
]


@pytest.mark.parametrize("params", PARAMS, ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items()))
def test_array_and_dict_paths_match_the_oracle(params: dict[str, Any]) -> None:
    stream = _stream()
    labels, scores = oracle_olvf(dense(stream), stream.y.astype(float), **params)
    res = prequential(OLVF(**params), stream, keep_predictions=True)
    np.testing.assert_array_equal(res.labels, labels)
    np.testing.assert_allclose(res.scores, scores, rtol=1e-10, atol=1e-12)
    model, got = OLVF(**params), []
    for x, y in stream.to_dicts():
        got.append(model.decision_one(x))
        model.learn_one(x, y)
    np.testing.assert_allclose(np.array(got[1:], dtype=float), scores[1:], rtol=1e-10, atol=1e-12)


def _half_pa(X: np.ndarray, y: np.ndarray, C: float) -> np.ndarray:
    """PA-I with half its step on the visible features (``||x||^2 + eps``): the package's OLVF
    with B = 1 as the review's benchmark reads it (benchmarks/haphazard_review.py)."""
    w = np.zeros(X.shape[1])
    out = np.empty(len(y))
    for t in range(len(y)):
        m = ~np.isnan(X[t])
        x = np.where(m, X[t], 0.0)
        f = float(x[m] @ w[m])
        out[t] = 1.0 if f > 0 else -1.0
        loss = max(0.0, 1.0 - y[t] * f)
        w[m] += 0.5 * min(C, loss / (x @ x + np.finfo(float).eps)) * y[t] * x[m]
    return out


@pytest.mark.parametrize("C", [1.0, 0.01])
def test_package_rule_is_half_step_pa_and_its_space_classifier_never_moves(C: float) -> None:
    stream = _stream(scale=False)
    model = OLVF(C=C, C_bar=1.0, rule="package")
    res = prequential(model, stream, keep_predictions=True)
    np.testing.assert_array_equal(res.labels, _half_pa(dense(stream), stream.y.astype(float), C))
    assert not np.any(model._state.wbar)


def test_paper_rule_learns_its_feature_space_classifier() -> None:
    model = OLVF(C=1.0, C_bar=1.0)
    prequential(model, _stream())
    wbar = np.asarray(model._state.wbar)[: len(model.feature_index_)]
    assert np.all(wbar > 0)  # right predictions raise the confidence of the spaces they came from


@pytest.mark.parametrize("rule", ["paper", "package"])
def test_sparsity_step_keeps_a_fraction_of_the_seen_features(rule: str) -> None:
    model = OLVF(C=1.0, B=0.3, rule=rule)
    prequential(model, _stream(d=20))
    w = np.asarray(model._state.w)
    assert model._state.n_seen == 20
    if rule == "paper":  # it keeps the floor(0.3 * 20) = 6 largest magnitudes
        assert np.count_nonzero(w) <= 6
    else:  # the package zeroes the 6 largest values: at most 14 stay, none above a zeroed one
        assert np.count_nonzero(w) <= 14 and np.sum(w >= 0) >= 6


def test_paper_projection_bounds_the_confidence_weighted_norm() -> None:
    model = OLVF(C=1.0, C_bar=1.0, reg=0.05)
    prequential(model, _stream())
    st = model._state
    assert float(np.asarray(st.wbar) @ np.asarray(st.w)) <= 0.05 * (1 + 1e-12)


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("rule", ["paper", "package"])
def test_generic_checks(rule: str, bias: bool) -> None:
    report = check_learner(OLVF(C=0.5, B=0.5, rule=rule, fit_intercept=bias))
    assert not report.failed, report


def continues_identically(model: Any, rows: list[tuple[dict, Any]], path: Path) -> None:
    """Learn half of ``rows``; a model file and a pickle of ``model`` then score and learn the
    other half exactly as ``model``."""
    half = len(rows) // 2
    for x, y in rows[:half]:
        model.learn_one(x, y)
    io.save(model, path)
    copies = [io.load(path), pickle.loads(pickle.dumps(model))]
    for x, y in rows[half:]:
        want = model.decision_one(x)
        assert [c.decision_one(x) for c in copies] == [want, want]
        for m in (model, *copies):
            m.learn_one(x, y)


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("rule", ["paper", "package"])
def test_model_file_and_pickle_continue_identically(rule: str, bias: bool, tmp_path: Path) -> None:
    rows = list(_stream(n=200).to_dicts())
    model = OLVF(C=0.5, B=0.5, rule=rule, fit_intercept=bias)
    continues_identically(model, rows, tmp_path / "olvf.evofeat")
    assert (model.intercept_ != 0.0) is bias


@pytest.mark.parametrize(
    "params",
    [{"C": 0}, {"C_bar": -1.0}, {"B": 0.0}, {"B": 1.5}, {"reg": float("nan")}, {"rule": "code"}],
)
def test_bad_parameters_say_what_to_pass(params: dict[str, Any]) -> None:
    with pytest.raises(InputError, match="fix: pass"):
        OLVF(**params).learn_one({"a": 1.0}, 1)


def test_package_rule_gives_the_package_predictions() -> None:
    """The package's own predictions (tests/data/olvf_package_predictions.py made them with
    haphazard 1.2.8), on every row where the package does not predict at random."""
    data = np.load(Path(__file__).parents[1] / "data" / "olvf_package_predictions.npz")
    X, y = data["X"], np.where(data["y"] == 1, 1, -1)
    present = ~np.isnan(X)
    seen_before = np.cumsum(present, axis=0) - present > 0
    random_rows = ~np.any(seen_before & present, axis=1)
    for i, params in enumerate(json.loads(str(data["params"]))):
        res = prequential(
            OLVF(**params, rule="package"),
            Stream.from_dense(X, y, task="binary"),
            keep_predictions=True,
        )
        ours = (np.asarray(res.labels) == 1).astype(np.int64)
        assert np.array_equal(ours[~random_rows], data[f"pred_{i}"][~random_rows]), params


def test_a_state_that_undercounts_its_seen_features_is_learned_safely(tmp_path: Path) -> None:
    """A model file whose n_seen is below its seen flags (tampered): truncation stays in bounds."""
    model = OLVF(B=0.5)
    for i in range(20):
        model.learn_one({"a": float(i % 3), "b": 1.0, i % 4: 2.0}, 1 if i % 2 else -1)
    model._state.n_seen = 2
    io.save(model, tmp_path / "olvf.evofeat")
    loaded = io.load(tmp_path / "olvf.evofeat")
    for i in range(50):
        loaded.learn_one({"a": 1.0, "b": 2.0, "c": float(i)}, 1)
    assert loaded.n_learned_ == 70 and np.isfinite(np.asarray(loaded._state.w)).all()


def test_the_bias_steps_as_a_shared_feature_outside_the_sparsity_step() -> None:
    """``b`` moves by ``p_w tau y`` with ``||x||^2 + 1`` in ``tau``; the sparsity step keeps
    ``B m`` of the ``m`` seen features' weights and does not count or touch the bias."""
    model = OLVF(C=10.0, B=0.5, fit_intercept=True)
    model.learn_one({"a": 1.0, "b": 2.0}, 1)  # score 0, loss 1: tau = 1 / (5 + 1); p = 1/2
    assert model.intercept_ == pytest.approx(0.5 / 6.0, rel=1e-15)
    assert model.coef_ == {"a": 0.0, "b": pytest.approx(0.5 * 2.0 / 6.0, rel=1e-15)}
    plain = OLVF(C=10.0, B=0.5).learn_one({"a": 1.0, "b": 2.0}, 1)  # tau = 1 / 5
    assert plain.coef_ == {"a": 0.0, "b": pytest.approx(0.5 * 2.0 / 5.0, rel=1e-15)}
    assert model.decision_one({}) == model.intercept_ and plain.intercept_ == 0.0
