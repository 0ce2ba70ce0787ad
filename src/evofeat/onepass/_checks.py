"""Input checks shared by the one-pass learners (messages: expected, received, fix).

The estimators' ``X`` goes through scikit-learn's ``validate_data``
(:func:`validate_X`: ``n_features_in_``, feature names, dtype, complex or
empty input); the checks scikit-learn leaves out or words generically (a
1-D ``X``, a column count, NaN/inf, the labels) raise :class:`InputError`
naming what was expected, what came and the fix.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d, validate_data

from evofeat.base.errors import InputError

__all__ = [
    "check_labels",
    "check_matrix",
    "check_n_survived",
    "resolve_survived",
    "validate_X",
    "validate_y",
]


def check_matrix(X: Any, name: str, n_cols: int | None = None, layout: str = "") -> np.ndarray:
    """``X`` as a finite 2-D float array, with ``n_cols`` columns when given."""
    if sp.issparse(X):
        X = X.toarray()
    try:
        arr = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"{name} is not numeric",
            expected="a 2-D array of numbers",
            received=type(X).__name__,
            fix="convert it with numpy.asarray",
        ) from exc
    if arr.ndim != 2:
        raise InputError(
            f"bad {name}",
            expected="a 2-D array (rows x features)",
            received=f"an array of shape {arr.shape}",
            fix="reshape a single row with X.reshape(1, -1)",
        )
    if arr.shape[0] == 0:
        raise InputError(f"bad {name}", expected="at least one row", received="0 rows")
    if n_cols is not None and arr.shape[1] != n_cols:
        raise InputError(
            f"bad {name}",
            expected=f"{n_cols} columns{layout}",
            received=f"{arr.shape[1]} columns",
            fix="pass the same columns, in the same order, as in fit",
        )
    _check_finite(arr, name)
    return arr


def _check_finite(arr: np.ndarray, name: str) -> None:
    bad = ~np.isfinite(arr)
    if bad.any():
        rows = np.unique(np.nonzero(bad)[0])
        raise InputError(
            f"{name} has {int(bad.sum())} NaN/inf entries (rows {rows[:5].tolist()}...)",
            expected="finite values (each stage of the incdec scenario has a fixed, fully observed "
            "feature set)",
            received="NaN or inf",
            fix="impute the missing values or drop those rows",
        )


def validate_X(estimator: Any, X: Any, *, reset: bool, layout: str = "") -> np.ndarray:
    """``X`` as a finite 2-D float array, through scikit-learn's ``validate_data``.

    ``reset=True`` (``fit``) records ``n_features_in_`` (and
    ``feature_names_in_`` for a DataFrame); ``reset=False`` checks ``X``
    against them. A sparse ``X`` is densified (a one-pass learner works on
    dense blocks). ``layout`` describes the columns in the error message.
    """
    name = type(estimator).__name__
    try:
        shape = X.shape if hasattr(X, "shape") else np.asarray(X).shape
    except ValueError:  # ragged rows: validate_data says so
        shape = (0, 0)
    if len(shape) != 2:
        raise InputError(
            "bad X",
            expected="a 2-D array (rows x features)",
            received=f"an array of shape {tuple(shape)}",
            fix="Reshape your data: a single row with X.reshape(1, -1)",
        )
    kind = getattr(getattr(X, "dtype", None), "kind", "")
    if kind and kind in "USV":
        raise InputError(
            "X is not numeric",
            expected="a 2-D array of numbers",
            received=f"dtype {X.dtype}",
            fix="encode categorical values as numbers",
        )
    n_in = getattr(estimator, "n_features_in_", None)
    if not reset and n_in is not None and shape[1] != n_in:
        raise InputError(
            f"X has {shape[1]} features, but {name} is expecting {n_in} features as input",
            expected=f"{n_in} columns{layout}",
            received=f"{shape[1]} columns",
            fix="pass the same columns, in the same order, as in fit",
        )
    arr = validate_data(
        estimator, X, reset=reset, accept_sparse=True, dtype=np.float64, ensure_all_finite=False
    )
    if sp.issparse(arr):
        arr = arr.toarray()
    arr = np.asarray(arr)
    _check_finite(arr, "X")
    return arr


def validate_y(y: Any, n_rows: int, owner: str) -> np.ndarray:
    """Class labels ``y`` for ``n_rows`` rows: 1-D, finite, at least two classes, not continuous.

    A column vector is flattened with scikit-learn's ``DataConversionWarning``.
    """
    if y is None:
        raise InputError(
            f"{owner} requires y to be passed, but the target y is None",
            expected="one class label per row of X",
            received="y=None",
            fix="call fit(X, y) with the labels of the rows of X",
        )
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = column_or_1d(arr, warn=True)
    arr = check_labels(arr, n_rows)
    check_classification_targets(arr)
    return arr


def check_labels(y: Any, n_rows: int, name: str = "y", min_classes: int = 2) -> np.ndarray:
    """``y`` as a 1-D array of ``n_rows`` labels with at least ``min_classes`` classes."""
    arr = np.asarray(y)
    if arr.ndim != 1 or arr.shape[0] != n_rows:
        raise InputError(
            f"bad {name}",
            expected=f"a 1-D array of {n_rows} labels (one per row)",
            received=f"an array of shape {arr.shape}",
        )
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise InputError(
            f"{name} has NaN/inf labels",
            expected="class labels",
            received="NaN or inf",
            fix="drop the unlabelled rows",
        )
    n_classes = np.unique(arr).size
    if n_classes < min_classes:
        raise InputError(
            f"{name} has {n_classes} class(es) only",
            expected=f"at least {min_classes} classes",
            received=f"the labels {np.unique(arr)[:5].tolist()}",
            fix="give rows of at least two classes (a classifier needs more than one)",
        )
    return arr


def check_n_survived(n_survived: Any, owner: str) -> int:
    """``n_survived`` as a positive int, or an error that says how to set it."""
    if (
        isinstance(n_survived, bool)
        or not isinstance(n_survived, int | np.integer)
        or n_survived < 1
    ):
        raise InputError(
            f"{owner} needs n_survived",
            expected="a positive int: the number of survived features, "
            "the first columns of the E-stage X",
            received=repr(n_survived),
            fix=f"construct {owner}(n_survived=d_s), e.g. with the scenario's d_s",
        )
    return int(n_survived)


def resolve_survived(estimator: Any, X: Any, cstage: Any) -> tuple[int, Any]:
    """``(d_s, cstage)``: the number of survived features, and the C-stage batches to read.

    ``d_s`` is ``estimator.n_survived`` when set; otherwise it is read from
    what the data say: an :class:`~evofeat.streams.incdec.IncDec` scenario
    passed as ``cstage`` (its ``d_s``; its ``batches`` are read), or column
    names (pandas) shared by the E-stage ``X`` (the survived columns first) and
    the first C-stage batch (the survived columns last). Plain arrays do not
    say which columns are shared, so then :class:`InputError` names the
    argument to pass. Only the first batch is looked at (and then read again
    from the same iterator), so a one-pass stream stays one pass.
    """
    owner = type(estimator).__name__
    if cstage is not None and hasattr(cstage, "batches") and hasattr(cstage, "d_s"):
        scenario_d_s, cstage = int(cstage.d_s), cstage.batches
        if estimator.n_survived is None:
            return scenario_d_s, cstage
    if estimator.n_survived is not None:
        return check_n_survived(estimator.n_survived, owner), cstage
    names_e = getattr(X, "columns", None)
    if cstage is not None and names_e is not None:
        batches = iter(cstage)
        try:
            first = next(batches)
        except StopIteration:
            first = None
        cstage = batches if first is None else itertools.chain([first], batches)
        names_c = None if first is None else getattr(first[0], "columns", None)
        if names_c is not None:
            shared = [c for c in names_e if c in set(names_c)]
            d_s = len(shared)
            if d_s and list(names_e[:d_s]) == shared and list(names_c[-d_s:]) == shared:
                return d_s, cstage
            raise InputError(
                f"{owner} cannot tell the survived features from the column names",
                expected="the shared columns first in X and last in every C-stage batch",
                received=f"{d_s} shared names: {shared[:5]}",
                fix="order the columns as [vanished, survived] and [survived, augmented], "
                f"or pass {owner}(n_survived=d_s)",
            )
    raise InputError(
        f"{owner} needs n_survived",
        expected="n_survived=d_s (the survived features: the first columns of X, the last of "
        "every C-stage batch), or data that say it",
        received="arrays without column names and n_survived=None",
        fix=f"pass {owner}(n_survived=d_s), fit(X, y, cstage=scenario) with the IncDec scenario, "
        "or pandas DataFrames whose shared column names are the survived features",
    )
