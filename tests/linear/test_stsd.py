"""STSD and its variants: the three paths agree, the paper's and the authors' rules, german exactly."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import reference
from evofeat.base import FeatureIndex, InputError
from evofeat.datasets.preprocessing import stsd_original_preprocessing
from evofeat.evaluate import prequential
from evofeat.linear.stsd import STSD
from evofeat.linear.stsd_multiclass import STSDMulticlass
from evofeat.linear.stsd_regression import STSDRegressor
from evofeat.streams import Stream, haphazard, trapezoidal
from reference.splitmix import uniform as _uniform
from reference.stsd import stsd_reference

MODES = ("stsd", "stsd-i", "stsd-ii", "stsd-i-all", "stsd-i-rand", "stsd-i-per")


def _internal(stream: Stream) -> np.ndarray:
    """Dense values (NaN = absent) with columns in the learners' internal order."""
    col_map, _ = stream.internal_columns(FeatureIndex())
    dense = stream.to_dense()
    out = np.full((stream.n_rows, int(col_map.max()) + 1), np.nan)
    out[:, col_map[col_map >= 0]] = dense[:, col_map >= 0]
    return out


def _data(kind: str, n: int = 500, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if kind == "dense":
        X = rng.standard_normal((n, 16))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        y = np.where(X[:, :4].sum(1) + 0.3 * rng.standard_normal(n) > 0, 1, -1)
    else:  # binary, sparse: many exactly equal weights, ties and exact cancellations
        X = (rng.random((n, 40)) < 0.12).astype(float)
        y = np.where(X[:, :8].sum(1) - X[:, 8:16].sum(1) + 0.5 * rng.standard_normal(n) > 0, 1, -1)
    return X, y


def _params(variant: str, **kw: object) -> dict[str, object]:
    base = {"C": 0.1, "radius": 3.0, "budget": 0.5, "variant": variant, "seed": 3}
    return {**base, **kw}


def _dict_path(model: STSD, stream: Stream) -> np.ndarray:
    out = []
    for x, y in stream.to_dicts():
        score = model.decision_one(x)
        out.append(0.0 if score is None else score)
        model.learn_one(x, y)
    return np.sign(np.asarray(out))


# ---------------------------------------------------------------------------- the three paths
@pytest.mark.parametrize("kind", ["dense", "binary"])
@pytest.mark.parametrize("variant", ["paper", "original-code"])
@pytest.mark.parametrize("mode", MODES)
def test_reference_dense_sparse_and_dict_paths_agree(mode: str, variant: str, kind: str) -> None:
    assert_paths_agree(_params(variant, mode=mode), *_data(kind))


def assert_paths_agree(kw: dict[str, object], X: np.ndarray, y: np.ndarray) -> None:
    """The reference, the dense and sparse array paths and the dict path give the same labels."""
    stream = trapezoidal(X, y, n_stages=5)
    dense = prequential(STSD(**kw), stream, keep_predictions=True)
    sparse = prequential(
        STSD(**kw), trapezoidal(sp.csr_matrix(X), y, n_stages=5), keep_predictions=True
    )
    ref = stsd_reference(_internal(stream), y.astype(float), **kw)
    assert dense.labels is not None and sparse.labels is not None
    np.testing.assert_array_equal(dense.labels, ref)
    np.testing.assert_array_equal(sparse.labels, ref)
    np.testing.assert_array_equal(dense.scores, sparse.scores)  # bit for bit
    np.testing.assert_array_equal(_dict_path(STSD(**kw), stream), ref)


@pytest.mark.parametrize("variant", ["paper", "original-code"])
def test_paths_agree_when_the_scale_is_folded_and_on_haphazard_streams(variant: str) -> None:
    X, y = _data("binary", n=400, seed=1)
    for stream, kw in (
        (trapezoidal(X, y), _params(variant, mode="stsd", radius=1e-6)),
        (haphazard(X, y, p=0.5, seed=4), _params(variant, mode="stsd-i-per")),
    ):
        arr = prequential(STSD(**kw), stream, keep_predictions=True)
        np.testing.assert_array_equal(
            arr.labels, stsd_reference(_internal(stream), y.astype(float), **kw)
        )


def test_ties_keep_the_lower_column() -> None:
    # one row sets 4 equal weights; B d = 2 of them stay: the two features seen first
    model = STSD(mode="stsd", budget=0.5, radius=math.inf)
    model.learn_one({"c": 1.0, "a": 1.0, "d": 1.0, "b": 1.0}, 1)
    assert model.selected_features_ == ["a", "b"]
    model.learn_one({"d": 1.0}, 1)  # d grows past the tie and takes b's place
    assert model.selected_features_ == ["a", "d"]


# ---------------------------------------------------------------------------- the paper's rules
def test_first_rounds_follow_eq_4_and_alg_2() -> None:
    C = 0.3
    model = STSD(mode="stsd-i", C=C, radius=math.inf, budget=1.0)
    model.learn_one({"a": 1.0, "b": 2.0}, 1)  # f = 0, l = 1, tau = min(C, 1/5)
    t1 = min(C, 1 / 5)
    assert model.coef_ == pytest.approx({"a": t1, "b": 2 * t1})
    model.learn_one({"a": 1.0, "b": 0.0, "c": -1.0}, -1)  # f = t1, new feature c
    t2 = min(C, (1 + t1) / 2)
    assert model.coef_ == pytest.approx({"a": t1 - t2, "b": 2 * t1, "c": t2})
    ii = STSD(mode="stsd-ii", C=C, radius=math.inf, budget=1.0)
    ii.learn_one({"a": 1.0, "b": 2.0}, 1)
    assert ii.coef_["a"] == pytest.approx(1 / (5 + 1 / (2 * C)))


def test_projection_onto_the_l1_ball_and_truncation() -> None:
    model = STSD(mode="stsd", radius=0.3, budget=0.5)
    model.learn_one({"a": 3.0, "b": 1.0, "c": 2.0, "d": 0.5}, 1)  # ||w||_1 = 6.5 / 14.25 > 0.3
    w = model.coef_
    assert sum(abs(v) for v in w.values()) <= 0.3 * 5 / 6.5 + 1e-12
    assert model.selected_features_ == ["a", "c"] and model.budget_limit_ == 2
    assert w["a"] / w["c"] == pytest.approx(1.5)


def test_no_decision_is_a_mistake_and_the_perceptron_steps_on_mistakes_only() -> None:
    s = Stream.full(np.array([[1.0], [1.0], [1.0]]), np.array([1, 1, 1]))
    res = prequential(STSD(mode="stsd-i-per", radius=math.inf), s, keep_predictions=True)
    assert res.labels is not None and res.labels.tolist() == [0.0, 1.0, 1.0] and res.mistakes == 1


# ---------------------------------------------------------------------------- the authors' code
def test_original_code_new_stage_uses_the_last_tau() -> None:
    C = 0.1
    model = STSD(mode="stsd-i", C=C, radius=math.inf, budget=1.0, variant="original-code")
    model.learn_one({"a": 2.0}, 1)  # tau = min(C, 1 / ||x||) = C: w_a = 0.2
    assert model.coef_ == pytest.approx({"a": 0.2})
    model.learn_one({"a": 10.0, "b": 1.0}, 1)  # y f = 2 > 1: no update, yet b = last tau * y * x_b
    assert model.coef_ == pytest.approx({"a": 0.2, "b": C})
    ii = STSD(mode="stsd-ii", C=C, radius=math.inf, budget=1.0, variant="original-code")
    ii.learn_one({"a": 3.0, "b": 4.0}, -1)  # 1 - y f / (||x|| + 1/(2C)) with f = 0: tau = 1
    assert ii.coef_ == pytest.approx({"a": -3.0, "b": -4.0})


def test_original_code_rounds_the_budget_and_may_keep_nothing() -> None:
    model = STSD(mode="stsd-i", budget=0.2, variant="original-code")
    model.learn_one({"a": 1.0, "b": 2.0}, 1)  # round(0.2 * 2) = 0
    assert model.budget_limit_ == 0 and model.selected_features_ == []
    paper = STSD(mode="stsd-i", budget=0.2)
    paper.learn_one({"a": 1.0, "b": 2.0}, 1)  # max(1, floor(0.4)) = 1
    assert paper.selected_features_ == ["b"]
    odd = STSD(mode="stsd", budget=0.5, variant="original-code", radius=math.inf)
    odd.learn_one({"a": 1.0, "b": 2.0, "c": 3.0}, 1)  # round(1.5) = 2 (halves up)
    assert odd.selected_features_ == ["b", "c"]


def test_stsd_original_preprocessing() -> None:
    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, size=(50, 4)).astype(float)
    X[:, 3] = 7.0  # constant: becomes 0
    Z = stsd_original_preprocessing(sp.csr_matrix(X))
    np.testing.assert_allclose(np.linalg.norm(Z, axis=1), 1.0)
    assert np.all(Z[:, 3] == 0)
    z = (X[:, :3] - X[:, :3].mean(0)) / X[:, :3].std(0, ddof=1)
    np.testing.assert_allclose(Z[:, :3], z / np.linalg.norm(z, axis=1, keepdims=True), atol=1e-12)


