"""STSD's and OFS's ``step="adagrad"`` (issue 15): the paths agree with the references, the rules hold.

The independent oracles (tests/oracle) are checked in tests/_core/test_oracle_parity.py;
here the learners' own NumPy references (``stsd_reference``,
``ofs_reference``), the sparse and dict paths, the parameter checks and what
the variant keeps of the paper (the update rows, the ball, the budget).
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from evofeat.base import InputError
from evofeat.evaluate import prequential
from evofeat.linear.ofs import LEARNERS as OFS_LEARNERS
from evofeat.linear.ofs import OFS
from evofeat.linear.ofs_partial import OFSP
from evofeat.linear.stsd import STSD
from evofeat.streams import full, haphazard, trapezoidal
from reference.ofs import ofs_reference
from reference.stsd import stsd_reference
from tests.linear.test_stsd import _internal, assert_paths_agree

STSD_MODES = ("stsd", "stsd-i", "stsd-ii", "stsd-i-all", "stsd-i-rand", "stsd-i-per")


def _data(kind: str, n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if kind == "dense":
        X = rng.standard_normal((n, 16)) * rng.uniform(0.1, 3.0, 16)  # unequal scales
        y = np.where(X[:, :4].sum(1) + 0.3 * rng.standard_normal(n) > 0, 1, -1)
    else:  # binary, sparse: many equal weights, ties
        X = (rng.random((n, 40)) < 0.12).astype(float)
        y = np.where(X[:, :8].sum(1) - X[:, 8:16].sum(1) + 0.5 * rng.standard_normal(n) > 0, 1, -1)
    return X, y


# ---------------------------------------------------------------------------- STSD
@pytest.mark.parametrize("step", ["adagrad", "adagrad-tau"])
@pytest.mark.parametrize("kind", ["dense", "binary"])
@pytest.mark.parametrize("mode", STSD_MODES)
def test_stsd_adagrad_reference_sparse_and_dict_paths_agree(
    mode: str, kind: str, step: str
) -> None:
    kw = {"mode": mode, "radius": 3.0, "budget": 0.4, "seed": 3, "step": step, "lr": 0.5}
    assert_paths_agree(kw, *_data(kind))


def test_stsd_adagrad_exact_when_the_scale_is_folded_and_on_haphazard_streams() -> None:
    X, y = _data("binary", seed=1)
    for stream, kw in (
        (trapezoidal(X, y), {"mode": "stsd", "radius": 1e-6}),  # the scale shrinks to ~1e-120
        (haphazard(X, y, p=0.5, seed=4), {"mode": "stsd-i-per", "radius": 2.0, "lr": 3.0}),
    ):
        kw = {**kw, "step": "adagrad"}
        arr = prequential(STSD(**kw), stream, keep_predictions=True)
        np.testing.assert_array_equal(
            arr.labels, stsd_reference(_internal(stream), y.astype(float), **kw)
        )


def test_stsd_adagrad_replaces_tau_so_the_pa_rules_coincide() -> None:
    """The PA rule and C no longer enter; the paper's step differs from it."""
    X, y = _data("dense")
    stream = trapezoidal(X, y, n_stages=4)
    runs = [
        prequential(STSD(mode=m, C=C, step="adagrad"), stream, keep_predictions=True).scores
        for m, C in (("stsd", 0.1), ("stsd-i", 0.01), ("stsd-ii", 5.0))
    ]
    np.testing.assert_array_equal(runs[0], runs[1])
    np.testing.assert_array_equal(runs[0], runs[2])
    paper = prequential(STSD(mode="stsd-i"), stream, keep_predictions=True).scores
    assert not np.array_equal(paper, runs[0])


def test_stsd_adagrad_first_step_is_lr_per_coordinate() -> None:
    """On its first step each feature moves by ``lr y x_i / |x_i|`` (G_i = x_i^2), new ones included."""
    model = STSD(mode="stsd-i", step="adagrad", lr=0.25, radius=math.inf, budget=1.0)
    model.learn_one({"a": 4.0, "b": -0.5}, 1)
    assert model.coef_ == pytest.approx({"a": 0.25, "b": -0.25}, rel=1e-6)
    model.learn_one({"a": 4.0, "c": 2.0}, -1)  # score 1 -> hinge 2: a steps with G = 32
    assert model.coef_["a"] == pytest.approx(0.25 - 0.25 * 4.0 / math.sqrt(32.0), rel=1e-6)
    assert model.coef_["c"] == pytest.approx(-0.25, rel=1e-6)
    assert model.coef_["b"] == pytest.approx(-0.25, rel=1e-6)  # absent: unchanged


def test_stsd_adagrad_tau_is_the_pa_step_in_adagrads_metric() -> None:
    """``w_i += tau y x_i / sqrt(G_i)`` with tau of ``sum x_i^2 / sqrt(G_i)``: C caps it (PA-I)."""
    kw = {"radius": math.inf, "budget": 1.0, "eps": 1e-300, "step": "adagrad-tau"}  # eps ~ 0
    model = STSD(mode="stsd", **kw)  # tau = l / sum(x_i^2 / |x_i|) = 1 / (4 + 0.5)
    model.learn_one({"a": 4.0, "b": -0.5}, 1)
    assert model.coef_ == pytest.approx({"a": 1 / 4.5, "b": -1 / 4.5}, rel=1e-12)
    # the margin is then exactly 1 (a PA step): sum_i w_i x_i = (4 + 0.5) / 4.5
    assert 4.0 * model.coef_["a"] - 0.5 * model.coef_["b"] == pytest.approx(1.0, rel=1e-12)
    capped = STSD(mode="stsd-i", C=0.1, **kw)  # tau = min(0.1, 1 / 4.5)
    capped.learn_one({"a": 4.0, "b": -0.5}, 1)
    assert capped.coef_ == pytest.approx({"a": 0.1, "b": -0.1}, rel=1e-12)
    model.learn_one({"a": 4.0, "c": 2.0}, -1)  # score 4 / 4.5 -> hinge 1 + 8 / 9; G_a = 32, G_c = 4
    sq = 16 / math.sqrt(32.0) + 4 / 2.0
    tau = (1 + 8 / 9) / sq
    assert model.coef_["a"] == pytest.approx(1 / 4.5 - tau * 4.0 / math.sqrt(32.0), rel=1e-12)
    assert model.coef_["c"] == pytest.approx(-tau, rel=1e-12)
    assert model.coef_["b"] == pytest.approx(-1 / 4.5, rel=1e-12)  # absent: unchanged


