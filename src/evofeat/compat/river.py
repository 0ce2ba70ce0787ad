"""River estimators over evofeat's online learners (the dict path).

:func:`to_river` wraps a learner so it goes wherever River expects a
classifier or a regressor: pipelines after River's preprocessing
(``preprocessing.StandardScaler() | to_river(PA())``),
``evaluate.progressive_val_score``, model selection. The adapters subclass
``river.base.Classifier`` / ``river.base.Regressor``; River is imported only
when an adapter is first used (``pip install 'evofeat[river]'``).

Labels. River gives a binary classifier ``bool`` labels: ``True`` is
evofeat's +1 and ``False`` its -1, and predictions come back as ``bool``
(``predict_proba_one`` has the keys ``False`` and ``True``). Labels given as
-1/+1 are kept as -1/+1. The kind of labels is fixed by the first label
learned; before any, probabilities are ``{False: 0.5, True: 0.5}``.

Before the first ``learn_one``, the classifier's ``predict_one`` is
``None`` (evofeat's convention; River's ``progressive_val_score`` skips such
predictions) and the regressor's is ``0.0`` (the prediction of zero weights,
as River's linear models do: River's target transforms need a number).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from evofeat.base.errors import InputError
from evofeat.base.learner import OnlineLearner
from evofeat.compat import build_learner

__all__ = ["EvofeatClassifier", "EvofeatRegressor", "to_river"]

_CLASSES: dict[str, type] = {}
# Defined on first use, on River's base classes (see _build and __getattr__).
EvofeatClassifier: type
EvofeatRegressor: type


def _river_base() -> Any:
    try:
        from river import base
    except ImportError:
        raise ImportError(
            "the River adapters need River: pip install 'evofeat[river]' (or pip install river)"
        ) from None
    return base


class _Adapter:
    """What both adapters share: parameters, the trained learner, learning a row."""

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

    def _learn(self, x: Mapping[Any, Any], target: Any) -> None:
        self.learner_.learn_one(x, target)


def _build() -> dict[str, type]:
    """Define the adapter classes on River's base classes (once)."""
    if _CLASSES:
        return _CLASSES
    base = _river_base()

    classifier: Any = base.Classifier
    regressor: Any = base.Regressor

    class EvofeatClassifier(_Adapter, classifier):  # type: ignore[misc,valid-type]
        """A binary evofeat online learner as a River classifier (``True`` = +1, ``False`` = -1).

        Parameters
        ----------
        learner
            A name in :data:`evofeat.registry.ONLINE` or an
            :class:`~evofeat.base.OnlineLearner` used as a template (cloned).
        params
            The learner's parameters (for a name) or overrides (for an instance).

        Attributes
        ----------
        learner_ : OnlineLearner
            The learner being trained.
        """

        _tasks = ("binary",)

        def __init__(
            self,
            learner: str | OnlineLearner | None = "pa-i",
            params: Mapping[str, Any] | None = None,
        ) -> None:
            super().__init__(learner, params)
            self._label_kind: str | None = None

        def learn_one(self, x: dict[Any, Any], y: Any, **kwargs: Any) -> None:
            if isinstance(y, bool | np.bool_):
                kind, target = "bool", 1 if y else -1
            elif isinstance(y, int | float | np.integer | np.floating) and y in (-1, 1):
                kind, target = "signed", int(y)
            else:
                raise InputError(
                    "a binary evofeat learner needs two-valued labels",
                    expected="a bool (True = +1) or -1/+1",
                    received=repr(y),
                    fix="map the labels to bool, e.g. with y == positive_label",
                )
            if self._label_kind not in (None, kind):
                raise InputError(
                    "the kind of labels changed",
                    expected=f"{self._label_kind} labels as before",
                    received=repr(y),
                    fix="give every label the same kind",
                )
            self._learn(x, target)
            self._label_kind = kind

        def _decode(self, sign: int) -> Any:
            return sign if self._label_kind == "signed" else sign > 0

        def predict_proba_one(self, x: dict[Any, Any], **kwargs: Any) -> dict[Any, float]:
            proba = self.learner_.predict_proba_one(x) or {-1: 0.5, 1: 0.5}
            return {self._decode(-1): proba[-1], self._decode(1): proba[1]}

        def predict_one(self, x: dict[Any, Any], **kwargs: Any) -> Any:
            label = self.learner_.predict_one(x)
            return None if label is None else self._decode(label)

    class EvofeatRegressor(_Adapter, regressor):  # type: ignore[misc,valid-type]
        """A regression evofeat online learner as a River regressor.

        Parameters
        ----------
        learner
            A regression learner's registry name, an
            :class:`~evofeat.base.OnlineLearner` with ``task == "regression"``
            used as a template (cloned), or ``None``: ``OGD(loss="square", lr=0.05)``.
        params
            The learner's parameters (for a name) or overrides (for an instance).

        Attributes
        ----------
        learner_ : OnlineLearner
            The learner being trained.
        """

        _tasks = ("regression",)

        def learn_one(self, x: dict[Any, Any], y: Any, **kwargs: Any) -> None:
            self._learn(x, y)

        def predict_one(self, x: dict[Any, Any], **kwargs: Any) -> float:
            prediction = self.learner_.predict_one(x)
            return 0.0 if prediction is None else float(prediction)

    for cls in (EvofeatClassifier, EvofeatRegressor):
        cls.__qualname__ = cls.__name__  # so pickle finds them as module attributes
        _CLASSES[cls.__name__] = cls
    return _CLASSES


def __getattr__(name: str) -> Any:
    if name in ("EvofeatClassifier", "EvofeatRegressor"):
        return _build()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def to_river(learner: str | OnlineLearner, params: Mapping[str, Any] | None = None) -> Any:
    """``learner`` as a River classifier (binary learners) or regressor (regression learners).

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
    EvofeatClassifier or EvofeatRegressor

    Raises
    ------
    ImportError
        River is not installed.
    InputError
        A learner of another task (multiclass learners are not adapted yet).

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
    """
    model = build_learner(learner, params, ("binary", "regression", "multiclass"))
    if model.task == "multiclass":
        raise InputError(
            f"{model!r} is a multiclass learner",
            expected="a binary or regression learner",
            received="multiclass",
            fix="use the learner directly (learn_one / predict_one)",
        )
    classes = _build()
    adapter = classes["EvofeatClassifier" if model.task == "binary" else "EvofeatRegressor"](
        learner, params
    )
    learned = int(getattr(learner, "n_learned_", 0))
    if isinstance(learner, OnlineLearner) and learned > 0 and not params:
        adapter.learner_ = copy.deepcopy(learner)
    return adapter
