"""The River adapters: River's own estimator checks, pipelines, evaluation, label mapping.

River's checks (``river.checks.yield_checks``) all run and pass, none skipped,
for one learner of every registered learner module (so new modules are
picked up) and for the regressor.
"""

from __future__ import annotations

import copy
import importlib
import pickle

import numpy as np
import pytest

river = pytest.importorskip("river", reason="River is not installed: pip install 'evofeat[river]'")

from river import checks, datasets, evaluate, metrics, preprocessing  # noqa: E402

from evofeat.base import InputError  # noqa: E402
from evofeat.compat.river import (  # noqa: E402
    EvofeatClassifier,
    EvofeatMultiClassifier,
    EvofeatRegressor,
    to_river,
)
from evofeat.linear.ogd import OGD  # noqa: E402
from evofeat.linear.pa import PA  # noqa: E402
from evofeat.registry import ONLINE, make  # noqa: E402


def _one_per_module() -> list[str]:
    """The first registered binary learner of each importable learner module."""
    names: dict[str, str] = {}
    for name, module in ONLINE.items():
        try:
            importlib.import_module(module)
        except ModuleNotFoundError:
            continue
        if module not in names and make(name).task == "binary":
            names[module] = name
    return list(names.values())


def _models() -> list[object]:
    return [EvofeatClassifier(name) for name in _one_per_module()] + [
        EvofeatRegressor(),
        EvofeatRegressor("stsd-regressor"),
        EvofeatMultiClassifier(),
    ]


def _cases() -> list[object]:
    cases = []
    for model in _models():
        for check in checks.yield_checks(model):
            label = f"{model.learner}-{check.__name__}"
            cases.append(pytest.param(model, check, id=label))
    return cases


@pytest.mark.parametrize(("model", "check"), _cases())
# River's check data are not scaled: the default regressor (OGD, square loss, lr 0.05) diverges
# on some and says so, as it should (tests/base/test_divergence_warning.py asserts that warning)
@pytest.mark.filterwarnings(r"ignore:OGD\(lr=0.05, loss='square'\) diverged:RuntimeWarning")
def test_river_estimator_checks(model, check) -> None:  # type: ignore[no-untyped-def]
    assert check.__name__ not in model._unit_test_skips()
    check(copy.deepcopy(model).clone())


def test_pipeline_and_progressive_validation_match_the_plain_learner() -> None:
    model = preprocessing.StandardScaler() | to_river(PA(C=0.1))
    metric = evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    assert metric.get() > 0.85
    scaler, learner, hits, n = preprocessing.StandardScaler(), PA(C=0.1), 0, 0
    for x, y in datasets.Phishing():
        z = scaler.learn_one(x) or scaler.transform_one(x)
        p = learner.predict_one(z)
        if p is not None:
            hits += (p == 1) == y
            n += 1
        learner.learn_one(z, y)
    assert metric.get() == pytest.approx(hits / n, abs=1e-12)
    assert model["EvofeatClassifier"].learner_.coef_ == pytest.approx(learner.coef_, rel=1e-12)


def test_bool_labels_map_to_plus_and_minus_one() -> None:
    clf = EvofeatClassifier("perceptron")
    assert clf.predict_one({"a": 1.0}) is None
    assert clf.predict_proba_one({"a": 1.0}) == {False: 0.5, True: 0.5}
    clf.learn_one({"a": 1.0}, True)
    assert clf.learner_.coef_ == {"a": 1.0}, "True is +1"
    clf.learn_one({"b": 1.0}, np.False_)
    assert clf.learner_.coef_ == {"a": 1.0, "b": -1.0}, "False is -1"
    assert clf.predict_one({"a": 1.0}) is True and clf.predict_one({"b": 1.0}) is False
    proba = clf.predict_proba_one({"a": 2.0})
    assert set(proba) == {False, True} and proba[True] > 0.5


def test_signed_labels_stay_signed_and_bad_labels_are_refused() -> None:
    clf = EvofeatClassifier()
    clf.learn_one({"a": 1.0}, -1)
    assert clf.predict_one({"a": 1.0}) == -1 and set(clf.predict_proba_one({"a": 1.0})) == {-1, 1}
    with pytest.raises(InputError, match="kind of labels changed"):
        clf.learn_one({"a": 1.0}, True)
    with pytest.raises(InputError, match="two-valued labels.*received 'spam'"):
        EvofeatClassifier().learn_one({"a": 1.0}, "spam")
    with pytest.raises(InputError, match="received 2"):
        EvofeatClassifier().learn_one({"a": 1.0}, 2)
    with pytest.raises(InputError, match="non-numeric"):
        EvofeatClassifier().learn_one({"a": "red"}, True)


def test_to_river_continues_a_trained_learner_and_clone_starts_afresh() -> None:
    trained = PA()
    trained.learn_one({"a": 1.0}, 1)
    adapter = to_river(trained)
    assert adapter.predict_one({"a": 1.0}) is True
    adapter.learn_one({"a": -3.0}, True)
    assert trained.coef_ == {"a": 1.0}, "the given learner itself is not changed"
    assert adapter.clone().predict_one({"a": 1.0}) is None
    again = pickle.loads(pickle.dumps(adapter))
    assert again.predict_proba_one({"a": 0.5}) == adapter.predict_proba_one({"a": 0.5})
    assert isinstance(to_river("pa-ii", {"C": 0.5}), EvofeatClassifier)
    assert isinstance(to_river(OGD(loss="square")), EvofeatRegressor)


def test_regressor_in_progressive_validation() -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 3.0]) + 0.1 * rng.standard_normal(400)
    rows = [
        ({f"x{j}": float(v) for j, v in enumerate(r) if j or i % 3}, float(t))
        for i, (r, t) in enumerate(zip(X, y, strict=True))
    ]  # x0 missing from every third row
    raw = EvofeatRegressor(OGD(lr=0.1, loss="square"), standardize=False)
    mae = evaluate.progressive_val_score(rows, raw, metrics.MAE())
    learner, errors = OGD(lr=0.1, loss="square"), []
    for x, target in rows:
        p = learner.predict_one(x)
        errors.append(
            abs(target - (0.0 if p is None else p))
        )  # 0.0 before learning, as the adapter says
        learner.learn_one(x, target)
    assert mae.get() == pytest.approx(float(np.mean(errors)), rel=1e-12)
    model = preprocessing.TargetStandardScaler(
        preprocessing.StandardScaler()
        | EvofeatRegressor(OGD(lr=0.1, loss="square"), standardize=False)
    )
    trump = evaluate.progressive_val_score(datasets.TrumpApproval(), model, metrics.MAE())
    assert trump.get() < 1.0, "ratings of about 40-50 points are tracked within a point"


def test_wrong_task_is_refused() -> None:
    with pytest.raises(InputError, match="is a binary learner: expected a regression learner"):
        EvofeatRegressor("pa-i")
    with pytest.raises(InputError, match="is a regression learner: expected a binary learner"):
        EvofeatClassifier(OGD(loss="square"))