def test_stsd_adagrad_keeps_the_ball_and_the_budget() -> None:
    X, y = _data("dense", n=300)
    model = STSD(mode="stsd-i", step="adagrad", lr=2.0, radius=1.5, budget=0.3)
    seen: set[str] = set()
    for x, target in trapezoidal(X, y, n_stages=4).to_dicts():
        model.learn_one(x, target)
        seen |= set(x)
        w = np.array(list(model.coef_.values()))
        assert np.abs(w).sum() <= 1.5 * (1 + 1e-12)
        assert np.count_nonzero(w) <= max(1, math.floor(0.3 * len(seen) + 1e-9))


@pytest.mark.parametrize(
    "bad",
    [
        {"step": "adam"},
        {"step": "adagrad", "variant": "original-code"},
        {"step": "adagrad", "lr": 0.0},
        {"step": "adagrad", "lr": float("inf")},
        {"step": "adagrad", "eps": -1.0},
        {"step": "adagrad-tau", "variant": "original-code"},
        {"step": "adagrad-tau", "eps": 0.0},
    ],
)
def test_stsd_bad_step_parameters_say_what_was_expected(bad: dict[str, object]) -> None:
    with pytest.raises(InputError, match="expected"):
        STSD(**bad)._reset()  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- OFS
OFS_CASES = [
    ("ofs", {"step": "adagrad"}),
    ("ofs", {"step": "adagrad", "lr": 1.0, "radius": 1.0, "budget_count": 4}),
    ("ofs-p", {"step": "adagrad", "seed": 3}),
    ("ofs-p", {"step": "adagrad", "epsilon": 0.7, "budget": 0.3, "seed": 1, "radius": 0.5}),
]


@pytest.mark.parametrize(("name", "params"), OFS_CASES)
def test_ofs_adagrad_reference_sparse_and_dict_paths_agree(name: str, params: dict) -> None:
    X, y = _data("dense", n=300, seed=2)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    labels = prequential(
        OFS_LEARNERS[name](**params), full(X, y, list(range(16))), keep_predictions=True
    ).labels
    np.testing.assert_array_equal(labels, ofs_reference(X, y, name, **params))
    Xb, yb = _data("binary", seed=5)
    sparse = prequential(
        OFS_LEARNERS[name](**params),
        full(sp.csr_matrix(Xb), yb, list(range(40))),
        keep_predictions=True,
    ).labels
    np.testing.assert_array_equal(sparse, ofs_reference(Xb, yb, name, **params))
    stream = trapezoidal(X, y, list(range(16)), n_stages=4)
    arr = prequential(OFS_LEARNERS[name](**params), stream, keep_predictions=True).labels
    np.testing.assert_array_equal(arr, ofs_reference(stream.to_dense(), y, name, **params))
    twin, got = OFS_LEARNERS[name](**params), []
    for x, target in stream.to_dicts():
        got.append(twin.predict_one(x))
        twin.learn_one(x, target)
    expected = np.where(arr == 0, -1, arr)  # "no decision" reads as -1 on the dict path
    np.testing.assert_array_equal(np.array(got[1:], dtype=float), expected[1:])


def test_ofs_adagrad_differs_from_the_paper_and_keeps_ball_and_budget() -> None:
    X, y = _data("dense", n=300, seed=3)
    stream = full(X, y, list(range(16)))
    paper = prequential(OFS(budget_count=3), stream, keep_predictions=True).labels
    model = OFS(budget_count=3, step="adagrad", radius=0.7)
    ada = prequential(model, stream, keep_predictions=True).labels
    assert (paper != ada).sum() >= 3
    w = np.array(list(model.coef_.values()))
    assert np.linalg.norm(w) <= 0.7 * (1 + 1e-12) and np.count_nonzero(w) <= 3


@pytest.mark.parametrize("bad", [{"step": "rmsprop"}, {"step": "adagrad", "eps": 0.0}])
def test_ofs_bad_step_parameters_say_what_was_expected(bad: dict[str, object]) -> None:
    for cls in (OFS, OFSP):
        with pytest.raises(InputError, match="expected"):
            cls(**bad)._reset()  # type: ignore[arg-type]


def test_variants_clone_pickle_and_default_to_the_papers_step() -> None:
    assert STSD().step == "paper" and OFS().step == "paper" and OFSP().step == "paper"
    for model in (STSD(step="adagrad", lr=0.3), OFS(step="adagrad"), OFSP(step="adagrad")):
        model.learn_one({"a": 1.0, "b": -0.5}, 1)
        model.learn_one({"c": 2.0, "b": 0.5}, -1)  # new features grow the accumulators
        again = pickle.loads(pickle.dumps(model))
        x = {"a": 1.0, "b": 2.0, "c": 1.0}
        assert again.predict_one(x) == model.predict_one(x)
        assert model.clone().get_params() == model.get_params()
