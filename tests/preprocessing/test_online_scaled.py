"""Online scaling in front of a learner (evofeat.preprocessing.OnlineScaled, evofeat._core.scaling).

Each transform against a plain NumPy reference written here, the learner fed
exactly the reference's scaled rows, both paths equal, absent features left
absent, growing feature spaces, known distributions, copies and model files.
"""

from __future__ import annotations

import copy
import doctest
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import special, stats

from evofeat import io
from evofeat._core import core as corelib
from evofeat._core import scaling as compiled
from evofeat.base import InputError
from evofeat.evaluate import prequential
from evofeat.linear import _adaptive
from evofeat.linear.ftrl import FTRL
from evofeat.preprocessing import METHODS as CORES
from evofeat.preprocessing import OnlineScaled, learner_from_spec, learner_spec
from evofeat.streams import Stream
from reference.ftrl import ftrl_reference

METHODS = ("zscore", "quantile", "quantile-sketch")


# ---------------------------------------------------------------------------- NumPy references
def zscore_reference(X: np.ndarray) -> np.ndarray:
    """Each present value (NaN: absent) scaled with the running mean and population sd of its
    column's values in the rows before it (0 while that sd is 0); absent stays NaN."""
    n, d = X.shape
    count, mean, m2 = np.zeros(d), np.zeros(d), np.zeros(d)
    out = np.full_like(X, np.nan)
    for t in range(n):
        for j in np.flatnonzero(~np.isnan(X[t])):
            x = X[t, j]
            sd = np.sqrt(m2[j] / count[j]) if count[j] > 0 else 0.0
            out[t, j] = (x - mean[j]) / sd if sd > 0 else 0.0
            count[j] += 1.0
            delta = x - mean[j]
            mean[j] += delta / count[j]
            m2[j] += delta * (x - mean[j])
    return out


def quantile_reference(X: np.ndarray, window: int) -> np.ndarray:
    """Each present value's normal score: the mid-rank of the value among its column's last
    ``window`` values before it, ``Phi^-1((below + equal / 2 + 1 / 2) / (n + 1))``."""
    n, d = X.shape
    kept: list[list[float]] = [[] for _ in range(d)]
    out = np.full_like(X, np.nan)
    for t in range(n):
        for j in np.flatnonzero(~np.isnan(X[t])):
            x = X[t, j]
            w = np.array(kept[j][-window:])
            q = (np.sum(w < x) + 0.5 * np.sum(w == x) + 0.5) / (w.size + 1)
            out[t, j] = special.ndtri(q)
            kept[j].append(x)
    return out


def sketch_reference(X: np.ndarray, k: int) -> np.ndarray:
    """Each present value's normal score: its mid-rank among its column's reservoir sample of at
    most ``k`` of the values before it. The ``n``-th value of a column (from 0) is kept while
    fewer than ``k`` are, else when its draw ``j`` (uniform on ``0..n``, ``sketch_draws``) is
    below ``k``, in place of the ``j``-th smallest kept value."""
    n_rows, d = X.shape
    draws = compiled.sketch_draws(0, n_rows)
    sample: list[list[float]] = [[] for _ in range(d)]
    out = np.full_like(X, np.nan)
    for t in range(n_rows):
        for j in np.flatnonzero(~np.isnan(X[t])):
            x, kept = X[t, j], sample[j]
            w = np.array(kept)
            q = (np.sum(w < x) + 0.5 * np.sum(w == x) + 0.5) / (w.size + 1)
            out[t, j] = special.ndtri(q)
            n = int(np.sum(~np.isnan(X[:t, j])))  # the values of the column seen before
            if len(kept) < k:
                kept.append(x)
            elif draws[n] < k:
                del kept[int(draws[n])]
                kept.append(x)
            kept.sort()
    return out


def reference(X: np.ndarray, method: str, window: int = 100) -> np.ndarray:
    if method == "zscore":
        return zscore_reference(X)
    if method == "quantile":
        return quantile_reference(X, window)
    return sketch_reference(X, window)


