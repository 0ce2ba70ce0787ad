"""The online-learner protocol: River's dict path over a compiled kernel.

A learner subclass holds only its math: it stores its parameters in
``__init__`` (scikit-learn style, under their own names), checks them in
:meth:`OnlineLearner._check_params`, builds its empty state in
:meth:`OnlineLearner._make_state`, and registers three numba functions for
that state with :func:`evofeat.base.kernel.register_kernel`. Everything else
(the feature index, growing the state, validating rows and labels, the dict
path, cloning) lives here, once.
"""

from __future__ import annotations

import copy
import inspect
import math
from collections.abc import Hashable, Mapping
from typing import Any, ClassVar, NamedTuple

import numba as nb
import numpy as np

from evofeat.base.errors import InputError
from evofeat.base.feature_index import FeatureIndex
from evofeat.base.kernel import kernel_learn, kernel_predict, kernel_visible

__all__ = ["OnlineLearner"]


@nb.njit(cache=True)
def _predict_row(state, idx, val):  # type: ignore[no-untyped-def]
    return kernel_predict(state, idx, val)


@nb.njit(cache=True)
def _learn_row(state, idx, val, y, changed, vis, dim):  # type: ignore[no-untyped-def]
    score, label = kernel_predict(state, idx, val)
    if changed:
        kernel_visible(state, vis, dim)
    loss = kernel_learn(state, idx, val, y, score)
    return score, label, loss


_EMPTY_I = np.zeros(0, dtype=np.int64)
_EMPTY_F = np.zeros(0, dtype=np.float64)


