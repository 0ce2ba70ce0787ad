"""Input checks shared by the one-pass learners (messages: expected, received, fix)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from evofeat.base.errors import InputError

__all__ = ["check_labels", "check_matrix", "check_n_survived"]


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
