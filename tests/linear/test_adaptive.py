"""FTRL-Proximal, AdaGrad OGD and NAG: parity, evolving-feature semantics, extremes, german.

The generic checks (tests/base/test_generic_checks.py and the others) run these
learners with their defaults; here: both losses and other parameters through
dict path == array path == NumPy reference, the state of an absent feature
left alone, a new feature's first step in closed form, rows of norm 1e300 /
1e-300, and the comparison with OGD on german trapezoidal (issue 15).
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

import numpy as np
import pytest

import reference
from evofeat.base import FeatureIndex, InputError, OnlineLearner
from evofeat.ensemble.fesl import FESL
from evofeat.evaluate import PrequentialResult, prequential, repeat
from evofeat.linear.adagrad import AdaGrad
from evofeat.linear.ftrl import FTRL
from evofeat.linear.nag import NAG
from evofeat.streams import Stream, evolvable, full, haphazard, trapezoidal
from reference.ftrl import ftrl_weights_reference

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("ftrl", {}),
    ("ftrl", {"l1": 0.0, "l2": 0.0, "alpha": 0.5}),
    ("ftrl", {"beta": 0.0, "l1": 0.1}),
    ("ftrl", {"loss": "square", "alpha": 0.05}),
    ("adagrad", {}),
    ("adagrad", {"lr": 1.0, "eps": 1.0}),
    ("adagrad", {"loss": "square", "lr": 0.05}),
    ("nag", {}),
    ("nag", {"lr": 0.1, "fit_intercept": False}),
    ("nag", {"loss": "square", "lr": 0.1}),
    ("nag", {"invariant": True, "lr": 2.0}),
    ("nag", {"invariant": True, "loss": "square", "lr": 1.0}),
]


def _model(name: str, params: dict) -> OnlineLearner:
    return {"ftrl": FTRL, "adagrad": AdaGrad, "nag": NAG, "fesl": FESL}[name](**params)


def _data(task: str, n: int = 240, d: int = 8, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    f = X[:, 0] - 0.8 * X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.standard_normal(n)
    return X, (f if task == "regression" else np.where(f > 0, 1, -1))


def _streams(X: np.ndarray, y: np.ndarray, task: str) -> dict[str, Stream]:
    return {
        "trapezoidal": trapezoidal(X, y, task=task),
        "evolvable": evolvable(X, y, d2=5, overlap=10, seed=1, task=task),
        "haphazard": haphazard(X, y, p=0.6, seed=2, task=task),
        "full": full(X, y, task=task),
    }


def _dense(stream: Stream) -> np.ndarray:
    """The stream as a dense array (NaN = absent), columns in the order features first appear."""
    col_map, _ = stream.internal_columns(FeatureIndex())
    out = np.full((stream.n_rows, int(col_map.max()) + 1), np.nan)
    out[:, col_map[col_map >= 0]] = stream.to_dense()[:, col_map >= 0]
    return out


def _check_paths(name: str, params: dict, stream: Stream) -> PrequentialResult:
    """Dict path == array path (predictions and state, bit for bit) == NumPy reference (labels)."""
    arr_model = _model(name, params)
    res = prequential(arr_model, stream, keep_predictions=True)
    assert res.labels is not None and res.scores is not None
    assert not np.isnan(res.scores).any()
    dict_model = _model(name, params)
    preds = []
    for x, t in stream.to_dicts():
        p = dict_model.predict_one(x)
        preds.append(np.nan if p is None else float(p))
        dict_model.learn_one(x, t)
    labels = res.labels.copy()
    if dict_model.task == "binary":
        labels[labels == 0] = -1
    np.testing.assert_array_equal(np.asarray(preds)[1:], labels[1:])
    for field in arr_model.per_feature:
        a, b = arr_model._weights(field), dict_model._weights(field)
        np.testing.assert_array_equal(a, b)
        assert np.isfinite(a).all(), field
    ref = reference.predictions(arr_model, _dense(stream), stream.y.astype(float))
    if dict_model.task == "regression":
        np.testing.assert_allclose(ref, res.labels, rtol=1e-9, atol=1e-12)
    else:
        np.testing.assert_array_equal(ref, res.labels)
    return res


@pytest.mark.parametrize("scenario", ["trapezoidal", "evolvable", "haphazard"])
@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_dict_array_reference_agree(name: str, params: dict, scenario: str) -> None:
    task = _model(name, params).task
    _check_paths(name, params, _streams(*_data(task), task)[scenario])


@pytest.mark.usefixtures("divergence_expected")
@pytest.mark.parametrize("kind", ["huge", "tiny", "mixed", "zero-rows"])
@pytest.mark.parametrize(("name", "params"), [c for c in CONFIGS if "loss" not in c[1]])
def test_extreme_rows_stay_finite_and_agree(name: str, params: dict, kind: str) -> None:
    """Rows of norm 1e300, 1e-300, both, and zero rows: no NaN, finite state, the three paths agree."""
    rng = np.random.default_rng(3)
    X, y = _data("binary")
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    scale = {
        "huge": np.full(len(y), 1e300),
        "tiny": np.full(len(y), 1e-300),
        "mixed": 10.0 ** rng.uniform(-300, 300, len(y)),
        "zero-rows": np.where(rng.random(len(y)) < 0.3, 0.0, 1.0),
    }[kind]
    for scenario in ("full", "haphazard"):
        _check_paths(name, params, _streams(X * scale[:, None], y, "binary")[scenario])


def _state(model: OnlineLearner, feature: str) -> tuple[float, ...]:
    col = list(model.feature_index_.names).index(feature)
    return tuple(float(model._weights(f)[col]) for f in model.per_feature)


@pytest.mark.parametrize("model", [FTRL(l1=0.0), AdaGrad()])
def test_absent_feature_keeps_its_state_and_comes_back_with_it(model: OnlineLearner) -> None:
    rng = np.random.default_rng(0)
    for _ in range(30):
        a, b = rng.standard_normal(2)
        model.learn_one({"a": a, "b": b}, 1 if a + b > 0 else -1)
    before_a, before_b = _state(model, "a"), _state(model, "b")
    assert all(v != 0.0 for v in before_a)
    for _ in range(30):  # "a" absent: not a zero value, no part at all
        b = rng.standard_normal()
        model.learn_one({"b": b}, 1 if b > 0 else -1)
    assert _state(model, "a") == before_a
    assert _state(model, "b") != before_b
    # back again: scored with the weight it left with
    w = model.coef_
    x: dict[Hashable, float] = {"a": 0.7, "b": -0.2}
    expected = w["a"] * 0.7 + w["b"] * -0.2 + model.intercept_  # the bias: not a feature
    p = model.predict_proba_one(x)
    assert p is not None
    assert math.isclose(p[1], 1.0 / (1.0 + math.exp(-expected)), rel_tol=1e-12)


@pytest.mark.parametrize("loss", ["logistic", "square"])
def test_new_feature_first_step_in_closed_form(loss: str) -> None:
    """A feature seen for the first time starts at z = n = 0 (FTRL) / w = G = 0 (AdaGrad)."""
    ftrl, ada = FTRL(alpha=0.3, beta=1.0, l1=0.5, l2=0.2, loss=loss), AdaGrad(lr=0.2, loss=loss)
    y0, y1 = (1, -1) if loss == "logistic" else (0.5, -1.5)
    for model in (ftrl, ada):
        for _ in range(5):
            model.learn_one({"a": 1.0}, y0)
    x: dict[Hashable, float] = {"a": 1.0, "new": 2.5}
    for model in (ftrl, ada):
        before_a = _state(model, "a")
        f = model.coef_["a"] * 1.0 + model.intercept_  # "new" has weight 0
        if loss == "logistic":
            slope = -y1 / (1.0 + math.exp(y1 * f))  # p - y01
        else:
            slope = -2.0 * (y1 - f)
        model.learn_one(x, y1)
        g = slope * 2.5
        if model is ftrl:
            # w = 0, sigma = sqrt(g^2) / alpha: z = g, n = g^2 (Algorithm 1 from zero state)
            assert _state(model, "new") == pytest.approx((g, g * g), rel=1e-12)
        else:
            step = 0.2 * g / math.sqrt(1e-8 + g * g)
            assert _state(model, "new") == pytest.approx((-step, g * g), rel=1e-12)
        assert _state(model, "a") != before_a


def test_ftrl_coef_are_the_lazy_weights_and_l1_zeroes_them() -> None:
    X, y = _data("binary")
    model = FTRL(l1=0.0)
    prequential(model, full(X, y))
    z, n = model._weights("z"), model._weights("n")
    w = ftrl_weights_reference(z, n, 0.1, 1.0, 0.0, 1.0)
    assert list(model.coef_.values()) == w.tolist()
    assert np.count_nonzero(w) == len(w)
    sparse = FTRL(l1=1e6, fit_intercept=False)  # the bias has no L1 (tests/base/test_intercept.py)
    res = prequential(sparse, full(X, y), keep_predictions=True)
    assert not any(sparse.coef_.values())
    assert res.scores is not None and not res.scores.any()


@pytest.mark.parametrize(
    ("model", "field"),
    [(lambda: FTRL(alpha=0.0), "alpha"), (lambda: FTRL(l1=-1.0), "l1"),
     (lambda: FTRL(beta=math.inf), "beta"), (lambda: FTRL(loss="hinge"), "loss"),
     (lambda: AdaGrad(eps=0.0), "eps"), (lambda: AdaGrad(lr=-1.0), "lr")],
)  # fmt: skip
def test_bad_parameters_are_named(model, field: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError, match=field):
        model().learn_one({"a": 1.0}, 1)


def test_german_trapezoidal_against_ogd(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 15's stream: german (z-scored), trapezoidal, 10 row orders (evofeat's repeats 0-9).

    Measured when written (accuracy mean over the 10 orders): FTRL 0.671,
    AdaGrad 0.668, OGD 0.663, STSD-I 0.615, majority class 0.700; the issue
    reports OpenMOA's FTRL (same defaults) at 0.670 +- 0.009. FTRL is
    still below the majority-class rate on this stream, so that is not
    asserted.
    """
    plain = {"fit_intercept": False}  # OpenMOA's FTRL has no bias
    acc = {
        name: repeat(
            name,
            "german",
            "trapezoidal",
            repeats=10,
            preprocess="zscore",
            params=plain if name in ("ftrl", "adagrad") else None,
        )
        .sort_values("repeat")["accuracy"]
        .to_numpy()
        for name in ("ftrl", "adagrad", "ogd", "stsd-i")
    }
    with capsys.disabled():
        for name, a in acc.items():
            print(f"\ngerman trapezoidal {name}: {a.mean():.4f} +- {a.std(ddof=1):.4f}", end="")
        print()
    assert acc["ftrl"].mean() > acc["ogd"].mean()
    assert (acc["ftrl"] > acc["ogd"]).sum() >= 8  # paired, order by order
    assert (acc["ftrl"] > acc["stsd-i"]).all()  # as OpenMOA's FTRL in the issue
    assert abs(acc["ftrl"].mean() - 0.670) <= 0.009  # OpenMOA's FTRL: 0.670 +- 0.009