def _german_original(mode: str, budget: float) -> tuple[float, float]:
    from evofeat.datasets import load, stsd_german_permutations

    ds = load("german-stsd")
    X, perms = stsd_original_preprocessing(ds.X), stsd_german_permutations()
    mistakes = []
    for order in perms:
        s = trapezoidal(
            X[order],
            ds.y[order],
            ds.feature_names,
            layout="original-code",
            fractions=[0.1, 0.4, 0.7, 1.0],
        )
        model = STSD(
            mode=mode, C=0.01, radius=1 / math.sqrt(0.001), budget=budget, variant="original-code"
        )
        mistakes.append(prequential(model, s).mistakes)
    a = np.asarray(mistakes, dtype=float)
    return float(a.mean()), float(a.std(ddof=1))


@pytest.mark.parametrize(
    ("mode", "budget", "mean", "std"),
    [
        ("stsd", 0.5, 415.9, 15.6),
        ("stsd-i", 0.5, 366.9, 8.8),
        ("stsd-ii", 0.5, 366.9, 12.8),
        ("stsd-i", 0.2, 702.7, 20.1),
        ("stsd-i-all", 0.5, 344.1, 7.1),
        ("stsd-i-per", 0.2, 703.7, 20.5),
        ("stsd-i-per", 0.5, 368.7, 16.4),
        ("stsd-i-per", 0.8, 354.2, 7.7),
    ],
)
def test_the_authors_code_reproduces_the_papers_german_cells(
    mode: str, budget: float, mean: float, std: float
) -> None:
    ours_mean, ours_std = _german_original(mode, budget)
    assert abs(ours_mean - mean) <= 0.05 + 1e-9 and abs(ours_std - std) <= 0.05 + 1e-9


