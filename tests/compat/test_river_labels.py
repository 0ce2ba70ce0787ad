"""River users' labels, regressors and mini-batches: what River's own estimators accept works."""

from __future__ import annotations

import importlib
import itertools

import numpy as np
import pytest

river = pytest.importorskip("river", reason="River is not installed: pip install 'evofeat[river]'")
pd = pytest.importorskip("pandas")

from river import datasets, evaluate, metrics, preprocessing  # noqa: E402

from evofeat.base import InputError  # noqa: E402
from evofeat.compat.river import (  # noqa: E402
    EvofeatClassifier,
    EvofeatMultiClassifier,
    EvofeatRegressor,
    to_river,
)
from evofeat.linear.pa import PA  # noqa: E402


def test_hyperplane_zero_one_labels_as_river_reads_them() -> None:
    rows = list(datasets.synth.Hyperplane(seed=1).take(1500))
    assert {y for _, y in rows} == {0, 1}
    model = to_river("pa-i")
    metric = evaluate.progressive_val_score(rows, model, metrics.Accuracy())
    plain, hits, n = PA(), 0, 0
    for x, y in rows:
        p = plain.predict_one(x)
        if p is not None:
            hits += (1 if p > 0 else 0) == y
            n += 1
        plain.learn_one(x, 1 if y else -1)  # River's PAClassifier: y = int(y or -1)
    assert metric.get() == pytest.approx(hits / n, abs=1e-12)
    assert model.learner_.coef_ == plain.coef_
    assert model.predict_one(rows[0][0]) in (0, 1) and type(model.predict_one(rows[0][0])) is int
    assert set(model.predict_proba_one(rows[0][0])) == {0, 1}
    with pytest.raises(InputError, match="kind of labels changed"):
        model.learn_one(rows[0][0], -1)


def test_multiclass_labels_of_any_kind_map_to_codes_as_they_appear() -> None:
    rows = list(datasets.ImageSegments())[:800]
    model = preprocessing.StandardScaler() | to_river("pa-multiclass")
    assert isinstance(model["EvofeatMultiClassifier"], EvofeatMultiClassifier)
    metric = evaluate.progressive_val_score(rows, model, metrics.Accuracy())
    assert metric.get() > 0.8
    order = list(dict.fromkeys(y for _, y in rows))
    assert model["EvofeatMultiClassifier"]._classes == order
    learner = model["EvofeatMultiClassifier"].learner_
    assert learner.n_classes == len(order)
    # growing the class axis keeps everything learned: old columns as they were, the new one 0
    before = {k: list(v) for k, v in learner.coef_.items()}
    scores = [model["EvofeatMultiClassifier"].predict_proba_one(x) for x, _ in rows[:20]]
    learner._grow_classes(len(order) + 1)
    assert learner.n_classes == len(order) + 1
    assert {k: v[:-1] for k, v in learner.coef_.items()} == before
    assert all(v[-1] == 0.0 for v in learner.coef_.values())
    assert scores == [model["EvofeatMultiClassifier"].predict_proba_one(x) for x, _ in rows[:20]]
    proba = model.predict_proba_one(rows[0][0])
    assert set(proba) == set(order) and sum(proba.values()) == pytest.approx(1.0)


def test_regression_learners_are_regressors_and_stay_stable_on_trump_approval() -> None:
    assert isinstance(to_river("ogd"), EvofeatClassifier)
    for name, params in [
        ("ogd", {"loss": "square"}),
        ("fesl-c", {"loss": "square"}),
        ("stsd-regressor", None),
        ("pa-regressor", None),
    ]:
        model = to_river(name, params)
        assert isinstance(model, EvofeatRegressor), name
        scaled = preprocessing.TargetStandardScaler(preprocessing.StandardScaler() | model)
        mae = evaluate.progressive_val_score(datasets.TrumpApproval(), scaled, metrics.MAE())
        assert mae.get() < 1.0, f"{name}: ratings of 40-50 points tracked within a point"
    assert to_river("ogd", {"loss": "square"}).learner_.lr == 0.05, "the regression step size"
    assert to_river("ogd", {"loss": "square", "lr": 0.2}).learner_.lr == 0.2, "a given lr is kept"
    assert to_river("adagrad", {"loss": "square"}).learner_.lr == 0.1, "AdaGrad keeps its own"


@pytest.mark.parametrize("name", ["stsd-regressor", "ogd"])
def test_rivers_scaling_idiom_scales_once(name: str) -> None:
    """River's ``TargetStandardScaler(StandardScaler() | model)`` with the adapter as it comes is
    exactly the adapter's own optional scaling (``standardize=True``), never both at once."""
    params = {"loss": "square"} if name == "ogd" else None
    assert to_river(name, params).standardize is False
    rivers = preprocessing.TargetStandardScaler(
        preprocessing.StandardScaler() | to_river(name, params)
    )
    own = EvofeatRegressor(name, params, standardize=True)
    a = evaluate.progressive_val_score(datasets.TrumpApproval(), rivers, metrics.MAE())
    b = evaluate.progressive_val_score(datasets.TrumpApproval(), own, metrics.MAE())
    assert a.get() == pytest.approx(b.get(), rel=1e-9)
    twice = preprocessing.TargetStandardScaler(preprocessing.StandardScaler() | own.clone())
    c = evaluate.progressive_val_score(datasets.TrumpApproval(), twice, metrics.MAE())
    assert c.get() != pytest.approx(a.get(), rel=1e-3), "scaling twice is another model"


