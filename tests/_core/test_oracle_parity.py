"""Every registered online learner against its independent oracle (tests/oracle), row by row.

The oracles are plain NumPy written from the papers and import nothing from
evofeat, so a rewrite of the compiled core cannot bend them. Each learner
runs on the array path (``prequential``) and, for one scenario, on the dict
path, over trapezoidal, feature-evolvable (one and two cycles) and haphazard
streams, with budgets and radii small enough to bind (each case asserts that
they do). Labels must be equal; scores agree to 1e-12 (relative to
``max(1, |score|)``; sums are taken in the same order, but the learners keep
``w = scale * v``), 1e-9 for the FESL family, whose recovered model goes
through a least-squares map (``lstsq`` here, an eigendecomposition of the
Gram matrix in the learner).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from evofeat.base import FeatureIndex
from evofeat.evaluate import prequential
from evofeat.registry import ONLINE, make
from evofeat.streams import Stream, evolvable, haphazard, trapezoidal
from evofeat.testing import synthetic_stream_data
from oracle import adaptive as oada
from oracle import auto as oauto
from oracle import dynfo as odynfo
from oracle import fesl as ofesl
from oracle import nag as onag
from oracle import ocds as oocds
from oracle import ofs as oofs
from oracle import olvf as oolvf
from oracle import ovfm as oovfm
from oracle import perceptron_pa as opa
from oracle import stsd as ostsd


def _data(task: str = "binary", n: int = 200, d: int = 8) -> tuple[np.ndarray, np.ndarray]:
    return synthetic_stream_data(task, n=n, d=d)


def _streams(task: str) -> dict[str, Stream]:
    X, y = _data(task)
    return {
        "trapezoidal": trapezoidal(X, y, task=task),
        "evolvable": evolvable(X, y, d2=5, overlap=10, seed=1, task=task),
        "evolvable-2": evolvable(X, y, d2=12, overlap=4, seed=2, cycles=2, task=task),
        "haphazard": haphazard(X, y, p=0.6, seed=2, task=task),
    }


TASKS = {task: _streams(task) for task in ("binary", "multiclass", "regression")}
STREAMS = TASKS["binary"]


def dense(stream: Stream) -> np.ndarray:
    """The stream as a dense array, NaN = absent, columns in order of first appearance."""
    col_map, _ = stream.internal_columns(FeatureIndex())
    values = stream.to_dense()
    out = np.full((stream.n_rows, int(col_map.max()) + 1), np.nan)
    keep = col_map >= 0
    out[:, col_map[keep]] = values[:, keep]
    return out


def _stsd(mode: str, **p: Any) -> Callable[..., Any]:
    return lambda X, y: ostsd.stsd(X, y, mode, **p)


def _fesl(method: str, **p: Any) -> Callable[..., Any]:
    def run(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = ofesl.fesl(X, y, method, **p)
        return out["labels"], out["scores"]

    return run


_SMALL: dict[str, Any] = {"C": 0.1, "radius": 0.7, "budget": 0.45, "seed": 3}
_B: dict[str, Any] = {"fit_intercept": True}  # the linear learners' bias
_ADAGRAD: dict[str, Any] = {"step": "adagrad", "lr": 0.3, "eps": 1e-6}  # not the papers' step
_TAU: dict[str, Any] = {"step": "adagrad-tau", "eps": 1e-6}  # the paper's tau in AdaGrad's metric
#: (registered name, learner parameters, oracle); the oracle returns (labels, scores, ...).
_DYNFO = {"M": 30, "N": 15, "delta": 0.3, "beta": 0.5, "alpha": 0.5, "gamma": 0.4, "seed": 1}
CASES: list[tuple[str, dict[str, Any], Callable[..., Any]]] = [
    ("perceptron", {}, opa.perceptron),
    ("perceptron", {"lr": 0.3}, lambda X, y: opa.perceptron(X, y, 0.3)),
    ("perceptron", _B, lambda X, y: opa.perceptron(X, y, fit_intercept=True)),
    (
        "perceptron",
        {"lr": 0.3, **_B, "intercept_lr": 0.05},
        lambda X, y: opa.perceptron(X, y, 0.3, True, 0.05),
    ),
    *[(m, {"C": 0.05}, lambda X, y, m=m: opa.pa(X, y, m, 0.05)) for m in ("pa", "pa-i", "pa-ii")],
    *[
        (m, {"C": 0.05, **_B}, lambda X, y, m=m: opa.pa(X, y, m, 0.05, True))
        for m in ("pa", "pa-i", "pa-ii")
    ],
    ("pa-i", {"C": 5.0}, lambda X, y: opa.pa(X, y, "pa-i", 5.0)),
    *[
        (m, {**_SMALL, "variant": v}, _stsd(m, **_SMALL, variant=v))
        for m in ostsd._RULES
        for v in ("paper", "original-code")
    ],
    ("stsd-i", {"budget": 0.5}, _stsd("stsd-i", budget=0.5)),
    ("stsd-i-rand", {**_SMALL, "seed": 11}, _stsd("stsd-i-rand", **{**_SMALL, "seed": 11})),
    (
        "stsd-i-rand",
        {**_SMALL, "variant": "original-code", "project": True},
        _stsd("stsd-i-rand", **_SMALL, variant="original-code", project=True),
    ),
    ("stsd-i", {**_SMALL, "project": False}, _stsd("stsd-i", **_SMALL, project=False)),
    *[
        (m, {**_SMALL, **_ADAGRAD}, _stsd(m, **_SMALL, **_ADAGRAD))
        for m in ("stsd-i", "stsd-i-all", "stsd-i-rand", "stsd-i-per")
    ],
    *[
        (m, {**_SMALL, **_TAU}, _stsd(m, **_SMALL, **_TAU))
        for m in ("stsd", "stsd-i", "stsd-ii", "stsd-i-rand")
    ],
    ("ofs", {"budget": 0.3, "radius": 0.8}, lambda X, y: oofs.ofs(X, y, budget=0.3, radius=0.8)),
    ("ofs", {"budget_count": 2, "l2": 0.5}, lambda X, y: oofs.ofs(X, y, budget_count=2, l2=0.5)),
    (
        "ofs",
        {"budget": 0.5, "radius": 0.5, "zero_score": "negative"},
        lambda X, y: oofs.ofs(X, y, budget=0.5, radius=0.5, zero_score="negative"),
    ),
    (
        "ofs",
        {"budget": 0.3, "radius": 0.8, **_ADAGRAD},
        lambda X, y: oofs.ofs(X, y, budget=0.3, radius=0.8, **_ADAGRAD),
    ),
    *[
        (
            "ofs",
            {"budget": 0.3, "radius": 0.8, **_ADAGRAD, "truncate_by": by},
            lambda X, y, by=by: oofs.ofs(X, y, budget=0.3, radius=0.8, **_ADAGRAD, truncate_by=by),
        )
        for by in ("sum", "metric")
    ],
    ("pe-trun", {"budget": 0.3}, lambda X, y: oofs.pe_trun(X, y, budget=0.3)),
    ("rand", {"budget": 0.3, "seed": 5}, lambda X, y: oofs.rand(X, y, budget=0.3, seed=5)),
    ("rand", {"budget_count": 2, "seed": 1}, lambda X, y: oofs.rand(X, y, budget_count=2, seed=1)),
    (
        "ofs-p",
        {"budget": 0.3, "radius": 0.8, "epsilon": 0.4, "seed": 2},
        lambda X, y: oofs.ofs_partial(X, y, budget=0.3, radius=0.8, epsilon=0.4, seed=2),
    ),
    (
        "ofs-p",
        {"budget": 0.3, "radius": 0.8, "epsilon": 0.4, "seed": 2, **_ADAGRAD},
        lambda X, y: oofs.ofs_partial(
            X, y, budget=0.3, radius=0.8, epsilon=0.4, seed=2, **_ADAGRAD
        ),
    ),
    (
        "ofs-p",
        {"budget": 0.3, "radius": 0.8, "epsilon": 0.4, "seed": 2, **_ADAGRAD, "truncate_by": "sum"},
        lambda X, y: oofs.ofs_partial(
            X, y, budget=0.3, radius=0.8, epsilon=0.4, seed=2, **_ADAGRAD, truncate_by="sum"
        ),
    ),
    ("ogd", {"lr": 0.3}, lambda X, y: ofesl.ogd(X, y, 0.3)),
    ("ogd", {"lr": 0.3, **_B}, lambda X, y: ofesl.ogd(X, y, 0.3, fit_intercept=True)),
    (
        "ogd",
        {"lr": 0.3, **_B, "intercept_lr": 0.05},
        lambda X, y: ofesl.ogd(X, y, 0.3, fit_intercept=True, intercept_lr=0.05),
    ),
    *[(m, {"lr": 0.3, "overlap": 6}, _fesl(m, lr=0.3, overlap=6)) for m in ofesl.METHODS],
    *[
        (
            m,
            {"lr": 0.5, "overlap": 3, "horizon": 50, "clock": "switch", "seed": 4},
            _fesl(m, lr=0.5, overlap=3, horizon=50, clock="switch", seed=4),
        )
        for m in ("fesl-c", "fesl-s")
    ],
    *[  # FESL's biases (fit_intercept, not the paper's) over OGD and AdaGrad
        (m, {"lr": 0.3, "overlap": 6, **_B, **b}, _fesl(m, lr=0.3, overlap=6, **_B, **b))
        for m in ("fesl-c", "fesl-s", "rogd-u", "nogd")
        for b in ({}, {"base": "adagrad", "eps": 1e-6})
    ],
    ("ftrl", {}, lambda X, y: oada.ftrl(X, y, fit_intercept=True)),  # a bias by default
    ("ftrl", {"fit_intercept": False}, oada.ftrl),
    (
        "ftrl",
        {"alpha": 0.5, "beta": 0.5, "l1": 0.2, "l2": 0.1, "fit_intercept": False},
        lambda X, y: oada.ftrl(X, y, 0.5, 0.5, 0.2, 0.1),
    ),
    (
        "ftrl",
        {"alpha": 0.5, "beta": 0.5, "l1": 0.2, "l2": 0.1, "intercept_lr": 0.3},
        lambda X, y: oada.ftrl(X, y, 0.5, 0.5, 0.2, 0.1, fit_intercept=True, intercept_lr=0.3),
    ),
    ("adagrad", {}, lambda X, y: oada.adagrad(X, y, fit_intercept=True)),  # a bias by default
    ("adagrad", {"fit_intercept": False}, oada.adagrad),
    (
        "adagrad",
        {"lr": 0.5, "eps": 0.01, "fit_intercept": False},
        lambda X, y: oada.adagrad(X, y, 0.5, 0.01),
    ),
    (
        "adagrad",
        {"lr": 0.5, "eps": 0.01, "intercept_lr": 0.05},
        lambda X, y: oada.adagrad(X, y, 0.5, 0.01, fit_intercept=True, intercept_lr=0.05),
    ),
    ("nag", {}, lambda X, y: onag.nag(X, y, fit_intercept=True)),  # a bias by default
    ("nag", {"fit_intercept": False}, onag.nag),
    (
        "nag",
        {"lr": 0.2, "intercept_lr": 0.05},
        lambda X, y: onag.nag(X, y, 0.2, "logistic", True, 0.05),
    ),
    ("nag", {"loss": "square", "lr": 0.1}, lambda X, y: onag.nag(X, y, 0.1, "square", True)),
    ("nag", {"invariant": True}, lambda X, y: onag.nag(X, y, fit_intercept=True, invariant=True)),
    (
        "nag",
        {"invariant": True, "lr": 3.0, "fit_intercept": False},
        lambda X, y: onag.nag(X, y, 3.0, invariant=True),
    ),
    (
        "nag",
        {"invariant": True, "loss": "square", "lr": 2.0},
        lambda X, y: onag.nag(X, y, 2.0, "square", True, invariant=True),
    ),
    *[  # the bias (fit_intercept, not the paper's) of STSD, its variants and steps
        (m, {**_SMALL, "variant": v, **_B}, _stsd(m, **_SMALL, variant=v, **_B))
        for m in ostsd._RULES
        for v in ("paper", "original-code")
    ],
    *[
        ("stsd-i", {**_SMALL, **step, **_B}, _stsd("stsd-i", **_SMALL, **step, **_B))
        for step in (_ADAGRAD, _TAU)
    ],
    *[  # OFS's family with a bias (not the papers')
        (
            "ofs",
            {"budget": 0.3, "radius": 0.8, **step, **_B},
            lambda X, y, step=step: oofs.ofs(X, y, budget=0.3, radius=0.8, **step, **_B),
        )
        for step in ({}, _ADAGRAD)
    ],
    (
        "ofs-p",
        {"budget": 0.3, "radius": 0.8, "epsilon": 0.4, "seed": 2, **_B},
        lambda X, y: oofs.ofs_partial(X, y, budget=0.3, radius=0.8, epsilon=0.4, seed=2, **_B),
    ),
    (
        "ofs-p",
        {"budget": 0.3, "radius": 0.8, "epsilon": 0.4, "seed": 2, **_ADAGRAD, **_B},
        lambda X, y: oofs.ofs_partial(
            X, y, budget=0.3, radius=0.8, epsilon=0.4, seed=2, **_ADAGRAD, **_B
        ),
    ),
    ("pe-trun", {"budget": 0.3, **_B}, lambda X, y: oofs.pe_trun(X, y, budget=0.3, **_B)),
    ("rand", {"budget": 0.3, "seed": 5, **_B}, lambda X, y: oofs.rand(X, y, 0.3, seed=5, **_B)),
    (
        "stsd-regressor",
        {"C": 0.1, "epsilon": 0.1, "radius": 0.7, "budget": 0.45, **_B},
        lambda X, y: ostsd.stsd_regression(X, y, C=0.1, epsilon=0.1, radius=0.7, budget=0.45, **_B),
    ),
    (
        "pa-regressor",
        _B,
        lambda X, y: ostsd.stsd_regression(X, y, radius=math.inf, budget=1.0, **_B),
    ),
    (
        "stsd-multiclass",
        {"C": 0.1, "radius": 0.7, "budget": 0.45, "n_classes": 3, **_B},
        lambda X, y: ostsd.stsd_multiclass(X, y, 3, C=0.1, radius=0.7, budget=0.45, **_B),
    ),
    (
        "pa-multiclass",
        {"n_classes": 3, **_B},
        lambda X, y: ostsd.stsd_multiclass(X, y, 3, radius=math.inf, budget=1.0, **_B),
    ),
    (
        "stsd-regressor",
        {"C": 0.1, "epsilon": 0.1, "radius": 0.7, "budget": 0.45},
        lambda X, y: ostsd.stsd_regression(X, y, C=0.1, epsilon=0.1, radius=0.7, budget=0.45),
    ),
    (
        "stsd-regressor",
        {"mode": "stsd-ii", "C": 1.0, "epsilon": 0.0, "radius": 2.0, "budget": 0.3},
        lambda X, y: ostsd.stsd_regression(X, y, "stsd-ii", 1.0, 0.0, 2.0, 0.3),
    ),
    (
        "pa-regressor",
        {},
        lambda X, y: ostsd.stsd_regression(X, y, radius=math.inf, budget=1.0),
    ),
    (
        "stsd-multiclass",
        {"C": 0.1, "radius": 0.7, "budget": 0.45, "n_classes": 3},
        lambda X, y: ostsd.stsd_multiclass(X, y, 3, C=0.1, radius=0.7, budget=0.45),
    ),
    (
        "stsd-multiclass",
        {"mode": "stsd", "radius": 3.0, "budget": 0.5, "n_classes": 3},
        lambda X, y: ostsd.stsd_multiclass(X, y, 3, "stsd", radius=3.0, budget=0.5),
    ),
    (
        "pa-multiclass",
        {"n_classes": 3},
        lambda X, y: ostsd.stsd_multiclass(X, y, 3, radius=math.inf, budget=1.0),
    ),
    ("auto", {}, oauto.auto),  # the default members, mixed by their log loss
    ("auto", {"share": True}, lambda X, y: oauto.auto(X, y, share=True)),
    ("auto", {"fit_intercept": False}, lambda X, y: oauto.auto(X, y, fit_intercept=False)),
    ("olvf", {"C": 0.5, "C_bar": 0.1, "B": 0.5}, lambda X, y: oolvf.olvf(X, y, 0.5, 0.1, 0.5)),
    ("olvf", {"rule": "package"}, lambda X, y: oolvf.olvf(X, y, rule="package")),
    *[  # the bias (fit_intercept, not the papers') of OLVF, OCDS; OVFM's off (the authors' is on)
        (
            "olvf",
            {"C": 0.5, "C_bar": 0.1, "B": 0.5, **_B},
            lambda X, y: oolvf.olvf(X, y, 0.5, 0.1, 0.5, fit_intercept=True),
        ),
        (
            "olvf",
            {"rule": "package", **_B},
            lambda X, y: oolvf.olvf(X, y, rule="package", fit_intercept=True),
        ),
        (
            "ocds",
            {"gamma": 0.5, "seed": 4, **_B},
            lambda X, y: oocds.ocds(X, y, gamma=0.5, seed=4, fit_intercept=True),
        ),
        ("ocds", {"tau": 0.05}, lambda X, y: oocds.ocds(X, y, tau=0.05)),
        (
            "ocds",
            {"tau": 0.05, **_B, "intercept_lr": 0.2},
            lambda X, y: oocds.ocds(X, y, tau=0.05, fit_intercept=True, intercept_lr=0.2),
        ),
        ("ovfm", {"fit_intercept": False}, lambda X, y: oovfm.ovfm(X, y, fit_intercept=False)),
    ],
    ("ocds", {"gamma": 0.5, "seed": 4}, lambda X, y: oocds.ocds(X, y, gamma=0.5, seed=4)),
    ("ocds", {"rule": "package"}, lambda X, y: oocds.ocds(X, y, rule="package")),
    ("ovfm", {}, oovfm.ovfm),
    (
        "ovfm",
        {"copula": "identity", "decay_choice": 2, "window": 7},
        lambda X, y: oovfm.ovfm(X, y, 2, window=7, learn=False),
    ),
    ("dynfo", _DYNFO, lambda X, y: odynfo.dynfo(X, y, **_DYNFO)),
    (
        "dynfo",
        {**_DYNFO, "relearn": "improve"},
        lambda X, y: odynfo.dynfo(X, y, **_DYNFO, relearn="improve"),
    ),
]


def _id(case: tuple[str, dict[str, Any], Any]) -> str:
    return case[0] + "-" + "-".join(f"{k}={v}" for k, v in case[1].items())


def test_every_registered_learner_has_an_oracle() -> None:
    assert {name for name, _, _ in CASES} == set(ONLINE)


@pytest.mark.parametrize("scenario", list(STREAMS))
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_array_path_matches_oracle(case: tuple[str, dict[str, Any], Any], scenario: str) -> None:
    name, params, oracle = case
    model = make(name, **params)
    stream = TASKS[model.task][scenario]
    result = prequential(model, stream, keep_predictions=True)
    labels, scores = oracle(dense(stream), stream.y.astype(float))[:2]
    assert result.labels is not None and result.scores is not None
    if model.task == "regression":  # the label is the score
        err = np.abs(result.labels - labels) / np.maximum(1.0, np.abs(labels))
        assert err.max() <= 1e-12, f"predictions differ by {err.max():.3g}"
        return
    np.testing.assert_array_equal(result.labels, labels)
    rtol = 1e-9 if name in ofesl.METHODS else 1e-12
    err = np.abs(result.scores - scores) / np.maximum(1.0, np.abs(scores))
    assert err.max() <= rtol, f"scores differ by {err.max():.3g} (row {int(err.argmax())})"


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_dict_path_matches_oracle(case: tuple[str, dict[str, Any], Any]) -> None:
    name, params, oracle = case
    model = make(name, **params)
    stream = TASKS[model.task]["evolvable" if name in ofesl.METHODS else "trapezoidal"]
    labels = oracle(dense(stream), stream.y.astype(float))[0]
    got = []
    for i, (x, y) in enumerate(stream.to_dicts()):
        p = model.predict_one(x)
        got.append(labels[0] if i == 0 else p)  # None before any learning
        model.learn_one(x, y)
    if model.task == "regression":
        np.testing.assert_allclose(np.array(got, dtype=float), labels, rtol=1e-12, atol=1e-12)
        return
    expected = labels
    if model.task == "binary":  # "no decision" reads as -1 on the dict path
        expected = np.where(labels == 0, -1, labels)
    np.testing.assert_array_equal(np.array(got, dtype=float)[1:], expected[1:])


# ---------------------------------------------------------------------------- the cases bind
def _nnz(history: list[np.ndarray]) -> np.ndarray:
    return np.array([np.count_nonzero(w) for w in history])


@pytest.mark.parametrize("variant", ["paper", "original-code"])
@pytest.mark.parametrize("mode", ["stsd-i", "stsd-i-rand"])
def test_stsd_cases_truncate_and_project(mode: str, variant: str) -> None:
    """The small budget and radius above are active: without them, the predictions change.

    Toggling the L1 scaling changes predictions also where the variant does
    not scale (the authors' STSD-I-rand), so its absence is pinned too.
    """
    s = STREAMS["evolvable"]
    X, y = dense(s), s.y.astype(float)
    labels, _, history = ostsd.stsd(X, y, mode, **_SMALL, variant=variant)
    seen = np.maximum.accumulate((~np.isnan(X)).sum(axis=1))
    limits = np.array([ostsd.budget_of(0.45, int(d), variant == "original-code") for d in seen])
    assert (_nnz(history) == limits).mean() > 0.5, "the budget rarely binds"
    wide = ostsd.stsd(X, y, mode, **{**_SMALL, "budget": 1.0}, variant=variant)[0]
    assert (wide != labels).sum() >= 3, "the budget does not change a prediction"
    projects = mode == "stsd-i" or variant == "paper"
    toggled = ostsd.stsd(X, y, mode, **_SMALL, variant=variant, project=not projects)[0]
    assert (toggled != labels).sum() >= 3, "the L1 scaling does not change a prediction"
    # floor(B d) and round(B d) differ on this schedule, so the rule is pinned
    assert any(ostsd.budget_of(0.45, int(d)) != ostsd.budget_of(0.45, int(d), True) for d in seen)


@pytest.mark.parametrize("scenario", ["trapezoidal", "haphazard"])
def test_ofs_cases_truncate_and_project(scenario: str) -> None:
    """OFS's small radius and budget above change predictions (the default radius 10 never binds)."""
    s = STREAMS[scenario]
    X, y = dense(s), s.y.astype(float)
    labels, _, history = oofs.ofs(X, y, budget=0.3, radius=0.8)
    assert (oofs.ofs(X, y, budget=0.3, radius=1e9)[0] != labels).sum() >= 3
    assert (oofs.ofs(X, y, budget=1.0, radius=0.8)[0] != labels).sum() >= 3
    assert max(np.linalg.norm(w) for w in history) == pytest.approx(0.8)


_AUTO_MEMBERS = (
    "nag",
    "online-zscore+ftrl",
    "online-zscore+nag",
    "online-quantile+ftrl",
    "online-quantile+nag",
)  # oracle.auto.DEFAULT_MEMBERS, in its order


@pytest.mark.parametrize("scenario", list(STREAMS))
def test_auto_members_match_oracle(scenario: str) -> None:
    """Each of auto's members alone against its oracle on the oracle's scaled rows (so a member
    the mixture weighs down cannot hide), and the scalings change the scores."""
    s = STREAMS[scenario]
    X, y = dense(s), s.y.astype(float)
    want = oauto.member_scores(X, y)
    for spec, scores in zip(_AUTO_MEMBERS, want, strict=True):
        got = prequential(make(spec), s, keep_predictions=True).scores
        assert got is not None
        err = np.abs(got - scores) / np.maximum(1.0, np.abs(scores))
        assert err.max() <= 1e-12, f"{spec}: scores differ by {err.max():.3g}"
    raw_ftrl = oada.ftrl(X, y, fit_intercept=True)[1]
    for a, b in ((want[0], want[2]), (want[0], want[4]), (want[2], want[4]), (raw_ftrl, want[1])):
        assert np.abs(a - b).max() > 0.1, "a scaling changes no score"


def test_auto_members_match_oracle_on_ties_and_constants() -> None:
    """The scalings' edge rules: ties (mid-ranks), a constant feature (sd 0: scaled to 0), a
    feature first seen mid-stream, absent values (not counted), a window that binds."""
    rng = np.random.default_rng(7)
    X = rng.integers(-2, 3, size=(150, 4)).astype(float)
    X[:, 1] = 3.0
    X[:40, 3] = np.nan
    X[rng.random(X.shape) < 0.2] = np.nan
    y = np.where(rng.random(150) < 0.5, 1.0, -1.0)
    s = Stream.from_dense(X, y, ["a", "b", "c", "d"])
    want = oauto.member_scores(dense(s), y, window=100)
    for spec, scores in zip(_AUTO_MEMBERS, want, strict=True):
        got = prequential(make(spec), s, keep_predictions=True).scores
        assert got is not None
        err = np.abs(got - scores) / np.maximum(1.0, np.abs(scores))
        assert err.max() <= 1e-12, f"{spec}: scores differ by {err.max():.3g}"


def test_auto_cases_mix() -> None:
    """The mixture is none of its members, its weights move, and the share changes its scores."""
    s = STREAMS["evolvable"]
    X, y = dense(s), s.y.astype(float)
    members = oauto.member_scores(X, y)
    plain = oauto.mixture(members, y)
    for m in members:
        assert np.abs(plain - m).max() > 0.05
    assert np.abs(plain - oauto.mixture(members, y, share=True)).max() > 0.05


def test_fesl_cases_switch_and_mix() -> None:
    s = STREAMS["evolvable-2"]
    out = ofesl.fesl(dense(s), s.y.astype(float), "fesl-c", lr=0.3, overlap=6)
    a1 = out["a1"][s.info["eval_from"] :]
    assert 0.0 < a1.min() and a1.max() < 1.0 and a1.std() > 0.01, "the ensemble weights never move"


@pytest.mark.parametrize("scenario", ["trapezoidal", "haphazard"])
def test_adagrad_cases_step_per_coordinate(scenario: str) -> None:
    """The ``step="adagrad"`` cases above differ from the paper's step, and their ball and budget bind."""
    s = STREAMS[scenario]
    X, y = dense(s), s.y.astype(float)
    paper = ostsd.stsd(X, y, "stsd-i", **_SMALL)[0]
    labels, _, history = ostsd.stsd(X, y, "stsd-i", **_SMALL, **_ADAGRAD)
    assert (paper != labels).sum() >= 3, "STSD's AdaGrad step changes no prediction"
    assert max(np.abs(w).sum() for w in history) == pytest.approx(_SMALL["radius"])
    wide = ostsd.stsd(X, y, "stsd-i", **{**_SMALL, "budget": 1.0}, **_ADAGRAD)[0]
    assert (wide != labels).sum() >= 3, "the budget does not change an AdaGrad prediction"
    ofs_paper = oofs.ofs(X, y, budget=0.3, radius=0.8)[0]
    ofs_labels, _, ofs_history = oofs.ofs(X, y, budget=0.3, radius=0.8, **_ADAGRAD)
    assert (ofs_paper != ofs_labels).sum() >= 3, "OFS's AdaGrad step changes no prediction"
    assert max(np.linalg.norm(w) for w in ofs_history) <= 0.8 * (1 + 1e-12)
    unbounded = oofs.ofs(X, y, budget=0.3, radius=1e9, **_ADAGRAD)[0]
    assert (unbounded != ofs_labels).sum() >= 3, "the L2 ball does not change an AdaGrad prediction"
    for by in ("sum", "metric"):
        ranked = oofs.ofs(X, y, budget=0.3, radius=0.8, **_ADAGRAD, truncate_by=by)[0]
        assert (ranked != ofs_labels).sum() >= 3, f"truncate_by={by!r} changes no prediction"


@pytest.mark.parametrize("base", [{}, {"base": "adagrad", "eps": 1e-6}])
def test_fesl_bias_cases_change_predictions(base: dict[str, Any]) -> None:
    """FESL's bias cases above are not the cases without it, before and after the switch.

    ROGD-u predicts with the recovered model alone after the switch, so its
    rows there pin the old model's bias; NOGD's pin the new model's.
    """
    s = STREAMS["evolvable-2"]
    X, y = dense(s), s.y.astype(float)
    first = s.info["eval_from"]
    for m in ("fesl-c", "rogd-u", "nogd"):
        plain = ofesl.fesl(X, y, m, lr=0.3, overlap=6, **base)["scores"]
        biased = ofesl.fesl(X, y, m, lr=0.3, overlap=6, **_B, **base)["scores"]
        for part in (slice(None, first), slice(first, None)):
            assert np.abs(plain[part] - biased[part]).max() > 0.1, m
            assert (np.sign(plain[part]) != np.sign(biased[part])).sum() >= 1, m


#: the learners whose bias is the shared compiled part's newest users (STSD's, OFS's families)
_NEW_BIAS = {n for n in ONLINE if n.startswith(("stsd", "ofs", "pe-trun", "rand", "pa-", "olvf"))}
_NEW_BIAS |= {"ocds"}


@pytest.mark.parametrize(
    "case", [c for c in CASES if c[1].get("fit_intercept") and c[0] in _NEW_BIAS], ids=_id
)
def test_bias_cases_change_predictions(case: tuple[str, dict[str, Any], Any]) -> None:
    """Each of their cases with a bias is not the same case without it (the bias moves the scores)."""
    name, params, oracle = case
    model = make(name)
    stream = TASKS[model.task]["trapezoidal"]
    X, y = dense(stream), stream.y.astype(float)
    off = dict(CASES_BY_PARAMS[(name, _key({**params, "fit_intercept": False}))])
    on, plain = oracle(X, y)[1], off["oracle"](X, y)[1]
    assert np.abs(on - plain).max() > 1e-3, "the bias changes no score"


def _key(params: dict[str, Any]) -> str:
    return repr(
        sorted((k, v) for k, v in params.items() if k not in ("fit_intercept", "intercept_lr"))
    )


CASES_BY_PARAMS: dict[tuple[str, str], dict[str, Any]] = {
    (name, _key(params)): {"oracle": oracle}
    for name, params, oracle in CASES
    if not params.get("fit_intercept")
}
