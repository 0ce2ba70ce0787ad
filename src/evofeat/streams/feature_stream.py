"""The ``feature-stream`` scenario: a historical block of columns, then columns one at a time.

CEOFS's setting (Du and Li 2017, section 3.1): the rows are fixed; part of the
features is known in advance with its data (the historical block) and the
rest arrive one column at a time. The paper takes "80% as historical data
and 20% as streaming features" without saying how; the rule here:

- ``perm = numpy.random.default_rng(seed).permutation(d)``;
- the first ``n_hist = floor(historical_fraction * d + 0.5)`` entries of
  ``perm`` (at least 1 when ``d >= 1``) are the historical columns, kept in
  their original column order;
- the other columns arrive in the order they have in ``perm``.

``seed=None`` keeps the data set's column order (the first ``n_hist``
columns historical, the rest arriving left to right).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from evofeat.base.errors import InputError

__all__ = ["FeatureStream", "Selection", "feature_stream", "run_selector"]


@dataclass(frozen=True)
class FeatureStream:
    """A data set split into historical columns and arriving columns.

    Attributes
    ----------
    X, y
        The whole data (dense array or sparse matrix) and the labels.
    historical
        Indices of the historical columns, in original order.
    arriving
        Indices of the arriving columns, in arrival order.
    seed
        The seed of the split (None: the data set's order).

    Examples
    --------
    >>> s = feature_stream(np.arange(20.0).reshape(2, 10), np.array([1, -1]), seed=0)
    >>> s.historical.tolist(), s.arriving.tolist()
    ([0, 2, 3, 4, 5, 6, 7, 9], [8, 1])
    >>> [j for j, _ in s.columns()]
    [8, 1]
    """

    X: Any
    y: np.ndarray
    historical: np.ndarray
    arriving: np.ndarray
    seed: int | None = None

    @property
    def X_historical(self) -> Any:
        """The historical block ``X[:, historical]``."""
        return self.X[:, self.historical]

    @property
    def X_arriving(self) -> Any:
        """The arriving columns in arrival order ``X[:, arriving]``."""
        return self.X[:, self.arriving]

    @property
    def order(self) -> np.ndarray:
        """Every column in the order a selector reads it: historical, then arriving."""
        return np.concatenate([self.historical, self.arriving])

    def columns(self) -> Iterator[tuple[int, np.ndarray]]:
        """Yield ``(original index, dense column)`` of each arriving column, in order."""
        for j in self.arriving:
            col = self.X[:, [j]]
            col = col.toarray() if sp.issparse(col) else np.asarray(col)
            yield int(j), col.reshape(-1)


def feature_stream(
    X: Any, y: Any, *, historical_fraction: float = 0.8, seed: int | None = 0
) -> FeatureStream:
    """Split the columns of ``(X, y)`` by the seeded rule of the module docstring.

    >>> s = feature_stream(np.zeros((3, 5)), np.array([1, -1, 1]), historical_fraction=0.6, seed=None)
    >>> s.historical.tolist(), s.arriving.tolist()
    ([0, 1, 2], [3, 4])
    """
    if not (isinstance(historical_fraction, int | float) and 0.0 <= historical_fraction <= 1.0):
        raise InputError(
            "bad historical_fraction",
            expected="a fraction in [0, 1]",
            received=repr(historical_fraction),
            fix="pass historical_fraction=0.8",
        )
    shape = getattr(X, "shape", None)
    if shape is None or len(shape) != 2:
        raise InputError(
            "X must be 2-D",
            expected="shape (n_rows, n_features)",
            received=f"shape {shape}",
            fix="pass a matrix of rows by features",
        )
    y = np.asarray(y)
    if y.shape != (shape[0],):
        raise InputError(
            "the labels do not match the rows",
            expected=f"shape ({shape[0]},)",
            received=f"shape {y.shape}",
            fix="pass one label per row",
        )
    d = int(shape[1])
    perm = np.arange(d) if seed is None else np.random.default_rng(seed).permutation(d)
    n_hist = int(np.floor(historical_fraction * d + 0.5))
    if d >= 1 and historical_fraction > 0:
        n_hist = max(1, n_hist)
    return FeatureStream(
        X=X, y=y, historical=np.sort(perm[:n_hist]), arriving=perm[n_hist:].copy(), seed=seed
    )


@dataclass(frozen=True)
class Selection:
    """What a selector chose on a feature stream, and how long each phase took.

    Attributes
    ----------
    columns
        Original indices of the selected columns (in the order read).
    fit_seconds
        Time of ``fit`` on the historical block.
    online_seconds
        Time of ``add_feature`` over all arriving columns.
    """

    columns: np.ndarray
    fit_seconds: float
    online_seconds: float


def run_selector(selector: Any, stream: FeatureStream, rows: np.ndarray | None = None) -> Selection:
    """Fit ``selector`` on the historical block, feed the arriving columns one by one.

    ``rows`` restricts everything to those rows (a training fold). The
    selector needs ``fit(X, y)``, ``add_feature(x)`` and
    ``get_support(indices=True)`` (the :mod:`evofeat.selection` selectors).

    >>> from evofeat.selection import SAOLA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 10)); y = np.where(X[:, 7] > 0, 1, -1)
    >>> run_selector(SAOLA(), feature_stream(X, y, seed=1)).columns.tolist()
    [7]
    """
    idx = np.arange(stream.y.shape[0]) if rows is None else np.asarray(rows)
    X = stream.X
    tic = time.perf_counter()
    selector.fit(X[np.ix_(idx, stream.historical)], stream.y[idx])
    fit_seconds = time.perf_counter() - tic
    tic = time.perf_counter()
    for j in stream.arriving:
        col = X[idx, j]
        selector.add_feature(col.toarray().ravel() if hasattr(col, "toarray") else col)
    online_seconds = time.perf_counter() - tic
    chosen = stream.order[selector.get_support(indices=True)]
    return Selection(columns=chosen, fit_seconds=fit_seconds, online_seconds=online_seconds)
