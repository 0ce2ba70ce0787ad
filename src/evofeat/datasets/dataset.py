"""The :class:`Dataset` record returned by :func:`evofeat.datasets.load`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["TASKS", "Dataset"]

TASKS = ("binary", "multiclass", "regression")


@dataclass(repr=False, eq=False)
class Dataset:
    """A loaded data set: features, labels and where they came from.

    Parameters
    ----------
    name : str
        The registry name, or the file name for a user's own file.
    X : numpy.ndarray or scipy.sparse.csr_matrix
        float64 features, one row per example. CSR for LIBSVM files (which are
        sparse), a dense C-ordered array otherwise. Without
        ``missing="keep"`` it holds no NaN or infinite value.
    y : numpy.ndarray
        Binary: int64 in {-1, +1}. Multiclass: int64 codes ``0..k-1`` that
        index ``classes``. Regression: float64.
    feature_names : list of str
        One name per column of ``X`` (one-hot columns are ``attr=level``).
    task : str
        ``"binary"``, ``"multiclass"`` or ``"regression"``.
    classes : list
        The original label values in code order; for a binary task
        ``[negative, positive]``. Empty for regression.
    source : str
        The file(s) it was read from (several joined by ``" + "``, in row
        order).
    preprocessing : str, default="none"
        The name of the preprocessing applied to ``X``.

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> ds = load("german")
    >>> ds
    Dataset('german', 1000 rows x 24 features, binary, sparse)
    >>> ds.n_rows, ds.n_features, ds.classes
    (1000, 24, [-1, 1])
    """

    name: str
    X: np.ndarray | sp.csr_matrix
    y: np.ndarray
    feature_names: list[str]
    task: str
    classes: list[Any]
    source: str
    preprocessing: str = "none"

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, got {self.task!r}")
        if self.X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional, got shape {self.X.shape}")
        if self.X.shape[0] != self.y.shape[0]:
            raise ValueError(
                f"X has {self.X.shape[0]} rows but y has {self.y.shape[0]}: they must match"
            )
        if len(self.feature_names) != self.X.shape[1]:
            raise ValueError(
                f"{len(self.feature_names)} feature names for {self.X.shape[1]} columns of X"
            )

    @property
    def n_rows(self) -> int:
        """Number of rows (examples)."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of columns of ``X``."""
        return int(self.X.shape[1])

    @property
    def is_sparse(self) -> bool:
        """Whether ``X`` is a scipy sparse matrix."""
        return bool(sp.issparse(self.X))

    def __repr__(self) -> str:
        kind = "sparse" if self.is_sparse else "dense"
        prep = "" if self.preprocessing == "none" else f", preprocess={self.preprocessing!r}"
        return (
            f"Dataset({self.name!r}, {self.n_rows} rows x {self.n_features} features, "
            f"{self.task}, {kind}{prep})"
        )
