"""The generic check suite: every registered online learner crossed with every check.

Checks (see ../shared/STYLE.md): contract (repr, clone, parameters, None
before learning, pickling keeps predictions), evolving features (emerging,
vanishing, shuffled keys, empty row, zero kept as a value, unseen feature at
predict time), parity (dict path == array path == NumPy reference on
trapezoidal, evolvable and haphazard streams), seeding, bad input, and the
budget of selecting learners. A new learner only registers and passes.
"""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from evofeat.base import InputError, OnlineLearner
from evofeat.evaluate import prequential
from evofeat.registry import ONLINE, make
from evofeat.streams import Stream, evolvable, full, haphazard, trapezoidal

NAMES = list(ONLINE)  # every registered online learner


def test_every_registered_learner_is_importable() -> None:
    for name in NAMES:
        assert isinstance(make(name), OnlineLearner), name


def _data(task: str, n: int = 240, d: int = 8, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[:, -1] = 0.0  # a feature whose value is always zero: a value, not an absence
    f = X[:, 0] - 0.8 * X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.standard_normal(n)
    if task == "regression":
        return X, f
    if task == "multiclass":
        return X, np.digitize(f, [-0.5, 0.5]).astype(np.int64)
    return X, np.where(f > 0, 1, -1)


def _learner(name: str) -> OnlineLearner:
    model = make(name)
    assert isinstance(model, OnlineLearner)
    if model.task == "multiclass" and getattr(model, "n_classes", 0) is None:
        model.set_params(n_classes=3)
    return model


def _rows(task: str, n: int = 120) -> list[tuple[dict, object]]:
    X, y = _data(task, n=n)
    return [
        ({f"f{j}": float(v) for j, v in enumerate(row)}, yy.item())
        for row, yy in zip(X, y, strict=True)
    ]


def _learn(model: OnlineLearner, rows: list[tuple[dict, object]]) -> list[object]:
    preds = []
    for x, y in rows:
        preds.append(model.predict_one(x))
        model.learn_one(x, y)
    return preds


# ---------------------------------------------------------------------------- contract
@pytest.mark.parametrize("name", NAMES)
def test_contract(name: str) -> None:
    model = _learner(name)
    assert type(model).__name__ in repr(model)
    params = model.get_params()
    assert model.clone().get_params() == params
    assert model.predict_one({"f0": 1.0}) is None, "predict_one must be None before learning"
    rows = _rows(model.task)
    _learn(model, rows[:60])
    fresh = model.clone()
    assert fresh.predict_one(rows[0][0]) is None, "clone must not copy learned state"
    blob = pickle.dumps(model)
    copy = pickle.loads(blob)
    assert [copy.predict_one(x) for x, _ in rows[60:]] == [
        model.predict_one(x) for x, _ in rows[60:]
    ]
    assert _learn(copy, rows[60:]) == _learn(model, rows[60:]), (
        "a pickled learner must continue identically"
    )


@pytest.mark.parametrize("name", NAMES)
def test_set_params_resets_and_rejects_unknown(name: str) -> None:
    model = _learner(name)
    _learn(model, _rows(model.task)[:20])
    with pytest.raises(InputError, match="unknown parameter"):
        model.set_params(not_a_parameter=1)


# ---------------------------------------------------------------------------- evolving features
@pytest.mark.parametrize("name", NAMES)
def test_emerging_and_vanishing_features(name: str) -> None:
    model = _learner(name)
    rows = _rows(model.task, n=150)
    emerging = [
        ({k: v for k, v in x.items() if int(k[1:]) < 2 + i // 20}, y)
        for i, (x, y) in enumerate(rows)
    ]
    preds = _learn(model, emerging)
    assert len(model.feature_index_) == len(rows[0][0])
    vanishing = [
        ({k: v for k, v in x.items() if int(k[1:]) >= i // 20}, y) for i, (x, y) in enumerate(rows)
    ]
    preds += _learn(model, vanishing)
    assert all(p is not None for p in preds[1:])


@pytest.mark.parametrize("name", NAMES)
def test_key_order_does_not_matter(name: str) -> None:
    rows = _rows(_learner(name).task)
    rng = random.Random(0)
    shuffled = []
    for x, y in rows:
        items = list(x.items())
        rng.shuffle(items)
        shuffled.append((dict(items), y))
    assert _learn(_learner(name), rows) == _learn(_learner(name), shuffled)


@pytest.mark.parametrize("name", NAMES)
def test_empty_row_zero_value_and_unseen_feature(name: str) -> None:
    model = _learner(name)
    rows = _rows(model.task, n=40)
    _learn(model, rows)
    model.learn_one({}, rows[0][1])  # an empty row: nothing to learn from, no crash
    model.learn_one({"zero": 0.0, **rows[1][0]}, rows[1][1])
    assert "zero" in model.feature_index_, "0.0 is a value: the feature is seen"
    n_before = len(model.feature_index_)
    before = model.predict_one(rows[2][0])
    assert model.predict_one({**rows[2][0], "never_seen": 5.0}) == before
    assert len(model.feature_index_) == n_before, "predict_one must not learn features"
    assert model.predict_one({}) is not None


# ---------------------------------------------------------------------------- parity
def _reference_order(stream: Stream) -> np.ndarray:
    """Dense values (NaN = absent) with columns in the learners' internal order."""
    from evofeat.base import FeatureIndex

    col_map, _ = stream.internal_columns(FeatureIndex())
    dense = stream.to_dense()
    out = np.full((stream.n_rows, int(col_map.max()) + 1), np.nan)
    keep = col_map >= 0
    out[:, col_map[keep]] = dense[:, keep]
    return out


def _streams(task: str) -> dict[str, Stream]:
    X, y = _data(task, n=200)
    return {
        "trapezoidal": trapezoidal(X, y, task=task),
        "evolvable": evolvable(X, y, d2=5, overlap=10, seed=1, task=task),
        "haphazard": haphazard(X, y, p=0.6, seed=2, task=task),
        "full": full(X, y, task=task),
    }


@pytest.mark.parametrize("scenario", ["trapezoidal", "evolvable", "haphazard"])
@pytest.mark.parametrize("name", NAMES)
def test_parity_dict_array_reference(name: str, scenario: str) -> None:
    task = _learner(name).task
    stream = _streams(task)[scenario]
    arr = prequential(_learner(name), stream, keep_predictions=True)
    assert arr.labels is not None
    model = _learner(name)
    dict_preds = []
    for x, y in stream.to_dicts():
        p = model.predict_one(x)
        dict_preds.append(np.nan if p is None else float(p))
        model.learn_one(x, y)
    dict_preds_arr = np.asarray(dict_preds)
    arr_labels = arr.labels.copy()
    if task == "binary":
        arr_labels[arr_labels == 0] = -1  # "no decision" is reported as -1 by predict_one
        np.testing.assert_array_equal(dict_preds_arr[1:], arr_labels[1:])
    else:
        np.testing.assert_allclose(dict_preds_arr[1:], arr_labels[1:], rtol=1e-9, atol=1e-12)
    ref = _learner(name).reference_predictions(_reference_order(stream), stream.y.astype(float))
    if task == "regression":
        np.testing.assert_allclose(ref, arr.labels, rtol=1e-7, atol=1e-9)
    else:
        np.testing.assert_array_equal(ref, arr.labels)


# ---------------------------------------------------------------------------- seeding
@pytest.mark.parametrize("name", [n for n in NAMES if "seed" in make(n).get_params()])
def test_seed_gives_identical_runs(name: str) -> None:
    rows = _rows(_learner(name).task)
    a = _learner(name).clone(seed=7)
    b = _learner(name).clone(seed=7)
    assert _learn(a, rows) == _learn(b, rows)


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("name", NAMES)
def test_bad_rows_and_labels(name: str) -> None:
    model = _learner(name)
    y_ok = _rows(model.task, n=1)[0][1]
    with pytest.raises(InputError, match="finite"):
        model.learn_one({"a": float("nan")}, y_ok)
    with pytest.raises(InputError, match="finite"):
        model.learn_one({"a": float("inf")}, y_ok)
    with pytest.raises(InputError, match="non-numeric"):
        model.learn_one({"a": "red"}, y_ok)
    with pytest.raises(InputError, match="dict"):
        model.learn_one([1.0, 2.0], y_ok)  # type: ignore[arg-type]
    if model.task == "binary":
        with pytest.raises(InputError, match="-1, \\+1"):
            model.learn_one({"a": 1.0}, 2)
    assert model.predict_one({"a": 1.0}) is None, "a rejected row must not change the learner"


@pytest.mark.parametrize("name", NAMES)
def test_stream_of_other_task_is_rejected(name: str) -> None:
    model = _learner(name)
    if model.task != "binary":
        pytest.skip("only binary learners reject multiclass labels here")
    X, y = _data("multiclass")
    with pytest.raises(InputError):
        prequential(model, full(X, y))


# ---------------------------------------------------------------------------- budgets
@pytest.mark.parametrize("name", [n for n in NAMES if hasattr(make(n), "budget")])
def test_budget_holds(name: str) -> None:
    model = _learner(name)
    X, y = _data(model.task, n=300, d=20)
    prequential(model, trapezoidal(X, y, task=model.task))
    sel = model.selected_features_
    assert set(sel) <= set(model.feature_index_.names)
    assert len(sel) <= model.budget_limit_, f"{len(sel)} weights kept, budget {model.budget_limit_}"