def _stream(seed: int = 0, n: int = 300, d: int = 6, p: float = 0.5):
    """Raw, unscaled columns (scales 1e-2 .. 1e3, a skewed one, a tied one), each value absent
    with probability ``p``; the last column appears only from row n/2 on (a growing space)."""
    rng = np.random.default_rng(seed)
    scales = np.array([1e-2, 1.0, 30.0, 1e3, 5.0, 1.0])[:d]
    X = rng.standard_normal((n, d)) * scales + 3.0 * scales
    X[:, 1] = rng.exponential(2.0, n)  # skewed
    X[:, 4] = np.round(X[:, 4] / 5.0)  # ties
    X[:, 2] = np.where(rng.random(n) < 0.1, 0.0, X[:, 2])  # a present zero is a value
    y = np.where((X[:, 0] - 0.03) * 100 + (X[:, 1] - 2.0) - (X[:, 3] - 3e3) / 1e3 > 0, 1, -1)
    X[rng.random((n, d)) < p] = np.nan
    X[: n // 2, -1] = np.nan
    return X, y


def _core(method: str, d: int, window: int = 100):
    own = (
        {"count": np.zeros(d), "mean": np.zeros(d), "m2": np.zeros(d)}
        if method == "zscore"
        else {
            "window": window,
            "seen": np.zeros(d, dtype=np.int64),
            "recent" if method == "quantile" else "sample": np.zeros((d, window)),
        }
    )
    return compiled.scaled_core(CORES[method], corelib.Core(), **own)


def _scale_stream(core, X: np.ndarray) -> np.ndarray:
    """The compiled core's scaled rows: each row scaled, then learned (the statistics take it)."""
    out = np.full_like(X, np.nan)
    for t in range(X.shape[0]):
        idx = np.flatnonzero(~np.isnan(X[t])).astype(np.int64)
        val = np.ascontiguousarray(X[t, idx])
        out[t, idx] = compiled.scale_row(core, idx, val)
        _adaptive.learn_row(core, idx, val, 1.0, 0.0)
    return out


# ---------------------------------------------------------------------------- the transforms
@pytest.mark.parametrize("method", METHODS)
def test_the_compiled_transform_is_the_numpy_reference(method: str) -> None:
    X, _ = _stream()
    got = _scale_stream(_core(method, X.shape[1], window=40), X)
    want = reference(X, method, window=40)
    assert np.array_equal(np.isnan(got), np.isnan(X)), "an absent value must stay absent"
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    X=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=25),
        elements=st.one_of(
            st.just(np.nan),
            st.just(0.0),
            st.integers(-3, 3).map(float),  # ties
            st.floats(-1e6, 1e6, allow_nan=False),
        ),
    ),
    method=st.sampled_from(METHODS),
    window=st.integers(1, 6),
)
def test_any_stream_is_scaled_as_the_reference(X: np.ndarray, method: str, window: int) -> None:
    got = _scale_stream(_core(method, X.shape[1], window=window), X)
    np.testing.assert_allclose(got, reference(X, method, window), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_extreme_values_keep_the_statistics_and_the_learner_finite(method: str) -> None:
    values = [1e300, -1e308, 1.7e308, -1.7e308, 0.0, 5e-324, 1e-300, 3.0, 1e308] * 5
    model = OnlineScaled("ftrl", method=method)
    for t, v in enumerate(values):
        model.learn_one({"a": v, "b": float(t)}, 1 if t % 2 else -1)
    assert all(np.isfinite(v) for v in model.statistics()["a"].values())
    assert all(np.isfinite(v) for v in model.coef_.values())
    assert np.isfinite(model.decision_one({"a": -1.7e308, "b": 1e308}))


def test_the_normal_quantile_is_scipys() -> None:
    p = np.concatenate([np.linspace(1e-9, 1 - 1e-9, 20001), [1e-300, 0.02425, 1 - 0.02425]])
    got = np.array([compiled.normal_score(v) for v in p])
    np.testing.assert_allclose(got, special.ndtri(p), rtol=1e-14, atol=1e-14)


def test_the_first_values_and_ties() -> None:
    core = _core("quantile", 1, window=4)
    X = np.array([[5.0], [5.0], [5.0], [1.0], [9.0], [5.0]])
    got = _scale_stream(core, X)[:, 0]
    assert got[0] == 0.0, "the first value has no rank yet: the centre"
    assert got[1] == 0.0 and got[2] == 0.0, "a value tied with every kept one is at the centre"
    assert got[3] < 0 < got[4], "below every kept value is negative, above is positive"
    z = _scale_stream(_core("zscore", 1), np.array([[1.0], [3.0], [4.0]]))[:, 0]
    assert z.tolist() == [0.0, 0.0, 2.0], "no spread yet scores 0; then (4 - 2) / sd"


def test_the_window_bounds_the_memory() -> None:
    core = _core("quantile", 1, window=8)
    _scale_stream(core, np.arange(100.0)[:, None])
    assert core.recent.shape == (1, 8) and int(core.seen[0]) == 100
    assert sorted(np.asarray(core.recent[0]).tolist()) == list(np.arange(92.0, 100.0))


def test_the_compiled_module_examples_run() -> None:
    result = doctest.testmod(compiled)
    assert result.attempted >= 3 and result.failed == 0


# ---------------------------------------------------------------------------- known distributions
def test_zscores_of_a_normal_stream_have_mean_0_and_sd_1() -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(3.0, 5.0, 20000)
    z = _scale_stream(_core("zscore", 1), x[:, None])[100:, 0]
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1.0) < 0.03


