"""FESL-c, FESL-s, NOGD, ROGD-u, ROGD-f and OGD: the map, the math, cycles, regression, memory, protocol."""

from __future__ import annotations

import json
import math
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from evofeat.base import InputError
from evofeat.ensemble import FESL, OGD, fesl_reference, recover
from evofeat.ensemble.mapping import gram_pinv, pinv_psd
from evofeat.evaluate import prequential
from evofeat.streams import Stream, evolvable, full, trapezoidal

METHODS = ("nogd", "rogd-u", "rogd-f", "fesl-c", "fesl-s")


def _data(
    n: int = 300, d: int = 8, seed: int = 0, task: str = "binary"
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    f = X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n)
    return X, (f if task == "regression" else np.where(f > 0, 1, -1))


def _reference_dense(stream: Stream) -> np.ndarray:
    from evofeat.base import FeatureIndex

    col_map, _ = stream.internal_columns(FeatureIndex())
    out = np.full((stream.n_rows, int(col_map.max()) + 1), np.nan)
    out[:, col_map[col_map >= 0]] = stream.to_dense()[:, col_map >= 0]
    return out


def _scores(model: FESL | OGD, stream: Stream) -> np.ndarray:
    res = prequential(model, stream, keep_predictions=True)
    assert res.scores is not None
    return res.scores


# ---------------------------------------------------------------------------- the map
def test_recover_is_the_minimum_norm_least_squares_map() -> None:
    rng = np.random.default_rng(1)
    # B = 6 < d2 = 9: underdetermined
    X1, X2 = rng.standard_normal((6, 5)), rng.standard_normal((6, 9))
    M = np.linalg.lstsq(X2, X1, rcond=None)[0]  # the minimum-norm solution of min ||X1 - X2 M||
    x2 = rng.standard_normal(9)
    np.testing.assert_allclose(recover(X1, X2, x2), M.T @ x2, rtol=1e-9, atol=1e-12)


def test_recover_is_the_papers_formula_when_it_exists() -> None:
    rng = np.random.default_rng(2)
    X1, X2 = rng.standard_normal((20, 5)), rng.standard_normal((20, 4))  # B = 20 > d2 = 4
    M = np.linalg.inv(X2.T @ X2) @ X2.T @ X1  # (X2^T X2)^{-1} X2^T X1, Algorithm 1
    x2 = rng.standard_normal(4)
    np.testing.assert_allclose(recover(X1, X2, x2), M.T @ x2, rtol=1e-9)


@pytest.mark.parametrize("ridge", [0.0, 0.5])
def test_compiled_pseudo_inverse_matches_numpy(ridge: float) -> None:
    rng = np.random.default_rng(3)
    A = rng.standard_normal((7, 3))  # rank 3: a singular 7 x 7 Gram matrix
    K = np.zeros((10, 10))
    K[:7, :7] = A @ A.T
    np.testing.assert_allclose(pinv_psd(K, 7, ridge), gram_pinv(A, ridge), rtol=1e-8, atol=1e-10)


# ---------------------------------------------------------------------------- compiled == reference
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    ("cycles", "loss", "extra"),
    [
        (1, "logistic", {}),
        (2, "logistic", {"horizon": 120}),
        (2, "square", {"ridge": 0.1, "clock": "switch"}),
    ],
)
def test_scores_match_the_numpy_reference(method: str, cycles: int, loss: str, extra: dict) -> None:
    X, y = _data(360, task="regression" if loss == "square" else "binary")
    stream = evolvable(X, y, d2=6, overlap=8, cycles=cycles, seed=4)
    params = {"method": method, "lr": 0.1, "loss": loss, "overlap": 8, "seed": 5, **extra}
    ours = _scores(FESL(**params), stream)
    _, ref, _ = fesl_reference(
        _reference_dense(stream), stream.y.astype(float), return_scores=True, **params
    )
    np.testing.assert_allclose(ours, ref, rtol=1e-7, atol=1e-8)


# ---------------------------------------------------------------------------- the switch and the ensembles
def _stream(cycles: int = 1, task: str = "binary", **kw: object) -> Stream:
    X, y = _data(300, task=task)
    return evolvable(X, y, d2=6, overlap=10, cycles=cycles, seed=1, **kw)  # type: ignore[arg-type]


def test_first_row_after_the_switch_is_predicted_by_the_new_ensemble() -> None:
    stream = _stream()
    t = stream.info["eval_from"]
    s = {m: _scores(FESL(method=m, lr=0.1), stream) for m in METHODS}
    assert s["nogd"][t] == 0.0  # the new model starts at zero
    assert s["rogd-u"][t] != 0.0  # the old model, through the map fitted on the overlap rows
    assert s["fesl-c"][t] == pytest.approx(0.5 * s["rogd-u"][t], rel=1e-12)  # weights 1/2, 1/2