# ---------------------------------------------------------------------------- vanishing features
def test_vanished_features_keep_their_weight_and_return_as_old_features() -> None:
    model = STSD(mode="stsd-i", radius=math.inf, budget=1.0, variant="original-code")
    model.learn_one({"a": 1.0, "b": 1.0}, 1)
    w_a = model.coef_["a"]
    model.learn_one({"b": 1.0, "c": 1.0}, -1)  # a is absent: unchanged; c is new
    model.learn_one({"b": 0.5}, 1)
    assert model.coef_["a"] == w_a
    before = model.coef_
    model.learn_one({"a": 1.0, "b": 1.0, "c": 1.0}, -1)  # a is back: no new stage, the PA step
    step = model.coef_["b"] - before["b"]
    assert model.coef_["a"] - w_a == pytest.approx(step)


def test_vanished_features_shrink_with_the_ball_and_can_be_truncated() -> None:
    model = STSD(mode="stsd-i", C=0.1, radius=0.4, budget=0.75)
    model.learn_one({"a": 1.0, "b": 0.1}, 1)  # w = (0.1, 0.01); max(1, floor(1.5)) = 1 kept
    assert model.selected_features_ == ["a"]
    # a is absent; ||w||_1 = 0.5: the ball scales it by 0.8
    model.learn_one({"c": 2.0, "d": 2.0}, 1)
    assert model.coef_["a"] == pytest.approx(0.08)
    model.learn_one({"e": 2.0, "f": 2.0}, 1)  # 6 features, 4 kept: the absent a is the smallest
    assert model.selected_features_ == ["c", "d", "e", "f"]


