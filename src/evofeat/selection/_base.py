"""What every streaming-feature selector shares: input checks, the column stream, the budget.

A selector is a scikit-learn selector over a feature space that grows:
``fit(X, y)`` reads the first block of columns (the historical data, or the
first columns of the stream), ``add_feature(x)`` or ``partial_fit(X)`` reads
columns that arrive later (the rows, and so ``y``, are fixed), and
``get_support`` / ``transform`` refer to every column seen so far, in the
order seen. Subclasses hold only their math: ``_init_state`` builds the
empty state once ``y`` is known, ``_process(X, start)`` reads the new columns
(global indices ``start, start + 1, ...``) and ``_selected()`` returns the
current selection.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted, validate_data

from evofeat.base.errors import InputError
from evofeat.base.state import StateSpec
from evofeat.selection.citests import (
    correlations,
    encode,
    fisher_z_independent,
    g2_test,
    mutual_info_many,
    standardize,
    symmetric_uncertainty_many,
)

__all__ = [
    "ColumnBuffer",
    "StreamingSelector",
    "check_choice",
    "check_range",
    "marginal_association",
]


def marginal_association(
    X: np.ndarray, y: np.ndarray, test: str, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """Association of every column of ``X`` with ``y`` and whether it is significant.

    ``test="fisher-z"``: ``|r|`` and Fisher's z-test (NaN r: 0 and not
    significant). ``"g2"`` or ``"mi"``: mutual information in bits and the G^2
    test (``G = 2 n ln 2 I``, ``dof = (|X| - 1)(|Y| - 1)``). ``"su"``:
    symmetric uncertainty, significant when above 0.

    >>> X = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 0.0], [4.0, 1.0]] * 10)
    >>> score, dep = marginal_association(X, X[:, 0], "fisher-z", 0.05)
    >>> np.round(score, 3).tolist(), dep.tolist()
    ([1.0, 0.447], [True, True])
    """
    n = X.shape[0]
    if test == "fisher-z":
        r = correlations(standardize(X), standardize(y.reshape(-1, 1))[:, 0])
        dep = ~fisher_z_independent(r, n, 0, alpha)
        return np.nan_to_num(np.abs(r)), dep
    if test == "su":
        su = symmetric_uncertainty_many(y, X)
        return su, su > 0
    mi = mutual_info_many(y, X)
    p = np.array([g2_test(X[:, j], y)[2] for j in range(X.shape[1])])
    return mi, p <= alpha


def check_choice(name: str, value: Any, choices: Sequence[str]) -> None:
    """Raise :class:`InputError` unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise InputError(
            f"bad {name}",
            expected=f"one of {', '.join(map(repr, choices))}",
            received=repr(value),
            fix=f"pass {name}={choices[0]!r}",
        )


def check_range(
    name: str, value: Any, lo: float, hi: float, *, integer: bool = False, open_lo: bool = False
) -> None:
    """Raise :class:`InputError` unless ``lo <= value <= hi`` (``lo < value`` with ``open_lo``)."""
    kind = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    ok = isinstance(value, kind) and not isinstance(value, bool) and math.isfinite(float(value))
    ok = ok and (lo < value if open_lo else lo <= value) and value <= hi
    if not ok:
        what = "an integer" if integer else "a number"
        bounds = f"{'(' if open_lo else '['}{lo}, {hi}]"
        raise InputError(
            f"bad {name}",
            expected=f"{what} in {bounds}",
            received=repr(value),
            fix=f"pass {name} within {bounds}",
        )