def test_fesl_s_predicts_with_one_of_the_two_models_and_its_seed_decides_which() -> None:
    stream = _stream()
    t = stream.info["eval_from"]
    old, new = (
        _scores(FESL(method="rogd-u", lr=0.1), stream)[t:],
        _scores(FESL(method="nogd", lr=0.1), stream)[t:],
    )
    picks = []
    for seed in (0, 1):
        s = _scores(FESL(method="fesl-s", lr=0.1, seed=seed), stream)[t:]
        assert np.all((s == old) | (s == new))
        picks.append(s == old)
    assert not np.array_equal(picks[0], picks[1])
    np.testing.assert_array_equal(
        _scores(FESL(method="fesl-s", lr=0.1, seed=1), stream)[t:] == old, picks[1]
    )


def test_fesl_c_loss_is_within_theorem_1_of_the_better_model() -> None:
    X, y = _data(600, seed=2)
    stream = evolvable(X, y, d2=5, overlap=10, seed=3)
    t = stream.info["eval_from"]
    T2 = stream.n_rows - t
    Xr, yr = _reference_dense(stream), y.astype(float)
    losses = {
        m: fesl_reference(Xr, yr, method=m, lr=0.1, return_scores=True)[2][t:]
        for m in ("rogd-u", "nogd")
    }
    L = {m: float(v.sum()) for m, v in losses.items()}
    M = max(float(v.max()) for v in losses.values())  # the losses lie in [0, M]
    eta = math.sqrt(8 * math.log(2) / T2)
    ours = prequential(FESL(method="fesl-c", lr=0.1, horizon=T2), stream).cumulative_loss
    assert ours <= min(L.values()) + math.log(2) / eta + eta * T2 * M**2 / 8


def test_fixed_share_weights_stay_away_from_zero() -> None:
    stream = _stream()
    T2 = stream.n_rows - stream.info["eval_from"]
    model = FESL(method="fesl-s", lr=0.1, horizon=T2)
    prequential(model, stream)
    a1, a2 = model.weights_
    assert a1 + a2 == pytest.approx(1.0)
    assert min(a1, a2) >= 1 / (T2 - 1) / 2  # the shared mass delta W / (n - 1), normalised


def test_rogd_f_keeps_the_first_model_through_two_cycles() -> None:
    # S2 = S1 G1, S3 = S1 G2 with square G's and B >= d: every map is exact, so the frozen
    # model of S1, carried through both maps, predicts w1 . x1 on every later row.
    X, y = _data(300, d=6, task="regression")
    stream = evolvable(X, y, d2=6, overlap=9, cycles=2, seed=6)
    switch = stream.info["eval_from"]
    model = FESL(method="rogd-f", lr=0.05, loss="square", overlap=9)
    rows = list(stream.to_dicts())
    for x, target in rows[:switch]:
        model.learn_one(x, target)
    w1 = np.array([model.coef_[f"s1:x{j}"] for j in range(6)])
    got = []
    for x, target in rows[switch:]:
        got.append(model.decision_one(x))
        model.learn_one(x, target)
    assert model.n_switches_ == 2
    np.testing.assert_allclose(np.array(got, dtype=float), X[switch:] @ w1, rtol=1e-6, atol=1e-8)


def test_each_cycle_fits_its_own_map_and_the_recovered_model_helps() -> None:
    X, y = _data(900, d=8, seed=7)
    stream = evolvable(X, y, d2=8, overlap=12, cycles=2, seed=8)
    acc = {
        m: prequential(FESL(method=m, lr=0.1, overlap=12), stream).accuracy
        for m in ("nogd", "rogd-u")
    }
    assert acc["rogd-u"] > acc["nogd"]  # the old model, mapped twice, beats restarting twice


def test_trapezoidal_stream_keeps_the_first_space() -> None:
    X, y = _data(200)
    stream = trapezoidal(X, y, n_stages=4)
    first = stream.seg_masks[0]
    ogd = _scores(OGD(lr=0.1), full(X[:, first], y))
    for m in METHODS:
        model = FESL(method=m, lr=0.1)
        np.testing.assert_array_equal(_scores(model, stream), ogd)
        assert model.n_switches_ == 0


