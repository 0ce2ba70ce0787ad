"""scikit-learn's estimator checks over the batch-style parts: OPID's learners and the selectors.

``parametrize_with_checks`` runs every check of ``check_estimator`` on

- the OPID paper's learners: :class:`~evofeat.onepass.OPID` (linear map with
  its cross-validated ``estage_l2`` grid, and the RBF kernel),
  :class:`~evofeat.onepass.OPIDe`, and the baselines ``SVM``, ``SVMs``,
  ``SVMa``;
- the streaming-feature selectors: ``CEOFS``, ``COFS``, ``AlphaInvesting``,
  ``OSFS``, ``FastOSFS``, ``SAOLA``;

with small settings (one ``C``, two folds, two bootstrap runs) so that the
file stays fast.

How OPID and OPIDe are checked. scikit-learn's checks call ``fit(X, y)``
only; OPID's own default then reads the survived columns of ``X`` as a
one-batch C-stage with no vanished feature (checked as ``OPID`` and ``OPIDe``
below). To check a C-stage with a vanished block as well, they also run on a
subclass that changes nothing but that default: when no ``cstage`` is given
it passes a one-batch C-stage built lazily from the rows given, ``[X_s ** 2,
X_s]`` (a vanished block, then the survived columns). Everything else (input validation, the C-stage solver,
the E-stage, ``predict``, ``decision_function``, ``predict_proba``) is
OPID's own code, and the batch is read only after OPID has checked ``X`` and
``y``, as a real stream would be.

Checks expected to fail, and why (``expected_failed_checks``; strict: a listed
check that starts to pass fails the test, so the list cannot go stale):

- ``SVMa``, ``check_classifiers_train``: SVM(a) sees only the augmented
  columns, all but the first ``n_survived >= 1``; on the check's two-feature
  blobs that is one feature, which cannot reach the 0.83 accuracy the check
  asks on three classes (it reaches 0.74; 0.97 on two classes).
- every selector, ``check_n_features_in_after_fitting``: ``partial_fit``
  reads new *columns* of the same rows (the feature space grows), so a
  second block with another number of columns is valid there. The part of
  the check that applies (``transform`` rejects a wrong number of columns
  with scikit-learn's message) is tested below.
- every selector, ``check_estimators_empty_data_messages``: a ``fit`` with no
  columns is valid: it records the labels of a stream without a historical
  block, whose features all arrive through ``add_feature`` (the
  ``feature-stream`` scenario with ``historical_fraction=0``). A ``fit`` with
  no rows does raise (tested below).

Not run: ``check_array_api_input``, which scikit-learn skips unless
``SCIPY_ARRAY_API=1`` (these estimators compute with NumPy only).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

from evofeat.onepass import OPID, SVM, OPIDe, SVMa, SVMs
from evofeat.selection import CEOFS, COFS, OSFS, SAOLA, AlphaInvesting, FastOSFS


def _rows_cstage(X: Any, y: Any, d_s: int | None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """One C-stage batch ``[X_s ** 2, X_s]`` from the E-stage rows (read after OPID checked them)."""
    Xd = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    Xs = Xd[:, :d_s]
    yield np.hstack([Xs**2, Xs]), np.asarray(y).ravel()


class _RowsCStage:
    """Mixin: ``fit(X, y)`` without a C-stage reads one built from the rows (checks only)."""

    n_survived: int | None

    def fit(self, X: Any, y: Any, cstage: Any = None) -> Any:
        if cstage is None:
            cstage = _rows_cstage(X, y, self.n_survived)
        return super().fit(X, y, cstage=cstage)  # type: ignore[misc]


class CheckedOPID(_RowsCStage, OPID):
    """OPID for scikit-learn's checks (see the module docstring)."""


class CheckedOPIDe(_RowsCStage, OPIDe):
    """OPIDe for scikit-learn's checks (see the module docstring)."""


ESTIMATORS = [
    CheckedOPID(n_survived=1, estage_l2=(0.1, 10.0), cv=2, seed=0),
    CheckedOPID(n_survived=1, estage_l2=1.0, kernel="rbf", max_iter=2, seed=0),
    CheckedOPIDe(n_survived=1, Cs=(1.0,), weights=(0.0, 0.5, 1.0), cv=2, seed=0),
    OPID(estage_l2=(0.1, 10.0), cv=2, seed=0),  # fit(X, y): no feature vanished
    OPIDe(Cs=(1.0,), weights=(0.0, 0.5, 1.0), cv=2, seed=0),
    SVM(),  # the defaults: repeatable fits (check_fit_idempotent, check_supervised_y_2d)
    SVMs(n_survived=2, Cs=(1.0,), cv=2, seed=0),
    SVMa(n_survived=1, Cs=(1.0,), cv=2, seed=0),
    CEOFS(n_runs=2, seed=0),
    COFS(seed=0),
    AlphaInvesting(),
    OSFS(),
    FastOSFS(),
    SAOLA(),
]