class StreamingSelector(SelectorMixin, BaseEstimator):  # type: ignore[misc]
    """Base class of the streaming-feature selectors (see the module docstring).

    Subclasses define ``budget`` (None, a count >= 1, or a fraction in (0, 1)
    of the features seen) and may define ``test`` and ``alpha``; when the
    selection is larger than the budget, the ``budget`` features most
    associated with the label (``relevance_``) are kept.

    Every selector has, once fitted, ``y_`` (the labels, as floats),
    ``n_rows_``, ``n_features_in_`` (every feature seen, historical and
    arriving: it grows with ``partial_fit`` and ``add_feature``) and, while
    every block came with string column names (pandas), ``feature_names_in_``.
    """

    #: The fitted attributes a model file holds (evofeat.io), with their kinds; a subclass adds
    #: its selection and the column state it needs to read further columns.
    _state_spec = StateSpec(
        attrs={
            "n_features_in_": "int",
            "y_": "array:f:1",
            "n_rows_": "int",
            "relevance_": "array:f:1",
        }
    )

    budget: float | int | None

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # densified: the tests work on dense columns
        return tags

    # ------------------------------------------------------------------ interface
    def fit(self, X: Any, y: Any) -> StreamingSelector:
        """Reset, then read the columns of ``X`` in order (the historical block).

        ``X`` may have no columns: the labels are recorded and every feature
        arrives later (a stream with no historical block).
        """
        self._check_params()
        self._check_budget()
        X = self._check_X(X, n_rows=None, reset=True)
        self._start(self._check_y(y, X.shape[0]))
        self._add(X)
        return self

    def partial_fit(self, X: Any, y: Any = None) -> StreamingSelector:
        """Read new columns ``X`` (same rows); ``y`` is needed only before the first call."""
        if not hasattr(self, "y_"):
            if y is None:
                raise InputError(
                    "the first partial_fit needs the labels",
                    expected="partial_fit(X, y)",
                    received="y=None",
                    fix="pass y, or call fit(X_historical, y) first",
                )
            self._check_params()
            self._check_budget()
            X = self._check_X(X, n_rows=None, reset=True)
            self._start(self._check_y(y, X.shape[0]))
        else:
            block = self._check_X(X, n_rows=self.n_rows_)
            self._grow_names(getattr(X, "columns", None), block.shape[1])
            X = block
        self._add(X)
        return self

    def add_feature(self, x: Any) -> StreamingSelector:
        """Read one arriving column ``x`` (one value per row seen by ``fit``)."""
        check_is_fitted(self, "y_")
        names = getattr(x, "columns", None)  # a one-column DataFrame, or a named Series
        if names is None and getattr(x, "name", None) is not None:
            names = [x.name]
        arr = x.toarray() if sp.issparse(x) else np.asarray(x)
        if arr.ndim == 2 and 1 in arr.shape:
            arr = arr.reshape(-1)
        if arr.ndim != 1:
            raise InputError(
                "add_feature takes one column",
                expected=f"shape ({self.n_rows_},)",
                received=f"shape {arr.shape}",
                fix="pass X[:, j], or use partial_fit for a block",
            )
        column = self._check_X(arr.reshape(-1, 1), n_rows=self.n_rows_)
        self._grow_names(names, 1)
        self._add(column)
        return self

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "y_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        sel = np.asarray(self._selected(), dtype=np.int64)
        cap = self._budget_count()
        if cap is not None and sel.size > cap:
            order = np.lexsort((sel, -self.relevance_[sel]))
            sel = sel[order[:cap]]
        mask[sel] = True
        return mask

    # ------------------------------------------------------------------ subclass hooks
    def _check_params(self) -> None:
        """Validate the constructor parameters (raise :class:`InputError`).

        Checks the shared ones here (``alpha``, ``variant``, where a selector has
        them); subclasses extend it.
        """
        if hasattr(self, "alpha"):
            check_range("alpha", self.alpha, 0.0, 1.0, open_lo=True)
        if hasattr(self, "variant"):
            check_choice("variant", self.variant, ("textbook", "lofs"))

    def _init_state(self) -> None:
        """Build the empty state once ``y_`` is known."""

    def _process(self, X: np.ndarray, start: int) -> None:
        """Read the new columns ``X`` whose global indices start at ``start``."""
        raise NotImplementedError

    def _selected(self) -> Sequence[int]:
        """Global indices of the currently selected features."""
        raise NotImplementedError

    def _marginal(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Association of the new columns with the label and its significance."""
        test = getattr(self, "test", "fisher-z")
        return marginal_association(X, self.y_, test, getattr(self, "alpha", 0.05))

    # ------------------------------------------------------------------ plumbing
    def _start(self, y: np.ndarray) -> None:
        self.y_ = y
        self.n_rows_ = y.shape[0]
        self.n_features_in_ = 0
        self.relevance_ = np.zeros(0)
        self._init_state()

    def _add(self, X: np.ndarray) -> None:
        start = self.n_features_in_
        self.n_features_in_ = start + X.shape[1]
        self._process(X, start)

    def _record_relevance(self, score: np.ndarray) -> None:
        self.relevance_ = np.concatenate([self.relevance_, score])

    def _check_budget(self) -> None:
        b = self.budget
        if b is None:
            return
        if isinstance(b, int | np.integer) and not isinstance(b, bool):
            check_range("budget", b, 1, np.inf, integer=True)
        else:
            check_range("budget", b, 0.0, 1.0, open_lo=True)

    def _budget_count(self) -> int | None:
        b = self.budget
        if b is None:
            return None
        if isinstance(b, int | np.integer):
            return int(b)
        return max(1, math.floor(float(b) * self.n_features_in_))

    def _grow_names(self, names: Any, n_new: int) -> None:
        """Extend ``feature_names_in_`` by a later block's column names, or drop it.

        The names describe every column seen, so they survive only while
        every block arrives with string names (pandas DataFrames or a named
        Series); a block without them ends ``feature_names_in_``.
        """
        known = getattr(self, "feature_names_in_", None)
        if known is None or n_new == 0:
            return
        if names is not None and all(isinstance(c, str) for c in names):
            self.feature_names_in_ = np.concatenate([known, np.asarray(list(names), dtype=object)])
        else:
            del self.feature_names_in_

    def _check_X(self, X: Any, n_rows: int | None, *, reset: bool = False) -> np.ndarray:
        """A block of columns as a finite float array; ``reset`` (the first block) goes through
        scikit-learn's ``validate_data`` (``n_features_in_``, ``feature_names_in_``)."""
        try:
            shape = X.shape if hasattr(X, "shape") else np.asarray(X).shape
        except ValueError:  # ragged rows: check_array says so
            shape = (0, 0)
        if len(shape) != 2:
            raise InputError(
                f"{type(self).__name__} needs a 2-D array of columns",
                expected="shape (n_rows, n_columns)",
                received=f"shape {tuple(shape)}",
                fix="reshape a single column with x.reshape(-1, 1), or use add_feature",
            )
        kind = getattr(getattr(X, "dtype", None), "kind", "")
        if kind and kind not in "biufcO":
            raise InputError(
                "the features are not numeric",
                expected="a numeric array",
                received=f"dtype {X.dtype}",
                fix="encode categorical values as numbers",
            )
        if n_rows is not None and shape[0] != n_rows:
            raise InputError(
                "arriving columns must cover the same rows",
                expected=f"{n_rows} rows",
                received=f"{shape[0]}",
                fix="pass the new columns of the rows given to fit",
            )
        params = {
            "accept_sparse": True,
            "dtype": np.float64,
            "ensure_all_finite": False,
            "ensure_min_samples": 2,  # a correlation needs two rows
            "ensure_min_features": 0,  # a stream may start with no historical columns
        }
        try:
            if reset:
                arr = validate_data(self, X, reset=True, **params)
            else:
                arr = check_array(X, **params)
        except ValueError as exc:
            if "could not convert" not in str(exc):
                raise
            raise InputError(
                "the features are not numeric",
                expected="a numeric array",
                received=str(exc),
                fix="encode categorical values as numbers",
            ) from exc
        arr = np.asarray(arr.toarray() if sp.issparse(arr) else arr)
        bad = ~np.isfinite(arr)
        if bad.any():
            j = int(np.flatnonzero(bad.any(axis=0))[0])
            raise InputError(
                "a column has missing or infinite values",
                expected="finite values (streaming features are complete columns)",
                received=f"NaN or inf in column {j} of the block",
                fix="impute or drop that column",
            )
        return arr

    def _check_y(self, y: Any, n_rows: int) -> np.ndarray:
        arr = np.asarray(y)
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        if arr.ndim != 1 or arr.shape[0] != n_rows:
            raise InputError(
                "the labels do not match the rows",
                expected=f"shape ({n_rows},)",
                received=f"shape {arr.shape}",
                fix="pass one label per row of X",
            )
        if not np.issubdtype(arr.dtype, np.number):
            arr = encode(arr)[0]
        arr = arr.astype(np.float64)
        if not np.isfinite(arr).all():
            raise InputError(
                "the labels have missing values",
                expected="finite labels",
                received="NaN or inf",
                fix="drop the unlabelled rows",
            )
        if np.unique(arr).size < 2:
            raise InputError(
                "the labels have a single class",
                expected="at least two classes",
                received=f"only {arr[0]!r}",
                fix="feature selection needs labels that vary",
            )
        return arr

    def _lofs_skip(self, X: np.ndarray) -> np.ndarray:
        """Columns a selector never considers: sum exactly 0 (``variant="lofs"``), else constant."""
        if getattr(self, "variant", "textbook") == "lofs":
            return np.asarray(X.sum(axis=0) == 0)
        return np.asarray(np.ptp(X, axis=0) == 0)


class ColumnBuffer:
    """A growing ``(n_rows, k)`` matrix of columns (amortised O(n) appends).

    Stored column-major (one row of the internal array per column), so that
    ``view.T @ z`` reads contiguous memory.

    >>> b = ColumnBuffer(3); b.append(np.ones(3)); b.append(np.zeros(3))
    >>> b.view.shape
    (3, 2)
    """

    def __init__(self, n_rows: int, dtype: Any = np.float64) -> None:
        self._data = np.empty((8, n_rows), dtype=dtype)
        self.size = 0

    def append(self, column: np.ndarray) -> None:
        if self.size == self._data.shape[0]:
            grown = np.empty((2 * self.size, self._data.shape[1]), dtype=self._data.dtype)
            grown[: self.size] = self._data[: self.size]
            self._data = grown
        self._data[self.size] = column
        self.size += 1

    def set(self, k: int, column: np.ndarray) -> None:
        self._data[k] = column

    def delete(self, k: int) -> None:
        self._data[k : self.size - 1] = self._data[k + 1 : self.size]
        self.size -= 1

    @property
    def view(self) -> np.ndarray:
        return self._data[: self.size].T
