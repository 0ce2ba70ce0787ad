"""Online copula imputation in front of a learner (evofeat.preprocessing.Imputed, evofeat._core.copula).

The compiled step against the independent NumPy oracle (``oracle.ovfm.copula``:
the same marginals, the same EM step, the conditional mean by ``numpy.linalg.solve``), the learner
fed exactly the reference's completed rows, both paths equal, and on a stream
drawn from a known Gaussian copula the correlation and the imputed values
converging to the true ones.
"""

from __future__ import annotations

import copy
import doctest
import pickle

import numpy as np
import pytest
from scipy import special

import reference
from evofeat import io
from evofeat._core import copula as compiled
from evofeat.base import InputError
from evofeat.evaluate import prequential
from evofeat.preprocessing import Imputed, imputed
from evofeat.registry import make
from evofeat.streams import Stream
from evofeat.testing import check_learner
from oracle import ovfm as oovfm
from reference.copula import copula_reference


def _stream(seed: int = 0, n: int = 200, d: int = 5, p: float = 0.6) -> np.ndarray:
    """Correlated raw columns on different scales, each value present with probability ``p``; the
    last column appears only from row n/2 on."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((d, d))
    Z = rng.standard_normal((n, d)) @ A
    X = np.exp(Z / 3.0) * np.logspace(-2, 3, d)
    X[rng.random((n, d)) > p] = np.nan
    X[: n // 2, -1] = np.nan
    return X


def _replay(model: Imputed, X: np.ndarray) -> np.ndarray:
    """The rows ``model`` hands its learner, row by row on the dict path (each learned after,
    labels alternating); the first row of ``X`` must hold every column but the last, so the
    model's column ``j`` is ``X``'s."""
    got = np.full_like(X, np.nan)
    y = 1
    for t, row in enumerate(X):
        o = np.flatnonzero(~np.isnan(row))
        if t > 0:
            cols, vals = compiled.impute_row(model._state, o.astype(np.int64), row[o])
            got[t, cols] = vals
        else:
            got[t, o] = 0.0  # the first value of each feature scores 0, nothing to impute
        model.learn_one({int(j): float(row[j]) for j in o}, y)
        y = -y
    return got


# ---------------------------------------------------------------------------- the reference
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_completed_rows_and_sigma_equal_the_reference(seed):
    X = _stream(seed)
    X[0, :-1] = 1.0 + np.arange(X.shape[1] - 1)
    window, forget, ridge = 20, 0.05, 1e-6
    want, sigma = oovfm.copula(X, window, forget, ridge)
    model = Imputed("ftrl", window=window, forget=forget, ridge=ridge)
    got = _replay(model, X)
    d = X.shape[1]
    assert list(model.feature_index_.names) == list(range(d))
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(np.asarray(model._state.sigma)[:d, :d], sigma, atol=1e-9)


def test_the_imputed_value_is_the_conditional_mean_given_sigma():
    X = _stream(3, n=120)
    X[0, :-1] = 1.0
    model = Imputed("ftrl", window=30)
    _replay(model, X)
    sigma = np.asarray(model._state.sigma)[:5, :5]
    o = np.array([0, 2, 4])
    cols, vals = compiled.impute_row(model._state, o, np.array([1.0, 2.0, 3.0]))
    z = vals[np.isin(cols, o)]
    m = np.array([1, 3])
    want = sigma[np.ix_(m, o)] @ np.linalg.solve(sigma[np.ix_(o, o)] + 1e-6 * np.eye(3), z)
    np.testing.assert_allclose(vals[np.isin(cols, m)], want, rtol=1e-10, atol=1e-12)


def _gaussian_stream(seed: int, n: int, R: np.ndarray, p: float) -> np.ndarray:
    """Rows of a Gaussian copula of correlation ``R`` behind skewed monotone marginals, each
    value present with probability ``p`` (every row keeps one)."""
    rng = np.random.default_rng(seed)
    Z = rng.multivariate_normal(np.zeros(len(R)), R, n)
    X = np.column_stack([np.exp(Z[:, 0]), Z[:, 1] ** 3, 100 * Z[:, 2], special.ndtr(Z[:, 3])])
    mask = rng.random(X.shape) > p
    mask[np.arange(n), rng.integers(0, len(R), n)] = False
    X[mask] = np.nan
    return X, Z


R_TRUE = np.array(
    [[1.0, 0.7, -0.4, 0.2], [0.7, 1.0, -0.3, 0.5], [-0.4, -0.3, 1.0, 0.0], [0.2, 0.5, 0.0, 1.0]]
)


def test_on_a_known_gaussian_copula_sigma_and_the_imputation_converge_to_the_true_ones():
    X, Z = _gaussian_stream(0, 6000, R_TRUE, p=0.7)
    model = Imputed("ftrl", window=500, forget=0.001)
    y = np.where(Z[:, 0] + Z[:, 1] > 0, 1, -1)
    prequential(model, Stream.from_dense(X, y, ["a", "b", "c", "d"]))
    names = list(model.feature_index_.names)
    order = [names.index(k) for k in "abcd"]
    sigma = np.asarray(model._state.sigma)[np.ix_(order, order)]
    assert np.max(np.abs(sigma - R_TRUE)) < 0.08, sigma
    # the imputed score of an absent feature against the true conditional mean, on fresh rows
    X2, Z2 = _gaussian_stream(1, 400, R_TRUE, p=1.0)
    err, base = [], []
    a, b = order[0], order[1]
    for x, z in zip(X2, Z2, strict=True):
        cols, vals = compiled.impute_row(model._state, np.array([a]), x[:1])
        got = vals[list(cols).index(b)]
        err.append(got - R_TRUE[1, 0] * z[0])
        base.append(z[1] - R_TRUE[1, 0] * z[0])
    assert np.sqrt(np.mean(np.square(err))) < 0.15
    assert np.sqrt(np.mean(np.square(base))) > 0.6  # the true value's own spread is far larger


def test_the_neighbours_converge_and_impute_rho_z_from_one_neighbour():
    X, Z = _gaussian_stream(2, 4000, R_TRUE, p=0.8)
    model = Imputed("ftrl", window=300, forget=0.002, neighbours=3)
    y = np.where(Z[:, 0] > 0, 1, -1)
    prequential(model, Stream.from_dense(X, y, ["a", "b", "c", "d"]))
    rho = model.correlation()
    for i, u in enumerate("abcd"):
        assert set(rho[u]) == set("abcd") - {u}  # k = d - 1: every other feature a neighbour
        for j, v in enumerate("abcd"):
            if u != v:
                assert abs(rho[u][v] - R_TRUE[i, j]) < 0.1, (u, v, rho[u][v])
    names = list(model.feature_index_.names)
    a, b = names.index("a"), names.index("b")
    cols, vals = compiled.impute_row(model._state, np.array([a]), np.array([2.0]))
    za = vals[list(cols).index(a)]
    assert vals[list(cols).index(b)] == pytest.approx(np.clip(rho["b"]["a"], -0.999, 0.999) * za)


def test_the_neighbour_memory_is_bounded_by_k():
    model = Imputed("ftrl", neighbours=4, window=8)
    rng = np.random.default_rng(0)
    for t in range(300):
        cols = rng.choice(50, 10, replace=False)
        model.learn_one({int(c): float(rng.normal()) for c in cols}, 1 if t % 2 else -1)
    state = model._state
    assert np.asarray(state.nbr).shape[1] == 4 and not hasattr(state, "sigma")
    nbr = np.asarray(state.nbr)[:50]
    assert np.all((nbr >= -1) & (nbr < 50)) and np.all(nbr != np.arange(50)[:, None])
    assert all(len(set(r[r >= 0])) == (r >= 0).sum() for r in nbr), "a neighbour twice"


# ---------------------------------------------------------------------------- paths and files
def _dict_rows(X: np.ndarray) -> list[dict[str, float]]:
    return [{f"f{j}": float(v) for j, v in enumerate(row) if not np.isnan(v)} for row in X]


@pytest.mark.parametrize("neighbours", [None, 2])
@pytest.mark.parametrize("spec", ["ftrl", "adagrad", "pa-i(fit_intercept=True)"])
def test_both_paths_give_the_same_predictions(neighbours, spec):
    X = _stream(5)
    y = np.where(np.nan_to_num(X[:, 0]) > np.nanmedian(X[:, 0]), 1, -1)
    names = [f"f{j}" for j in range(X.shape[1])]
    array = Imputed(spec, window=20, neighbours=neighbours)
    res = prequential(array, Stream.from_dense(X, y, names), keep_predictions=True)
    model = Imputed(spec, window=20, neighbours=neighbours)
    scores = []
    for x, label in zip(_dict_rows(X), y.tolist(), strict=True):
        scores.append(model.decision_one(x))
        model.learn_one(x, label)
    assert np.array_equal(np.array(scores[1:], dtype=float), res.scores[1:])
    assert model.coef_ == array.coef_ and model.correlation() == array.correlation()
    assert len(model.coef_) == X.shape[1]  # the imputed features were learned too


@pytest.mark.parametrize("neighbours", [None, 3])
def test_copies_pickles_and_model_files_carry_the_copula(neighbours, tmp_path):
    X = _stream(9)
    y = np.where(np.arange(len(X)) % 3 == 0, 1, -1)
    rows = _dict_rows(X)
    model = Imputed("adagrad(lr=0.2)", window=16, neighbours=neighbours, forget=0.05)
    for x, label in zip(rows[:120], y[:120].tolist(), strict=True):
        model.learn_one(x, label)
    copies = [
        pickle.loads(pickle.dumps(model)),
        copy.deepcopy(model),
        io.load(io.save(model, tmp_path / "m.npz")),
    ]
    for other in copies:
        assert other.get_params() == model.get_params()
        assert other.correlation() == model.correlation()
    for x, label in zip(rows[120:], y[120:].tolist(), strict=True):
        want = model.decision_one(x)
        model.learn_one(x, label)
        for other in copies:
            assert other.decision_one(x) == want
            other.learn_one(x, label)
    for other in copies:
        assert other.coef_ == model.coef_ and other.correlation() == model.correlation()


@pytest.mark.parametrize("neighbours", [None, 3])
def test_the_generic_suite_passes(neighbours):
    report = check_learner(Imputed("ftrl", window=10, neighbours=neighbours))
    assert not report.failed, str(report)


# ---------------------------------------------------------------------------- names, parameters
def test_the_registry_name_builds_it():
    model = make("impute-copula+ftrl", alpha=0.3)
    assert isinstance(model, Imputed) and model.get_params()["learner"] == "ftrl(alpha=0.3)"
    assert model.method == "copula" and model.neighbours is None


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"method": "mice"}, "unknown imputation method"),
        ({"forget": 2.0}, "forget must be"),
        ({"ridge": -1.0}, "ridge must be"),
        ({"neighbours": 0}, "neighbours must be"),
        ({"neighbours": 2.5}, "neighbours must be"),
        ({"seed": -1}, "seed must be"),
        ({"window": 0}, "window must be"),
    ],
)
def test_bad_parameters_say_what_to_do(params, says):
    with pytest.raises(InputError, match=says):
        Imputed("ftrl", **params).learn_one({"a": 1.0}, 1)


def test_the_compiled_module_examples_run():
    result = doctest.testmod(compiled)
    assert result.attempted > 0 and result.failed == 0
    assert doctest.testmod(imputed).failed == 0


@pytest.mark.parametrize(
    ("neighbours", "field", "bad"),
    [
        (3, "nbr", lambda a: a + 10**6),
        (3, "cnt", lambda a: a - 5.0),
        (None, "forget", lambda a: a * 0 + 0.5),
    ],
)
def test_a_model_file_that_breaks_the_declaration_is_refused(neighbours, field, bad, tmp_path):
    from tests.io.test_save_load_continue import _rewrite

    model = Imputed("ftrl", neighbours=neighbours)
    for t in range(30):
        model.learn_one({"a": float(t), "b": float(t % 7), "c": 1.0 * (t % 3)}, 1 if t % 2 else -1)
    path = io.save(model, tmp_path / "m.npz")
    with np.load(path, allow_pickle=False) as npz:
        key = next(k for k in npz.files if k.endswith(f".{field}"))
        arr = npz[key]
    _rewrite(path, arrays={key: np.asarray(bad(arr), dtype=arr.dtype)}, keep_digest=False)
    with pytest.raises(InputError):
        io.load(path)


@pytest.mark.parametrize("spec", ["ftrl", "pa-i(fit_intercept=True)", "nag"])
def test_the_numpy_reference_predicts_as_the_compiled_loop(spec):
    X = _stream(4)
    X[0, :-1] = 1.0  # the columns appear in X's order (the last one at row n/2)
    y = np.where(np.arange(len(X)) % 4 < 2, 1, -1)
    model = Imputed(spec, window=15)
    res = prequential(model, Stream.from_dense(X, y), keep_predictions=True)
    np.testing.assert_array_equal(reference.predictions(Imputed(spec, window=15), X, y), res.labels)
    np.testing.assert_allclose(
        copula_reference(X, 15), oovfm.copula(X, 15)[0], rtol=1e-12, atol=1e-12
    )