# ---------------------------------------------------------------------------- regression
def test_regression_on_bundled_data() -> None:
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    X = (X - X.min(0)) / (X.max(0) - X.min(0))
    y = (y - y.mean()) / y.std()
    loss = {}
    for m in METHODS:
        runs = []
        for r in range(5):
            order = np.random.default_rng(r).permutation(len(y))
            stream = evolvable(X[order], y[order], d2=7, overlap=10, seed=r, task="regression")
            model = FESL(method=m, lr=0.1, loss="square", horizon=len(y) - len(y) // 2)
            assert model.task == "regression"
            res = prequential(model, stream)
            runs.append(res.cumulative_loss / res.n_scored)
        loss[m] = float(np.mean(runs))
    assert all(np.isfinite(v) for v in loss.values())
    # the recovered old model carries what was learned in the first half
    assert loss["fesl-c"] < loss["nogd"]
    assert loss["fesl-c"] <= max(loss["rogd-u"], loss["nogd"])


def test_ogd_regression_predicts_real_numbers() -> None:
    X, y = _data(100, task="regression")
    model = OGD(lr=0.1, loss="square")
    for row, target in zip(X, y, strict=True):
        model.learn_one({f"x{j}": v for j, v in enumerate(row)}, float(target))
    pred = model.predict_one({f"x{j}": v for j, v in enumerate(X[0])})
    assert isinstance(pred, float) and pred not in (-1.0, 1.0)


# ---------------------------------------------------------------------------- memory
def test_high_dimensional_sparse_views_never_build_a_d2_by_d1_map() -> None:
    d, n, B = 100_000, 200, 10
    rng = np.random.default_rng(9)

    def view(seed: int) -> sp.csr_matrix:
        return sp.random(n, d, density=20 / d, random_state=seed, format="csr")

    stream = evolvable(view(1), np.where(rng.random(n) < 0.5, 1, -1), views=[view(2)], overlap=B)
    model = FESL(method="fesl-c", overlap=B)
    tracemalloc.start()
    try:
        res = prequential(model, stream)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert model.n_switches_ == 1 and 0 <= res.accuracy <= 1
    assert peak < 0.005 * d * d * 8  # a dense d2 x d1 map alone would take d * d * 8 bytes
    assert max(a.size for a in model._state) <= 2 * d * B  # per feature: B overlap values, no more


# ---------------------------------------------------------------------------- parameters
@pytest.mark.parametrize(
    "bad",
    [
        {"method": "fesl"},
        {"lr": 0.0},
        {"loss": "hinge"},
        {"overlap": 0},
        {"horizon": 1},
        {"ridge": -1.0},
        {"clock": "local"},
        {"seed": -1},
    ],
)
def test_bad_parameters_are_rejected(bad: dict) -> None:
    with pytest.raises(InputError):
        FESL(**bad)._reset()


def test_registry_names() -> None:
    from evofeat.ensemble.fesl import LEARNERS
    from evofeat.registry import make

    for name in METHODS:
        assert make(name, lr=0.5).get_params()["method"] == name
    assert isinstance(make("ogd"), OGD) and set(LEARNERS) == {*METHODS, "ogd"}


# ---------------------------------------------------------------------------- the protocol
def test_cli_run_on_the_evolvable_scenario() -> None:
    from click.testing import CliRunner

    from evofeat.cli import main

    args = [
        "run",
        "--learner",
        "fesl-s",
        "--dataset",
        "australian",
        "--scenario",
        "evolvable",
        "--repeats",
        "10",
        "--format",
        "json",
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["n_scored"] == 345  # the rows after the switch
    assert 0.5 < out["accuracy"]["mean"] < 1


def test_protocol_cells_and_report(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pandas as pd

    from evofeat.experiments.fesl import PAPER

    cells = [
        c
        for c in PAPER.cells(quick=True)
        if c.dataset == "australian" and c.params["c"] == 10 and c.repeat == 0
    ]
    assert {c.table for c in cells} == {"table2", "table2-search", "overlap"}
    rows = [
        {
            "table": c.table,
            "dataset": c.dataset,
            "method": c.method,
            "params": c.params,
            "repeat": c.repeat,
            **PAPER.run_cell(c),
        }
        for c in cells
    ]
    again = PAPER.run_cell(cells[0])  # deterministic from the cell
    assert {k: v for k, v in again.items() if k != "seconds"} == {
        k: v for k, v in rows[0].items() if k in again and k != "seconds"
    }
    report = PAPER.write_report(pd.DataFrame(rows), tmp_path, "evofeat reproduce fesl --quick")
    text = report.read_text()
    assert "## Table 2" in text and ".849 ± .009" in text  # the paper's ROGD-u beside ours
    assert (tmp_path / "figure3.png").exists()
