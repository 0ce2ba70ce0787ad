"""OFS, PE_trun, RAND and OFS_P: fast path against the NumPy reference, the paper's example, budgets."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import reference
from conftest import requires_data
from evofeat.base import InputError
from evofeat.evaluate import prequential
from evofeat.linear.ofs import LEARNERS, OFS, RAND, PETrun
from evofeat.linear.ofs_partial import OFSP
from evofeat.streams import Stream, full, trapezoidal
from reference.ofs import ofs_reference

CASES = [
    ("ofs", {}),
    ("pe-trun", {}),
    ("rand", {"seed": 3}),
    ("ofs-p", {"seed": 3}),
    ("ofs", {"radius": 1.0, "budget_count": 4}),
    ("ofs-p", {"epsilon": 0.7, "budget": 0.3, "seed": 1}),
    ("ofs", {"step": "adagrad", "truncate_by": "sum", "budget": 0.3}),
    ("ofs", {"step": "adagrad", "truncate_by": "metric", "budget": 0.3}),
    ("ofs", {"step": "adagrad", "truncate_by": "sum", "l2": 4.0}),  # the scale folds: re-ranked
    ("ofs-p", {"step": "adagrad", "truncate_by": "sum", "epsilon": 0.5, "seed": 2}),
]


def _dense(n: int = 300, d: int = 25, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    return X / np.linalg.norm(X, axis=1, keepdims=True), y


def _sparse_binary(
    n: int = 400, d: int = 300, nnz: int = 6, seed: int = 1
) -> tuple[sp.csr_matrix, np.ndarray]:
    rng = np.random.default_rng(seed)
    cols = np.concatenate([np.sort(rng.choice(d, nnz, replace=False)) for _ in range(n)])
    X = sp.csr_matrix((np.ones(n * nnz), cols, np.arange(n + 1) * nnz), shape=(n, d))
    y = np.where(np.asarray(X[:, : d // 2].sum(axis=1)).ravel() >= nnz / 2, 1, -1)
    return X, y


def _run(name: str, params: dict, stream: Stream) -> tuple[np.ndarray, object]:
    model = LEARNERS[name](**params)
    res = prequential(model, stream, keep_predictions=True)
    assert res.labels is not None
    return res.labels, model


@pytest.mark.parametrize(("name", "params"), CASES)
def test_fast_path_equals_reference_dense(name: str, params: dict) -> None:
    X, y = _dense()
    labels, model = _run(name, params, full(X, y, list(range(X.shape[1]))))
    np.testing.assert_array_equal(labels, ofs_reference(X, y, name, **params))


@pytest.mark.parametrize(("name", "params"), CASES)
def test_fast_path_equals_reference_sparse_binary(name: str, params: dict) -> None:
    if params.get("truncate_by", "weight") != "weight":
        # on 0/1 values |w_i| sqrt(G_i) ties exactly in arithmetic; the learner computes it on v
        # (w / scale) and the reference on w, so rounding breaks those ties differently
        pytest.skip("exact ties of the score: compared on real-valued data above")
    X, y = _sparse_binary()
    labels, model = _run(name, params, full(X, y, list(range(X.shape[1]))))
    ref = ofs_reference(X.toarray(), y, name, **params)
    np.testing.assert_array_equal(labels, ref)
    assert len(model.selected_features_) <= model.budget_limit_  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "params"), CASES)
def test_evolving_features_reference_and_dict_path(name: str, params: dict) -> None:
    X, y = _dense(n=240, d=30, seed=4)
    stream = trapezoidal(X, y, list(range(30)), n_stages=4)  # features appear: B grows with them
    labels, model = _run(name, params, stream)
    np.testing.assert_array_equal(labels, ofs_reference(stream.to_dense(), y, name, **params))
    twin = LEARNERS[name](**params)
    dict_labels = []
    for x, target in stream.to_dicts():
        dict_labels.append(twin.predict_one(x))
        twin.learn_one(x, target)
    assert dict_labels[0] is None
    np.testing.assert_array_equal(np.array(dict_labels[1:]), np.where(labels[1:] > 0, 1, -1))
    assert twin.coef_ == pytest.approx(model.coef_)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "params"), CASES)
def test_budget_never_exceeded(name: str, params: dict) -> None:
    X, y = _dense(n=200, d=40, seed=2)
    stream = trapezoidal(X, y, list(range(40)), n_stages=5)
    model = LEARNERS[name](**params)
    for x, target in stream.to_dicts():
        model.learn_one(x, target)
        support = [k for k, v in model.coef_.items() if v != 0]
        assert len(model.selected_features_) <= model.budget_limit_
        assert len(support) <= model.budget_limit_
        assert set(support) <= set(model.selected_features_)
    assert model.budget_limit_ == params.get("budget_count") or model.budget_limit_ == max(
        1, int(np.floor(params.get("budget", 0.1) * 40 + 0.5))
    )


def test_two_pattern_example_section_3_2_1() -> None:
    """x_a: the first B features 1, label +1; x_b: the other d - B features 1, label -1; alternating.

    With every |w| equal, PE_trun's truncation (ties keep the lower column, as
    MATLAB's stable sort) always drops what it learnt from x_b: it errs on
    every x_b row, however long the stream. OFS's decay makes the older
    weights slightly smaller, so x_b's weight survives and it stops erring.
    (With d - B > B, x_b spread over more features than B, OFS's truncation
    drops x_b too: the example needs d - B < B for OFS to win.)
    """
    B, d, T = 10, 15, 200
    xa, xb = np.zeros(d), np.zeros(d)
    xa[:B], xb[B:] = 1.0, 1.0
    X, y = np.array([xa, xb] * T), np.array([1, -1] * T)
    stream = full(X, y, list(range(d)))
    pe = prequential(PETrun(budget_count=B), stream, keep_predictions=True)
    ofs = prequential(OFS(budget_count=B), stream, keep_predictions=True)
    assert pe.labels is not None
    assert np.all(pe.labels[1::2] != -1)  # every x_b row is a mistake
    assert pe.mistakes >= T
    assert ofs.mistakes <= 0.02 * 2 * T
    a_weight = OFS(budget_count=B)
    prequential(a_weight, stream)
    assert any(v < 0 for v in a_weight.coef_.values()) and any(
        v > 0 for v in a_weight.coef_.values()
    )


def test_ties_keep_the_lower_column() -> None:
    model = PETrun(budget_count=2)
    model.learn_one({0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0}, 1)
    assert model.selected_features_ == [0, 1]


def test_truncate_by_ranks_by_hand() -> None:
    """AdaGrad (lr 1, no decay, no ball), B = 1. Row 1 {a: 1}: G_a = 1, w_a = 1. Row 2 {a: 1, b: 4}
    (margin 1, an update): G_a = 2, w_a = 1 + 1/sqrt(2) = 1.707; G_b = 16, w_b = 4/4 = 1.

    |w|: a (1.707 > 1). |w| sqrt(G): b (1.707 sqrt(2) = 2.414 < 1 * 4), as the paper's step
    ranks them (w_a = 2 < w_b = 4). |w| G^(1/4): a (1.707 * 1.189 = 2.030 > 1 * 2).
    """
    kept = {}
    for by in ("weight", "sum", "metric"):
        model = OFS(lr=1.0, l2=0.0, budget_count=1, step="adagrad", eps=1e-12, truncate_by=by)
        model.learn_one({"a": 1.0}, 1)
        model.learn_one({"a": 1.0, "b": 4.0}, 1)
        kept[by] = (model.selected_features_, model.coef_)
    assert kept["weight"][0] == ["a"] and kept["metric"][0] == ["a"]
    assert kept["weight"][1]["a"] == pytest.approx(1.0 + 2**-0.5)
    assert kept["sum"][0] == ["b"] and kept["sum"][1] == pytest.approx({"a": 0.0, "b": 1.0})
    paper = OFS(lr=1.0, l2=0.0, budget_count=1)
    paper.learn_one({"a": 1.0}, 1)
    paper.learn_one({"a": 1.0, "b": 4.0}, 1)
    assert paper.selected_features_ == ["b"]


def test_truncate_by_needs_adagrad() -> None:
    for cls in (OFS, OFSP):
        with pytest.raises(InputError, match="step='adagrad'"):
            cls(truncate_by="sum").learn_one({"a": 1.0}, 1)
        with pytest.raises(InputError, match="truncate_by"):
            cls(step="adagrad", truncate_by="gradient").learn_one({"a": 1.0}, 1)


def test_projection_radius_and_decay() -> None:
    X, y = _dense(n=400, d=10, seed=5)
    model = OFS(radius=0.5, budget=1.0)
    for x, target in full(X * 50, y).to_dicts():
        model.learn_one(x, target)
        assert np.linalg.norm(list(model.coef_.values())) <= 0.5 + 1e-9
    decay = OFS(budget=1.0)
    decay.learn_one({"a": 1.0}, 1)
    w0 = decay.coef_["a"]
    decay.learn_one({"a": 100.0}, 1)  # margin > 1: only the decay (1 - lr l2)
    assert decay.coef_["a"] == pytest.approx(w0 * (1 - 0.2 * 0.01))


def test_zero_score() -> None:
    for zero, label in (("mistake", 0.0), ("negative", -1.0)):
        res = prequential(
            OFS(zero_score=zero),
            Stream.full(np.ones((1, 2)), np.array([-1])),
            keep_predictions=True,
        )
        assert res.labels is not None and res.labels[0] == label


@pytest.mark.parametrize("cls", [RAND, OFSP])
def test_seeded_learners_replay(cls: type) -> None:
    X, y = _dense(n=150, d=20, seed=6)
    stream = full(X, y, list(range(20)))
    a = prequential(cls(seed=5), stream, keep_predictions=True).labels
    b = prequential(cls(seed=5).clone(), stream, keep_predictions=True).labels
    c = prequential(cls(seed=6), stream, keep_predictions=True).labels
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_predict_does_not_advance_ofs_p() -> None:
    X, y = _dense(n=60, d=12, seed=7)
    plain, chatty = OFSP(seed=2, epsilon=0.5), OFSP(seed=2, epsilon=0.5)
    for x, target in full(X, y).to_dicts():
        plain.learn_one(x, target)
        chatty.predict_one(x)
        chatty.predict_one(x)
        chatty.learn_one(x, target)
    assert plain.coef_ == chatty.coef_


def test_pickle_and_clone() -> None:
    X, y = _dense(n=80, d=10, seed=8)
    model = OFS(budget=0.3)
    prequential(model, full(X, y))
    copy = pickle.loads(pickle.dumps(model))
    x = {f"x{j}": float(X[0, j]) for j in range(10)}
    assert copy.decision_one(x) == model.decision_one(x)
    assert copy.selected_features_ == model.selected_features_
    assert model.clone().predict_one(x) is None


def test_truncate_by_reranks_when_the_scale_folds() -> None:
    """Sparse real rows and the decay 1 - 0.2 * 4 a row: w's scale falls below 1e-100 and is folded
    into v, so the ranks of support members absent from later rows must be re-expressed too
    (without that, 7 of these 400 labels differ from the reference)."""
    rng = np.random.default_rng(5)
    X = np.zeros((400, 30))
    for t in range(400):
        X[t, rng.choice(30, 4, replace=False)] = rng.standard_normal(4)
    y = np.where(rng.standard_normal(400) + X[:, 0] - X[:, 1] > 0, 1, -1)
    params = {"budget": 0.3, "step": "adagrad", "truncate_by": "sum", "l2": 4.0}
    res = prequential(OFS(**params), full(X, y), keep_predictions=True)
    np.testing.assert_array_equal(res.labels, ofs_reference(X, y, "ofs", **params))


def test_truncate_by_state_survives_pickle_and_model_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from evofeat import io

    X, y = _dense(n=160, d=12, seed=3)
    model = OFS(budget=0.3, step="adagrad", truncate_by="sum", l2=4.0)  # the scale folds too
    prequential(model, full(X[:80], y[:80]))
    copies = [pickle.loads(pickle.dumps(model)), io.load(io.save(model, tmp_path / "ofs"))]
    for m in [model, *copies]:
        prequential(m, full(X[80:], y[80:]))
    for c in copies:
        assert c.coef_ == model.coef_
        assert c.selected_features_ == model.selected_features_
    whole = OFS(budget=0.3, step="adagrad", truncate_by="sum", l2=4.0)
    prequential(whole, full(X, y))
    assert whole.coef_ == model.coef_


def test_sparse_high_dimensional_support_is_the_heap() -> None:
    X, y = _sparse_binary(n=2000, d=200_000, nnz=5, seed=9)
    model = OFS(budget_count=50)
    prequential(model, full(X, y))
    state = model._state
    heap_cols = set(np.asarray(state.heap)[: state.hsize].tolist())
    assert heap_cols == set(np.flatnonzero(np.asarray(state.v)).tolist())
    assert len(heap_cols) == 50
    assert state.sq_norm == pytest.approx(float(np.sum(np.asarray(state.v) ** 2)))


@pytest.mark.parametrize(
    ("params", "word"),
    [
        ({"budget": 0.0}, "budget"),
        ({"budget": 1.5}, "budget"),
        ({"budget_count": 0}, "budget_count"),
        ({"lr": -1.0}, "lr"),
        ({"l2": -0.1}, "l2"),
        ({"radius": 0.0}, "radius"),
        ({"zero_score": "x"}, "zero_score"),
    ],
)
def test_bad_parameters(params: dict, word: str) -> None:
    with pytest.raises(InputError, match=word):
        OFS(**params).learn_one({"a": 1.0}, 1)
    with pytest.raises(InputError, match="epsilon"):
        OFSP(epsilon=0.0).learn_one({"a": 1.0}, 1)


def test_mutual_information_matches_scikit_learn() -> None:
    from sklearn.metrics import mutual_info_score

    from evofeat.papers.ofs import mrmr_order, mutual_information

    rng = np.random.default_rng(0)
    a, B = rng.integers(0, 2, 40), rng.integers(0, 3, (40, 30))
    expected = [mutual_info_score(a, B[:, j]) for j in range(30)]
    np.testing.assert_allclose(mutual_information(a, B), expected, atol=1e-12)
    X = rng.standard_normal((40, 30))
    X[:, 7] = np.where(a == 1, 2.0, -2.0)  # the label itself
    assert mrmr_order(X, np.where(a == 1, 1, -1), 3)[0] == 7


def test_experiment_cells_and_empty_report(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from evofeat.papers.ofs import PAPER

    tables = {c.table for c in PAPER.cells(quick=True)}
    assert tables == {"table2", "figure2", "table4", "table5", "table8"}
    assert len(PAPER.cells()) > len(PAPER.cells(quick=True))
    path = PAPER.write_report(
        pd.DataFrame(columns=["table", "dataset", "method", "params", "repeat"]),
        tmp_path,
        "evofeat reproduce ofs",
    )
    text = path.read_text()
    assert "Table 2" in text and "Table 8" in text and "CIFAR-10" in text


@requires_data("colon")
def test_experiment_cells_run() -> None:
    from evofeat.experiments.base import Cell
    from evofeat.papers.ofs import PAPER

    res = PAPER.run_cell(
        Cell("table4", "colon", "ofs", {"budget": 0.02, "preprocess": "zscore+unit-norm"}, 0)
    )
    assert res["n_rows"] == 62
    # against the paper (Table 4, Colon, rho = 0.02, OFS: mistake rate .325 +- .053), one run
    assert abs(res["mistakes"] / 62 - 0.325) <= 3 * 0.053, res["mistakes"]
    sel = PAPER.run_cell(Cell("table5", "colon", "ofs", {"preprocess": "zscore+unit-norm"}, 0))
    assert len(sel["knn_error"]) == len(sel["fractions"]) == 7


@pytest.mark.parametrize("scenario", ["full", "trapezoidal", "haphazard"])
def test_rand_per_mistake_follows_the_authors_rule(scenario: str) -> None:
    """RAND(draw="per-mistake") (the authors' RND.m): array == dict == the NumPy reference,
    at most B weights after every row, and a different run than one draw per run."""
    from evofeat.base.feature_index import FeatureIndex
    from evofeat.datasets import load
    from evofeat.streams import full, haphazard, trapezoidal

    ds = load("german", preprocess="unit-norm")
    make_stream = {"full": full, "trapezoidal": trapezoidal}.get(scenario)
    s = (
        make_stream(ds.X, ds.y, ds.feature_names)
        if make_stream
        else haphazard(ds.X, ds.y, ds.feature_names, p=0.5, seed=1)
    )
    res = prequential(RAND(seed=1, draw="per-mistake", budget=0.2), s, keep_predictions=True)
    col_map, _ = s.internal_columns(FeatureIndex())
    D = s.X.toarray() if sp.issparse(s.X) else np.asarray(s.X, float)
    masks = s.seg_masks[np.searchsorted(s.seg_rows, np.arange(s.n_rows), side="right") - 1]
    Xi = np.full((s.n_rows, col_map.max() + 1), np.nan)
    keep = col_map >= 0
    Xi[:, col_map[keep]] = np.where(masks[:, keep], D[:, keep], np.nan)
    ref = reference.predictions(RAND(seed=1, draw="per-mistake", budget=0.2), Xi, s.y.astype(float))
    np.testing.assert_array_equal(ref, res.labels)
    model = RAND(seed=1, draw="per-mistake", budget=0.2)
    for i, (x, y) in enumerate(s.to_dicts()):
        if i:
            p = model.predict_one(x)
            assert p == (-1 if res.labels[i] == 0 else res.labels[i])
        model.learn_one(x, y)
        assert np.count_nonzero(model._weights("v")) <= max(1, model._state.B)
    once = prequential(RAND(seed=1, budget=0.2), s)
    assert once.mistakes != res.mistakes


def test_rand_rejects_an_unknown_draw_rule() -> None:
    with pytest.raises(InputError, match="draw"):
        RAND(draw="sometimes").learn_one({"a": 1.0}, 1)