class OnlineLearner:
    """Base class of evofeat's online learners.

    Subclasses set :attr:`task` and :attr:`per_feature` (the state fields
    whose first axis is the feature axis, grown as features appear) and
    implement :meth:`_make_state`.

    The dict path follows River: ``learn_one(x, y)``, ``predict_one(x)``,
    ``predict_proba_one(x)``, with ``x`` a dict of feature name -> value. A
    feature is absent exactly when its key is missing; ``0.0`` is a value.
    ``predict_one`` returns ``None`` before the first ``learn_one``.
    """

    #: "binary" (labels -1/+1), "regression" (float) or "multiclass" (int codes).
    task: ClassVar[str] = "binary"
    #: State fields indexed by feature on their first axis.
    per_feature: ClassVar[tuple[str, ...]] = ("w",)

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
                    expected=f"one of {', '.join(valid)}", fix="check the spelling",
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

    def _make_state(self, capacity: int) -> NamedTuple:
        """Empty state with room for ``capacity`` features."""
        raise NotImplementedError

    def _reset(self) -> None:
        self._check_params()
        self.feature_index_ = FeatureIndex()
        self._state: Any = None
        self._capacity = 0
        self._visible: np.ndarray | None = None
        self.n_learned_ = 0

    def _ensure_capacity(self, n_features: int) -> None:
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
                grown = np.zeros((new_cap, *arr.shape[1:]), dtype=arr.dtype)
                grown[: arr.shape[0]] = arr
                self._init_grown(name, grown, arr.shape[0])
                fields[name] = grown
            else:
                fields[name] = arr
        self._state = type(old)(**fields)
        self._capacity = new_cap

    def _init_grown(self, name: str, grown: np.ndarray, start: int) -> None:
        """Fill the new rows ``grown[start:]`` of a per-feature field (default: zeros)."""

    # ------------------------------------------------------------------ rows and labels
    def _encode(self, x: Mapping[Hashable, float], grow: bool) -> tuple[np.ndarray, np.ndarray]:
        if not isinstance(x, Mapping):
            raise InputError(
                "a row must be a dict of feature name -> value",
                expected="a dict such as {'age': 31.0}", received=type(x).__name__,
                fix="convert the row with dict(zip(names, values))",
            )
        fi = self.feature_index_
        vals = np.empty(len(x), dtype=np.float64)
        for n, (name, value) in enumerate(x.items()):
            try:
                v = float(value)
            except (TypeError, ValueError):
                raise InputError(
                    f"feature {name!r} has a non-numeric value", expected="a real number",
                    received=repr(value), fix="encode categorical values as numbers first",
                ) from None
            if not math.isfinite(v):
                raise InputError(
                    f"feature {name!r} is {v}", expected="a finite value (an absent feature is a missing key)",
                    received=repr(value), fix="drop the key for a missing value instead of NaN",
                )
            vals[n] = v
        if grow:
            fi.add(x.keys())
        cols = np.fromiter((fi.get(name) for name in x), dtype=np.int64, count=len(x))
        known = cols >= 0
        cols, vals = cols[known], vals[known]
        order = np.argsort(cols, kind="stable")
        return cols[order], vals[order]

    def _encode_label(self, y: Any) -> float:
        if self.task == "binary":
            if isinstance(y, bool | np.bool_):
                return 1.0 if y else -1.0
            if y in (-1, 1):
                return float(y)
            raise InputError(
                f"{type(self).__name__} is a binary classifier", expected="a label in {-1, +1} (or a bool)",
                received=repr(y), fix="map the two classes to -1 and +1",
            )
        try:
            v = float(y)
        except (TypeError, ValueError):
            raise InputError("the label is not a number", expected="a real number", received=repr(y),
                             fix="encode the labels as numbers") from None
        if not math.isfinite(v):
            raise InputError("the label is not finite", expected="a finite number", received=repr(y),
                             fix="drop rows with missing labels")
        return v

    def _decode_label(self, label: float) -> Any:
        if self.task == "binary":
            return 1 if label > 0 else -1
        if self.task == "multiclass":
            return int(label)
        return float(label)

    # ------------------------------------------------------------------ dict path
    def learn_one(self, x: Mapping[Hashable, float], y: Any) -> OnlineLearner:
        """Predict-then-update on one row ``x`` (a dict) with label ``y``."""
        if not hasattr(self, "feature_index_"):
            self._reset()
        target = self._encode_label(y)
        idx, val = self._encode(x, grow=True)
        dim = len(self.feature_index_)
        self._ensure_capacity(dim)
        changed = self._visible is None or not np.array_equal(self._visible, idx)
        if changed:
            self._visible = idx
        _learn_row(self._state, idx, val, target, changed, idx, dim)
        self.n_learned_ += 1
        return self

    def _score_one(self, x: Mapping[Hashable, float]) -> tuple[float, float] | None:
        if getattr(self, "_state", None) is None:
            return None
        idx, val = self._encode(x, grow=False)
        score, label = _predict_row(self._state, idx, val)
        return float(score), float(label)

    def predict_one(self, x: Mapping[Hashable, float]) -> Any:
        """The predicted label of ``x`` (``None`` before any learning)."""
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

    # ------------------------------------------------------------------ learned state
    def _weights(self, field: str = "w") -> np.ndarray:
        """The per-feature array ``field`` over the features seen so far."""
        if getattr(self, "_state", None) is None:
            return np.zeros(0)
        arr: np.ndarray = getattr(self._state, field)[: len(self.feature_index_)]
        return arr.copy()

    @property
    def coef_(self) -> dict[Hashable, float]:
        """The weight of each feature seen so far, by name."""
        w = self._effective_weights()
        return dict(zip(self.feature_index_.names, w.tolist(), strict=True)) if w.size else {}

    def reference_predictions(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Labels predicted by the plain-NumPy reference of this learner's math.

        ``X`` is dense with NaN for absent entries, its columns in the order the
        features first appear; used by the parity tests.
        """
        raise NotImplementedError(f"{type(self).__name__} has no NumPy reference")

    def _effective_weights(self) -> np.ndarray:
        """The weights as the model uses them (subclasses with a scale factor override)."""
        return self._weights("w")

    def __copy__(self) -> OnlineLearner:
        return copy.deepcopy(self)

    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__.copy()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
