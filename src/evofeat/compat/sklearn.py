"""scikit-learn estimators over evofeat's online learners (compiled array path).

``fit`` / ``partial_fit`` run the learner test-then-train over the rows in
the order given (:func:`evofeat.evaluate.prequential` on a
:class:`~evofeat.streams.Stream`), so, as with any online learner, the model
depends on the row order. ``predict`` scores rows with the learner's compiled
kernel and does not learn. In a dense ``X``, NaN marks an absent feature
(evofeat's meaning of NaN in arrays), so rows may see different features.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from evofeat._core.core import Core
from evofeat.base.errors import InputError
from evofeat.base.learner import OnlineLearner
from evofeat.compat import build_learner, class_scores, learner_defaults, score_rows

__all__ = ["OnlineClassifier", "OnlineRegressor"]

#: the estimator's own parameters besides ``learner`` and ``params`` (never the learner's).
OWN = frozenset({"shuffle", "random_state"})


class _OnlineEstimator(BaseEstimator):
    """What the classifier and the regressor share: parameters, validation, learning, scoring rows.

    The learner's parameters are the estimator's own: the constructor takes
    them as keywords (``OnlineClassifier("stsd-i", C=0.5)``), ``get_params()``
    lists them beside ``learner`` and ``params`` (a registry name's
    constructor defaults, or a template learner's values) and
    ``set_params(C=...)`` sets them, so ``GridSearchCV(est, {"C": [...]})``
    and ``clone`` work as for any scikit-learn estimator. A value given this
    way overrides the same key of ``params``; with a template learner,
    ``learner__C`` names the template's own parameter. A name the learner
    does not have is refused when the learner is built (``fit``).
    """

    _tasks: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self,
        learner: str | OnlineLearner | None = None,
        params: Mapping[str, Any] | None = None,
        shuffle: bool = False,
        random_state: int | np.random.RandomState | None = None,
        **learner_params: Any,
    ) -> None:
        self.learner = learner
        self.params = params
        self.shuffle = shuffle
        self.random_state = random_state
        # the learner's parameters given as keywords or by set_params (read back by get_params)
        self._overrides: dict[str, Any] = dict(learner_params)

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the learner's compiled state as its fields, so a read-only load can copy them."""
        state = dict(super().__getstate__())  # a copy: object.__getstate__ gives __dict__ itself
        model: Any = state.get("learner_")
        core = getattr(model, "_state", None)
        if isinstance(core, Core):
            learned = {**model.__getstate__(), "_state": None}
            bare = object.__new__(type(model))
            bare.__setstate__(learned)
            state["learner_"] = (bare, type(core), core._asdict())
        return state  # type: ignore[no-any-return]

    def __setstate__(self, state: dict[str, Any]) -> None:
        model = state.get("learner_")
        if isinstance(model, tuple):  # (learner, Core class, fields): fields copied, writable
            bare, cls, fields = model
            bare.__dict__["_state"] = cls(
                **{k: np.array(v) if isinstance(v, np.ndarray) else v for k, v in fields.items()}
            )
            state = {**state, "learner_": bare}
        super().__setstate__(state)

    def __sklearn_clone__(self) -> Any:
        """A fresh copy of the parameters, the learner's included (scikit-learn's ``clone``)."""
        from sklearn.base import clone

        new = type(self)(
            learner=clone(self.learner, safe=False),
            params=clone(self.params, safe=False),
            shuffle=self.__dict__.get("shuffle", False),
            random_state=clone(self.__dict__.get("random_state"), safe=False),
        )
        new._overrides = {
            k: clone(v, safe=False) for k, v in self.__dict__.get("_overrides", {}).items()
        }
        return new

    def _learner_params(self) -> dict[str, Any]:
        """The learner's parameters as this estimator sees them: set > ``params`` > defaults."""
        out = learner_defaults(self.learner, self._tasks)
        given = self.params if isinstance(self.params, Mapping) else {}
        overrides = self.__dict__.get("_overrides", {})
        for name in out:
            if name in overrides:
                out[name] = overrides[name]
            elif name in given:
                out[name] = given[name]
        return out

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """``learner``, ``params`` and the learner's own parameters (``learner__x`` too if deep)."""
        return {**super().get_params(deep=deep), **self._learner_params()}

    def set_params(self, **params: Any) -> Any:
        """Set ``learner``, ``params``, the learner's parameters, or ``learner__x`` of a template."""
        names = set(learner_defaults(params.get("learner", self.learner), self._tasks))
        unknown = sorted(
            k
            for k in params
            if k.partition("__")[0] not in names | {"learner", "params", "learner_params"} | OWN
        )
        if unknown:
            raise InputError(
                f"unknown parameter {unknown[0]!r} for {type(self).__name__}",
                expected="learner, params or one of the learner's: " + ", ".join(sorted(names)),
                received=", ".join(unknown),
                fix="check the spelling (parameters are case-sensitive)",
            )
        overrides = self.__dict__.setdefault("_overrides", {})
        for name in [k for k in params if k in names and k not in OWN]:
            overrides[name] = params.pop(name)
        if "learner_params" in params:  # the constructor's **learner_params, as one mapping
            given = params.pop("learner_params")
            overrides.update(given if isinstance(given, Mapping) else {"learner_params": given})
        return super().set_params(**params) if params else self

    def _build(self, **fixed: Any) -> OnlineLearner:
        """A fresh learner: defaults < ``params`` < keywords and ``set_params`` < ``fixed``."""
        names = learner_defaults(self.learner, self._tasks)
        given = dict(self.params) if isinstance(self.params, Mapping) else self.params
        overrides = self.__dict__.get("_overrides", {})
        unknown = sorted(k for k in overrides if k not in names)
        if unknown and names:
            raise InputError(
                f"unknown parameter {unknown[0]!r} for {type(self).__name__}({self.learner!r})",
                expected="one of the learner's parameters: " + ", ".join(sorted(names)),
                received=", ".join(unknown),
                fix="check the spelling (parameters are case-sensitive)",
            )
        explicit = {**{k: overrides[k] for k in names if k in overrides}, **fixed}
        if explicit:
            given = {**(given or {}), **explicit}
        return build_learner(self.learner, given, self._tasks)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # NaN = an absent feature
        tags.input_tags.sparse = True
        return tags

    def _check_X(self, X: Any, reset: bool) -> np.ndarray | sp.csr_matrix:
        X = validate_data(
            self,
            X,
            reset=reset,
            accept_sparse="csr",
            dtype=np.float64,
            ensure_all_finite="allow-nan",
        )
        self._reject_sparse_nan(X)
        return X

    @staticmethod
    def _reject_sparse_nan(X: Any) -> None:
        if sp.issparse(X) and not np.isfinite(X.data).all():
            raise InputError(
                "a sparse X holds NaN",
                expected="finite stored values (an unstored entry is 0)",
                received="NaN",
                fix="pass a dense array to use NaN as 'absent', or drop the NaN",
            )

    def _fit_afresh(self, X: Any, y: Any) -> Any:
        """``partial_fit`` from scratch, the rows in a random order if ``shuffle`` (see ``_learn``)."""
        self.__dict__["_fit_shuffle"] = bool(self.__dict__.get("shuffle", False))
        try:
            return self.partial_fit(X, y)
        finally:
            self.__dict__.pop("_fit_shuffle", None)

    def _learn(self, X: np.ndarray | sp.csr_matrix, target: np.ndarray) -> None:
        """Run the learner test-then-train over the rows (columns are named by position):
        its :meth:`~evofeat.base.OnlineLearner.learn_many`, the compiled loop. In ``fit`` with
        ``shuffle``, in the order ``RandomState(random_state).permutation(n)``."""
        if self.__dict__.get("_fit_shuffle"):
            from sklearn.utils import check_random_state

            order = check_random_state(self.__dict__.get("random_state")).permutation(X.shape[0])
            X, target = X[order], target[order]
        self.learner_._learn_arrays(X, list(range(X.shape[1])), target)

    def _scores(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(score, label)`` of each row from the learner's compiled predict; nothing is learned."""
        check_is_fitted(self, "learner_")
        X = self._check_X(X, reset=False)
        return score_rows(self.learner_, X, range(X.shape[1]))


class OnlineClassifier(ClassifierMixin, _OnlineEstimator):
    """A binary or multiclass evofeat online learner as a scikit-learn classifier.

    A binary learner takes any two class labels, mapped to -1/+1:
    ``classes_[0]`` (the smaller, after sorting) to -1, ``classes_[1]`` to
    +1. A multiclass learner (``"stsd-multiclass"``, ``"pa-multiclass"``)
    takes any number of classes (``n_classes`` is set from the first
    ``fit``), coded by their position in ``classes_``.

    Parameters
    ----------
    learner
        A name in :data:`evofeat.registry.ONLINE` (``"pa-i"``, ``"stsd-i"``,
        ``"ofs"``, ``"stsd-multiclass"``...), an
        :class:`~evofeat.base.OnlineLearner` used as a template (it is
        cloned, never trained itself), or ``None``:
        :data:`evofeat.compat.DEFAULT_LEARNER`.
    params
        The learner's parameters (for a name), or overrides (for an instance).
    shuffle
        Whether ``fit`` visits the rows in a random order drawn from
        ``random_state`` (as ``SGDClassifier(shuffle=True)`` does), instead of
        the order given. Off by default: an online learner learns a stream in
        the order it arrives (its results are reported that way, and a
        stream's order can carry drift that shuffling would hide).
        ``partial_fit`` never shuffles. Turn it on for batch-style use on a
        file whose rows are sorted, e.g. by class: ``cross_val_score`` with
        ``KFold`` (no shuffle) then trains on rows of one class after another
        and the learner ends on the last class it saw (iris sorted by class:
        see the test ``test_shuffle_sorted_by_class``).
    random_state
        The seed or ``RandomState`` of the order when ``shuffle`` is on.
    **learner_params
        The learner's parameters as keywords (``C=0.5``), as ``set_params`` sets them.

    Attributes
    ----------
    learner_ : OnlineLearner
        The trained learner.
    classes_ : numpy.ndarray
        The two class labels; ``classes_[1]`` is the learner's +1.
    n_features_in_ : int
        Columns of ``X`` seen in ``fit``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.model_selection import cross_val_score
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = make_classification(n_samples=600, random_state=0)
    >>> clf = OnlineClassifier("pa-i", C=0.1)
    >>> round(float(clf.fit(X[:400], y[:400]).score(X[400:], y[400:])), 3)
    0.935
    >>> clf.predict_proba(X[:2]).round(3).tolist()
    [[0.995, 0.005], [0.02, 0.98]]
    >>> cross_val_score(make_pipeline(StandardScaler(), OnlineClassifier()), X, y, cv=3).round(2).tolist()
    [0.94, 0.95, 0.93]
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.utils import shuffle
    >>> X3, y3 = shuffle(*load_iris(return_X_y=True), random_state=0)  # not sorted by class
    >>> multi = make_pipeline(StandardScaler(), OnlineClassifier("pa-multiclass"))
    >>> cross_val_score(multi, X3, y3, cv=3).round(2).tolist()
    [0.8, 0.8, 0.86]
    """

    _tasks = ("binary", "multiclass")

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        try:
            task = self._build().task
        except InputError:  # parameters fit() will refuse with their own message
            task = "binary"
        tags.classifier_tags.multi_class = task == "multiclass"
        return tags

    def fit(self, X: Any, y: Any) -> OnlineClassifier:
        """Start afresh and learn from the rows in order (one pass; shuffled if ``shuffle``)."""
        for attr in ("learner_", "classes_"):
            self.__dict__.pop(attr, None)
        return self._fit_afresh(X, y)

    def partial_fit(self, X: Any, y: Any, classes: Any = None) -> OnlineClassifier:
        """Continue learning from the rows in order; ``classes`` (both labels) may be given on the first call."""
        first = not hasattr(self, "learner_")
        X, y = validate_data(
            self,
            X,
            y,
            reset=first,
            accept_sparse="csr",
            dtype=np.float64,
            ensure_all_finite="allow-nan",
        )
        self._reject_sparse_nan(X)
        check_classification_targets(y)
        if first:
            found = np.unique(y if classes is None else np.asarray(classes))
            model = self._build()
            if model.task == "multiclass" and found.size >= 2:
                model = self._build(n_classes=max(found.size, getattr(model, "n_classes", 0) or 0))
            elif found.size != 2:
                raise InputError(
                    f"Only binary classification is supported by {model!r}",
                    expected="two class labels, or a multiclass learner for more",
                    received=f"{found.size} class(es): {found[:5].tolist()}",
                    fix="pass classes=[neg, pos] if a batch holds one class; for more classes "
                    "use a multiclass learner, OnlineClassifier('stsd-multiclass') or "
                    "'pa-multiclass', or one-vs-rest (sklearn.multiclass.OneVsRestClassifier)",
                )
            self.learner_ = model
            self.classes_ = found
        unknown = ~np.isin(y, self.classes_)
        if unknown.any():
            raise InputError(
                "a label outside classes_",
                expected=f"one of {self.classes_.tolist()}",
                received=repr(y[unknown][0]),
                fix="pass every class in the first partial_fit",
            )
        if self._multiclass:
            self._learn(X, np.searchsorted(self.classes_, y).astype(np.float64))
        else:
            self._learn(X, np.where(y == self.classes_[1], 1, -1))
        return self

    @property
    def _multiclass(self) -> bool:
        return bool(self.learner_.task == "multiclass")

    def decision_function(self, X: Any) -> np.ndarray:
        """The learner's score of each row (positive: ``classes_[1]``); a multiclass learner's
        score of each row for each class (one column per class of ``classes_``; with two
        classes, as scikit-learn has it, the second's score minus the first's)."""
        check_is_fitted(self, "learner_")
        if not self._multiclass:
            return self._scores(X)[0]
        X = self._check_X(X, reset=False)
        scores = class_scores(self.learner_, X, range(X.shape[1]), self.classes_.size)
        return scores[:, 1] - scores[:, 0] if self.classes_.size == 2 else scores

    def predict(self, X: Any) -> np.ndarray:
        """The predicted class of each row (the learner's label; "no decision" is ``classes_[0]``)."""
        label = self._scores(X)[1]
        if self._multiclass:
            return np.asarray(self.classes_[label.astype(np.intp)])
        return np.asarray(self.classes_[(label > 0).astype(np.intp)])

    def predict_proba(self, X: Any) -> np.ndarray:
        """``[P(classes_[0]), P(classes_[1])]`` per row: the logistic function of the score
        (a multiclass learner: the softmax of its class scores).

        For margin learners (PA, perceptron, STSD, OFS) this squashes the
        margin: monotone in the score, not calibrated.
        """
        scores = self.decision_function(X)
        if self._multiclass and scores.ndim == 2:
            return np.asarray(softmax(scores, axis=1))
        p = expit(scores)
        return np.column_stack([1.0 - p, p])


class OnlineRegressor(RegressorMixin, _OnlineEstimator):
    """A regression evofeat online learner as a scikit-learn regressor.

    Parameters
    ----------
    learner
        A regression learner's registry name, an
        :class:`~evofeat.base.OnlineLearner` with ``task == "regression"``
        used as a template, or ``None``: online gradient descent on the
        square loss (``OGD(loss="square", lr=0.05)``).
    params
        The learner's parameters (for a name), or overrides (for an instance).
    shuffle, random_state
        Whether ``fit`` visits the rows in a random order drawn from
        ``random_state`` (off by default: the order given, as for
        :class:`OnlineClassifier`).
    **learner_params
        The learner's parameters as keywords (``lr=0.1``), as ``set_params`` sets them.

    Attributes
    ----------
    learner_ : OnlineLearner
        The trained learner.
    n_features_in_ : int
        Columns of ``X`` seen in ``fit``.

    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> X, y = make_regression(n_samples=2000, n_features=5, noise=1.0, random_state=0)
    >>> reg = OnlineRegressor(params={"lr": 0.1}).fit(X[:1500], y[:1500])
    >>> reg.learner_
    OGD(lr=0.1, loss='square')
    >>> round(float(reg.score(X[1500:], y[1500:])), 4)
    0.9999
    """

    _tasks = ("regression",)

    def fit(self, X: Any, y: Any) -> OnlineRegressor:
        """Start afresh and learn from the rows in order (one pass; shuffled if ``shuffle``)."""
        self.__dict__.pop("learner_", None)
        return self._fit_afresh(X, y)

    def partial_fit(self, X: Any, y: Any) -> OnlineRegressor:
        """Continue learning from the rows in order."""
        first = not hasattr(self, "learner_")
        X, y = validate_data(
            self,
            X,
            y,
            reset=first,
            accept_sparse="csr",
            dtype=np.float64,
            ensure_all_finite="allow-nan",
            y_numeric=True,
        )
        self._reject_sparse_nan(X)
        if first:
            self.learner_ = self._build()
        self._learn(X, np.asarray(y, dtype=np.float64))
        return self

    def predict(self, X: Any) -> np.ndarray:
        """The learner's prediction for each row."""
        return self._scores(X)[1]
