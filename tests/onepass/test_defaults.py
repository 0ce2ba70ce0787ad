"""OPID and its baselines with default arguments: what the data say is read from them, and
what they cannot say is asked for by name; the defaults are repeatable (scikit-learn's checks)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_fit_idempotent, check_supervised_y_2d

from evofeat.base import InputError
from evofeat.onepass import OPID, SVM, OPIDe, SVMa, SVMs
from evofeat.streams.incdec import incdec


def _scenario() -> object:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 8))
    y = np.where(X[:, 2] + X[:, 5] > 0, 1, -1)
    return incdec(X, y, d_v=2, d_s=4, d_a=2, batch_size=20, n_cstage=200, n_estage=40, seed=0)


@pytest.mark.parametrize("cls", [OPID, OPIDe, SVMs, SVMa])
def test_defaults_fit_with_the_scenario_as_cstage(cls: type) -> None:
    sc = _scenario()
    default = cls().fit(sc.X_train, sc.y_train, cstage=sc)
    explicit = cls(n_survived=sc.d_s).fit(sc.X_train, sc.y_train, cstage=sc.batches)
    assert default.n_survived_ == sc.d_s and default.n_survived is None
    np.testing.assert_array_equal(default.predict(sc.X_test), explicit.predict(sc.X_test))


def test_survived_features_read_from_shared_column_names() -> None:
    pd = pytest.importorskip("pandas")
    sc = _scenario()
    v = [f"v{j}" for j in range(sc.d_v)]
    s = [f"s{j}" for j in range(sc.d_s)]
    a = [f"a{j}" for j in range(sc.d_a)]
    batches = ((pd.DataFrame(X, columns=v + s), y) for X, y in sc.batches)  # a one-pass stream
    E = pd.DataFrame(sc.X_train, columns=s + a)
    model = OPID().fit(E, sc.y_train, cstage=batches)
    assert model.n_survived_ == sc.d_s
    explicit = OPID(n_survived=sc.d_s).fit(sc.X_train, sc.y_train, cstage=sc.batches)
    test = pd.DataFrame(sc.X_test, columns=s + a)
    np.testing.assert_array_equal(model.predict(test), explicit.predict(sc.X_test))
    shuffled = ((pd.DataFrame(X, columns=s + v), y) for X, y in sc.batches)
    with pytest.raises(InputError, match="cannot tell the survived features.*n_survived=d_s"):
        OPID().fit(E, sc.y_train, cstage=shuffled)


@pytest.mark.parametrize("cls", [OPID, OPIDe, SVMs, SVMa])
def test_plain_arrays_say_which_argument_to_pass(cls: type) -> None:
    sc = _scenario()
    with pytest.raises(
        InputError,
        match=rf"{cls.__name__} needs n_survived.*fix: pass "
        rf"{cls.__name__}\(n_survived=d_s\), fit\(X, y, cstage=scenario\)",
    ):
        cls().fit(sc.X_train, sc.y_train, cstage=sc.batches)


def test_svm_defaults_pass_scikit_learns_repeatability_checks() -> None:
    check_supervised_y_2d("SVM", SVM())
    check_fit_idempotent("SVM", SVM())
    sc = _scenario()
    a = SVM().fit(sc.X_train, sc.y_train).model_
    b = SVM().fit(sc.X_train, sc.y_train).model_
    assert a.C == b.C
    np.testing.assert_array_equal(a.coef_, b.coef_)
