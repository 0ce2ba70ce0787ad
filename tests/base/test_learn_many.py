"""River's mini-batch methods on every registered online learner.

``learn_many(X, y)`` on a DataFrame must learn exactly what ``learn_one`` on
each row's dict learns (NaN: an absent key), with columns that appear, vanish
and come back between and within batches, mixed with ``learn_one`` calls;
``predict_many`` / ``predict_proba_many`` must give ``predict_one`` /
``predict_proba_one`` of each row.
"""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from evofeat.base import InputError, OnlineLearner
from evofeat.registry import ONLINE
from tests.base.test_generic_checks import _learner  # a registered learner (multiclass: 3 classes)

prequential_module = importlib.import_module("evofeat.base.prequential")

NAMES = list(ONLINE)


def _frame(task: str, n: int = 300, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    """Rows with NaN cells, a zero column, a column that appears mid-stream and one that leaves."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 6))
    f = X[:, 0] - 0.8 * X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.standard_normal(n)
    X[rng.random(X.shape) < 0.25] = np.nan  # haphazard: cells absent at random
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(6)])
    frame["zero"] = 0.0  # a value, not an absence
    frame["late"] = np.where(np.arange(n) >= n // 3, rng.standard_normal(n), np.nan)
    frame["early"] = np.where(np.arange(n) < n // 2, rng.standard_normal(n), np.nan)
    frame.loc[n // 2 : n // 2 + 20, :] = frame.loc[n // 2 : n // 2 + 20, ["f0", "f1"]]  # a lull
    if task == "regression":
        y = f
    elif task == "multiclass":
        y = np.digitize(f, [-0.5, 0.5])
    else:
        y = np.where(f > 0, 1, -1)
    return frame, pd.Series(y)


def _dicts(X: pd.DataFrame) -> list[dict]:
    return [{k: v for k, v in row.items() if v == v} for row in X.to_dict("records")]


def _state_equal(a: OnlineLearner, b: OnlineLearner) -> None:
    """The two learners hold the same learned state, field by field (bit for bit)."""
    assert a.feature_index_.names == b.feature_index_.names
    assert a.n_learned_ == b.n_learned_
    # the features last announced to the learner (the next row announces only a change)
    assert (a._visible is None) == (b._visible is None)
    if a._visible is not None:
        np.testing.assert_array_equal(a._visible, b._visible)
    d = len(a.feature_index_)
    for name in a._state._fields:
        x, y = np.asarray(getattr(a._state, name)), np.asarray(getattr(b._state, name))
        if x.ndim and x.shape[0] == a._capacity and y.shape[0] == b._capacity:
            x, y = x[:d], y[:d]  # room for features not seen yet differs with the capacity
        np.testing.assert_array_equal(x, y, err_msg=f"state field {name!r}")


def _predictions_equal(many: OnlineLearner, one: OnlineLearner, X: pd.DataFrame) -> None:
    got = many.predict_many(X)
    assert isinstance(got, pd.Series) and got.index.equals(X.index)
    assert got.tolist() == [one.predict_one(x) for x in _dicts(X)]
    if many.task == "binary":
        proba = many.predict_proba_many(X)
        assert list(proba.columns) == [-1, 1] and proba.index.equals(X.index)
        ref = [one.predict_proba_one(x) for x in _dicts(X)]
        np.testing.assert_allclose(proba[1], [p[1] for p in ref], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(proba[-1], [p[-1] for p in ref], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", NAMES)
def test_learn_many_learns_what_learn_one_learns(name: str) -> None:
    task = _learner(name).task
    X, y = _frame(task)
    many, one = _learner(name), _learner(name)
    # batches of uneven sizes (one of a single row), with learn_one rows between some of them
    cuts = [0, 40, 41, 90, 100, 160, 170, 240, 300]
    for k, (a, b) in enumerate(zip(cuts[:-1], cuts[1:], strict=True)):
        Xb, yb = X.iloc[a:b], y.iloc[a:b]
        if k % 3 == 2:  # these rows reach both learners through learn_one
            for x, label in zip(_dicts(Xb), yb.tolist(), strict=True):
                many.learn_one(x, label)
                one.learn_one(x, label)
            continue
        assert many.learn_many(Xb, yb) is many
        for x, label in zip(_dicts(Xb), yb.tolist(), strict=True):
            one.learn_one(x, label)
        _state_equal(many, one)
    _predictions_equal(many, one, X)
    # a batch with a column never seen, and rows in another column order, predicts as predict_one
    test = X.iloc[::-7, ::-1].assign(unseen=1.0)
    _predictions_equal(many, one, test)
    assert "unseen" not in many.feature_index_, "predict_many must not learn features"


@pytest.mark.parametrize("name", ["stsd-i", "ofs-p", "fesl-c", "stsd-multiclass"])
def test_learn_many_runs_the_compiled_loop_once_a_batch(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []
    real = prequential_module.prequential
    monkeypatch.setattr(
        prequential_module, "prequential", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    model = _learner(name)
    X, y = _frame(model.task)
    model.learn_many(X.iloc[:100], y.iloc[:100]).learn_many(X.iloc[100:], y.iloc[100:])
    assert len(calls) == 2 and model.n_learned_ == len(X)


def test_numpy_and_sparse_batches_name_columns_f0_f1() -> None:
    X, y = _frame("binary")
    values = X.to_numpy()
    a = _learner("stsd-i").learn_many(values, y.to_numpy())
    b = _learner("stsd-i")
    for row, label in zip(values, y.tolist(), strict=True):
        b.learn_one({f"f{j}": v for j, v in enumerate(row.tolist()) if v == v}, label)
    _state_equal(a, b)
    assert a.feature_index_.names[:2] == ["f0", "f1"]
    assert a.predict_many(values).tolist() == [
        b.predict_one({f"f{j}": v for j, v in enumerate(r.tolist()) if v == v}) for r in values
    ]


@pytest.mark.parametrize("name", NAMES)
def test_sparse_batches_learn_every_column_unstored_as_zero(name: str) -> None:
    """A sparse row is the dict of every column, an unstored entry the value 0.0 (a value)."""
    task = _learner(name).task
    X, y = _frame(task, n=150)
    dense = np.nan_to_num(X.to_numpy())
    c = _learner(name).learn_many(sp.csr_matrix(dense), y.tolist())
    d = _learner(name)
    for row, label in zip(dense, y.tolist(), strict=True):
        d.learn_one({f"f{j}": v for j, v in enumerate(row.tolist())}, label)
    assert c.feature_index_.names == d.feature_index_.names
    np.testing.assert_array_equal(c._effective_weights(), d._effective_weights())
    assert c.predict_many(sp.csr_matrix(dense)).tolist() == d.predict_many(dense).tolist()


def test_before_learning_and_empty_batches() -> None:
    X, y = _frame("binary", n=5)
    model = _learner("ofs")
    assert model.predict_many(X).tolist() == [None] * 5
    np.testing.assert_array_equal(model.predict_proba_many(X).to_numpy(), 0.5)
    model.learn_many(X.iloc[:0], y.iloc[:0])
    assert model.n_learned_ == 0 and model.predict_one({"f0": 1.0}) is None
    with pytest.raises(NotImplementedError, match="binary"):
        _learner("stsd-regressor").predict_proba_many(X)


@pytest.mark.parametrize(
    ("X", "y", "match"),
    [
        (pd.DataFrame({"a": ["x", "y"]}), [1, -1], "non-numeric column"),
        (pd.DataFrame([[1.0, 2.0]], columns=["a", "a"]), [1], "repeated column"),
        (pd.DataFrame({"a": [1.0, np.inf]}), [1, -1], "infinite"),
        (pd.DataFrame({"a": [1.0, 2.0]}), [1], "labels do not match"),
        (pd.DataFrame({"a": [1.0, 2.0]}), [1, 0], "label in"),
        (np.array([1.0, 2.0]), [1, -1], "table of rows"),
        (sp.csr_matrix(np.array([[np.nan]])), [1], "sparse mini-batch holds NaN"),
    ],
)
def test_bad_batches_are_clear_errors_before_learning(X: object, y: object, match: str) -> None:
    model = _learner("ofs")
    with pytest.raises(InputError, match=match):
        model.learn_many(X, y)
    assert model.n_learned_ == 0
