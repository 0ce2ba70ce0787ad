"""Online scaling where users ask for it: registry names, --preprocess values, River pipelines."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from click.testing import CliRunner

from evofeat.cli import main
from evofeat.datasets import load
from evofeat.datasets.preprocessing import check_preprocess, split_online
from evofeat.evaluate import prequential
from evofeat.preprocessing import OnlineScaled
from evofeat.registry import canonical, describe, kind_of, make, parameters
from evofeat.streams import Stream, full


# ---------------------------------------------------------------------------- registry
def test_a_scaled_name_builds_the_learner_behind_the_scaler() -> None:
    model = make("Online-Quantile+FTRL", alpha=0.2)
    assert isinstance(model, OnlineScaled)
    assert model.get_params() == {"learner": "ftrl(alpha=0.2)", "method": "quantile", "window": 100}
    assert canonical("online-zscore+PA-I") == "online-zscore+pa-i"
    assert kind_of("online-zscore+pa-i") == "online"
    assert parameters("online-zscore+pa-i") == parameters("pa-i")
    assert describe("online-zscore+adagrad")["task"] == "binary"


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("online-zscore+ftrlx", "did you mean ftrl"),
        ("online-zscore+opid", "not an online learner"),
    ],
)
def test_a_bad_scaled_name_says_what_to_do(name: str, says: str) -> None:
    from evofeat.base import InputError

    with pytest.raises(InputError, match=says):
        make(name)


# ---------------------------------------------------------------------------- --preprocess
def test_an_online_step_moves_into_the_learner() -> None:
    assert split_online("ftrl", "online-zscore") == ("online-zscore+ftrl", "none")
    assert split_online("nag", "minmax,online-quantile") == ("online-quantile+nag", "minmax")
    assert split_online("ftrl", "zscore,unit-norm") == ("ftrl", "zscore,unit-norm")
    with pytest.raises(ValueError, match="must come once, last"):
        split_online("ftrl", "online-zscore,minmax")
    with pytest.raises(ValueError, match="learned by the learner"):
        check_preprocess("online-zscore")


def test_whole_file_zscore_keeps_absent_values_and_their_rows() -> None:
    from evofeat.datasets import preprocess

    X = np.array([[1.0, np.nan], [3.0, 2.0], [np.nan, 4.0]])
    Z = preprocess(X, "zscore")
    assert Z.shape == X.shape and np.array_equal(np.isnan(Z), np.isnan(X))


def _run(*args: str) -> dict:
    result = CliRunner().invoke(main, ["run", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_the_cli_runs_the_learner_behind_online_scaling() -> None:
    args = ["--dataset", "german", "--repeats", "2"]
    given = _run("--learner", "ftrl", "--preprocess", "online-zscore", *args)
    named = _run("--learner", "online-zscore+ftrl", *args)
    assert given["learner"] == "online-zscore+ftrl" and given["accuracy"] == named["accuracy"]
    ds = load("german")
    first = prequential(make("online-zscore+ftrl"), full(ds.X, ds.y, ds.feature_names))
    plain = _run("--learner", "ftrl", "--repeats", "1", "--dataset", "german")
    assert plain["accuracy"]["mean"] != pytest.approx(first.accuracy)  # the scaling matters here
    bad = CliRunner().invoke(
        main, ["run", "--learner", "ftrl", "--dataset", "german", "--preprocess", "online-zscore,x"]
    )
    assert bad.exit_code != 0 and "Traceback" not in bad.output


# ---------------------------------------------------------------------------- River
river = pytest.importorskip("river", reason="River is not installed: pip install 'evofeat[river]'")


def _phishing() -> list[tuple[dict, bool]]:
    from river import datasets

    return list(datasets.Phishing())


def test_rivers_standard_scaler_in_front_of_an_evofeat_learner() -> None:
    from river import evaluate, metrics, preprocessing

    from evofeat.compat.river import to_river

    rows = _phishing()
    model = preprocessing.StandardScaler() | to_river("ftrl")
    metric = evaluate.progressive_val_score(rows, model, metrics.Accuracy())
    # River's pipeline: the row is predicted with the scaler's statistics before it; the
    # scaler learns the row, then the learner learns it scaled with the updated statistics
    scaler, learner, hits, n = preprocessing.StandardScaler(), make("ftrl"), 0, 0
    for x, y in rows:
        p = learner.predict_one(scaler.transform_one(x))
        if p is not None:  # progressive validation scores the rows with a prediction
            hits += (p == 1) == y
            n += 1
        scaler.learn_one(x)
        learner.learn_one(scaler.transform_one(x), 1 if y else -1)
    assert metric.get() == pytest.approx(hits / n, abs=1e-12)


def test_evofeat_scaling_uses_rivers_statistics_and_learns_the_predicted_row() -> None:
    from river import evaluate, metrics, preprocessing

    from evofeat.compat.river import EvofeatClassifier, to_river

    rows = _phishing()
    model = to_river(OnlineScaled("ftrl", method="zscore"))
    metric = evaluate.progressive_val_score(rows, copy.deepcopy(model), metrics.Accuracy())
    # the same z-scores as River's StandardScaler before each row; the learner learns that row
    scaler, learner, hits, n = preprocessing.StandardScaler(), make("ftrl"), 0, 0
    ours = OnlineScaled("ftrl", method="zscore")
    for x, y in rows:
        z = scaler.transform_one(x)
        p = learner.predict_one(z)
        if p is not None:
            hits += (p == 1) == y
            n += 1
        if p is not None:  # River's variance update rounds differently from Welford's
            assert ours.decision_one(x) == pytest.approx(learner.decision_one(z), rel=1e-9)
        learner.learn_one(z, 1 if y else -1)
        ours.learn_one(x, 1 if y else -1)
        scaler.learn_one(x)
    assert metric.get() == pytest.approx(hits / n, abs=1e-12)
    assert ours.coef_ == pytest.approx(learner.coef_, rel=1e-9, abs=1e-12)
    assert EvofeatClassifier("online-quantile+ftrl").learner_.method == "quantile"


@pytest.mark.parametrize("name", ["online-zscore+ftrl", "online-quantile+adagrad"])
def test_rivers_estimator_checks_pass_on_a_scaled_learner(name: str) -> None:
    from river import checks

    from evofeat.compat.river import EvofeatClassifier

    model = EvofeatClassifier(name)
    ran = 0
    for check in checks.yield_checks(model):
        check(copy.deepcopy(model).clone())
        ran += 1
    assert ran > 5


def test_learn_many_of_a_river_batch_is_learn_one_on_each_row() -> None:
    import pandas as pd

    rows = _phishing()[:300]
    X = pd.DataFrame([x for x, _ in rows])
    y = np.array([1 if label else -1 for _, label in rows])
    batch = OnlineScaled("ftrl", method="quantile").learn_many(X, y)
    one = OnlineScaled("ftrl", method="quantile")
    for (x, _), label in zip(rows, y.tolist(), strict=True):
        one.learn_one(x, label)
    assert batch.coef_ == one.coef_
    stream = Stream.from_dense(X.to_numpy(float), y, list(X.columns))
    again = OnlineScaled("ftrl", method="quantile")
    prequential(again, stream)
    assert again.coef_ == one.coef_


def test_the_scikit_learn_adapter_takes_a_scaled_name() -> None:
    from evofeat.compat.sklearn import OnlineClassifier

    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 5)) * np.array([1.0, 10.0, 100.0, 1e3, 1e-2])
    y = (X[:, 0] + X[:, 3] / 1e3 > 0).astype(int)
    clf = OnlineClassifier("online-zscore+ftrl").fit(X, y)
    direct = OnlineScaled("ftrl").learn_many(X, np.where(y == 1, 1, -1))
    assert isinstance(clf.learner_, OnlineScaled)
    assert list(clf.learner_.coef_.values()) == list(direct.coef_.values())
    assert clf.score(X, y) > OnlineClassifier("ftrl").fit(X, y).score(X, y)
