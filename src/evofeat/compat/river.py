"""River estimators over evofeat's online learners (the dict path, and the compiled loop for batches).

:func:`to_river` wraps a learner so it goes wherever River expects a
classifier or a regressor: pipelines after River's preprocessing
(``preprocessing.StandardScaler() | to_river(PA())``),
``evaluate.progressive_val_score``, model selection. The adapters subclass
River's ``MiniBatchClassifier`` / ``MiniBatchRegressor``; River is imported
only when an adapter is first used (``pip install 'evofeat[river]'``).

Labels, as River's classifiers take them. A binary learner accepts ``bool``
labels (``True`` is evofeat's +1), ``0``/``1`` (1 is +1, as River's
``PAClassifier`` reads them) and ``-1``/``+1``; predictions come back in the
same kind (``bool`` until a label says otherwise), and ``predict_proba_one``
has those two keys. A multiclass learner (``"stsd-multiclass"``,
``"pa-multiclass"``) accepts labels of any hashable kind and maps each class
to a code as it first appears; a class seen later gets a fresh weight column
(zero weights), so ``n_classes`` need not be known in advance.

Regression. ``to_river`` returns :class:`EvofeatRegressor` for a regression
learner (``"stsd-regressor"``, ``"pa-regressor"``, or ``"ogd"`` / ``"fesl-c"``
/ ``"fesl-s"`` with ``loss="square"``). It gives the learner the values as
they come, so River's own idiom scales them, once:
``preprocessing.TargetStandardScaler(preprocessing.StandardScaler() | model)``
keeps a step size that suits standardised data stable on raw targets such as
TrumpApproval's ratings. ``EvofeatRegressor(..., standardize=True)`` does the
same scaling inside the adapter instead (River's ``StandardScaler`` and running
variance, as that pipeline does); do not combine it with River's scalers,
which would scale twice. The learner warns when its weights diverge (see
:meth:`evofeat.base.OnlineLearner.learn_one`).

Labels are checked before anything is learned: ``learn_many`` refuses a
``y`` whose length is not the number of rows, and every kind of adapter
refuses a missing label (``None``, NaN) rather than learn it as a class or a
target.

Mini-batches. ``learn_many(X, y)``, ``predict_many(X)`` and
``predict_proba_many(X)`` take a pandas DataFrame (NaN is an absent feature)
and run through the learner's own methods of the same names
(:meth:`evofeat.base.OnlineLearner.learn_many`: the compiled loop), learning
exactly what a ``learn_one`` loop over the rows learns.

Before the first ``learn_one``, the classifiers' ``predict_one`` is ``None``
(evofeat's convention; River's ``progressive_val_score`` skips such
predictions) and the regressor's is ``0.0`` (River's target transforms need a
number).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Hashable, Iterator, Mapping
from typing import Any

import numpy as np
from scipy.special import softmax

from evofeat.base.errors import InputError
from evofeat.base.learner import OnlineLearner, batch_arrays
from evofeat.compat import DEFAULTS, build_learner, class_scores, learner_defaults

__all__ = ["EvofeatClassifier", "EvofeatMultiClassifier", "EvofeatRegressor", "to_river"]

_CLASSES: dict[str, type] = {}
# Defined on first use, on River's base classes (see _build and __getattr__).
EvofeatClassifier: type
EvofeatMultiClassifier: type
EvofeatRegressor: type


def _river_base() -> Any:
    try:
        from river import base
    except ImportError:
        raise ImportError(
            "the River adapters need River: pip install 'evofeat[river]' (or pip install river)"
        ) from None
    return base


# ------------------------------------------------------------------------ binary labels
_KINDS = {"bool": (False, True), "01": (0, 1), "signed": (-1, 1)}


def _binary_target(y: Any) -> tuple[str | None, int]:
    """``(kind, target)`` of one binary label: its kind (``None``: 1, which fits every kind), +-1."""
    if isinstance(y, bool | np.bool_):
        return "bool", 1 if y else -1
    if isinstance(y, int | float | np.integer | np.floating) and y in (-1, 0, 1):
        if y == 1:
            return None, 1
        return ("01" if y == 0 else "signed"), -1
    raise InputError(
        "a binary evofeat learner needs two-valued labels",
        expected="a bool (True = +1), 0/1 (1 = +1) or -1/+1",
        received=repr(y),
        fix="map the labels to bool, e.g. with y == positive_label, or use a multiclass learner",
    )


def _is_missing(y: Any) -> bool:
    return y is None or (isinstance(y, float | np.floating) and math.isnan(y))


def _missing_label(y: Any, where: str) -> InputError:
    return InputError(
        f"a missing label {where}",
        expected="a label for every row",
        received=repr(y),
        fix="drop the rows without a label before learning (predict_one needs no label)",
    )


def _rows(X: Any, y: Any) -> tuple[Any, list[Hashable]]:
    """``(values, names)`` of a mini-batch whose ``y`` has one label per row (checked first)."""
    values, names, _ = batch_arrays(X)
    n_labels = len(y) if hasattr(y, "__len__") else None
    if n_labels != values.shape[0]:
        raise InputError(
            "learn_many needs one label per row",
            expected=f"{values.shape[0]} labels",
            received="an unsized y" if n_labels is None else f"{n_labels} labels",
            fix="pass y with one entry per row of X (e.g. a pandas Series on X's index)",
        )
    return values, names


def _batch(X: Any, y: Any) -> tuple[Any, list[Hashable], np.ndarray, list[Any]]:
    """``(values, names, index, distinct)`` of a mini-batch, its labels checked before any learning:
    one per row, none missing (``index``: each row's position among the ``distinct`` labels)."""
    values, names = _rows(X, y)
    index, distinct = _factorize(y)
    for i, label in enumerate(distinct):
        if _is_missing(label):
            raise _missing_label(label, f"in row {int(np.flatnonzero(index == i)[0])}")
    return values, names, index, distinct


def _factorize(y: Any) -> tuple[np.ndarray, list[Any]]:
    """``(index, distinct)``: the distinct labels of ``y`` in order of appearance, and each
    label's position among them (``pandas.factorize``, NaN a label like any other)."""
    import pandas as pd

    labels = pd.Series(y) if hasattr(y, "dtype") else pd.Series(list(y))
    index, distinct = pd.factorize(labels, use_na_sentinel=False)
    return np.asarray(index, dtype=np.int64), pd.Index(distinct).tolist()


class _Adapter:
    """What the adapters share: parameters, the trained learner, learning rows and batches."""

    _tasks: tuple[str, ...] = ()

    def __init__(
        self, learner: str | OnlineLearner | None = None, params: Mapping[str, Any] | None = None
    ) -> None:
        self.learner = learner
        self.params = params
        self.learner_ = build_learner(learner, params, self._tasks)

    @classmethod
    def _unit_test_params(cls) -> Iterator[dict[str, Any]]:
        yield {}


class _Binary(_Adapter):
    """A binary learner with River's labels (see the module docstring)."""

    _tasks = ("binary",)
    _label_kind: str | None

    def _set_kind(self, kind: str | None, y: Any) -> None:
        if kind is None:
            return
        if self._label_kind not in (None, kind):
            raise InputError(
                "the kind of labels changed",
                expected=f"{self._label_kind} labels {_KINDS[self._label_kind]} as before",
                received=repr(y),
                fix="give every label the same kind",
            )
        self._label_kind = kind

    def _decode(self, sign: int) -> Any:
        negative, positive = _KINDS[self._label_kind or "bool"]
        return positive if sign > 0 else negative

    def learn_one(self, x: dict[Any, Any], y: Any, **kwargs: Any) -> None:
        kind, target = _binary_target(y)
        self._set_kind(kind, y)
        self.learner_.learn_one(x, target)

    def predict_proba_one(self, x: dict[Any, Any], **kwargs: Any) -> dict[Any, float]:
        proba = self.learner_.predict_proba_one(x) or {-1: 0.5, 1: 0.5}
        return {self._decode(-1): proba[-1], self._decode(1): proba[1]}

    def predict_one(self, x: dict[Any, Any], **kwargs: Any) -> Any:
        label = self.learner_.predict_one(x)
        return None if label is None else self._decode(label)

    def learn_many(self, X: Any, y: Any, **kwargs: Any) -> None:
        values, names, first, distinct = _batch(X, y)  # each distinct label read once
        targets = np.empty(len(distinct))
        kinds: dict[str, Any] = {}
        for i, label in enumerate(distinct):
            kind, targets[i] = _binary_target(label)
            if kind is not None:
                kinds.setdefault(kind, label)
        if len(kinds) > 1:  # checked before anything is learned or recorded
            raise InputError(
                "a mini-batch mixes kinds of labels",
                expected="one kind: bool, 0/1 or -1/+1",
                received=", ".join(repr(v) for v in kinds.values()),
                fix="give every label the same kind",
            )
        for kind, label in kinds.items():
            self._set_kind(kind, label)
        self.learner_._learn_arrays(values, names, targets[first])

    def predict_many(self, X: Any) -> Any:
        import pandas as pd

        labels = self.learner_.predict_many(X)
        if self.learner_._state is None:
            return labels
        negative, positive = _KINDS[self._label_kind or "bool"]
        return pd.Series(np.where(labels.to_numpy() > 0, positive, negative), index=labels.index)

    def predict_proba_many(self, X: Any) -> Any:
        proba = self.learner_.predict_proba_many(X)
        proba.columns = [self._decode(-1), self._decode(1)]
        return proba


class _Multi(_Adapter):
    """A multiclass learner with labels of any hashable kind (codes in order of appearance)."""

    _tasks = ("multiclass",)

    def __init__(
        self, learner: str | OnlineLearner | None = None, params: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(learner, params)
        if getattr(self.learner_, "n_classes", None) is None:
            self.learner_.n_classes = 2  # type: ignore[attr-defined]  # grown as classes appear
        self._classes: list[Hashable] = []
        self._codes: dict[Hashable, int] = {}

    def _code(self, y: Hashable, grow: bool = True) -> int:
        code = self._codes.get(y)
        if code is None:
            code = self._codes[y] = len(self._classes)
            self._classes.append(y)
        if grow and code >= self.learner_.n_classes:  # type: ignore[attr-defined]
            self.learner_._grow_classes(code + 1)  # type: ignore[attr-defined]
        return code

    def learn_one(self, x: dict[Any, Any], y: Any, **kwargs: Any) -> None:
        if _is_missing(y):
            raise _missing_label(y, "in learn_one")
        self.learner_.learn_one(x, self._code(y))

    def _class_scores(self, values: np.ndarray, names: list[Hashable]) -> np.ndarray:
        """Each row's score for each known class: ``x . W_c`` over the row's seen features."""
        return class_scores(self.learner_, values, names, len(self._classes))

    def predict_proba_one(self, x: dict[Any, Any], **kwargs: Any) -> dict[Any, float]:
        """A softmax of the class scores (monotone in them, not calibrated)."""
        if not self._classes:
            return {}
        names = list(x)
        scores = self._class_scores(np.array([[float(v) for v in x.values()]]), names)[0]
        return dict(zip(self._classes, softmax(scores).tolist(), strict=True))

    def predict_one(self, x: dict[Any, Any], **kwargs: Any) -> Any:
        code = self.learner_.predict_one(x)
        if code is None:
            return None
        if code < len(self._classes):
            return self._classes[code]
        proba = self.predict_proba_one(x)  # a code no label has yet: the best known class
        return max(proba, key=proba.__getitem__)

    def learn_many(self, X: Any, y: Any, **kwargs: Any) -> None:
        values, names, first, distinct = _batch(X, y)  # new classes: codes in order of appearance
        known = np.array([self._code(label, grow=False) for label in distinct], dtype=np.float64)
        codes = known[first]
        start = 0
        while start < len(codes):  # a class beyond the learner's grows it where learn_one would
            k = self.learner_.n_classes  # type: ignore[attr-defined]
            beyond = np.flatnonzero(codes[start:] >= k)
            stop = start + int(beyond[0]) if beyond.size else len(codes)
            if stop > start:
                self.learner_._learn_arrays(values[start:stop], names, codes[start:stop])
            if stop < len(codes):
                self.learner_._grow_classes(int(codes[stop]) + 1)  # type: ignore[attr-defined]
            start = stop

    def predict_many(self, X: Any) -> Any:
        import pandas as pd

        values, names, index = batch_arrays(X)
        if self.learner_._state is None:
            return pd.Series([None] * len(values), index=index, dtype=object)
        codes = self.learner_._score_rows(values, names)[1].astype(np.int64)
        known = codes < len(self._classes)
        best = self._class_scores(values, names).argmax(axis=1) if not known.all() else codes
        out = [self._classes[c if ok else b] for c, ok, b in zip(codes, known, best, strict=True)]
        return pd.Series(out, index=index)

    def predict_proba_many(self, X: Any) -> Any:
        import pandas as pd

        values, names, index = batch_arrays(X)
        if not self._classes:
            return pd.DataFrame(index=index)
        proba = softmax(self._class_scores(values, names), axis=1)
        return pd.DataFrame(proba, columns=list(self._classes), index=index)


def _safe_lr(
    learner: str | OnlineLearner | None, params: Mapping[str, Any] | None
) -> Mapping[str, Any] | None:
    """``params`` with the regression step size of :data:`evofeat.compat.DEFAULTS` for a named
    learner of the OGD family (OGD and FESL's learners) on the square loss given no ``lr``: their
    default ``lr=1`` (the FESL paper's ``c = 1``) suits the logistic loss, and the square loss's
    gradient grows with the residual."""
    from evofeat.registry import ONLINE

    if not isinstance(learner, str) or (params and "lr" in params):
        return params
    names = learner_defaults(learner, ("regression",))
    family = ONLINE.get(learner) in (ONLINE["ogd"], ONLINE["fesl-c"])
    if not family or (params or {}).get("loss", names.get("loss")) != "square":
        return params
    return {**(params or {}), "lr": DEFAULTS["regression"][1]["lr"]}


class _Regression(_Adapter):
    """A regression learner as a River regressor, with online standardisation by default."""

    _tasks = ("regression",)

    def __init__(
        self,
        learner: str | OnlineLearner | None = None,
        params: Mapping[str, Any] | None = None,
        standardize: bool = False,
    ) -> None:
        self.learner = learner
        self.params = params
        self.learner_ = build_learner(learner, _safe_lr(learner, params), self._tasks)
        self.standardize = standardize
        if standardize:
            from river import preprocessing, stats

            self._x_scaler = preprocessing.StandardScaler()
            self._y_var = stats.Var()

    def _y_scale(self) -> tuple[float, float]:
        sigma = math.sqrt(self._y_var.get()) if self._y_var.n > 1 else 0.0
        return self._y_var.mean.get(), sigma

    def _prepare(self, x: dict[Any, Any], y: float) -> tuple[dict[Any, Any], float]:
        """River's ``TargetStandardScaler(StandardScaler() | model)``: learn, then transform."""
        self._x_scaler.learn_one(x)
        self._y_var.update(y)
        mean, sigma = self._y_scale()
        return self._x_scaler.transform_one(x), (y - mean) / sigma if sigma > 0 else 0.0

    @staticmethod
    def _target(y: Any) -> float:
        try:
            target = float(y)
        except (TypeError, ValueError):
            target = math.nan
        if not math.isfinite(target):
            raise InputError(
                "a regression target must be a finite number",
                expected="a finite number",
                received=repr(y),
                fix="drop the rows without a target (None, NaN) or encode it as a number",
            )
        return target

    def learn_one(self, x: dict[Any, Any], y: Any, **kwargs: Any) -> None:
        target = self._target(y)
        if self.standardize:
            x, target = self._prepare(x, target)
        self.learner_.learn_one(x, target)  # it warns if its weights diverge

    def _inverse(self, prediction: np.ndarray | float) -> Any:
        if not self.standardize:
            return prediction
        mean, sigma = self._y_scale()
        return prediction * sigma + mean if sigma > 0 else prediction * 0.0 + mean

    def predict_one(self, x: dict[Any, Any], **kwargs: Any) -> float:
        if self.standardize:
            x = self._x_scaler.transform_one(x)
        prediction = self.learner_.predict_one(x)
        return float(self._inverse(0.0 if prediction is None else prediction))

    def learn_many(self, X: Any, y: Any, **kwargs: Any) -> None:
        values, names = _rows(X, y)
        try:
            target = np.array(y, dtype=np.float64)
        except (TypeError, ValueError):
            target = np.full(len(y), math.nan)
        bad = np.flatnonzero(~np.isfinite(target))
        if bad.size:  # the first offending label, as learn_one would report it
            self._target(np.asarray(y, dtype=object)[bad[0]])
            self._target(math.nan)
        if self.standardize:  # the scalers row by row, as learn_one; the learner compiled
            values = np.array(values)  # standardised in place (the frame's values may be a view)
            for i, row in enumerate(values):
                x = {n: v for n, v in zip(names, row.tolist(), strict=True) if v == v}
                z, target[i] = self._prepare(x, float(target[i]))
                values[i] = [z.get(n, math.nan) for n in names]
        self.learner_._learn_arrays(values, names, target)

    def predict_many(self, X: Any) -> Any:
        import pandas as pd

        values, names, index = batch_arrays(X)
        if self.standardize:
            absent = np.isnan(values)
            values = (
                self._x_scaler.transform_many(X)
                .reindex(columns=names)
                .to_numpy(dtype=np.float64, na_value=np.nan, copy=True)
            )
            values[absent] = np.nan
        label = self.learner_._score_rows(values, names)[1]
        return pd.Series(self._inverse(label), index=index, dtype=np.float64)


def _build() -> dict[str, type]:
    """Define the adapter classes on River's base classes (once)."""
    if _CLASSES:
        return _CLASSES
    base = _river_base()

    class EvofeatClassifier(_Binary, base.MiniBatchClassifier):  # type: ignore[misc,name-defined]
        """A binary evofeat online learner as a River classifier.

        Labels: ``bool``, ``0``/``1`` or ``-1``/``+1`` (see the module docstring).

        Parameters
        ----------
        learner
            A name in :data:`evofeat.registry.ONLINE`, an
            :class:`~evofeat.base.OnlineLearner` used as a template (cloned), or
            ``None``: :data:`evofeat.compat.DEFAULT_LEARNER`.
        params
            The learner's parameters (for a name) or overrides (for an instance).

        Attributes
        ----------
        learner_ : OnlineLearner
            The learner being trained.
        """

        def __init__(
            self,
            learner: str | OnlineLearner | None = None,
            params: Mapping[str, Any] | None = None,
        ) -> None:
            super().__init__(learner, params)
            self._label_kind = None

    class EvofeatMultiClassifier(_Multi, base.MiniBatchClassifier):  # type: ignore[misc,name-defined]
        """A multiclass evofeat online learner as a River classifier (labels of any hashable kind).

        Parameters
        ----------
        learner
            ``"stsd-multiclass"``, ``"pa-multiclass"``, a multiclass
            :class:`~evofeat.base.OnlineLearner` used as a template (cloned), or
            ``None``: ``"stsd-multiclass"`` (:data:`evofeat.compat.DEFAULTS`).
        params
            The learner's parameters (for a name) or overrides (for an instance).

        Attributes
        ----------
        learner_ : OnlineLearner
            The learner being trained (its class codes are the labels' order of appearance).
        """

        @property
        def _multiclass(self) -> bool:
            return True

    class EvofeatRegressor(_Regression, base.MiniBatchRegressor):  # type: ignore[misc,name-defined]
        """A regression evofeat online learner as a River regressor.

        Parameters
        ----------
        learner
            A regression learner's registry name (``"stsd-regressor"``,
            ``"pa-regressor"``, ``"ogd"`` with ``loss="square"``...), an
            :class:`~evofeat.base.OnlineLearner` with ``task == "regression"``
            used as a template (cloned), or ``None``: ``OGD(loss="square", lr=0.05)``.
        params
            The learner's parameters (for a name) or overrides (for an instance).
        standardize
            Standardise the features and the target online inside the adapter
            (River's ``StandardScaler`` and running variance, as
            ``TargetStandardScaler(StandardScaler() | model)`` does), so the
            learner's step sizes do not depend on the data's units. Off by
            default: River's own scalers in front of the adapter do that, once;
            turning this on as well would scale twice.

        Attributes
        ----------
        learner_ : OnlineLearner
            The learner being trained (on standardised values when ``standardize``).
        """

    for cls in (EvofeatClassifier, EvofeatMultiClassifier, EvofeatRegressor):
        cls.__qualname__ = cls.__name__  # so pickle finds them as module attributes
        _CLASSES[cls.__name__] = cls
    return _CLASSES


def __getattr__(name: str) -> Any:
    if name in ("EvofeatClassifier", "EvofeatMultiClassifier", "EvofeatRegressor"):
        return _build()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def to_river(learner: str | OnlineLearner, params: Mapping[str, Any] | None = None) -> Any:
    """``learner`` as a River classifier (binary, multiclass) or regressor (regression).

    A learner that has already learned is continued from (a copy of) its
    state; ``clone()`` of the adapter starts afresh, as River expects.

    Parameters
    ----------
    learner
        An :class:`~evofeat.base.OnlineLearner` or a registry name.
    params
        The learner's parameters (for a name) or overrides (for an instance).

    Returns
    -------
    EvofeatClassifier, EvofeatMultiClassifier or EvofeatRegressor

    Raises
    ------
    ImportError
        River is not installed.

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("river")  # the example needs River
    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from evofeat.linear.pa import PA
    >>> model = preprocessing.StandardScaler() | to_river(PA(C=0.1))
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 87.43%
    >>> model.predict_one({"https": 1.0, "long_url": 0.0})
    False
    >>> scaled = preprocessing.TargetStandardScaler(  # River's idiom: scale x and y, once
    ...     preprocessing.StandardScaler() | to_river("ogd", {"loss": "square"})
    ... )
    >>> evaluate.progressive_val_score(datasets.TrumpApproval(), scaled, metrics.MAE())
    MAE: 0.521965
    """
    model = build_learner(learner, params, ("binary", "regression", "multiclass"))
    name = {"binary": "EvofeatClassifier", "multiclass": "EvofeatMultiClassifier"}
    adapter = _build()[name.get(model.task, "EvofeatRegressor")](learner, params)
    learned = int(getattr(learner, "n_learned_", 0))
    if isinstance(learner, OnlineLearner) and learned > 0 and not params:
        if model.task == "multiclass":
            raise InputError(
                "a trained multiclass learner cannot be adapted",
                expected="an untrained learner (the adapter maps labels to codes as they appear)",
                received=f"{learner!r} after {learned} rows",
                fix="pass learner.clone()",
            )
        adapter.learner_ = copy.deepcopy(learner)
    return adapter
