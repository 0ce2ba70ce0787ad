"""The scikit-learn wrappers: scikit-learn's own estimator checks, and parity with evofeat's paths.

scikit-learn's checks (``parametrize_with_checks``) all pass for the
classifier (PA-I, STSD-I and the multiclass PA) and the regressor (OGD on
the square loss). The only one not run is ``check_array_api_input``, which scikit-learn itself skips unless
``SCIPY_ARRAY_API=1`` is set (the wrappers compute with NumPy/numba only).
Order-dependence of online learning breaks none of the checks: ``fit``
always restarts, and scikit-learn does not check that a permutation of the
training rows gives the same model.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.utils.estimator_checks import parametrize_with_checks

from evofeat.base import InputError
from evofeat.compat.sklearn import OnlineClassifier, OnlineRegressor
from evofeat.evaluate import prequential
from evofeat.linear.ogd import OGD
from evofeat.linear.pa import PA
from evofeat.registry import make
from evofeat.streams import Stream

#: The checks' data are not scaled, and the default regressor (OGD on the square loss, lr
#: 0.05) diverges on some of them and says so, as it should (tests/base/test_divergence_warning.py
#: asserts that warning); the checks pass on what follows.
_UNSCALED = r"ignore:OGD\(lr=0.05, loss='square'\) diverged:RuntimeWarning"


@parametrize_with_checks(
    [
        OnlineClassifier(),
        OnlineClassifier("stsd-i"),
        OnlineClassifier("pa-multiclass"),
        OnlineClassifier("pa-multiclass", shuffle=True, random_state=0),
        OnlineRegressor(),
        OnlineRegressor(shuffle=True, random_state=0),
    ]
)
@pytest.mark.filterwarnings(_UNSCALED)
def test_sklearn_estimator_checks(estimator, check) -> None:  # type: ignore[no-untyped-def]
    if getattr(check, "func", check).__name__ == "check_set_params":  # it sets learner=-inf
        with pytest.warns(UserWarning, match="InputError occurred during set_params of param"):
            check(estimator)
        return
    check(estimator)


def _binary(n: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    X, y = make_classification(n_samples=n, n_features=8, random_state=seed)
    return X, np.where(y == 1, "spam", "ham")


def test_classes_map_to_minus_and_plus_one() -> None:
    X, y = _binary()
    clf = OnlineClassifier("pa-i", {"C": 0.5}).fit(X, y)
    assert clf.classes_.tolist() == ["ham", "spam"]
    ref = PA(C=0.5)
    prequential(ref, Stream.full(X, np.where(y == "spam", 1, -1), list(range(8))))
    assert clf.learner_.coef_ == ref.coef_, "fit is the prequential array path"
    model = PA(C=0.5)
    for row, label in zip(X, y, strict=True):
        model.learn_one(dict(enumerate(row.tolist())), 1 if label == "spam" else -1)
    assert clf.learner_.coef_ == pytest.approx(model.coef_, rel=1e-12), (
        "fit must learn exactly what learn_one does"
    )
    pred = clf.predict(X)
    expected = [
        ("spam" if model.predict_one(dict(enumerate(r.tolist()))) == 1 else "ham") for r in X
    ]
    assert pred.tolist() == expected
    scores = clf.decision_function(X)
    np.testing.assert_allclose(
        scores, [model.decision_one(dict(enumerate(r.tolist()))) for r in X], rtol=1e-12
    )
    assert ((scores > 0) == (pred == "spam")).all()
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert ((proba[:, 1] > 0.5) == (pred == "spam")).all()


def test_partial_fit_in_batches_equals_one_fit() -> None:
    X, y = _binary(400)
    whole = OnlineClassifier("stsd-i").fit(X, y)
    parts = OnlineClassifier("stsd-i")
    parts.partial_fit(X[:7], y[:7], classes=["ham", "spam"])
    for a in range(7, 400, 60):
        parts.partial_fit(X[a : a + 60], y[a : a + 60])
    np.testing.assert_array_equal(parts.decision_function(X), whole.decision_function(X))
    assert parts.learner_.n_learned_ == 400


def test_nan_is_an_absent_feature_and_sparse_equals_dense() -> None:
    X, y = _binary(200)
    X[np.random.default_rng(1).random(X.shape) < 0.3] = np.nan
    clf = OnlineClassifier("pa-i").fit(X, y)
    model = make("pa-i")
    for row, label in zip(X, y, strict=True):
        model.learn_one(
            {j: v for j, v in enumerate(row.tolist()) if v == v}, 1 if label == "spam" else -1
        )
    assert clf.learner_.coef_ == pytest.approx(model.coef_, rel=1e-12)
    X0 = np.nan_to_num(X)
    dense = OnlineClassifier("pa-i").fit(X0, y)
    sparse = OnlineClassifier("pa-i").fit(sp.csr_matrix(X0), y)
    np.testing.assert_allclose(
        sparse.decision_function(sp.csr_matrix(X0)), dense.decision_function(X0), rtol=1e-12
    )
    with pytest.raises(InputError, match="sparse X holds NaN"):
        sparse.predict(sp.csr_matrix(X))


def test_template_learner_params_clone_and_grid_search() -> None:
    X, y = _binary(240)
    template = PA(C=0.3)
    clf = OnlineClassifier(template).fit(X, y)
    assert template.predict_one({0: 1.0}) is None, "the template learner must never learn"
    assert clf.learner_.C == 0.3
    assert clf.get_params()["learner__C"] == 0.3
    fresh = clone(clf)
    with pytest.raises(NotFittedError):
        fresh.predict(X)
    grid = GridSearchCV(OnlineClassifier("pa-i"), {"params": [{"C": 0.01}, {"C": 1.0}]}, cv=3).fit(
        X, y
    )
    assert grid.best_params_["params"] in ({"C": 0.01}, {"C": 1.0})
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.decision_function(X), clf.decision_function(X))


def test_errors_say_what_to_do() -> None:
    X, y = _binary(60)
    with pytest.raises(
        ValueError, match="Only binary classification is supported.*OneVsRestClassifier"
    ):
        OnlineClassifier().fit(X, np.arange(60) % 3)
    clf = OnlineClassifier().partial_fit(X, y)
    with pytest.raises(InputError, match="label outside classes_.*'eggs'"):
        clf.partial_fit(X[:2], np.array(["ham", "eggs"]))
    with pytest.raises(InputError, match="is a binary learner: expected a regression learner"):
        OnlineRegressor("pa-i").fit(X, np.linspace(0, 1, 60))
    with pytest.raises(InputError, match="unknown learner 'pa-j'"):
        OnlineClassifier("pa-j").fit(X, y)
    with pytest.raises(InputError, match="params must be a dict"):
        OnlineClassifier("pa-i", params=[1]).fit(X, y)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :3])


def test_regressor_learns_a_linear_target() -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2000, 5))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0, 3.0])
    reg = OnlineRegressor(OGD(lr=0.1, loss="square")).fit(X, y)
    assert reg.score(X, y) > 0.99
    model = OGD(lr=0.1, loss="square")
    for row, target in zip(X[:50], y[:50], strict=True):
        model.learn_one(dict(enumerate(row.tolist())), target)
    small = OnlineRegressor(params={"lr": 0.1}).fit(X[:50], y[:50])
    assert small.learner_.get_params() == model.get_params()
    np.testing.assert_allclose(
        small.predict(X[:5]),
        [model.predict_one(dict(enumerate(r.tolist()))) for r in X[:5]],
        rtol=1e-12,
    )


def test_learner_parameters_are_the_estimators_own() -> None:
    X, y = _binary(300)
    est = OnlineClassifier("stsd-i")
    params = est.get_params(deep=False)
    assert params["C"] == 0.1 and params["budget"] == 0.5 and "mode" not in params, (
        "the name's defaults; the mode the name fixes is not a parameter"
    )
    grid = GridSearchCV(OnlineClassifier("stsd-i"), {"C": [0.01, 1.0], "budget": [0.3, 1.0]}, cv=3)
    grid.fit(X, y)
    best = grid.best_estimator_
    assert best.learner_.C == grid.best_params_["C"]
    assert best.learner_.budget == grid.best_params_["budget"]
    assert len({round(s, 12) for s in grid.cv_results_["mean_test_score"]}) > 1, (
        "the grid really changes the learner"
    )
    tuned = OnlineClassifier("stsd-i", {"C": 0.2}).set_params(C=0.7)
    assert tuned.get_params()["C"] == 0.7 and tuned.fit(X, y).learner_.C == 0.7
    again = clone(tuned)
    assert again.get_params() == tuned.get_params() and again is not tuned
    assert OnlineClassifier("stsd-i", {"C": 0.2}).get_params()["C"] == 0.2
    with pytest.raises(InputError, match="unknown parameter 'c' for OnlineClassifier"):
        OnlineClassifier("stsd-i").set_params(c=1.0)
    template = OnlineClassifier(PA(C=0.3))
    nested = GridSearchCV(template, {"learner__C": [0.05, 2.0]}, cv=3).fit(X, y)
    assert nested.best_estimator_.learner_.C == nested.best_params_["learner__C"]
    reg = OnlineRegressor()
    assert reg.get_params()["lr"] == 0.05
    assert reg.set_params(lr=0.2).fit(X, np.linspace(0, 1, 300)).learner_.lr == 0.2


# ---------------------------------------------------------------------------- hyperparameters
def test_the_learners_hyperparameters_are_constructor_arguments() -> None:
    X, y = _binary()
    clf = OnlineClassifier("stsd-i", C=0.5)
    assert clf.get_params()["C"] == 0.5 and clone(clf).get_params()["C"] == 0.5
    fitted = clf.fit(X, y)
    assert fitted.learner_.C == 0.5
    same = OnlineClassifier("stsd-i", {"C": 0.5}).fit(X, y)
    np.testing.assert_array_equal(fitted.decision_function(X), same.decision_function(X))
    search = GridSearchCV(OnlineClassifier("pa-i"), {"C": [0.01, 1.0]}, cv=3).fit(X, y)
    assert search.best_estimator_.learner_.C in (0.01, 1.0)
    assert OnlineRegressor(lr=0.2).fit(X, y == "spam").learner_.lr == 0.2
    with pytest.raises(InputError, match="unknown parameter 'Cc' .*expected one of the learner"):
        OnlineClassifier("pa-i", Cc=1.0).fit(X, y)


def test_the_default_learner_is_one_constant(monkeypatch: pytest.MonkeyPatch) -> None:
    import evofeat.compat

    X, y = _binary()
    assert type(OnlineClassifier().fit(X, y).learner_).__name__ == "Auto"
    monkeypatch.setattr(evofeat.compat, "DEFAULT_LEARNER", "perceptron")
    assert type(OnlineClassifier().fit(X, y).learner_).__name__ == "Perceptron"


# ---------------------------------------------------------------------------- multiclass
@pytest.mark.parametrize("name", ["stsd-multiclass", "pa-multiclass"])
def test_a_multiclass_learner_is_a_multiclass_classifier(name: str) -> None:
    X, y3 = make_classification(
        n_samples=300, n_features=8, n_informative=5, n_classes=3, random_state=0
    )
    y = np.array(["a", "b", "c"])[y3]
    clf = OnlineClassifier(name).fit(X, y)
    assert clf.classes_.tolist() == ["a", "b", "c"] and clf.learner_.n_classes == 3
    ref = make(name, n_classes=3)
    for row, code in zip(X, y3, strict=True):
        ref.learn_one(dict(enumerate(row.tolist())), int(code))
    assert clf.learner_.coef_.keys() == ref.coef_.keys()
    for key, weights in ref.coef_.items():  # fit learns what learn_one does
        np.testing.assert_allclose(clf.learner_.coef_[key], weights, rtol=1e-12)
    expected = [ref.predict_one(dict(enumerate(r.tolist()))) for r in X]
    assert clf.predict(X).tolist() == [["a", "b", "c"][c] for c in expected]
    scores = clf.decision_function(X)
    assert scores.shape == (300, 3)
    assert (clf.classes_[scores.argmax(axis=1)] == clf.predict(X)).mean() > 0.99
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert clf.score(X, y) > 0.6


def test_shuffle_sorted_by_class() -> None:
    """iris is sorted by class: ``cross_val_score`` trains the online learner on one class after
    another unless ``shuffle=True`` draws the order; shuffled scores clearly higher (measured
    here: 0.68 unshuffled against 0.78-0.83 over the shuffled orders of random_state 0-7)."""
    from sklearn.datasets import load_iris
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_iris(return_X_y=True)
    assert np.all(np.diff(y) >= 0)  # sorted by class

    def score(**kw: object) -> float:
        model = make_pipeline(StandardScaler(), OnlineClassifier("pa-multiclass", **kw))
        return float(cross_val_score(model, X, y, cv=3).mean())

    given = score()
    assert score(shuffle=False, random_state=5) == given  # the order given, whatever the seed
    shuffled = [score(shuffle=True, random_state=s) for s in range(5)]
    assert np.mean(shuffled) > given + 0.05
    assert min(shuffled) > given


def test_shuffle_order_is_seeded_and_partial_fit_keeps_order() -> None:
    X, y = _binary()
    a = OnlineClassifier("pa-i", shuffle=True, random_state=1).fit(X, y)
    b = OnlineClassifier("pa-i", shuffle=True, random_state=1).fit(X, y)
    c = OnlineClassifier("pa-i", shuffle=True, random_state=2).fit(X, y)
    plain = OnlineClassifier("pa-i").fit(X, y)
    assert np.array_equal(a.decision_function(X), b.decision_function(X))
    assert not np.array_equal(a.decision_function(X), c.decision_function(X))
    assert not np.array_equal(a.decision_function(X), plain.decision_function(X))
    # the same rows in the drawn order, unshuffled, give the same model
    order = np.random.RandomState(1).permutation(len(y))
    same = OnlineClassifier("pa-i").fit(X[order], y[order])
    assert np.array_equal(a.decision_function(X), same.decision_function(X))
    # partial_fit never shuffles
    part = OnlineClassifier("pa-i", shuffle=True, random_state=1).partial_fit(X, y)
    assert np.array_equal(part.decision_function(X), plain.decision_function(X))
    assert clone(a).get_params()["shuffle"] is True
    assert clone(a).set_params(shuffle=False).shuffle is False