@pytest.mark.parametrize("window", [50, 100, 400])
def test_normal_scores_of_a_skewed_stream_are_normal_within_the_stated_bound(window: int) -> None:
    rng = np.random.default_rng(window)
    n = 20000
    x = rng.exponential(1.0, n)
    z = _scale_stream(_core("quantile", 1, window=window), x[:, None])[window:, 0]
    # the docstring's bound: ranks among i.i.d. values are uniform, so the scores are N(0, 1) up
    # to the discreteness of q (1 / (2 window + 2)); plus the test sample's own spread (the KS
    # statistic's 99.9 % quantile, 1.95 / sqrt(size))
    bound = 1.0 / (2 * window + 2) + 1.95 / np.sqrt(z.size)
    assert stats.kstest(z, "norm").statistic < bound
    raw = (x - x.mean()) / x.std()  # whole-file z-scores of the same values are far from normal
    assert stats.kstest(raw, "norm").statistic > 3 * bound


# ---------------------------------------------------------------------------- in front of a learner
@pytest.mark.parametrize("method", METHODS)
def test_the_learner_learns_the_reference_scaled_rows(method: str) -> None:
    X, y = _stream(seed=3)
    res = prequential(
        OnlineScaled("ftrl(l1=0.0)", method=method, window=30),
        Stream.from_dense(X, y, [f"f{j}" for j in range(X.shape[1])]),
        keep_predictions=True,
    )
    want = ftrl_reference(reference(X, method, window=30), y, l1=0.0, intercept_lr=0.1)
    assert res.labels is not None
    assert np.array_equal(res.labels, want)


def _dict_rows(X: np.ndarray) -> list[dict[str, float]]:
    return [{f"f{j}": float(v) for j, v in enumerate(row) if not np.isnan(v)} for row in X]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("spec", ["ftrl", "adagrad", "pa-i(fit_intercept=True)", "nag"])
def test_both_paths_give_the_same_predictions(method: str, spec: str) -> None:
    X, y = _stream(seed=5)
    names = [f"f{j}" for j in range(X.shape[1])]
    array = OnlineScaled(spec, method=method, window=20)
    res = prequential(array, Stream.from_dense(X, y, names), keep_predictions=True)
    model = OnlineScaled(spec, method=method, window=20)
    preds, scores = [], []
    for x, label in zip(_dict_rows(X), y.tolist(), strict=True):
        preds.append(model.predict_one(x))
        scores.append(model.decision_one(x))
        model.learn_one(x, label)
    assert res.labels is not None and res.scores is not None
    assert [p if p is not None else -1 for p in preds] == np.where(res.labels > 0, 1, -1).tolist()
    assert np.array_equal(np.array(scores[1:], dtype=float), res.scores[1:])
    assert model.coef_ == array.coef_ and model.statistics() == array.statistics()
    batch = OnlineScaled(spec, method=method, window=20)
    import pandas as pd

    batch.learn_many(pd.DataFrame(X, columns=names), y)
    assert batch.coef_ == array.coef_