def test_divergence_is_reported() -> None:
    raw = EvofeatRegressor("ogd", {"loss": "square", "lr": 1.0}, standardize=False)
    with pytest.warns(RuntimeWarning, match=r"OGD\(.*\) diverged by row .* lower its step size"):
        evaluate.progressive_val_score(datasets.TrumpApproval(), raw, metrics.MAE())


@pytest.mark.parametrize(
    ("build", "data"),
    [
        (lambda: EvofeatClassifier("stsd-i"), lambda: datasets.Phishing()),
        (lambda: EvofeatMultiClassifier("stsd-multiclass"), lambda: datasets.ImageSegments()),
        (lambda: EvofeatRegressor("stsd-regressor"), lambda: datasets.TrumpApproval()),
    ],
)
def test_mini_batches_go_through_the_compiled_loop_and_learn_what_learn_one_learns(
    build, data, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    rows = list(itertools.islice(data(), 300))
    rng = np.random.default_rng(0)
    frames = []
    for a in range(0, 300, 50):  # features come and go between and within batches
        X = pd.DataFrame([x for x, _ in rows[a : a + 50]])
        X = X.mask(rng.random(X.shape) < 0.2)
        frames.append((X, pd.Series([y for _, y in rows[a : a + 50]])))
    calls = []
    loop = importlib.import_module("evofeat.base.prequential")  # the learner's learn_many runs it
    real = loop.prequential
    monkeypatch.setattr(loop, "prequential", lambda *a, **k: calls.append(1) or real(*a, **k))
    many, one = build(), build()
    for X, y in frames:
        many.learn_many(X, y)
        for (_, row), label in zip(X.iterrows(), y, strict=True):
            one.learn_one({k: v for k, v in row.items() if v == v}, label)
    # learn_many runs evofeat.evaluate.prequential (once a batch; the multiclass adapter also
    # where a new class grows the learner, as learn_one would grow it)
    assert len(calls) >= len(frames) and (len(calls) == len(frames)) != ("Multi" in repr(many))
    X = frames[-1][0]
    expected = [one.predict_one({k: v for k, v in r.items() if v == v}) for _, r in X.iterrows()]
    got = many.predict_many(X).tolist()
    if isinstance(many, EvofeatRegressor):
        np.testing.assert_allclose(got, expected, rtol=1e-9)
    else:
        assert got == expected
        proba = many.predict_proba_many(X)
        for i, (_, r) in enumerate(X.iterrows()):
            ref = one.predict_proba_one({k: v for k, v in r.items() if v == v})
            for label, p in ref.items():
                assert proba.iloc[i][label] == pytest.approx(p, rel=1e-9, abs=1e-12)


# ---------------------------------------------------------------------------- labels checked first
def _frame(n: int = 10) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(rng.standard_normal((n, 3)), columns=["a", "b", "c"])


@pytest.mark.parametrize("n_labels", [5, 20])
@pytest.mark.parametrize(
    ("build", "label"),
    [
        (lambda: to_river("stsd-multiclass"), lambda i: f"class{i % 3}"),
        (lambda: to_river("pa-i"), lambda i: bool(i % 2)),
        (lambda: to_river("stsd-regressor"), lambda i: float(i)),
    ],
    ids=["multiclass", "binary", "regression"],
)
def test_learn_many_with_another_number_of_labels_learns_nothing(build, label, n_labels) -> None:  # type: ignore[no-untyped-def]
    model = build()
    with pytest.raises(
        InputError, match=f"one label per row: expected 10 labels, received {n_labels}"
    ):
        model.learn_many(_frame(10), pd.Series([label(i) for i in range(n_labels)]))
    assert model.learner_.n_learned_ == 0


@pytest.mark.parametrize("missing", [None, float("nan")])
@pytest.mark.parametrize("name", ["stsd-multiclass", "pa-i", "stsd-regressor"])
def test_a_missing_label_is_refused_never_learned(name: str, missing: object) -> None:
    model = to_river(name)
    x = {"a": 1.0}
    with pytest.raises(InputError, match="missing label|two-valued labels|finite number"):
        model.learn_one(x, missing)
    labels = {"stsd-multiclass": "x", "pa-i": True, "stsd-regressor": 1.0}[name]
    with pytest.raises(InputError, match="missing label in row 3|two-valued labels|finite number"):
        model.learn_many(_frame(5), pd.Series([labels] * 3 + [missing, labels], dtype=object))
    assert model.learner_.n_learned_ == 0
    if name == "stsd-multiclass":
        assert model._classes == [] and model.predict_one(x) is None


def test_a_batch_mixing_label_kinds_learns_nothing() -> None:
    model = to_river("pa-i")
    with pytest.raises(InputError, match="mixes kinds of labels"):
        model.learn_many(_frame(4), pd.Series([True, False, -1, 1], dtype=object))
    assert model.learner_.n_learned_ == 0 and model._label_kind is None


@pytest.mark.parametrize("name", ["stsd-multiclass", "pa-multiclass"])
def test_a_bare_multiclass_learner_grows_its_classes_as_river_does(name: str) -> None:
    """``make(name).learn_one`` with no ``n_classes``: each new code adds a class (zero weights),
    and it learns the same as the adapter that discovers the classes."""
    from evofeat.registry import make

    rows = list(datasets.ImageSegments())[:300]
    codes = {y: k for k, y in enumerate(dict.fromkeys(y for _, y in rows))}
    bare, adapter = make(name), to_river(name)
    for x, y in rows:
        bare.learn_one(x, codes[y])
        adapter.learn_one(x, y)
    assert bare.n_classes == len(codes) == adapter.learner_.n_classes
    assert bare.coef_ == adapter.learner_.coef_
    with pytest.raises(InputError, match="out of range"):
        bare.learn_one(rows[0][0], -1)