# ---------------------------------------------------------------------------- the learner object
def test_random_truncation_is_seeded() -> None:
    X, y = _data("binary", n=300)
    s = trapezoidal(X, y)
    runs = [
        prequential(STSD(mode="stsd-i-rand", seed=seed), s, keep_predictions=True).labels
        for seed in (1, 1, 2)
    ]
    assert runs[0] is not None and runs[2] is not None
    np.testing.assert_array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0], runs[2])


def test_uniform_is_splitmix64() -> None:
    def splitmix(state: int) -> tuple[int, float]:
        mask = 2**64 - 1
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return state, ((z ^ (z >> 31)) >> 11) * 2.0**-53

    rng, state = np.array([42], dtype=np.uint64), 42
    for _ in range(5):
        state, expect = splitmix(state)
        assert _uniform(rng) == expect


def test_the_compiled_counter_draw_is_the_python_twin() -> None:
    """``evofeat._core.helpers.draw_uniform`` (rng.pxd) and the references' ``splitmix.draw_uniform`` agree."""
    from evofeat._core.helpers import draw_uniform as compiled

    from reference.splitmix import draw_uniform as twin

    for seed, stream, k in [(0, 0, 0), (3, 1, 2), (2**63 - 1, 7, 10**6), (12345, 2**40, 3)]:
        assert compiled(seed, stream, k) == twin(seed, stream, k)


@pytest.mark.parametrize(
    "bad",
    [
        {"mode": "stsd-iii"},
        {"C": 0.0},
        {"C": float("nan")},
        {"radius": -1.0},
        {"budget": 0.0},
        {"budget": 1.5},
        {"variant": "matlab"},
        {"project": 1},
        {"seed": -1},
    ],
)
def test_bad_parameters_say_what_was_expected(bad: dict[str, object]) -> None:
    with pytest.raises(InputError, match="expected"):
        STSD(**bad)._reset()  # type: ignore[arg-type]


def test_learners_clone_and_pickle() -> None:
    for model in (
        STSD(mode="stsd-i-rand", seed=5),
        STSDRegressor(epsilon=0.2),
        STSDMulticlass(n_classes=3),
    ):
        assert model.predict_one({"a": 1.0}) is None
        y = 1 if model.task == "binary" else (2 if model.task == "multiclass" else 0.5)
        model.learn_one({"a": 1.0, "b": -0.5}, y)
        again = pickle.loads(pickle.dumps(model))
        assert again.predict_one({"a": 1.0, "b": 2.0}) == model.predict_one({"a": 1.0, "b": 2.0})
        assert model.clone().get_params() == model.get_params()


# ---------------------------------------------------------------------------- future work
def test_regression_paths_agree_and_the_baseline_does_not_truncate() -> None:
    rng = np.random.default_rng(2)
    X = rng.standard_normal((300, 12))
    y = X[:, :3] @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.standard_normal(300)
    stream = trapezoidal(X, y, task="regression")
    for kw in (
        {"mode": "stsd-i", "budget": 0.5, "radius": 2.0},
        {"mode": "stsd-ii", "budget": 1.0, "radius": math.inf},
    ):
        model = STSDRegressor(**kw)  # type: ignore[arg-type]
        res = prequential(model, stream, keep_predictions=True)
        np.testing.assert_allclose(
            res.labels, reference.predictions(model, _internal(stream), y), rtol=1e-12
        )
        assert len(model.selected_features_) <= model.budget_limit_
    assert len(model.selected_features_) == 12


def test_multiclass_paths_agree_and_truncate_whole_features() -> None:
    rng = np.random.default_rng(3)
    X = (rng.random((400, 30)) < 0.2).astype(float)
    y = np.argmax(X[:, :3] + 0.1 * rng.random((400, 3)), axis=1)
    stream = trapezoidal(sp.csr_matrix(X), y, task="multiclass")
    model = STSDMulticlass(budget=0.3, radius=2.0)
    res = prequential(model, stream, keep_predictions=True)
    assert model.n_classes == 3
    np.testing.assert_array_equal(
        res.labels, reference.predictions(model, _internal(stream), y.astype(float))
    )
    W = np.array(list(model.coef_.values()))
    assert np.count_nonzero(np.any(W != 0, axis=1)) <= model.budget_limit_ == 9
    with pytest.raises(InputError, match="out of range"):
        model.learn_one({"f0": 1.0}, 3)
