"""The online-learner protocol: River's dict path over a compiled core.

A learner subclass holds only its math: it stores its parameters in
``__init__`` (scikit-learn style, under their own names), checks them in
:meth:`OnlineLearner._check_params` and builds its empty compiled state, a
:class:`~evofeat._core.core.Core` (a Cython extension type with the
learner's math), in :meth:`OnlineLearner._make_state`. Everything else (the
feature index, growing the state, validating rows and labels, the dict path,
cloning) lives here, once.
"""

from __future__ import annotations

import copy
import inspect
import math
import os
import sys
import warnings
from collections.abc import Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

import evofeat._core.helpers as _helpers
from evofeat._core import loop as _loop
from evofeat._core.core import Core
from evofeat.base.canonical import canonical_csr
from evofeat.base.errors import InputError
from evofeat.base.feature_index import FeatureIndex, sort_names

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["OnlineLearner", "batch_arrays"]

_PREDICT_ROWS = 65536  # rows scored at a time by predict_many (memory bounded by the block)
#: A weight this large (or one that is not finite) means the learner diverged: it warns once.
DIVERGED = 1e100


def batch_arrays(X: Any) -> tuple[np.ndarray | sp.csr_matrix, list[Hashable], Any]:
    """``(values, names, index)`` of a mini-batch, as :meth:`OnlineLearner.learn_many` reads it.

    A pandas DataFrame gives its values as floats (NaN, ``None`` and
    ``pd.NA``: an absent feature), its column names and its index. A NumPy
    array (2-D; NaN: absent) or a SciPy sparse matrix (CSR; every column is
    present, an unstored entry is the value 0) gives the names ``f0``,
    ``f1``, ... and no index.

    >>> import pandas as pd
    >>> values, names, index = batch_arrays(pd.DataFrame({"a": [1.0, None], "b": [0, 2]}))
    >>> values.tolist(), names, list(index)
    ([[1.0, 0.0], [nan, 2.0]], ['a', 'b'], [0, 1])
    >>> batch_arrays(np.array([[1.0, np.nan]]))[1]
    ['f0', 'f1']
    """
    if hasattr(X, "columns") and hasattr(X, "to_numpy"):
        try:
            values = X.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError):
            bad = [str(c) for c, t in X.dtypes.items() if t.kind not in "biufc"]
            raise InputError(
                "a mini-batch has a non-numeric column",
                expected="numeric columns (NaN or None for an absent value)",
                received=f"column(s) {', '.join(bad[:5]) or '?'} of dtype "
                + ", ".join(map(str, X.dtypes.unique())),
                fix="encode categorical columns as numbers first",
            ) from None
        names = X.columns.tolist()
        if not X.columns.is_unique:
            raise InputError(
                "a mini-batch has repeated column names",
                expected="one column per feature",
                received=", ".join(sorted({str(c) for c in X.columns[X.columns.duplicated()]})),
                fix="rename or drop the repeated columns",
            )
        return _finite(np.ascontiguousarray(values)), names, X.index
    if _is_sparse(X):
        csr = canonical_csr(X, "a sparse mini-batch")  # duplicates summed, indices sorted, checked
        _finite(csr.data, absent_ok=False)
        return csr, [f"f{j}" for j in range(csr.shape[1])], None
    try:
        values = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        values = None
    if values is None or values.ndim != 2:
        raise InputError(
            "a mini-batch must be a table of rows",
            expected="a pandas DataFrame, a 2-D NumPy array or a SciPy sparse matrix of numbers",
            received=type(X).__name__
            if values is None
            else f"a {values.ndim}-D array of shape {values.shape}",
            fix="pass pandas.DataFrame(rows) (one column per feature, NaN for absent)",
        )
    return _finite(np.ascontiguousarray(values)), [f"f{j}" for j in range(values.shape[1])], None