#: FESL-c's ensemble over FTRL-Proximal base models (alpha = lr = 0.1, FTRL's defaults otherwise).
FESL_FTRL: dict[str, Any] = {"lr": 0.1, "base": "ftrl"}


def test_australian_evolvable_matches_the_peer_ftrl() -> None:
    """Issue 15's other stream: australian (z-scored), evolvable (FESL protocol), 10 orders.

    Accuracy after the switch: OpenMOA's FTRL (same defaults) 0.820 +- 0.015
    in the issue; evofeat's FTRL measured 0.8203 +- 0.0153 when written,
    ahead of OGD (0.782) and FESL-c with its defaults (0.808); FESL-c over
    FTRL base models 0.836 +- 0.011.
    """
    plain = {"fit_intercept": False}  # OpenMOA's FTRL has no bias
    runs = {"ftrl": ("ftrl", plain), "ogd": ("ogd", {}), "fesl-ftrl": ("fesl-c", FESL_FTRL)}
    acc = {
        key: repeat(name, "australian", "evolvable", repeats=10, preprocess="zscore", params=p)
        .sort_values("repeat")["accuracy"]
        .to_numpy()
        for key, (name, p) in runs.items()
    }
    assert abs(acc["ftrl"].mean() - 0.820) <= 0.015
    assert (acc["ftrl"] > acc["ogd"]).sum() >= 8
    # FESL-c over FTRL (measured 0.836 +- 0.011, ahead of FTRL in 9 of 10 orders, paired t p = 0.008)
    assert acc["fesl-ftrl"].mean() > 0.820
    assert (acc["fesl-ftrl"] > acc["ftrl"]).sum() >= 8