@pytest.mark.parametrize("method", METHODS)
def test_absent_features_are_not_counted_and_a_zero_is(method: str) -> None:
    model = OnlineScaled("ftrl", method=method)
    model.learn_one({"a": 1.0, "b": 2.0}, 1).learn_one({"a": 3.0}, -1).learn_one({"b": 0.0}, 1)
    st = model.statistics()
    key = "count" if method == "zscore" else "seen"  # (the sketch's statistics: the quantile's)
    assert st["a"][key] == 2.0 and st["b"][key] == 2.0
    model.predict_one({"a": 1e6})
    assert model.statistics() == st, "predicting learns nothing"


def test_new_features_mid_stream_start_with_empty_statistics() -> None:
    model = OnlineScaled("ftrl")
    for t in range(50):
        model.learn_one({"a": float(t)}, 1 if t % 2 else -1)
    before = model.statistics()["a"]
    for t in range(20):  # 'new' appears, 'a' goes on
        model.learn_one({"a": 1.0, "new": 100.0 + t}, 1)
    st = model.statistics()
    assert st["new"]["count"] == 20 and st["new"]["mean"] == pytest.approx(109.5)
    assert st["a"]["count"] == before["count"] + 20
    # the same stream through the compiled loop, many features appearing later (growing state)
    X = np.full((200, 40), np.nan)
    rng = np.random.default_rng(1)
    for j in range(40):
        X[5 * j :, j] = rng.normal(j, 1 + j, 200 - 5 * j)
    y = np.where(rng.random(200) < 0.5, 1, -1)
    model = OnlineScaled("ftrl", method="zscore")
    prequential(model, Stream.from_dense(X, y, [f"f{j}" for j in range(40)]))
    assert model._capacity >= 40
    st = model.statistics()
    for j in range(40):
        assert st[f"f{j}"]["count"] == 200 - 5 * j
        assert st[f"f{j}"]["mean"] == pytest.approx(np.nanmean(X[:, j]), rel=1e-12)


# ---------------------------------------------------------------------------- copies and files
@pytest.mark.parametrize("method", METHODS)
def test_copies_pickles_and_model_files_carry_the_statistics(method: str, tmp_path) -> None:
    X, y = _stream(seed=9)
    rows = _dict_rows(X)
    model = OnlineScaled("adagrad(lr=0.2)", method=method, window=16)
    for x, label in zip(rows[:150], y[:150].tolist(), strict=True):
        model.learn_one(x, label)
    copies = [
        pickle.loads(pickle.dumps(model)),
        copy.deepcopy(model),
        copy.copy(model),
        io.load(io.save(model, tmp_path / "m.npz")),
    ]
    rest = list(zip(rows[150:], y[150:].tolist(), strict=True))
    for other in copies:
        assert other.get_params() == model.get_params()
        assert other.statistics() == model.statistics()
    for x, label in rest:
        want = model.predict_one(x)
        model.learn_one(x, label)
        for other in copies:
            assert other.predict_one(x) == want
            other.learn_one(x, label)
    for other in copies:
        assert other.coef_ == model.coef_ and other.statistics() == model.statistics()
    fresh = model.clone()
    assert fresh.predict_one(rows[0]) is None and fresh.get_params() == model.get_params()


# ---------------------------------------------------------------------------- parameters
def test_a_learner_object_is_kept_as_its_spec() -> None:
    from evofeat.linear.ftrl import FTRL
    from evofeat.linear.pa import PA

    assert OnlineScaled(FTRL(alpha=0.3)).get_params()["learner"] == "ftrl(alpha=0.3)"
    assert learner_spec(PA(mode="pa-ii", C=0.5)) == "pa-ii(C=0.5)"
    assert learner_from_spec(learner_spec(FTRL(l2=0.0))).get_params() == FTRL(l2=0.0).get_params()


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"method": "minmax"}, "unknown scaling method"),
        ({"window": 0}, "window must be"),
        ({"window": 2.5}, "window must be"),
        ({"learner": "ftrl(0.3)"}, "not a learner spec"),
        ({"learner": "ftrl(alpha=-1.0)"}, "alpha must be positive"),
        ({"learner": "opid"}, "online learner"),
    ],
)
def test_bad_parameters_say_what_to_do(params: dict, says: str) -> None:
    with pytest.raises(InputError, match=says):
        OnlineScaled(**params).learn_one({"a": 1.0}, 1)