def _caller_level() -> int:
    """The ``stacklevel`` of the first caller outside evofeat (a warning points at the user's code)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame: Any = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _state_finite(field: Any, n: int) -> bool:
    """Whether the first ``n`` rows of a state field are finite (a field that is not float: yes)."""
    ok = _helpers.finite_head(field, n)  # a float64 array: one compiled pass
    if ok >= 0:
        return bool(ok)
    arr = np.asarray(field)
    return arr.dtype.kind != "f" or bool(np.isfinite(arr[:n]).all())


def _is_sparse(X: Any) -> bool:
    """Whether ``X`` is a SciPy sparse matrix (without importing SciPy for anything else)."""
    if "scipy.sparse" not in sys.modules:
        return False
    return bool(sys.modules["scipy.sparse"].issparse(X))


def _finite(values: np.ndarray, absent_ok: bool = True) -> np.ndarray:
    """``values``, after checking that none is infinite (nor NaN unless ``absent_ok``)."""
    bad = np.isinf(values) if absent_ok else ~np.isfinite(values)
    if bad.any():
        raise InputError(
            "a mini-batch holds infinite values"
            if absent_ok
            else "a sparse mini-batch holds NaN or inf",
            expected="finite values" + (" (NaN for an absent feature)" if absent_ok else ""),
            received=f"{values[bad].ravel()[0]} ({int(bad.sum())} such values)",
            fix="clip or drop them"
            + ("" if absent_ok else "; pass a dense batch for NaN as absent"),
        )
    return values


class OnlineLearner:
    """Base class of evofeat's online learners.

    Subclasses set :attr:`task` and :attr:`per_feature` (the state fields
    whose first axis is the feature axis, grown as features appear) and
    implement :meth:`_make_state`.

    The dict path follows River: ``learn_one(x, y)``, ``predict_one(x)``,
    ``predict_proba_one(x)``, with ``x`` a dict of feature name -> value. A
    feature is absent exactly when its key is missing; ``0.0`` is a value.
    ``predict_one`` returns ``None`` before the first ``learn_one``.
    River's mini-batch methods, ``learn_many(X, y)``, ``predict_many(X)`` and
    ``predict_proba_many(X)``, take a pandas DataFrame (NaN: absent) and run
    the same math in the compiled loop. A learner whose weights diverge warns
    once (:meth:`_check_divergence`).
    """

    # Slots, so that neither is an attribute of the model (saved by evofeat.io as such): _vis, the
    # dict path's last announced features (pickled through __getstate__; saved as _visible), and
    # _buf, the dict path's scratch row (rebuilt on first use after a copy).
    __slots__ = ("__dict__", "__weakref__", "_buf", "_vis")
    # The divergence watch (see _check_divergence): the row count of the next check, and whether
    # it warned (class defaults, so the dict path reads them without a fallback).
    _next_check: int = 0
    _warned: bool = False

    #: "binary" (labels -1/+1), "regression" (float) or "multiclass" (int codes).
    task: ClassVar[str] = "binary"
    #: State fields indexed by feature on their first axis.
    per_feature: ClassVar[tuple[str, ...]] = ("w",)
    #: Whether the math changes a zero (online scaling centres it): a sparse batch then reaches
    #: the learner densified, in blocks of rows, each unstored entry as the value 0.
    _zeros_matter: ClassVar[bool] = False

    # ------------------------------------------------------------------ parameters
    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        return [p.name for p in sig.parameters.values() if p.name != "self" and p.kind in kinds]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor parameters, by name."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> OnlineLearner:
        """Set constructor parameters and reset the learned state."""
        valid = self._param_names()
        for k, v in params.items():
            if k not in valid:
                raise InputError(
                    f"unknown parameter {k!r} for {type(self).__name__}",
                    expected=f"one of {', '.join(valid)}",
                    fix="check the spelling",
                )
            setattr(self, k, v)
        self._reset()
        return self

    def clone(self, **overrides: Any) -> OnlineLearner:
        """A fresh, unfitted learner with the same parameters (and ``overrides``)."""
        params = {**self.get_params(), **overrides}
        return type(self)(**params)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # ------------------------------------------------------------------ state
    def _check_params(self) -> None:
        """Validate parameters; raise :class:`InputError` saying what is wrong."""

    def _make_state(self, capacity: int) -> Core:
        """Empty compiled state with room for ``capacity`` features."""
        raise NotImplementedError

    def _reset(self) -> None:
        self._check_params()
        self.feature_index_ = FeatureIndex()
        self._state: Any = None
        self._capacity = 0
        self._vis = np.full(
            1, -1, dtype=np.int64
        )  # [count, columns...] of the last announced features
        self.n_learned_ = 0

    @property
    def _visible(self) -> np.ndarray | None:
        """The features last announced to the kernel on the dict path (``None``: announce on the next row)."""
        vis = getattr(self, "_vis", None)
        if vis is None or vis[0] < 0:
            return None
        return vis[1 : 1 + vis[0]].copy()

    @_visible.setter
    def _visible(self, value: np.ndarray | None) -> None:
        if value is None:
            vis = getattr(self, "_vis", None)
            if vis is not None:
                vis[0] = -1
            return
        value = np.asarray(value, dtype=np.int64)
        vis = np.full(max(getattr(self, "_capacity", 0), value.size) + 1, -1, dtype=np.int64)
        vis[0] = value.size
        vis[1 : 1 + value.size] = value
        self._vis = vis

    def _ensure_capacity(self, n_features: int) -> None:
        self._grow_visible(max(8, n_features, self._capacity))
        if self._state is None:
            self._capacity = max(8, n_features)
            self._state = self._make_state(self._capacity)
            return
        if n_features <= self._capacity:
            return
        new_cap = max(n_features, 2 * self._capacity)
        old = self._state
        fields = {}
        for name in old._fields:
            arr = getattr(old, name)
            if name in self.per_feature:
                arr = np.asarray(arr)
                grown = np.zeros((new_cap, *arr.shape[1:]), dtype=arr.dtype)
                grown[: arr.shape[0]] = arr
                self._init_grown(name, grown, arr.shape[0])
                fields[name] = grown
            else:
                fields[name] = arr
        self._state = type(old)(**fields)
        self._capacity = new_cap
        self._grow_visible(new_cap)

    def _grow_visible(self, capacity: int) -> None:
        vis = getattr(self, "_vis", None)
        if vis is None:
            vis = np.full(1, -1, dtype=np.int64)
        if vis.size < capacity + 1:
            grown = np.full(capacity + 1, -1, dtype=np.int64)
            grown[: vis.size] = vis
            vis = grown
        self._vis = vis

    def _init_grown(self, name: str, grown: np.ndarray, start: int) -> None:
        """Fill the new rows ``grown[start:]`` of a per-feature field (default: zeros)."""

    # ------------------------------------------------------------------ rows and labels
    def _values(self, x: Mapping[Hashable, float]) -> list[float]:
        """The values of ``x`` as floats; raise :class:`InputError` on a non-numeric or non-finite one."""
        out = []
        for name, value in x.items():
            try:
                v = float(value)
            except (TypeError, ValueError):
                raise InputError(
                    f"feature {name!r} has a non-numeric value",
                    expected="a real number",
                    received=repr(value),
                    fix="encode categorical values as numbers first",
                ) from None
            if not math.isfinite(v):
                raise InputError(
                    f"feature {name!r} is {v}",
                    expected="a finite value (an absent feature is a missing key)",
                    received=repr(value),
                    fix="drop the key for a missing value instead of NaN",
                )
            out.append(v)
        return out

    def _encode_label(self, y: Any) -> float:
        if type(y) is int and (y == 1 or y == -1) and self.task == "binary":
            return float(y)
        if self.task == "binary":
            if isinstance(y, bool | np.bool_):
                return 1.0 if y else -1.0
            if y in (-1, 1):
                return float(y)
            raise InputError(
                f"{type(self).__name__} is a binary classifier",
                expected="a label in {-1, +1} (or a bool)",
                received=repr(y),
                fix="map the two classes to -1 and +1",
            )
        try:
            v = float(y)
        except (TypeError, ValueError):
            raise InputError(
                "the label is not a number",
                expected="a real number",
                received=repr(y),
                fix="encode the labels as numbers",
            ) from None
        if not math.isfinite(v):
            raise InputError(
                "the label is not finite",
                expected="a finite number",
                received=repr(y),
                fix="drop rows with missing labels",
            )
        return v

    def _decode_label(self, label: float) -> Any:
        return self._decode_labels(np.array([label]))[0].item()

    def _decode_labels(self, labels: np.ndarray) -> np.ndarray:
        """The compiled loop's labels as this task's labels (-1/+1, class codes or values)."""
        if self.task == "binary":
            return np.where(labels > 0, 1, -1)
        if self.task == "multiclass":
            return labels.astype(np.int64)
        return labels.astype(np.float64)

    def _encode_labels(self, y: Any, n: int) -> np.ndarray:
        """The targets of ``n`` labels, each read as :meth:`_encode_label` reads it (once per distinct label)."""
        labels = np.asarray(y)
        if labels.shape != (n,):
            raise InputError(
                "the labels do not match the rows",
                expected=f"{n} labels, one per row",
                received=f"labels of shape {labels.shape}",
                fix="pass one label per row (a pandas Series, a list or a 1-D array)",
            )
        if self.task == "regression" and labels.dtype.kind in "biuf":
            targets = labels.astype(np.float64)
            bad = ~np.isfinite(targets)
            if bad.any():
                self._encode_label(targets[bad][0])  # raises the clear error
            return targets
        try:
            distinct, inverse = np.unique(labels, return_inverse=True)
        except TypeError:  # labels of kinds that do not sort together
            return np.array([self._encode_label(v) for v in labels.tolist()], dtype=np.float64)
        codes = np.array([self._encode_label(v) for v in distinct.tolist()], dtype=np.float64)
        return codes[inverse.ravel()]

    # ------------------------------------------------------------------ dict path
    def learn_one(self, x: Mapping[Hashable, float], y: Any) -> OnlineLearner:
        """Predict-then-update on one row ``x`` (a dict) with label ``y``.

        Warns once (``RuntimeWarning``) when the weights diverge: see
        :meth:`_check_divergence`.
        """
        code = _loop.learn_one(self, x, y)  # a compiled learner that knows every key: all in C
        if code is True:  # _loop.LEARNED: learned, no divergence check due
            return self
        if not code:
            if not hasattr(self, "feature_index_"):
                self._reset()
            self._learn_core(x, self._encode_label(y))
        if self.n_learned_ >= self._next_check:
            self._check_divergence(self.n_learned_)
        return self

    def _check_divergence(self, row: int, loss: float = 0.0) -> None:
        """Warn once if the weights are beyond :data:`DIVERGED` or not finite (or a per-feature
        accumulator, or ``loss``, is not finite).

        ``row`` counts the rows learned so far. The weights are read at rows 1,
        2, 4, 8, ... and then every ``max(1024, capacity)`` rows (so the cost per
        row stays constant): on the dict path at those rows, in the compiled loop
        at the end of the first block that reaches one (it reports each block's
        loss, checked every time).
        """
        if self._warned or getattr(self, "_state", None) is None:
            return
        if row < self._next_check and math.isfinite(loss):  # the weights are not due yet
            return
        top = self._divergence_top()
        self._next_check = min(2 * max(row, 1), row + max(1024, self._capacity))
        n, state = len(self.feature_index_), self._state
        broken = [  # accumulators too (FTRL's z and n, AdaGrad's G): not finite is diverged
            name for name in self.per_feature if not _state_finite(getattr(state, name), n)
        ]
        if top < DIVERGED and math.isfinite(loss) and not broken:  # NaN fails the comparison
            return
        self._warned = True
        self._next_check = sys.maxsize  # once
        if not top < DIVERGED:
            what = f"its largest weight is {top:.3g}"
        elif broken:
            what = f"its state {', '.join(broken)} is not finite"
        else:
            what = f"its loss is {loss}"
        warnings.warn(
            f"{self!r} diverged by row {row}: {what} (finite weights stay below {DIVERGED:g}); "
            "lower its step size (lr, C, alpha) or scale the features (e.g. standardise them "
            "from the rows seen so far: --preprocess online-zscore, "
            "evofeat.preprocessing.OnlineScaled(learner), or River's StandardScaler before it)",
            RuntimeWarning,
            stacklevel=_caller_level(),
        )

    def _row_buffer(self) -> Any:
        buf: Any = getattr(self, "_buf", None)  # a slot: unset until first use (and after a copy)
        if buf is None:
            buf = self._buf = _loop.RowBuffer()
        return buf

    def _dict_row(self, x: Mapping[Hashable, float]) -> dict[Hashable, Any]:
        if type(x) is dict:
            return x
        if not isinstance(x, Mapping):
            raise InputError(
                "a row must be a dict of feature name -> value",
                expected="a dict such as {'age': 31.0}",
                received=type(x).__name__,
                fix="convert the row with dict(zip(names, values))",
            )
        return dict(x)

    def _learn_core(self, x: Mapping[Hashable, float], target: float) -> OnlineLearner:
        """:meth:`learn_one` on a compiled :class:`~evofeat._core.core.Core` (the dict walked in C)."""
        row = self._dict_row(x)
        fi = self.feature_index_
        buf = self._row_buffer()
        if self._state is not None:
            code = _loop.learn_dict(
                self._state, row, fi._lookup(), target, self._vis, len(fi.names), buf
            )
            if code == _loop.OK:
                self.n_learned_ += 1
                return self
            if code != _loop.UNSEEN:
                self._values(row)  # raises the clear error, before any feature is added
                raise AssertionError(f"the compiled row check and _values disagree on {row!r}")
            new = buf.unseen_keys  # every value was valid: add the keys the index lacks, in
            fi.extend_new(sort_names(set(new)) if len(new) > 1 else new)  # FeatureIndex.add's order
        else:
            self._values(row)
            fi.add(row)
        self._ensure_capacity(len(fi))
        _loop.learn_dict(self._state, row, fi._lookup(), target, self._vis, len(fi.names), buf)
        self.n_learned_ += 1
        return self

    def _score_one(self, x: Mapping[Hashable, float]) -> tuple[float, float] | None:
        state = getattr(self, "_state", None)
        if state is None:
            return None
        code, score, label = _loop.predict_dict(
            state, self._dict_row(x), self.feature_index_._lookup(), self._row_buffer()
        )
        if code != _loop.OK:
            self._values(x)  # raises the clear error
        return score, label

    def predict_one(self, x: Mapping[Hashable, float]) -> Any:
        """The predicted label of ``x`` (``None`` before any learning)."""
        label = _loop.predict_one(self, x)  # a compiled learner's dict row: all in C
        if label is not _loop.NOT_HANDLED:
            return label
        out = self._score_one(x)
        return None if out is None else self._decode_label(out[1])

    def decision_one(self, x: Mapping[Hashable, float]) -> float | None:
        """The raw score of ``x`` (``None`` before any learning)."""
        out = self._score_one(x)
        return None if out is None else out[0]

    def predict_proba_one(self, x: Mapping[Hashable, float]) -> dict[int, float] | None:
        """Class probabilities of ``x``: the logistic function of the score.

        For margin-based learners (perceptron, PA, STSD, OFS) this squashes
        the margin; it is monotone in the score, not calibrated.
        """
        if self.task != "binary":
            raise NotImplementedError(f"predict_proba_one is for binary learners, not {self.task}")
        out = self._score_one(x)
        if out is None:
            return None
        s = out[0]
        p = 1.0 / (1.0 + math.exp(-s)) if s >= 0 else math.exp(s) / (1.0 + math.exp(s))
        return {-1: 1.0 - p, 1: p}

    # ------------------------------------------------------------------ mini-batches (River's *_many)
    def learn_many(self, X: Any, y: Any) -> OnlineLearner:
        """Learn the rows of ``X`` in order, exactly as :meth:`learn_one` on each row, in the compiled loop.

        ``X`` is a pandas DataFrame (one column per feature, named as the dict
        keys would be; NaN or ``None``: the feature is absent from that row), a
        2-D NumPy array (NaN: absent) or a SciPy sparse matrix (every column is
        present, an unstored entry is the value 0); arrays name their columns
        ``f0``, ``f1``, ... (see :func:`batch_arrays`). A column goes through
        the learner's one feature index: it becomes a feature at the first
        row where it is present, as that row's new key would in
        :meth:`learn_one`, so columns may come and go between and within
        batches. ``y`` holds one label per row. The rows run through
        :func:`evofeat.evaluate.prequential` (no Python per row).

        Examples
        --------
        >>> import pandas as pd
        >>> from evofeat.linear.pa import PA
        >>> X = pd.DataFrame({"a": [1.0, 0.0, 1.0, 0.2], "b": [None, 1.0, 0.5, 2.0]})
        >>> model = PA().learn_many(X, pd.Series([1, -1, 1, -1]))
        >>> model.predict_many(X).tolist()
        [1, -1, 1, -1]
        >>> model.coef_ == PA().learn_one({"a": 1.0}, 1).learn_one(
        ...     {"a": 0.0, "b": 1.0}, -1).learn_one({"a": 1.0, "b": 0.5}, 1).learn_one(
        ...     {"a": 0.2, "b": 2.0}, -1).coef_
        True
        """
        values, names, _ = batch_arrays(X)
        return self._learn_arrays(values, names, self._encode_labels(y, values.shape[0]))

    def _learn_arrays(
        self, values: np.ndarray | sp.csr_matrix, names: list[Hashable], targets: np.ndarray
    ) -> OnlineLearner:
        """:meth:`learn_many` on checked arrays (see :func:`batch_arrays`) and encoded targets."""
        from evofeat.base.prequential import prequential  # imports SciPy: only when run
        from evofeat.base.stream import Stream

        if values.shape[0] == 0:
            return self
        if _is_sparse(values) and self._zeros_matter:  # every unstored entry is a value 0
            csr: Any = values
            step = max(1, _PREDICT_ROWS * 64 // max(1, csr.shape[1]))
            for a in range(0, csr.shape[0], step):
                self._learn_arrays(csr[a : a + step].toarray(), names, targets[a : a + step])
            return self
        if _is_sparse(values):
            stream = Stream.full(values, targets, names, task=self.task)
        else:
            stream = Stream.from_dense(values, targets, names, task=self.task)
        prequential(self, stream, continues=True)
        return self

    def predict_many(self, X: Any) -> Any:
        """The label :meth:`predict_one` gives each row of ``X`` (see :meth:`learn_many`); learns nothing.

        A pandas Series indexed like ``X`` (a range for arrays); ``None`` for
        every row before any learning. Scored by the compiled predict.
        """
        import pandas as pd

        values, names, index = batch_arrays(X)
        if getattr(self, "_state", None) is None:
            return pd.Series([None] * values.shape[0], index=index, dtype=object)
        return pd.Series(self._decode_labels(self._score_rows(values, names)[1]), index=index)

    def predict_proba_many(self, X: Any) -> Any:
        """:meth:`predict_proba_one` of each row of ``X``: a DataFrame with the columns -1 and 1.

        Indexed like ``X`` (a range for arrays); 0.5 each before any learning.
        """
        import pandas as pd

        if self.task != "binary":
            raise NotImplementedError(f"predict_proba_many is for binary learners, not {self.task}")
        values, names, index = batch_arrays(X)
        score = self._score_rows(values, names)[0]
        p = np.exp(-np.logaddexp(0.0, -score))  # the logistic function, without overflow
        return pd.DataFrame({-1: 1.0 - p, 1: p}, index=index)

    def _score_rows(
        self, X: np.ndarray | sp.csr_matrix, names: Iterable[Hashable]
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(score, label)`` of each row from the compiled predict (see :func:`evofeat.compat.score_rows`)."""
        import scipy.sparse as sp

        if sp.issparse(X):
            X = canonical_csr(X, "a sparse batch")
        names = list(names)
        if len(X.shape) != 2 or len(names) != X.shape[1]:
            raise InputError(
                "the feature names do not match the columns",
                expected=f"one name per column ({X.shape[-1]} names)",
                received=f"{len(names)} names for shape {X.shape}",
                fix="pass the names of the columns of X, in order",
            )
        n = X.shape[0]
        score, label = np.zeros(n), np.zeros(n)
        if getattr(self, "_state", None) is None:
            return score, label
        col_map = np.array([self.feature_index_.get(j) for j in names], dtype=np.int64)
        for start in range(0, n, _PREDICT_ROWS):
            stop = min(n, start + _PREDICT_ROWS)
            if sp.issparse(X) and not self._zeros_matter:
                block = sp.csr_matrix(X[start:stop])
                rows = np.repeat(np.arange(stop - start), np.diff(block.indptr))
                keep = col_map[block.indices] >= 0
                rows, cols, values = rows[keep], block.indices[keep], block.data[keep]
            else:
                part: Any = X[start:stop]
                dense = np.asarray(part.toarray() if sp.issparse(part) else part)
                rows, cols = np.nonzero(~np.isnan(dense) & (col_map >= 0))
                values = dense[rows, cols]
            csr = sp.csr_matrix(
                (values, (rows, col_map[cols])), shape=(stop - start, self._capacity)
            )
            csr.sort_indices()
            _loop.predict_rows(
                self._state,
                csr.indptr.astype(np.int64),
                csr.indices.astype(np.int64),
                csr.data.astype(np.float64),
                score[start:stop],
                label[start:stop],
                self._capacity,
            )
        return score, label

    # ------------------------------------------------------------------ learned state
    def _weights(self, field: str = "w") -> np.ndarray:
        """The per-feature array ``field`` over the features seen so far."""
        if getattr(self, "_state", None) is None:
            return np.zeros(0)
        arr = np.asarray(getattr(self._state, field))[: len(self.feature_index_)]
        return arr.copy()

    @property
    def coef_(self) -> dict[Hashable, float]:
        """The weight of each feature seen so far, by name."""
        w = self._effective_weights()
        return dict(zip(self.feature_index_.names, w.tolist(), strict=True)) if w.size else {}

    def _effective_weights(self) -> np.ndarray:
        """The weights as the model uses them (subclasses with a scale factor override)."""
        return self._weights("w")

    def _divergence_scale(self) -> str | None:
        """The state field that scales each weight in a score (NAG's ``s``), or None.

        A scale-free learner's weights grow as its features shrink: the check
        then bounds ``|w_i| scale_i``, the largest part a feature has had in a score.
        """
        return None

    def _divergence_top(self) -> float:
        """The largest weight the divergence check bounds, in absolute value (NaN if one is NaN;
        0.0 if none): ``|w_i| scale_i`` with a :meth:`_divergence_scale`, else the weights as
        the model uses them; one compiled pass."""
        scale = self._divergence_scale()
        if scale is not None:
            n, state = len(self.feature_index_), self._state
            return float(_helpers.max_abs_head(state.w, n, getattr(state, scale)))
        w = self._effective_weights()
        return float(_helpers.max_abs_head(np.ascontiguousarray(w, dtype=np.float64), w.shape[0]))

    def __copy__(self) -> OnlineLearner:
        return copy.deepcopy(self)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        vis = getattr(self, "_vis", None)
        if vis is not None:
            state["_vis"] = vis.copy()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        vis = state.pop("_vis", None)
        self.__dict__.update(state)
        if vis is not None:
            self._vis = vis