# ---------------------------------------------------------------------------- FESL over AdaGrad, FTRL
@pytest.mark.parametrize("scenario", ["trapezoidal", "evolvable", "haphazard"])
@pytest.mark.parametrize("method", ["fesl-c", "fesl-s", "nogd", "rogd-u"])
@pytest.mark.parametrize("base", ["adagrad", "ftrl"])
def test_fesl_adaptive_base_dict_array_reference_agree(
    base: str, method: str, scenario: str
) -> None:
    X, y = _data("binary")
    stream = _streams(X, y, "binary")[scenario]
    params: dict[str, Any] = {"method": method, "base": base, "lr": 0.2, "overlap": 5, "l1": 0.1}
    res = _check_paths("fesl", params, stream)
    if scenario == "evolvable":  # the option changes the learner: not OGD's predictions
        model = FESL(**params)
        prequential(model, stream)
        assert model.n_switches_ == 1 and model._weights("G").any()
        ogd = prequential(FESL(**{**params, "base": "ogd"}), stream, keep_predictions=True)
        assert ogd.scores is not None and res.scores is not None
        assert not np.array_equal(ogd.scores, res.scores)


def test_ftrl_learn_reads_predicts_weights_only_on_its_row() -> None:
    """FTRL's learn reuses the weights predict computed for the same row (bit for bit), and computes
    them on any other row: a different row at the same address, a second learn, a shorter row."""
    from evofeat._core.loop import predict_rows
    from evofeat.linear._adaptive import learn_row

    X, y = _data("binary")
    model = FTRL(l1=0.1, fit_intercept=False)
    prequential(model, full(X, y))
    trained = model._state

    def fresh() -> Any:  # the trained state, never predicted with (nothing marked)
        return type(trained)(**{k: np.copy(v) for k, v in trained._asdict().items()})

    def state(core: Any) -> list[np.ndarray]:
        return [np.asarray(core.z).copy(), np.asarray(core.n).copy()]

    def predict(core: Any, cols: np.ndarray, val: np.ndarray) -> None:
        indptr = np.array([0, cols.size], dtype=np.int64)
        predict_rows(core, indptr, cols, val, np.zeros(1), np.zeros(1))

    a = np.array([0, 2, 5], dtype=np.int64)
    b = np.array([0, 3, 5], dtype=np.int64)
    val = np.array([0.5, -1.0, 2.0])
    z, n = np.asarray(trained.z), np.asarray(trained.n)
    assert ftrl_weights_reference(z[a], n[a], 0.1, 1.0, 0.1, 1.0).all()  # weights that matter
    cases = {  # what runs on the marked core; the fresh core runs its learns only
        "its own row": ([a], [a]),
        "another row at the same address": ([a], [b]),
        "a second learn": ([a], [a, a]),
        "a shorter row": ([a], [a[:2]]),
    }
    for case, (predicted, learned) in cases.items():
        marked, ref = fresh(), fresh()
        cols = predicted[0].copy()
        predict(marked, cols, val)
        for row in learned:
            cols[: row.size] = row  # the same buffer, rewritten as a caller reusing it would
            learn_row(marked, cols[: row.size], val[: row.size], -1.0, 0.3)
            learn_row(ref, row.copy(), val[: row.size], -1.0, 0.3)
        for got, want in zip(state(marked), state(ref), strict=True):
            np.testing.assert_array_equal(got, want, err_msg=case)
        assert not np.array_equal(state(ref)[0], z), case