@pytest.mark.parametrize(
    ("spec", "task"),
    [("stsd-multiclass", "multiclass"), ("ftrl(loss='square')", "regression")],
)
def test_other_tasks_behind_the_scaler(spec: str, task: str, tmp_path) -> None:
    X, _ = _stream(seed=11)
    f = np.nan_to_num((X[:, 1] - 2.0) + (X[:, 3] - 3e3) / 1e3)
    y = np.digitize(f, [-1.0, 1.0]) if task == "multiclass" else f
    names = [f"f{j}" for j in range(X.shape[1])]
    array = OnlineScaled(spec, method="quantile", window=25)
    assert array.task == task
    res = prequential(array, Stream.from_dense(X, y, names, task=task), keep_predictions=True)
    if task == "multiclass":  # inferred from the stream, kept in the learner's spec
        assert array.get_params()["learner"] == "stsd-multiclass(n_classes=3)"
    model = OnlineScaled(array.get_params()["learner"], method="quantile", window=25)
    preds = []
    for x, label in zip(_dict_rows(X), y.tolist(), strict=True):
        preds.append(model.predict_one(x))
        model.learn_one(x, label)
    assert res.labels is not None
    assert np.array_equal(np.array(preds[1:], dtype=float), res.labels[1:])
    again = io.load(io.save(array, tmp_path / "m.npz"))
    x = _dict_rows(X)[-1]
    assert again.predict_one(x) == array.predict_one(x) == model.predict_one(x)


def test_scalers_nest_and_a_scaled_name_is_a_spec() -> None:
    model = learner_from_spec("online-zscore+online-quantile+ftrl(alpha=0.2)")
    assert isinstance(model, OnlineScaled)
    assert model.get_params()["learner"] == "online-quantile+ftrl(alpha=0.2)"
    X, y = _stream(seed=2)
    res = prequential(model, Stream.from_dense(X, y, [f"f{j}" for j in range(X.shape[1])]))
    assert 0.0 < res.accuracy <= 1.0 and model.statistics()["f0"]["count"] > 0
    again = pickle.loads(pickle.dumps(model))
    x = _dict_rows(X)[-1]
    assert again.decision_one(x) == model.decision_one(x)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("spec", ["ftrl", "pa-i", "stsd-i", "ofs"])
def test_the_generic_suite_passes_behind_the_scaler(method: str, spec: str) -> None:
    from evofeat.testing import check_learner

    report = check_learner(OnlineScaled(spec, method=method, window=10))
    assert not report.failed, str(report)


class Mine(FTRL):
    """A user's own learner: no registry name."""


def test_a_learner_that_is_not_registered_is_wrapped_as_an_object() -> None:
    model = OnlineScaled(Mine(alpha=0.2), method="zscore")
    assert isinstance(model.get_params()["learner"], Mine)
    model.learn_one({"a": 1.0}, 1).learn_one({"a": 3.0}, -1)
    again = pickle.loads(pickle.dumps(model))
    assert again.predict_one({"a": 2.5}) == model.predict_one({"a": 2.5})
    assert "Mine" in repr(model) and model.clone().predict_one({"a": 1.0}) is None


@pytest.mark.parametrize("method", METHODS)
def test_a_sparse_batch_scales_its_unstored_zeros_as_values(method: str) -> None:
    import scipy.sparse as sp

    X, y = _stream(seed=13, n=120, p=0.0)
    X = np.nan_to_num(X)
    X[np.random.default_rng(0).random(X.shape) < 0.6] = 0.0  # mostly zeros, stored or not
    names = [f"f{j}" for j in range(X.shape[1])]
    batch = OnlineScaled("ftrl", method=method).learn_many(sp.csr_matrix(X), y)
    one = OnlineScaled("ftrl", method=method)
    for row, label in zip(X.tolist(), y.tolist(), strict=True):
        one.learn_one(dict(zip(names, row, strict=True)), label)
    assert batch.coef_ == one.coef_ and batch.statistics() == one.statistics()
    assert batch.predict_many(sp.csr_matrix(X)).tolist() == one.predict_many(X).tolist()