_GROWING = (
    "partial_fit reads new columns of the same rows: the feature space grows, so another "
    "number of columns is valid there (transform checks n_features_in_)"
)
_NO_HISTORY = (
    "fit with no columns is valid: it records the labels of a stream without a historical "
    "block, whose features all arrive by add_feature (fit with no rows raises)"
)


def _expected_failed_checks(estimator: Any) -> dict[str, str]:
    if isinstance(estimator, SVMa):
        return {
            "check_classifiers_train": "SVM(a) sees only the augmented columns: one of the "
            "check's two features, too few for 0.83 accuracy on three classes (0.74)"
        }
    if isinstance(estimator, CEOFS | AlphaInvesting | OSFS | SAOLA):
        return {
            "check_n_features_in_after_fitting": _GROWING,
            "check_estimators_empty_data_messages": _NO_HISTORY,
        }
    return {}


@pytest.mark.filterwarnings("ignore:No features were selected:UserWarning")  # noisy check data
@parametrize_with_checks(
    ESTIMATORS, expected_failed_checks=_expected_failed_checks, xfail_strict=True
)
def test_sklearn_estimator_checks(estimator, check) -> None:  # type: ignore[no-untyped-def]
    check(estimator)


# ------------------------------------------------- the parts of the expected failures that apply

SELECTORS = [CEOFS, COFS, AlphaInvesting, OSFS, FastOSFS, SAOLA]


def _data(n: int = 120, d: int = 6) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    return X, np.where(X[:, 0] + X[:, d - 1] > 0, 1, -1)


@pytest.mark.parametrize("cls", SELECTORS)
def test_selector_checks_columns_in_transform_and_rows_in_fit(cls: type) -> None:
    X, y = _data()
    sel = cls().fit(X[:, :4], y)
    with pytest.raises(ValueError, match="X has 1 features, but \\w+ is expecting 4 features"):
        sel.transform(X[:, [1]])
    sel.partial_fit(X[:, 4:])  # new columns: the space grows
    assert sel.n_features_in_ == 6
    assert sel.transform(X).shape == (120, sel.get_support().sum())
    with pytest.raises(ValueError, match="0 sample"):
        cls().fit(np.empty((0, 3)), [])
    with pytest.raises(ValueError, match="1 sample"):
        cls().fit(X[:1], y[:1])


@pytest.mark.parametrize("cls", SELECTORS)
def test_selector_fit_without_history_then_every_feature_arrives(cls: type) -> None:
    X, y = _data()
    empty = cls().fit(X[:, :0], y)
    assert empty.get_support().shape == (0,)
    for j in range(X.shape[1]):
        empty.add_feature(X[:, j])
    streamed = cls().fit(X[:, :1], y)
    for j in range(1, X.shape[1]):
        streamed.add_feature(X[:, j])
    assert empty.n_features_in_ == 6
    if cls in (AlphaInvesting, OSFS, FastOSFS, SAOLA):  # purely streaming: no historical step
        assert np.array_equal(empty.get_support(), streamed.get_support())


def test_selector_feature_names_follow_the_stream() -> None:
    pd = pytest.importorskip("pandas")
    X, y = _data()
    df = pd.DataFrame(X, columns=list("abcdef"))
    sel = SAOLA().fit(df[["a", "b", "c"]], y)
    sel.partial_fit(df[["d", "e"]])
    sel.add_feature(df["f"])
    assert sel.feature_names_in_.tolist() == list("abcdef")
    sel.add_feature(df[["b"]].rename(columns={"b": "g"}))  # a one-column DataFrame
    assert sel.feature_names_in_.tolist() == list("abcdefg")
    sel = SAOLA().fit(df[["a", "b", "c"]], y).partial_fit(df[["d", "e"]]).add_feature(df["f"])
    names = sel.get_feature_names_out().tolist()
    assert "a" in names and "f" in names  # the two relevant columns
    assert names == sel.feature_names_in_[sel.get_support()].tolist()
    assert sel.transform(df).shape == (120, len(names))
    unnamed = SAOLA().fit(df[["a", "b", "c"]], y).add_feature(X[:, 3])
    assert not hasattr(unnamed, "feature_names_in_")  # names no longer cover every column


def test_ceofs_reports_its_kmeans_rounds() -> None:
    X, y = _data(200, 12)
    one = CEOFS(n_runs=3, max_iter=1, seed=0).fit(X, y)
    assert one.n_iter_ == 1
    free = CEOFS(n_runs=3, seed=0).fit(X, y)
    assert 1 <= free.n_iter_ <= 20


def test_opid_binary_decision_function_follows_sklearn() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 5))
    y = np.where(X[:, 0] + X[:, 3] > 0, "yes", "no")
    cstage = [(np.hstack([X[:, :1], X[:, :2]]), y)]  # [vanished, survived]
    model = OPID(n_survived=2, estage_l2=1.0).fit(X, y, cstage=cstage)
    scores = model.decision_function(X)
    assert scores.shape == (80,)
    assert np.array_equal(np.where(scores > 0, "yes", "no"), model.predict(X))
    outputs = model.estage_.scores(*model._stack(X))  # one column per class
    np.testing.assert_allclose(scores, outputs[:, 1] - outputs[:, 0])
